from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from kandev_tui.transcript.items import Item

from .base import EntryWidget, safe_text

MARKS = {"completed": ("✔", "green"), "in_progress": ("◐", "yellow"), "pending": ("○", "")}


class Plan(EntryWidget):
    """The agent's plan as a checklist that updates in place."""

    DEFAULT_CSS = """
    Plan { height: auto; margin: 1 0 0 0; padding: 0 1; border: round $panel-lighten-2; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry")
        self._body = Static()
        self._text = ""
        self.update_item(item)

    def compose(self):
        yield self._body

    def update_item(self, item: Item) -> None:
        entries = [e for e in item.payload.get("entries", []) if isinstance(e, dict)]
        done = sum(1 for e in entries if e.get("status") == "completed")
        text = Text()
        text.append(f"Plan {done}/{len(entries)}\n", style="bold")
        for entry in entries:
            mark, style = MARKS.get(entry.get("status"), ("○", ""))
            content = safe_text(entry.get("content", ""), keep_newlines=False)
            text.append(f"{mark} ", style=style)
            text.append(content + "\n", style="dim strike" if entry.get("status") == "completed" else "")
        text.rstrip()
        self._text = text.plain
        self._body.update(text)

    @property
    def searchable_text(self) -> str:
        return self._text
