from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Collapsible, Static

from kandev_tui.transcript.items import Item

from kandev_tui.widgets.entries.base import EntryWidget, grown_text, safe_text


class Thought(EntryWidget):
    """The agent's reasoning, collapsed by default. A streaming thought takes only what came since the version it
    holds (made safe, appended), and its body is drawn when it is expanded: a long thought costs each update what
    came, not the whole text again."""

    DEFAULT_CSS = """
    Thought { height: auto; margin: 1 0 0 0; }
    Thought Collapsible { border: none; padding: 0; background: transparent; }
    Thought .body { color: $text-muted; padding: 0 1 0 3; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry")
        self._parts: list[str] = []  # the text made safe, as it came
        self._shown: Text = Text(style="italic")
        self._drawn = True  # the body shows all of the text (else it is drawn when expanded)
        self._collapsible = Collapsible(title="Thought", collapsed=True)
        self._body = Static(classes="body")
        self.update_item(item)

    def compose(self) -> ComposeResult:
        with self._collapsible:
            yield self._body

    def update_item(self, item: Item) -> None:
        held, self.item = self.item, item
        grown = grown_text(held, item)
        if grown is None:
            self._parts, self._shown = [], Text(style="italic")
            grown = str(item.payload.get("text", ""))
        if grown:
            safe = safe_text(grown)
            self._parts.append(safe)
            self._shown.append(safe)
        self._drawn = False
        if not self._collapsible.collapsed:
            self._draw()

    def _draw(self) -> None:
        if not self._drawn:
            self._drawn = True
            self._body.update(self._shown)  # (made into what it draws now: the text may grow on)

    def on_collapsible_expanded(self) -> None:
        self._draw()

    @property
    def searchable_text(self) -> str:
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""
