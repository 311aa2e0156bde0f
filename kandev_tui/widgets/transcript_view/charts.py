"""Charts plot only when they come within one screen of the viewport."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .lazy import made_entries

if TYPE_CHECKING:
    from ._parts import ViewParts
else:
    ViewParts = object  # a plain mixin at run time: see _parts


class ChartsInView(ViewParts):
    """Deferred plotting (a part of :class:`TranscriptView`)."""

    def on_resize(self) -> None:
        self.call_after_refresh(self.check_charts)

    def check_charts(self) -> None:
        """Plot the charts of entries within one screen height of the visible region."""
        if not self.draw_context.visible():
            return
        height = self.size.height
        if not height:
            return
        top, bottom = self.scroll_y - height, self.scroll_y + 2 * height
        E = made_entries()
        if E is None:  # no entry was ever made: no chart either
            return
        unplaced = False
        for widget in self.children:
            if not isinstance(widget, E.ToolCard):
                continue
            region = widget.virtual_region
            if region.height == 0:
                unplaced = True  # not laid out yet: look again after the next refresh
                continue
            if region.bottom < top or region.y > bottom:
                continue
            for chart in widget.query(E.ChartBlock):
                if not chart.plotted:
                    chart.ensure_plotted()
        if unplaced:
            self._ask_recheck()

    def _ask_recheck(self) -> None:
        if not self._recheck_pending:
            self._recheck_pending = True
            self.set_timer(0.05, self._recheck)

    def _recheck(self) -> None:
        self._recheck_pending = False
        self.check_charts()
