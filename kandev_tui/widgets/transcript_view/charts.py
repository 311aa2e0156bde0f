"""Charts plot only when they come within one screen of the viewport, told by the charts themselves: each says when
it is mounted and gone, and when Textual first draws it unplotted (it is on screen); nothing looks for them."""

from __future__ import annotations

import time
from typing import Any, Callable

from textual.containers import VerticalScroll

from kandev_tui.base.pacing import CHART_SLICE, DRAW_AGAIN
from kandev_tui.ui.user_input import user_input


class ChartPlotter:
    """Plots the charts of ``view`` near its viewport, while ``visible()`` (the terminal in view). The charts tell it
    what they are (:class:`~kandev_tui.widgets.context.ChartsTell`): the mounted ones are looked at when the view
    moves or takes a batch, and one drawn unplotted (it came on screen before it was laid out near the viewport)
    asks to be plotted after that frame."""

    def __init__(self, view: VerticalScroll, visible: Callable[[], bool]) -> None:
        self._view = view
        self._visible = visible
        self._charts: dict[Any, None] = {}  # the charts mounted in the view, in the order they were
        self._pending = False  # the rest of the charts in view are plotted after a pause
        self._asked = False  # a chart drawn unplotted asked: a look is on its way

    # -- what the charts tell ---------------------------------------------------------

    def mounted(self, chart: Any) -> None:
        self._charts[chart] = None

    def gone(self, chart: Any) -> None:
        self._charts.pop(chart, None)

    def drawn(self, chart: Any) -> None:
        if not self._asked:
            self._asked = True
            self._view.call_later(self._drawn_look)

    def _drawn_look(self) -> None:
        self._asked = False
        self.check()

    @property
    def charts(self) -> int:
        """How many charts the view has mounted."""
        return len(self._charts)

    # -- plotting -----------------------------------------------------------------------

    def check(self, at_once: bool = False) -> None:
        """Plot the charts of entries within one screen height of the visible region: those on screen first,
        :data:`~kandev_tui.base.pacing.CHART_SLICE` of the UI's time at a time (one chart at least), the rest
        :data:`~kandev_tui.base.pacing.DRAW_AGAIN` later, and none while the user's input is on its way (a chart costs
        plotext 10-30 ms: several coming into view at once held a key behind them all). ``at_once``: every one now
        (a snapshot, a test). A chart not laid out yet is left to ask when it is first drawn."""
        view = self._view
        if not self._charts or not self._visible():
            return
        height = view.size.height
        if not height:
            return
        top, bottom = view.scroll_y - height, view.scroll_y + 2 * height
        charts: list[tuple[bool, Any]] = []  # (off screen, chart)
        for chart in self._charts:
            if chart.plotted:
                continue
            entry = self._entry_of(chart)
            if entry is None:
                continue
            region = entry.virtual_region
            if region.height == 0 or region.bottom < top or region.y > bottom:
                continue
            charts.append((region.bottom < view.scroll_y or region.y > view.scroll_y + height, chart))
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

    def _entry_of(self, chart: Any) -> Any:
        """The view's child that holds ``chart`` (its card), whose region is in the view's scrolling space; None once
        it has left the view."""
        node = chart
        view = self._view
        while node is not None and node.parent is not view:
            node = node.parent
        return node

    def _later(self) -> None:
        if not self._pending:
            self._pending = True
            self._view.set_timer(DRAW_AGAIN, self._again)

    def _again(self) -> None:
        self._pending = False
        self.check()
