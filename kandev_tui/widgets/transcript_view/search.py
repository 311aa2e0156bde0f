"""A search hit brought into view and marked; a hit in a collapsed tool group unfolds the call that mentions it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget

from kandev_tui.widgets.base import SearchHit, first_match

from .lazy import entry_widgets

if TYPE_CHECKING:
    from ._parts import ViewParts
else:
    ViewParts = object  # a plain mixin at run time: see _parts


class Finding(ViewParts):
    """Search hits on screen (a part of :class:`TranscriptView`)."""

    def reveal(self, index: int, key: str | None = None, needle: str | None = None) -> Widget | None:
        """Mount the entry (and its neighbourhood) if needed, scroll it to the top and return its widget.

        With ``key`` and ``needle`` (a search hit): the hit is marked, and unmarked when the next one is; a hit in a
        collapsed tool group expands the group and marks (and unfolds) the call that mentions it.
        """
        self.set_following(False)  # the user looks at something else: new output does not move the view
        widget = self.show_entry(index)
        if widget is None:
            return None
        self.mark_hit(None)
        if isinstance(widget, entry_widgets().ToolGroup) and key is not None and needle is not None:
            if not widget.expanded:
                widget.action_toggle()

            def mark_call() -> None:
                call = widget.call_view(key)
                self.mark_hit(call or widget, needle)
                self.call_after_refresh(self._bring_into_view, call or widget, needle)

            self.call_after_refresh(mark_call)
            return widget
        if needle is None:
            self.call_after_refresh(lambda: self.scroll_to_widget(widget, animate=False, top=True))
            return widget

        def mark() -> None:  # once its parts are mounted (a card composes them when it is)
            self.mark_hit(widget, needle)
            self.call_after_refresh(self._bring_into_view, widget, needle)

        self.call_after_refresh(mark)
        return widget

    def _bring_into_view(self, widget: Widget, needle: str, tries: int = 10) -> None:
        """Scroll to the row where ``widget`` draws the first match of ``needle`` (two rows of what comes before it
        above), or to its top when nothing it shows draws the match; once it is laid out (a call just unfolded)."""
        if not widget.is_attached:
            return
        if not widget.size.height and tries:
            self.call_after_refresh(self._bring_into_view, widget, needle, tries - 1)
            return
        found = first_match(widget, needle.casefold())
        target, row = found if found is not None else (widget, 0)
        self.scroll_to_widget(target, animate=False, top=True, immediate=True)
        if row > 2:
            self.scroll_to(y=self.scroll_y + row - 2, animate=False, immediate=True)

    def mark_hit(self, widget: Widget | None, needle: str | None = None) -> None:
        """Mark ``widget`` as the search's current hit (None: no hit is marked)."""
        previous = self._hit_widget
        if isinstance(previous, SearchHit) and previous is not widget and previous.is_attached:
            previous.show_hit(None)
        self._hit_widget = widget
        if isinstance(widget, SearchHit):
            widget.show_hit(needle)
