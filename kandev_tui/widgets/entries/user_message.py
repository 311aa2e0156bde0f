from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from kandev_tui.transcript.items import Item

from kandev_tui.widgets.entries.base import EntryWidget, safe_text


class UserMessage(EntryWidget):
    """What the user sent."""

    DEFAULT_CSS = """
    UserMessage { height: auto; margin: 1 0 0 0; padding: 0 1; border-left: thick $accent; background: $boost; }
    UserMessage > .who { color: $accent; text-style: bold; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry")
        self._text = ""
        self._body = Static(classes="body")
        self.update_item(item)

    def compose(self) -> ComposeResult:
        yield Static("You", classes="who")
        yield self._body

    def update_item(self, item: Item) -> None:
        self._text = safe_text(item.payload.get("text", ""))
        text = Text(self._text)
        mentions = [safe_text(str(m), keep_newlines=False)[:200] for m in item.payload.get("mentions") or []]
        if mentions:  # the files sent with it
            text.append("\n+ " + ", ".join(mentions), style="dim")
        self._body.update(text)

    @property
    def searchable_text(self) -> str:
        return self._text
