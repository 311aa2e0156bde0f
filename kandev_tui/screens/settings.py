from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select, Static, Switch

from kandev_tui.textual_hooks import DrawsInputAtOnce
from kandev_tui.settings import THEMES
from kandev_tui.widgets.key_footer import KeyFooter


class SettingsScreen(DrawsInputAtOnce, ModalScreen[None]):
    """Settings that apply at once and are saved atomically (F2)."""

    BINDINGS = [Binding("escape,f2", "dismiss", "Close")]
    DEFAULT_CSS = """
    SettingsScreen { align: center middle; }
    SettingsScreen > VerticalScroll { width: 90%; max-width: 72; height: auto; max-height: 90%; border: round $accent;
                                      background: $surface; padding: 0 1; }
    SettingsScreen Horizontal { height: auto; margin: 1 0 0 0; }
    SettingsScreen Label { width: 1fr; padding: 1 0 0 0; }
    SettingsScreen Select { width: 24; }
    SettingsScreen Input { width: 10; }
    SettingsScreen .note { color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        settings = self.app.settings_store.settings
        with VerticalScroll():
            yield Static("[b]Settings[/b]  (saved as you change them · escape to close)")
            yield Static(Text(_short(self.app.settings_store.path)), classes="note")
            with Horizontal():
                yield Label("Theme")
                yield Select([(t, t) for t in THEMES], value=settings.theme if settings.theme in THEMES else THEMES[0],
                             allow_blank=False, id="theme")
            with Horizontal():
                yield Label("Chart animation")
                yield Switch(value=settings.chart_animation, id="chart_animation")
            if self.app.animation_level == "none":
                yield Static("Reduced motion is on (TEXTUAL_ANIMATIONS=none): charts never animate.", classes="note")
            with Horizontal():
                yield Label("Cards per turn")
                yield Input(str(settings.card_limit), type="integer", id="card_limit")
            with Horizontal():
                yield Label("Rich-output guidance for agents")
                yield Switch(value=settings.inject_guidance, id="inject_guidance")
            with Horizontal():
                yield Label("Edits as cards of their own (new sessions)")
                yield Switch(value=settings.edits_inline, id="edits_inline")
            with Horizontal():
                yield Label("Ring the bell when the agent needs you elsewhere")
                yield Switch(value=settings.attention_bell, id="attention_bell")
            with Horizontal():
                yield Label("Say it in the terminal's title")
                yield Switch(value=settings.attention_title, id="attention_title")
            with Horizontal():
                yield Label("And in a desktop notification (OSC 777 / OSC 9)")
                yield Switch(value=settings.attention_desktop, id="attention_desktop")
            with Horizontal():
                yield Label("Agents read files through kandev-tui (new sessions)")
                yield Switch(value=settings.client_fs_read, id="client_fs_read")
            with Horizontal():
                yield Label("Agents write files through kandev-tui (new sessions)")
                yield Switch(value=settings.client_fs_write, id="client_fs_write")
            with Horizontal():
                yield Label("Agents run commands in kandev-tui's terminals (new sessions)")
                yield Switch(value=settings.client_terminals, id="client_terminals")
            with Horizontal():
                yield Label("Say what each turn changed (git workspaces, new sessions)")
                yield Switch(value=settings.track_changes, id="track_changes")
            with Horizontal():
                yield Label("Keep checkpoints for (days)")
                yield Input(str(settings.checkpoint_days), type="integer", id="checkpoint_days")
        yield KeyFooter()  # over the transcript's: the keys of this screen (escape closes it), not of the one below

    def on_mount(self) -> None:
        self.query_one("#theme", Select).focus()  # the keys work at once: enter opens the themes, tab moves on

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "theme" and isinstance(event.value, str):
            self.app.change_setting(theme=event.value)

    def on_switch_changed(self, event: Switch.Changed) -> None:
        self.app.change_setting(**{event.switch.id: event.value})

    def on_input_changed(self, event: Input.Changed) -> None:
        bounds = {"card_limit": (1, 100), "checkpoint_days": (1, 3650)}.get(event.input.id or "")
        if bounds is None:
            return
        try:
            value = int(event.value)
        except ValueError:
            return
        if bounds[0] <= value <= bounds[1]:
            self.app.change_setting(**{event.input.id: value})


def _short(path: Path) -> str:
    """The settings file's path with the home folder as ``~`` (a 45-column screen fits it whole)."""
    home = Path.home()
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return str(path)
