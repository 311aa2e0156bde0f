"""A search hit brought into view and marked; a hit in a collapsed tool group unfolds the call that mentions it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from textual.containers import VerticalScroll
from textual.widget import Widget

from kandev_tui.widgets.entries.base import SearchHit, first_match

from kandev_tui.widgets.transcript_view.lazy import entry_widgets

if TYPE_CHECKING:
    from kandev_tui.widgets.entries.base import EntryWidget


class SearchMarks:
    """The search's current hit in ``view``: ``show_entry(index)`` mounts an entry and gives its widget;
    ``stop_following()`` keeps new output from moving the view."""

    def __init__(self, view: VerticalScroll, show_entry: Callable[[int], EntryWidget | None],
                 stop_following: Callable[[], None]) -> None:
        self._view = view
        self._show_entry = show_entry
        self._stop_following = stop_following
        self._hit: Widget | None = None

    def reveal(self, index: int, key: str | None = None, needle: str | None = None) -> Widget | None:
        """Mount the entry (and its neighbourhood) if needed, scroll it to the top and return its widget.

        With ``key`` and ``needle`` (a search hit): the hit is marked, and unmarked when the next one is; a hit in a
        collapsed tool group expands the group and marks (and unfolds) the call that mentions it.
        """
        view = self._view
        self._stop_following()  # the user looks at something else: new output does not move the view
        widget = self._show_entry(index)
        if widget is None:
            return None
        self.mark(None)
        if isinstance(widget, entry_widgets().ToolGroup) and key is not None and needle is not None:
            group = widget
            if not group.expanded:
                group.action_toggle()

            def mark_call() -> None:
                call = group.call_view(key)
                self.mark(call or group, needle)
                view.call_after_refresh(self._bring_into_view, call or group, needle)

            view.call_after_refresh(mark_call)
            return widget
        if needle is None:
            view.call_after_refresh(lambda: view.scroll_to_widget(widget, animate=False, top=True))
            return widget

        def mark() -> None:  # once its parts are mounted (a card composes them when it is)
            self.mark(widget, needle)
            view.call_after_refresh(self._bring_into_view, widget, needle)

        view.call_after_refresh(mark)
        return widget

    def _bring_into_view(self, widget: Widget, needle: str, tries: int = 10) -> None:
        """Scroll to the row where ``widget`` draws the first match of ``needle`` (two rows of what comes before it
        above), or to its top when nothing it shows draws the match; once it is laid out (a call just unfolded)."""
        view = self._view
        if not widget.is_attached:
            return
        if not widget.size.height and tries:
            view.call_after_refresh(self._bring_into_view, widget, needle, tries - 1)
            return
        found = first_match(widget, needle.casefold())
        target, row = found if found is not None else (widget, 0)
        view.scroll_to_widget(target, animate=False, top=True, immediate=True)
        if row > 2:
            view.scroll_to(y=view.scroll_y + row - 2, animate=False, immediate=True)

    def mark(self, widget: Widget | None, needle: str | None = None) -> None:
        """Mark ``widget`` as the search's current hit (None: no hit is marked)."""
        previous = self._hit
        if isinstance(previous, SearchHit) and previous is not widget and previous.is_attached:
            previous.show_hit(None)
        self._hit = widget
        if isinstance(widget, SearchHit):
            widget.show_hit(needle)
