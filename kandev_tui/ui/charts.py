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
counters in :mod:`kandev_tui.base.stats` record the work actually done.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from functools import lru_cache

from rich.text import Text

from kandev_tui.base import stats
from kandev_tui.presentation.axis import format_x_ticks, format_y_tick

LINE_MARKERS = ("braille", "dot", "+", "x")
BAR_MARKERS = ("sd", "▒", "░", "#")
# what each series looks like without colour, for the legend: the cell plotext draws with its marker
LEGEND_MARKS = {"line": ("⣿", "•", "+", "x"), "bar": ("█", "▒", "░", "#")}
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


def y_axis(low: float, high: float, rows: int) -> tuple[list[float], float, float]:
    """Tick values and the axis range ``(ticks, axis_low, axis_high)`` for ``rows`` rows of plot (scaled space).

    Ticks are round values (1, 2, 2.5 or 5 times a power of ten apart) on every g-th row exactly: the axis runs
    from the first tick to the top row, so plotext puts each tick on a row of its own at an even spacing. Of the
    ways to do that, the one that wastes least of the height above and below the data is taken (a maximum of 51
    gets ticks 0, 20, 40 and an axis to 53, not one to 100), with 3 to 6 ticks where the height allows.
    """
    if high - low < 1e-9:  # one value (the scaled values are 0 or at least 0.1 apart from it)
        high = low + 1.0
    span = high - low
    best: tuple[float, list[float], float, float] | None = None
    for gap in range(1 if rows < 6 else 2, max(2, rows)):  # rows from one tick to the next
        intervals = (rows - 1) / gap  # the axis's height in steps
        count = int((rows - 1) // gap) + 1
        if count < 2 or count > 7:
            continue
        raw = span / intervals
        magnitude = 10 ** math.floor(math.log10(raw))
        for multiple in (1, 2, 2.5, 5, 10, 20):
            step = multiple * magnitude
            start = math.floor(low / step + 1e-9) * step
            top = start + step * intervals
            if top < high - span * 1e-9:
                continue
            waste = (top - start - span) / (top - start)
            score = waste + 0.03 * abs(count - 4) + (0.2 if gap == 1 else 0.0)
            if best is None or score < best[0] - 1e-12:
                best = (score, [round(start + j * step, 12) for j in range(count)], start, top)
            break  # a larger step only wastes more at this spacing
    if best is None:  # too few rows to put round ticks on (data on both sides of 0 in two rows): the data's ends
        return [low, high], low, high
    return best[1], best[2], best[3]


def x_tick_positions(count: int, ticks: tuple[str, ...], width: int) -> list[int]:
    """Which of the n labels of a line chart get a tick, so that tick texts never collide and keep one rhythm.

    Every label when they fit; else every step-th, from the first, with a step that also ends on the last label
    when such a step is not much coarser (then both ends are labelled and the spacing is even).
    """
    widest = max((len(t) for t in ticks), default=1) + 2
    room = max(1, (width - 8) // widest)
    if count <= room:
        return list(range(1, count + 1))
    if room < 2:
        return [1]
    step = math.ceil((count - 1) / (room - 1))
    ending = next((s for s in range(step, min(2 * step, count - 1) + 1) if (count - 1) % s == 0), None)
    return list(range(1, count + 1, ending or step))


def bar_labels(ticks: tuple[str, ...], slot: float) -> tuple[list[str], str | None]:
    """Every category's label fitted to the cells around its group of bars (``slot`` per category), or a note saying
    why none is.

    Labels are centred under their groups, each within its slot; an inner one longer than that takes the room its
    short neighbours leave (``billing`` between ``api`` and ``auth``), a space or more kept between any two. One that
    still does not fit is cut with "…"; when cuts would make two labels alike, or a slot has no room for a letter and
    a space, the labels give way to a note (the data table, ``d``, shows them in full).
    """
    room = int(slot) - 1
    if room < 1:
        return [], "labels hidden: too narrow · d: data table"
    lengths = [min(len(t), room) for t in ticks]  # each within its own slot: never in another's way

    def fits(i: int, j: int) -> bool:  # two neighbours, centred a slot apart, a space or more between them
        return j < 0 or j >= len(lengths) or math.ceil(lengths[i] / 2) + math.ceil(lengths[j] / 2) + 2 <= int(slot)

    for i in range(1, len(ticks) - 1):  # an inner label cut short takes what its neighbours leave, a cell at a time
        while lengths[i] < len(ticks[i]):
            lengths[i] += 1
            if not (fits(i, i - 1) and fits(i, i + 1)):
                lengths[i] -= 1
                break
    fitted = [t if len(t) <= n else (t[: n - 1] + "…" if n > 1 else t[:1]) for t, n in zip(ticks, lengths)]
    if len(set(fitted)) < len(set(ticks)):
        return [], "labels hidden: too narrow to tell apart · d: data table"
    return fitted, None


def bar_label_rows(ticks: tuple[str, ...], slot: float) -> tuple[list[dict[int, str]], str | None]:
    """The categories' labels as rows of {category: label}: one row when each label fits whole in it; else two, the
    categories taking turns (each label then has two slots of room: ``billing`` whole at 45 columns where one row cut
    it to ``bill…``), when that cuts fewer; else the one row with its cuts; else no row and a note (see
    :func:`bar_labels`)."""
    one, note = bar_labels(ticks, slot)
    if note is None and tuple(one) == ticks:
        return [dict(enumerate(one))], None
    rows: list[dict[int, str]] = []
    for first in (0, 1) if len(ticks) > 1 else ():
        indices = range(first, len(ticks), 2)
        labels, row_note = bar_labels(tuple(ticks[i] for i in indices), 2 * slot)
        if row_note is not None:
            break
        rows.append(dict(zip(indices, labels)))
    if len(rows) == 2:
        both = {**rows[0], **rows[1]}
        whole = sum(both[i] == tick for i, tick in enumerate(ticks))
        if len(set(both.values())) == len(set(ticks)) and (note is not None or whole > sum(
                a == b for a, b in zip(one, ticks))):
            return rows, None
    return ([dict(enumerate(one))], None) if note is None else ([], note)


def _label_line(row: dict[int, str], columns: list[int], width: int) -> Text:
    """One row of labels, each centred under its tick (as plotext centres its own), kept inside the line and a space
    clear of the label before it (cut with "…" where that leaves it too little room)."""
    cells = [" "] * width
    end = -1  # the last cell the row's labels take so far
    for index in sorted(row):
        label = row[index]
        start = max(0, columns[index] - len(label) // 2, end + 2 if end >= 0 else 0)
        room = width - start
        if room < len(label):
            label = label[: room - 1] + "…" if room > 1 else ""
        cells[start:start + len(label)] = label
        end = start + len(label) - 1 if label else end
    return Text("".join(cells).rstrip())


def _ordered_unique(data):
    """plotext's ``no_duplicates`` without the hash-seed-dependent ordering."""
    return list(dict.fromkeys(data))


def preload() -> None:
    """Import plotext (50-90 ms), as the app does in a thread after its first frame."""
    _plotext()


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
    height = max(5, height)
    layout = _Layout(data, width, height - 3, visible)  # plotext's rows: less the frame's top and bottom, the labels
    label_rows: list[dict[int, str]] = []
    note = None
    if data.chart_type == "bar":  # categories: each one labelled (in one row or two), or a note says why not
        label_rows, note = bar_label_rows(data.ticks, layout.cells_per_x)
        if len(label_rows) == 2:  # a second row of labels takes a row of the plot (and its y labels may differ)
            narrower = _Layout(data, width, height - 4, visible)
            rows_there, note_there = bar_label_rows(data.ticks, narrower.cells_per_x)
            if len(rows_there) == 2:
                layout, label_rows, note = narrower, rows_there, note_there
            else:
                label_rows = [dict(enumerate(bar_labels(data.ticks, layout.cells_per_x)[0]))]
    drawn_height = height - max(0, len(label_rows) - 1)
    exponent, ticks, tick_labels = layout.exponent, layout.ticks, layout.tick_labels
    s_low, s_high, drawn_width, cells_per_x = layout.low, layout.high, layout.drawn_width, layout.cells_per_x
    shown = [i for i, v in enumerate(visible) if v]
    with _LOCK:
        plt.clf()
        # the size asked for: plotext caps a plot at the size of the terminal it thinks it is in ($COLUMNS, else the
        # process's terminal, else 80x24: a snapshot or a test drew every chart 77 wide at any width)
        plt.limitsize(False, False)
        plt.plotsize(max(10, drawn_width), drawn_height)
        plt.theme("clear")
        for order, index in enumerate(shown):
            color = colors[index % len(colors)] if colors else None
            values = [None if v is None else _scaled(v, exponent) for v in data.values[index]]
            if data.chart_type == "bar":
                width_each = 0.8 / len(shown)
                xs = [x + 1 - 0.4 + width_each * (order + 0.5) for x in range(n)]
                ys = [0.0 if v is None else v * frame for v in values]
                # bars of a group a cell apart: plotext rounds their edges to cells, and touching bars overlapped
                # by one (the taller one a cell narrower where its neighbour's is drawn)
                apart = 1.2 / cells_per_x if len(shown) > 1 else width_each * 0.1
                kwargs = {"width": max(width_each * 0.4, width_each - apart),
                          "marker": BAR_MARKERS[index % 4] if colors is None else "sd"}
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
        if data.chart_type == "bar":  # ticks only: the labels are drawn below, in one row or two
            plt.xticks(list(range(1, n + 1)) if label_rows else [], [""] * n if label_rows else [])
        else:
            positions = x_tick_positions(n, data.ticks, width)
            plt.xticks(positions, [data.ticks[p - 1] for p in positions])
        plt.yticks(ticks, tick_labels)
        rendered = plt.build()
    lines = [Text.from_ansi(line) for line in rendered.split("\n")][:drawn_height]
    if label_rows and len(lines) >= 2:
        frame_line = lines[-2].plain
        columns = [i for i, cell in enumerate(frame_line) if cell == "┬"]
        if len(columns) != n:  # no tick marks to centre on (never seen): the categories' centres in the frame
            left, right = frame_line.find("└"), frame_line.rfind("┘")
            columns = [round(left + (i + 0.5) * (right - left) / n) for i in range(n)]
        lines[-1:] = [_label_line(row, columns, width) for row in label_rows]
    if note is not None and lines:
        lines[-1] = Text(note[:width], style="dim italic")
    for line in lines:
        line.rstrip()
        line.truncate(width)
    while len(lines) < height:
        lines.append(Text(""))
    return tuple(lines)


class _Layout:
    """The y axis and the plot's width for a plot of ``rows`` rows: round ticks at that many rows, their labels'
    width, and for bars a whole number of cells per category."""

    def __init__(self, data: ChartData, width: int, rows: int, visible: tuple[bool, ...]) -> None:
        low, high = y_range(data, visible)
        self.exponent = exponent = _exponent(max(abs(low), abs(high)))
        ticks, self.low, self.high = y_axis(_scaled(low, exponent), _scaled(high, exponent), rows)
        reals = [_real(t, exponent) for t in ticks]
        if not all(math.isfinite(value) for value in reals):  # near the float limit: ticks only where finite
            ticks = [t for t, value in zip(ticks, reals) if math.isfinite(value)] or [0.0]
            reals = [_real(t, exponent) for t in ticks]
            self.low, self.high = min(self.low, _scaled(low, exponent)), max(_scaled(high, exponent), ticks[-1])
        self.ticks = ticks
        self.tick_labels = [format_y_tick(value) for value in reals]
        n = len(data.labels)
        plot_cells = max(1, width - max(len(t) for t in self.tick_labels) - 3)  # less the y labels, "┤", the frame
        self.drawn_width = width
        if data.chart_type == "bar" and plot_cells > n:  # a whole number of cells per category: every bar of a
            self.drawn_width -= plot_cells % n  # series as wide as the others (plotext rounds each one's edges to
            plot_cells -= plot_cells % n  # cells: 6 or 7 wide)
        self.cells_per_x = plot_cells / max(1, n)


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
