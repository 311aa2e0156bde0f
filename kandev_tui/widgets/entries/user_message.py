from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from kandev_tui.transcript.items import Item

from kandev_tui.widgets.entries.base import EntryWidget, grown_text, safe_text


class UserMessage(EntryWidget):
    """What the user sent (or, loading a session, what the agent says the user sent, streamed as its other texts
    are: a version that only grew since the one held adds what came, made safe)."""

    DEFAULT_CSS = """
    UserMessage { height: auto; margin: 1 0 0 0; padding: 0 1; border-left: thick $accent; background: $boost; }
    UserMessage > .who { color: $accent; text-style: bold; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry")
        self._parts: list[str] = []  # the text made safe, as it came
        self._body = Static(classes="body")
        self.update_item(item)

    def compose(self) -> ComposeResult:
        yield Static("You", classes="who")
        yield self._body

    def update_item(self, item: Item) -> None:
        held, self.item = self.item, item
        grown = grown_text(held, item)
        if grown is None:
            self._parts, grown = [], str(item.payload.get("text", ""))
        if grown:
            self._parts.append(safe_text(grown))
        text = Text(self.searchable_text)
        mentions = [safe_text(str(m), keep_newlines=False)[:200] for m in item.payload.get("mentions") or []]
        if mentions:  # the files sent with it
            text.append("\n+ " + ", ".join(mentions), style="dim")
        self._body.update(text)

    @property
    def searchable_text(self) -> str:
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""
