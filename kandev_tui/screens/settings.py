from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select, Static, Switch

from kandev_tui.base.settings import DECLARED, SettingError, SettingsStore
from kandev_tui.widgets.chrome.key_footer import KeyFooter

BY_NAME = {declared.name: declared for declared in DECLARED}


class SettingsScreen(ModalScreen[None]):
    """Settings that apply at once and are saved atomically (F2): a row per declared setting
    (:data:`kandev_tui.base.settings.DECLARED`), read from ``store``; a change posts :class:`Changed` (the app applies and
    saves it)."""

    BINDINGS = [Binding("escape,f2", "dismiss", "Close")]
    DEFAULT_CSS = """
    SettingsScreen { align: center middle; }
    SettingsScreen > VerticalScroll { width: 90%; max-width: 72; height: auto; max-height: 90%; border: round $accent;
                                      background: $surface; padding: 0 1; }
    SettingsScreen Horizontal { height: auto; margin: 1 0 0 0; }
    SettingsScreen Label { width: 1fr; padding: 1 2 0 0; }  /* (at 45 columns a label ran into its switch) */
    SettingsScreen Select { width: 24; }
    SettingsScreen Input { width: 10; }
    SettingsScreen .note { color: $text-muted; }
    """

    class Changed(Message):
        """The user changed a setting on the screen (to a value its check takes)."""

        def __init__(self, name: str, value: Any) -> None:
            super().__init__()
            self.name = name
            self.value = value

    def __init__(self, store: SettingsStore) -> None:
        super().__init__()
        self.store = store

    def compose(self) -> ComposeResult:  # (each row's value is set as the screen is shown: on_screen_resume)
        with VerticalScroll():
            yield Static("[b]Settings[/b]  (saved as you change them · escape to close)")
            yield Static(Text(_short(self.store.path)), classes="note")
            for declared in DECLARED:
                with Horizontal():
                    yield Label(declared.screen_label)
                    if declared.name == "theme":  # the app's themes (the list its warning offers), the one in use
                        themes = sorted(self.app.available_themes)
                        yield Select([(t, t) for t in themes], value=self.app.theme, allow_blank=False, id="theme")
                    elif declared.bounds is not None:
                        yield Input(type="integer", id=declared.name)
                    else:
                        yield Switch(id=declared.name)
                if declared.name == "chart_animation" and self.app.animation_level == "none":
                    yield Static("Reduced motion is on (TEXTUAL_ANIMATIONS=none): charts never animate.",
                                 classes="note")
        yield KeyFooter()  # over the transcript's: the keys of this screen (escape closes it), not of the one below

    def on_screen_resume(self) -> None:
        """Shown (the screen is made once and kept): each row says its setting as it is now (the command palette
        changes the theme too), and the theme has the focus, so the keys work at once: enter opens the themes, tab
        moves on."""
        settings = self.store.settings
        with self.prevent(Select.Changed, Switch.Changed, Input.Changed):  # what is shown, not a change
            for declared in DECLARED:
                value = getattr(settings, declared.name)
                if declared.name == "theme":  # the one in use (a theme the app lacks is not: it said so at start)
                    self.query_one("#theme", Select).value = value if value in self.app.available_themes \
                        else self.app.theme
                elif declared.bounds is not None:
                    self.query_one(f"#{declared.name}", Input).value = str(value)
                else:
                    self.query_one(f"#{declared.name}", Switch).value = value
        self.query_one("#theme", Select).focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        # only what the user changed is written: the value shown as the screen opens is no change
        if event.select.id == "theme" and isinstance(event.value, str) and event.value != self.app.theme:
            self.post_message(self.Changed("theme", event.value))

    def on_switch_changed(self, event: Switch.Changed) -> None:
        if event.switch.id:
            self.post_message(self.Changed(event.switch.id, event.value))

    def on_input_changed(self, event: Input.Changed) -> None:
        declared = BY_NAME.get(event.input.id or "")
        if declared is None or declared.bounds is None:
            return
        try:
            value = declared.check(event.value)
        except SettingError:
            return  # not (yet) a number it takes: nothing changes while it is typed
        self.post_message(self.Changed(declared.name, value))


def _short(path: Path) -> str:
    """The settings file's path with the home folder as ``~`` (a 45-column screen fits it whole)."""
    home = Path.home()
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return str(path)
