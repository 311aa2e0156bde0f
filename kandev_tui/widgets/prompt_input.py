from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

NEWLINE_KEYS = ("ctrl+j", "alt+enter")


class PromptInput(TextArea):
    """The multi-line prompt: Enter sends; Ctrl+J or Alt+Enter inserts a newline.

    Enter and the newline keys are handled by the prompt itself, in the order the keys came, like the
    characters typed before them. As priority bindings they ran in the app as each key arrived, ahead of the
    characters still queued for the prompt, so a burst ("Say hi" and Enter in one read of the terminal, as
    scripts and some pastes send it) sent "S" and left "ay hi" in the box, or sent nothing and lost the Enter.
    The bindings stay for the footer and the help.
    """

    BINDINGS = [
        Binding("enter", "submit", "Send"),
        Binding(",".join(NEWLINE_KEYS), "newline", "Newline"),
    ]

    DEFAULT_CSS = """
    PromptInput { height: auto; min-height: 3; max-height: 10; border: round $accent 50%; }
    PromptInput:focus { border: round $accent; }
    PromptInput:disabled { border: round $panel-lighten-2; }
    """

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, **kwargs) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)

    async def on_key(self, event: events.Key) -> None:
        # runs before TextArea's own key handler (which would insert a newline for enter): prevent_default skips it
        if event.key == "enter":
            action = self.action_submit
        elif event.key in NEWLINE_KEYS:
            action = self.action_newline
        else:
            return
        event.stop()
        event.prevent_default()
        if not self.read_only:
            action()

    def action_submit(self) -> None:
        text = self.text
        if text.strip():
            self.post_message(self.Submitted(text))
            self.clear()

    def action_newline(self) -> None:
        self.insert("\n")
