"""What the transcript's widgets draw with, given to them instead of looked up on the app.

The app gives the transcript view a :class:`DrawContext` (the series colours of the theme, whether a chart
animates, the workspace files are read from, whether the terminal is in view), and the view adds where its entries
tell it what they are doing (still being put on screen; a chart drawn before it was plotted); a widget in the
transcript asks :func:`context_of` for the one of its nearest ancestor that gives one, and gets the defaults outside
any (a card drawn on its own in a test, a renderer pack's own app). Nothing here reaches for attributes of the app.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, runtime_checkable


def _no_colors() -> tuple[tuple[int, int, int], ...] | None:
    return None


def _never(key: str = "") -> bool:
    return False


def _always() -> bool:
    return True


def _nothing() -> Any:
    return None


def _idle() -> None:
    return None


def _not_told(widget: Any, *facts: Any) -> None:
    return None


class ChartsTell(Protocol):
    """What a chart tells the view's plotter (:class:`~kandev_tui.widgets.transcript_view.charts.ChartPlotter`), so
    that it plots the charts near the viewport without looking for them."""

    def mounted(self, chart: Any) -> None: ...

    def gone(self, chart: Any) -> None: ...

    def drawn(self, chart: Any) -> None:
        """Textual drew the chart before it was plotted (it is on screen): plot it soon."""


class _NoPlotter:
    """Outside a transcript (a card drawn on its own): charts are plotted by whoever shows them."""

    def mounted(self, chart: Any) -> None:
        return None

    def gone(self, chart: Any) -> None:
        return None

    def drawn(self, chart: Any) -> None:
        return None


NO_PLOTTER = _NoPlotter()


@dataclass
class DrawContext:
    series_colors: Callable[[], tuple[tuple[int, int, int], ...] | None] = _no_colors  # by series index; None: none
    should_animate: Callable[[str], bool] = _never  # a chart (by key) animates in: once per run, as settings allow
    animations_enabled: Callable[[], bool] = _never  # spinners and other motion
    workspace: Callable[[], Any] = _nothing  # the kandev_tui.workspace.reads.Workspace files are read from, or None
    visible: Callable[[], bool] = _always  # the terminal is in view (charts are plotted only then)
    flooding: Callable[[], bool] = _never  # the session's output comes as fast as it is read: what is not in view
    # waits (a long message's blocks above the screen are drawn once the flood pauses)
    working: Callable[[], None] = _idle  # a slice of work spread between keys was done (a long message's blocks)
    # the view's, told by its entries: (an entry, whether it is still being put on screen: mounting, its Markdown
    # parsed), so that the view counts them rather than looking at each
    settling: Callable[[Any, bool], None] = _not_told
    charts: ChartsTell = field(default_factory=lambda: NO_PLOTTER)  # the view's plotter, told by its charts


DEFAULT = DrawContext()


@runtime_checkable
class GivesDrawContext(Protocol):
    """A widget whose descendants draw with :attr:`draw_context` (the transcript view)."""

    draw_context: DrawContext


def context_of(widget: Any) -> DrawContext:
    """The draw context of ``widget``'s nearest ancestor that gives one (itself included), else the defaults."""
    for node in widget.ancestors_with_self:
        if isinstance(node, GivesDrawContext):
            return node.draw_context
    return DEFAULT


def workspace_root(widget: Any) -> str | None:
    """The folder of the workspace ``widget`` draws for (a diff's paths inside it are shown relative to it), or None."""
    workspace = context_of(widget).workspace()
    return str(workspace.root) if workspace is not None else None
