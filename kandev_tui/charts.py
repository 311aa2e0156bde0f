"""Charts drawn by our own small adapter over plotext 5.3.2 (headless: plotext and Rich only).

- x positions are the numbers 1..n with explicit tick labels, so nothing depends
  on ``PYTHONHASHSEED``; x ticks come from ``format_x_ticks``, y ticks from
  ``format_y_tick`` at "nice" values;
- values are scaled by a power of ten before plotting, so numbers near the float
  limits plot without plotext overflowing, and the y range always includes 0 and
  fits the visible series;
- lines leave gaps at ``null``; bars are grouped per label, missing ones absent;
- colours come from the caller (the app theme, by series index); without colour
  every series gets its own marker;
- ``frame`` (0 < frame ≤ 1) draws a partial geometry for the entrance animation.

plotext 5.3.2 removes duplicate ticks and points with ``list(set(...))``, so the order
in which tick labels are placed (and which series wins a shared cell) follows the hash
seed even with numeric positions. :func:`_plotext` swaps that helper for the
order-preserving ``dict.fromkeys`` (which plotext's own source mentions) when it loads
the library, so a chart draws identically under every ``PYTHONHASHSEED``.

:func:`plot` is memoised on (chart, size, colours, visible series, frame); the
counters in :mod:`kandev_tui.stats` record the work actually done.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import lru_cache

from rich.text import Text

from kandev_tui import stats
from kandev_tui.presentation.axis import format_x_ticks, format_y_tick

LINE_MARKERS = ("braille", "dot", "+", "x")
BAR_MARKERS = ("sd", "▒", "░", "#")
_LOCK = threading.Lock()  # plotext keeps one global figure


@dataclass(frozen=True)
class ChartData:
    """One chart, prepared once per stored call (hashable, so plots can be cached)."""

    key: str
    chart_type: str
    labels: tuple[str, ...]
    series_labels: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]

    @property
    def ticks(self) -> tuple[str, ...]:
        return _ticks(self.labels)


@lru_cache(maxsize=512)
def _ticks(labels: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(format_x_ticks(list(labels)))


def _exponent(magnitude: float) -> int:
    return 0 if magnitude == 0 else math.floor(math.log10(magnitude)) + 1


def _scaled(value: float, exponent: int) -> float:
    half = exponent // 2
    return value / 10.0 ** half / 10.0 ** (exponent - half)


def _real(value: float, exponent: int) -> float:
    half = exponent // 2
    try:
        return value * 10.0 ** half * 10.0 ** (exponent - half)
    except OverflowError:
        return math.inf


def y_range(data: ChartData, visible: tuple[bool, ...]) -> tuple[float, float]:
    """(low, high) of the visible values, always including 0."""
    low = high = 0.0
    for shown, values in zip(visible, data.values):
        if shown:
            for value in values:
                if value is not None:
                    low, high = min(low, value), max(high, value)
    return low, high


def _nice_ticks(low: float, high: float, count: int) -> list[float]:
    """Round tick positions covering [low, high] (in the scaled space, |values| ≤ 1)."""
    span = high - low or 1.0
    raw = span / max(1, count - 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    start = math.floor(low / step + 1e-9) * step
    ticks, value = [], start
    while value <= high + step * 1e-6 and len(ticks) < 50:
        ticks.append(round(value, 12))
        value += step
    if ticks[-1] < high - 1e-12:
        ticks.append(round(ticks[-1] + step, 12))
    return ticks


def x_tick_positions(count: int, ticks: tuple[str, ...], width: int) -> list[int]:
    """Which of the n labels get a tick, so that tick texts never collide."""
    widest = max((len(t) for t in ticks), default=1) + 2
    room = max(1, (width - 8) // widest)
    if count <= room:
        return list(range(1, count + 1))
    step = math.ceil((count - 1) / max(1, room - 1))
    positions = list(range(1, count + 1, step))
    if positions[-1] != count and count - positions[-1] >= step / 2:
        positions.append(count)
    elif positions[-1] != count:
        positions[-1] = count
    return positions


def _ordered_unique(data):
    """plotext's ``no_duplicates`` without the hash-seed-dependent ordering."""
    return list(dict.fromkeys(data))


def _plotext():
    import plotext
    from plotext import _utility

    if _utility.no_duplicates is not _ordered_unique:
        _utility.no_duplicates = _ordered_unique
    return plotext


