"""Charts plot only when they come within one screen of the viewport."""

from __future__ import annotations

import time
from typing import Any, Callable

from textual.containers import VerticalScroll

from kandev_tui.base.pacing import CHART_SLICE, DRAW_AGAIN
from kandev_tui.ui.user_input import user_input

from kandev_tui.widgets.transcript_view.lazy import made_entries

RECHECK = 0.05  # seconds before charts not laid out yet are looked at again


class ChartPlotter:
    """Plots the charts of ``view`` near its viewport, while ``visible()`` (the terminal in view)."""

    def __init__(self, view: VerticalScroll, visible: Callable[[], bool]) -> None:
        self._view = view
        self._visible = visible
        self._pending = False  # the rest of the charts in view are plotted after a pause
        self._recheck_pending = False

    def check(self, at_once: bool = False) -> None:
        """Plot the charts of entries within one screen height of the visible region: those on screen first,
        :data:`~kandev_tui.base.pacing.CHART_SLICE` of the UI's time at a time (one chart at least), the rest
        :data:`~kandev_tui.base.pacing.DRAW_AGAIN` later, and none while the user's input is on its way (a chart costs
        plotext 10-30 ms: several coming into view at once held a key behind them all). ``at_once``: every one now
        (a snapshot, a test)."""
        view = self._view
        if not self._visible():
            return
        height = view.size.height
        if not height:
            return
        top, bottom = view.scroll_y - height, view.scroll_y + 2 * height
        E = made_entries()
        if E is None:  # no entry was ever made: no chart either
            return
        unplaced = False
        charts: list[tuple[bool, Any]] = []  # (off screen, chart)
        for widget in view.children:
            if not isinstance(widget, E.ToolCard):
                continue
            region = widget.virtual_region
            if region.height == 0:
                unplaced = True  # not laid out yet: look again after the next refresh
                continue
            if region.bottom < top or region.y > bottom:
                continue
            off_screen = region.bottom < view.scroll_y or region.y > view.scroll_y + height
            charts += [(off_screen, chart) for chart in widget.query(E.ChartBlock) if not chart.plotted]
        charts.sort(key=lambda pair: pair[0])  # (stable: in order, those on screen first)
        if charts and not at_once and user_input(view.app).waiting():
            self._later()
            charts = []
        started = time.perf_counter()
        for index, (_, chart) in enumerate(charts):
            chart.ensure_plotted()
            if not at_once and index + 1 < len(charts) and time.perf_counter() - started >= CHART_SLICE:
                self._later()
                break
        if unplaced and not self._recheck_pending:
            self._recheck_pending = True
            view.set_timer(RECHECK, self._recheck)

    def _later(self) -> None:
        if not self._pending:
            self._pending = True
            self._view.set_timer(DRAW_AGAIN, self._again)

    def _again(self) -> None:
        self._pending = False
        self.check()

    def _recheck(self) -> None:
        self._recheck_pending = False
        self.check()
