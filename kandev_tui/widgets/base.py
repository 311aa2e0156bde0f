"""What every transcript entry widget shares: it is told about item changes."""

from __future__ import annotations

from typing import Any

from textual.widget import Widget

from kandev_tui.transcript.items import Item


class EntryWidget(Widget):
    """A widget for one transcript entry; ``update_item`` is called with each new item state."""

    item: Item | None = None

    def update_item(self, item: Item) -> None:
        """Show a new state of the entry's item (entries override this to redraw)."""
        self.item = item

    @property
    def searchable_text(self) -> str:
        return ""

    @property
    def settling(self) -> bool:
        """Still being put on screen (mounting, or parsing what it shows): the transcript's next batch waits."""
        return not self.is_mounted


def safe_text(value: Any, keep_newlines: bool = True) -> str:
    """Agent text made inert (the one sanitising path, :func:`kandev_tui.sanitize.visible`)."""
    from kandev_tui.sanitize import visible

    return visible(value if isinstance(value, str) else str(value), keep_newlines)


def mount_into(parent: Widget, *widgets: Widget, **where: Any) -> bool:
    """Mount ``widgets`` into ``parent`` unless it has left the screen meanwhile (the transcript's window moved
    or was rebuilt between a widget's creation and this call); says whether it mounted."""
    if not parent.is_attached:
        return False
    parent.mount(*widgets, **where)
    return True
