from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Collapsible, Static

from kandev_tui.transcript.items import Item

from kandev_tui.widgets.entries.base import EntryWidget, safe_text


class Thought(EntryWidget):
    """The agent's reasoning, collapsed by default."""

    DEFAULT_CSS = """
    Thought { height: auto; margin: 1 0 0 0; }
    Thought Collapsible { border: none; padding: 0; background: transparent; }
    Thought .body { color: $text-muted; padding: 0 1 0 3; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry")
        self._text = ""
        self._body = Static(classes="body")
        self.update_item(item)

    def compose(self) -> ComposeResult:
        with Collapsible(title="Thought", collapsed=True):
            yield self._body

    def update_item(self, item: Item) -> None:
        self._text = safe_text(item.payload.get("text", ""))
        self._body.update(Text(self._text, style="italic"))

    @property
    def searchable_text(self) -> str:
        return self._text