@lru_cache(maxsize=256)
def plot(data: ChartData, width: int, height: int, colors: tuple[tuple[int, int, int], ...] | None,
         visible: tuple[bool, ...], frame: float = 1.0) -> tuple[Text, ...]:
    """The chart as lines of Rich Text, exactly ``height`` lines of at most ``width`` cells."""
    stats.bump("plot_frames")
    if frame >= 1.0:
        stats.bump("charts_plotted")
    plt = _plotext()

    n = len(data.labels)
    low, high = y_range(data, visible)
    exponent = _exponent(max(abs(low), abs(high)))
    s_low, s_high = _scaled(low, exponent), _scaled(high, exponent)
    ticks = _nice_ticks(s_low, s_high, max(2, min(6, (height - 3) // 2)))
    if not math.isfinite(_real(ticks[-1], exponent)):  # near the float limit: end the axis at the data
        ticks[-1] = s_high
    if not math.isfinite(_real(ticks[0], exponent)):
        ticks[0] = s_low
    s_low, s_high = min(s_low, ticks[0]), max(s_high, ticks[-1])
    tick_labels = [format_y_tick(_real(t, exponent)) for t in ticks]
    shown = [i for i, v in enumerate(visible) if v]
    with _LOCK:
        plt.clf()
        plt.plotsize(max(10, width), max(5, height))
        plt.theme("clear")
        for order, index in enumerate(shown):
            color = colors[index % len(colors)] if colors else None
            values = [None if v is None else _scaled(v, exponent) for v in data.values[index]]
            if data.chart_type == "bar":
                width_each = 0.8 / len(shown)
                xs = [x + 1 - 0.4 + width_each * (order + 0.5) for x in range(n)]
                ys = [0.0 if v is None else v * frame for v in values]
                kwargs = {"width": width_each * 0.9, "marker": BAR_MARKERS[index % 4] if colors is None else "sd"}
                if color:
                    kwargs["color"] = color
                plt.bar(xs, ys, **kwargs)
            else:
                _line(plt, values, frame, color, LINE_MARKERS[index % 4] if colors is None else "braille")
        if data.chart_type == "bar":
            plt.xlim(0.5, n + 0.5)
        else:
            plt.xlim(1 - 0.02 * max(n - 1, 1), n + 0.02 * max(n - 1, 1)) if n > 1 else plt.xlim(0.5, 1.5)
        plt.ylim(s_low, s_high if s_high > s_low else s_low + 1)
        positions = x_tick_positions(n, data.ticks, width)
        plt.xticks(positions, [data.ticks[p - 1] for p in positions])
        plt.yticks(ticks, tick_labels)
        rendered = plt.build()
    lines = [Text.from_ansi(line) for line in rendered.split("\n")][:height]
    for line in lines:
        line.rstrip()
        line.truncate(width)
    while len(lines) < height:
        lines.append(Text(""))
    return tuple(lines)


def _line(plt, values: list[float | None], frame: float, color, marker: str) -> None:
    """One series as contiguous segments (gaps at None), cut at the animation frame."""
    n = len(values)
    limit = 1 + (n - 1) * frame if n > 1 else 1
    segment_x: list[float] = []
    segment_y: list[float] = []

    def flush() -> None:
        if not segment_x:
            return
        kwargs = {"marker": marker}
        if color:
            kwargs["color"] = color
        if len(segment_x) == 1:
            plt.scatter(list(segment_x), list(segment_y), **kwargs)
        else:
            plt.plot(list(segment_x), list(segment_y), **kwargs)
        segment_x.clear()
        segment_y.clear()

    for position, value in enumerate(values, start=1):
        if value is None:
            flush()
            continue
        if position > limit:
            previous = values[position - 2] if position >= 2 else None
            if previous is not None and segment_x:
                fraction = limit - (position - 1)
                segment_x.append(position - 1 + fraction)
                segment_y.append(previous + (value - previous) * fraction)
            break
        segment_x.append(float(position))
        segment_y.append(value)
    flush()


def inspection(data: ChartData, index: int, visible: tuple[bool, ...]) -> tuple[str, list[tuple[int, str, str]]]:
    """The original x label at ``index`` and (series index, series label, full value) of each visible series."""
    values = []
    for series, (label, shown) in enumerate(zip(data.series_labels, visible)):
        if shown:
            value = data.values[series][index]
            values.append((series, label, "no value" if value is None else full_value(value)))
    return data.labels[index], values


def full_value(value: float) -> str:
    """A value in full (grouped, up to 6 significant digits for fractions), as inspection shows it."""
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.6g}" if abs(value) < 1e15 else f"{value:.6g}"
