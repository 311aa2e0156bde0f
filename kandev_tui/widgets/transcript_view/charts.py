"""Charts plot only when they come within one screen of the viewport."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from kandev_tui.base.pacing import CHART_SLICE, DRAW_AGAIN
from kandev_tui.ui.user_input import user_input

from .lazy import made_entries

if TYPE_CHECKING:
    from ._parts import ViewParts
else:
    ViewParts = object  # a plain mixin at run time: see _parts


class ChartsInView(ViewParts):
    """Deferred plotting (a part of :class:`TranscriptView`)."""

    _plot_pending = False  # the rest of the charts in view are plotted after a pause

    def on_resize(self) -> None:
        self.call_after_refresh(self.check_charts)

    def check_charts(self, at_once: bool = False) -> None:
        """Plot the charts of entries within one screen height of the visible region: those on screen first,
        :data:`~kandev_tui.base.pacing.CHART_SLICE` of the UI's time at a time (one chart at least), the rest
        :data:`~kandev_tui.base.pacing.DRAW_AGAIN` later, and none while the user's input is on its way (a chart costs
        plotext 10-30 ms: several coming into view at once held a key behind them all). ``at_once``: every one now
        (a snapshot, a test)."""
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
        charts: list[tuple[bool, Any]] = []  # (off screen, chart)
        for widget in self.children:
            if not isinstance(widget, E.ToolCard):
                continue
            region = widget.virtual_region
            if region.height == 0:
                unplaced = True  # not laid out yet: look again after the next refresh
                continue
            if region.bottom < top or region.y > bottom:
                continue
            off_screen = region.bottom < self.scroll_y or region.y > self.scroll_y + height
            charts += [(off_screen, chart) for chart in widget.query(E.ChartBlock) if not chart.plotted]
        charts.sort(key=lambda pair: pair[0])  # (stable: in order, those on screen first)
        if charts and not at_once and user_input(self.app).waiting():
            self._plot_later()
            charts = []
        started = time.perf_counter()
        for index, (_, chart) in enumerate(charts):
            chart.ensure_plotted()
            if not at_once and index + 1 < len(charts) and time.perf_counter() - started >= CHART_SLICE:
                self._plot_later()
                break
        if unplaced:
            self._ask_recheck()

    def _plot_later(self) -> None:
        if not self._plot_pending:
            self._plot_pending = True
            self.set_timer(DRAW_AGAIN, self._plot_again)

    def _plot_again(self) -> None:
        self._plot_pending = False
        self.check_charts()

    def _ask_recheck(self) -> None:
        if not self._recheck_pending:
            self._recheck_pending = True
            self.set_timer(0.05, self._recheck)

    def _recheck(self) -> None:
        self._recheck_pending = False
        self.check_charts()
