"""A question with two answers (or three), asked before something that cannot be undone (deleting a stored session,
putting files back)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from kandev_tui.widgets.chrome.key_footer import KeyFooter


class ConfirmScreen(ModalScreen["bool | str"]):
    """``question`` (plain text, shown inert) with ``yes`` and ``No``: dismissed with True only for yes (``y``, or
    the button); ``n``, escape and the other button say no. ``also``: a third answer, a wider yes (``a``, or its
    button), dismissed with "also". The safe answer has the focus."""

    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n", "answer(False)", "No"),
                Binding("a", "answer('also')", "All"),
                Binding("escape", "answer(False)", "Keep", show=False)]

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 64; max-width: 100%; height: auto; padding: 1 2; border: round $error;
                               background: $surface; }
    ConfirmScreen Horizontal { height: auto; margin: 1 0 0 0; }
    ConfirmScreen Button { margin: 0 1 0 0; }
    """

    def __init__(self, question: str, yes: str, also: str | None = None) -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.also = also

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.question))
            with Horizontal():
                yield Button(Text(f"{self.yes} (y)"), id="yes", variant="error", compact=True)
                if self.also is not None:
                    yield Button(Text(f"{self.also} (a)"), id="also", variant="error", compact=True)
                yield Button("Keep it (n)", id="no", compact=True)
        yield KeyFooter()  # its keys, not those of the list beneath (whose "d Delete" asked this)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss("also" if event.button.id == "also" else event.button.id == "yes")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.also is not None or parameters != ("also",)

    def action_answer(self, yes: bool | str) -> None:
        self.dismiss(yes)
