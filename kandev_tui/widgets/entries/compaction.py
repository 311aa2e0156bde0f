"""The agent compacted its context: one row, by its status (compacting, compacted, failed, cancelled), that expands
to the summary the agent kept."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from kandev_tui.transcript.items import Item

from kandev_tui.widgets.entries.base import CollapsibleEntry, safe_text

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


class CompactionRow(CollapsibleEntry):
    """See the module docstring."""

    DEFAULT_CSS = """
    CompactionRow .body { color: $text-muted; padding: 0 1 0 3; }
    CompactionRow.failed CollapsibleTitle { color: $error; }
    CompactionRow .error { color: $error; padding: 0 1 0 4; }
    """

    def __init__(self, item: Item) -> None:
        self._error = Static(classes="error")  # why it failed, wrapping under the row (not cut with the title)
        super().__init__(item)

    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield self._error

    def update_item(self, item: Item) -> None:
        self.item = item
        summary = safe_text(item.payload.get("summary") or "")
        self.set_class(item.payload.get("status") == "failed", "failed")
        error = safe_text(item.payload.get("error") or "")
        self._error.update(Text(error))
        self._error.display = bool(error)
        body = Text(summary or "(the agent kept no summary)", style="italic" if summary else "dim")
        self.show(compaction_title(item), body)
        if error:
            self._text += f"\n{error}"  # searched too
