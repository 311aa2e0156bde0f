"""The agent compacted its context: one row, by its status (compacting, compacted, failed, cancelled), that expands
to the summary the agent kept."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Collapsible, Static

from kandev_tui.transcript.items import Item

from .base import EntryWidget, safe_text

TITLES = {"in_progress": "⟳ Compacting the context…", "completed": "✔ Context compacted",
          "failed": "✖ Compacting the context failed", "cancelled": "Compacting the context was cancelled"}


def compaction_title(item: Item) -> str:
    payload = item.payload
    status = payload.get("status", "in_progress")
    title = TITLES.get(status, f"Context compaction: {safe_text(str(status), keep_newlines=False)[:40]}")
    if status == "in_progress" and payload.get("unfinished"):
        title = "⟳ Compacting the context (not finished when the turn ended)"
    return title + context_said(payload)


def _tokens(count: int) -> str:
    return f"{count / 1000:.0f}k" if count >= 10_000 else f"{count / 1000:.1f}k" if count >= 1000 else str(count)


def context_said(payload: dict) -> str:
    """What the context held before the compaction, and after it once the agent reported it (its usage_update)."""
    before, after, size = payload.get("context_before"), payload.get("context_after"), payload.get("context_size")
    if not isinstance(before, int) and not isinstance(after, int):
        return ""
    said = " · " + (_tokens(before) if isinstance(before, int) else "?")
    if isinstance(after, int):
        said += f" → {_tokens(after)}"
    return said + (f" of {_tokens(size)} tokens" if isinstance(size, int) and size > 0 else " tokens")


class CompactionRow(EntryWidget):
    """See the module docstring."""

    DEFAULT_CSS = """
    CompactionRow { height: auto; margin: 1 0 0 0; }
    CompactionRow Collapsible { border: none; padding: 0; background: transparent; }
    CompactionRow .body { color: $text-muted; padding: 0 1 0 3; }
    CompactionRow.failed CollapsibleTitle { color: $error; }
    CompactionRow .error { color: $error; padding: 0 1 0 4; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry")
        self._body = Static(classes="body")
        self._error = Static(classes="error")  # why it failed, wrapping under the row (not cut with the title)
        self._collapsible = Collapsible(title=Content(compaction_title(item)), collapsed=True)
        self._text = ""
        self.update_item(item)

    def compose(self) -> ComposeResult:
        with self._collapsible:
            yield self._body
        yield self._error

    def update_item(self, item: Item) -> None:
        self.item = item
        title = compaction_title(item)
        self._collapsible.title = Content(title)  # plain text: never read as markup
        summary = safe_text(item.payload.get("summary") or "")
        self._body.update(Text(summary or "(the agent kept no summary)", style="italic" if summary else "dim"))
        self.set_class(item.payload.get("status") == "failed", "failed")
        error = safe_text(item.payload.get("error") or "")
        self._error.update(Text(error))
        self._error.display = bool(error)
        self._text = f"{title}\n{error}\n{summary}"

    @property
    def searchable_text(self) -> str:
        return self._text
