"""The agent's choices for the session: its modes, and each of its config options' values (model, thought level…).

One list, a heading per choice, the current value marked; enter chooses, and the app sends it
(``session/set_mode``, ``session/set_config_option``, ``session/set_model``) and remembers it for the agent's next
sessions. What the agent refuses is said, and its own choice stays.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kandev_tui.base.sanitize import visible
from kandev_tui.session.controls import Control, Controls
from kandev_tui.widgets.chrome.key_footer import KeyFooter


class ChoicesScreen(ModalScreen["tuple[Control, str] | None"]):
    """See the module docstring; dismissed with the (control, value) chosen, or None."""

    BINDINGS = [Binding("escape,ctrl+o", "dismiss(None)", "Close")]
    DEFAULT_CSS = """
    ChoicesScreen { align: center middle; }
    ChoicesScreen > Vertical { width: 90%; max-width: 80; height: auto; max-height: 90%; border: round $accent;
                               background: $surface; padding: 0 1; }
    ChoicesScreen OptionList, ChoicesScreen OptionList:focus { height: auto; max-height: 24; border: none; padding: 0; }
    ChoicesScreen .note { color: $text-muted; }
    """

    def __init__(self, agent: str, controls: Controls) -> None:
        super().__init__()
        self.agent = agent
        self.controls = controls
        self._values: dict[str, tuple[Control, str]] = {}  # option id → (control, value)

    def compose(self) -> ComposeResult:
        options: list[Option | None] = []
        first_current = None
        for number, control in enumerate(self.controls.controls):
            if options:
                options.append(None)  # a separator between two choices
            options.append(Option(Text(visible(control.name, keep_newlines=False), style="bold"), disabled=True))
            for choice in control.choices:
                option_id = f"{number}:{len(self._values)}"
                self._values[option_id] = (control, choice.value)
                current = choice.value == control.current
                text = Text.assemble(("● " if current else "  ", "green" if current else ""),
                                     visible(choice.name, keep_newlines=False)[:40])
                if choice.description:
                    text.append("  " + visible(choice.description, keep_newlines=False)[:90], style="dim")
                options.append(Option(text, id=option_id))
                if current and first_current is None:
                    first_current = option_id
        with Vertical() as box:
            box.border_title = Content(f"{visible(self.agent, keep_newlines=False)[:40]}: mode and model")
            yield Static(Text("enter chooses (remembered for this agent's next sessions) · escape closes"),
                         classes="note")
            self.options = OptionList(*options)
            yield self.options
        yield KeyFooter()
        self._first_current = first_current

    def on_mount(self) -> None:
        self.options.focus()
        if self._first_current is not None:
            self.options.highlighted = self.options.get_option_index(self._first_current)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        chosen = self._values.get(event.option.id or "")
        if chosen is not None:
            self.dismiss(chosen)
