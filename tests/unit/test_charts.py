"""The chart adapter's axes: ticks on evenly spaced rows, a y range close to the data, every bar labelled (or a note
why not), x ticks in one rhythm, bars that do not overlap, and a legend that looks like the series without colour."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kandev_tui.ui.charts import LEGEND_MARKS, ChartData, bar_labels, plot, x_tick_positions, y_axis

DEMO_BARS = ChartData("demo", "bar", ("api", "auth", "billing", "web"), ("Passed", "Failed"),
                      ((128, 64, 91, 129), (0, 1, 2, 0)))


def tick_rows(lines) -> dict[str, int]:
    """y tick label -> row, read off the drawn chart (a tick is a number before "┤")."""
    rows = {}
    for row, line in enumerate(lines):
        match = re.match(r"^\s*(\S+)┤", line.plain)
        if match:
            rows[match.group(1)] = row
    return rows


@pytest.mark.parametrize("height", [8, 10, 12, 16, 20])
def test_y_ticks_sit_on_evenly_spaced_rows(height):
    lines = plot(DEMO_BARS, 60, height, None, (True, True))
    rows = sorted(tick_rows(lines).values())
    assert len(rows) >= 2
    assert len({b - a for a, b in zip(rows, rows[1:])}) == 1  # one spacing


def test_the_y_range_stays_close_to_the_data():
    ticks, low, high = y_axis(0, 0.51, 9)  # a maximum of 51 (scaled), nine rows
    assert low == 0 and 0.51 <= high <= 0.6  # not 0-1 (0-100 unscaled)
    assert ticks == [0, 0.2, 0.4]


SCALED = st.one_of(st.just(0.0), st.floats(0.1, 1), st.floats(-1, -0.1))  # values as plot() scales them


@settings(max_examples=500, deadline=None)
@given(SCALED, SCALED, st.integers(2, 40))
def test_y_axis_covers_the_data_with_round_evenly_placed_ticks(a, b, rows):
    low, high = min(a, b, 0.0), max(a, b, 0.0)
    ticks, axis_low, axis_high = y_axis(low, high, rows)
    assert axis_low <= low + 1e-12 and axis_high >= high - 1e-9
    assert 2 <= len(ticks) <= 7 and ticks[0] == pytest.approx(axis_low)
    steps = {round(y - x, 9) for x, y in zip(ticks, ticks[1:])}
    assert len(steps) == 1
    # each tick lands on a row exactly: (tick - low) / (high - low) * (rows - 1) is a whole number
    for tick in ticks:
        position = (tick - axis_low) / (axis_high - axis_low) * (rows - 1)
        assert abs(position - round(position)) < 1e-6


@pytest.mark.parametrize("width", [30, 35, 45, 60, 100])
def test_every_bar_category_is_labelled_or_the_chart_says_why(width):
    lines = plot(DEMO_BARS, width, 10, None, (True, True))
    last = lines[-1].plain
    if "labels hidden" in last:
        assert "d: data table" in last
        return
    labels = "\n".join(line.plain for line in lines[-2:] if "└" not in line.plain)  # one row or two
    for label in ("api", "auth", "web"):
        assert label in labels
    assert "billing" in labels or "bil" in labels  # cut with "…" where it does not fit


def test_bar_labels_are_cut_or_give_way_to_a_note():
    assert bar_labels(("api", "billing"), 6) == (["api", "bill…"], None)
    assert bar_labels(("service-a", "service-b"), 6)[0] == []  # cut alike: not told apart
    assert "too narrow" in bar_labels(("a", "b"), 1.5)[1]


def test_a_bar_next_to_a_short_one_keeps_its_width_to_the_bottom():
    """Passed bars are tall, Failed ones (1 and 2 of 129) only on the bottom row: there every Passed bar spans the
    same cells as on the row above, none is cut by its neighbour."""
    def spans(row: str) -> list[tuple[int, int]]:
        return [match.span() for match in re.finditer("█+", row)]

    for width in (35, 45, 60, 80):
        rows = [line.plain for line in plot(DEMO_BARS, width, 12, None, (True, True))]
        bottom = next(i for i, row in enumerate(rows) if "└" in row) - 1
        assert spans(rows[bottom]) == spans(rows[bottom - 1]), (width, rows)


def test_line_ticks_keep_one_rhythm():
    for count in range(2, 120):
        positions = x_tick_positions(count, ("Aug 16",) * count, 60)
        assert positions[0] == 1
        steps = {b - a for a, b in zip(positions, positions[1:])}
        assert len(steps) <= 1, (count, positions)


def test_without_colour_the_legend_marks_are_the_series_cells():
    lines = [line.plain for line in plot(DEMO_BARS, 60, 12, None, (True, True))]
    drawn = "".join(lines)
    assert LEGEND_MARKS["bar"][0] in drawn and LEGEND_MARKS["bar"][1] in drawn


def test_every_bar_of_a_series_is_as_wide_as_the_others_and_labels_use_the_room_their_neighbours_leave():
    """At every width from 40 to 120 columns: one width for the bars of a series (plotext rounded each one's edges:
    6 or 7 cells), every label shown or a note said, and a long inner label whole where its short neighbours leave
    room ("slow-tests" between "auth" and "web"; it was cut to "slow-…")."""
    import re

    from kandev_tui.ui.charts import ChartData, bar_labels, plot

    data = ChartData("k", "bar", ("api", "billing", "auth", "slow-tests", "web"), ("Failures",), ((3, 12, 4, 7, 2),))
    for width in range(40, 121):
        lines = plot(data, width, 12, None, (True,))
        widths = {len(run.group(0)) for line in lines[1:-2] for run in re.finditer("█+", line.plain)}
        assert len(widths) == 1, (width, widths)
        bottom = next(row for row, line in enumerate(lines) if "└" in line.plain)
        assert lines[bottom].plain.count("┬") == 5, width
        assert sum(len(line.plain.split()) for line in lines[bottom + 1:]) == 5, width  # in one row or two
    assert bar_labels(("auth", "slow-tests", "web"), 9)[0] == ["auth", "slow-tests", "web"]  # 8 cells of its own, 10
    assert bar_labels(("auth", "slow-tests", "web"), 8)[0] == ["auth", "slow-te…", "web"]  # as much as leaves a gap
    assert bar_labels(("storage", "compute"), 8)[0] == ["storage", "compute"]  # each within its slot, as before
    assert bar_labels(("billing", "invoices", "refunds"), 6)[0] == ["bill…", "invo…", "refu…"]  # no room to share


def label_runs(line: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of each word of a row of labels."""
    return [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"\S+", line)]


@pytest.mark.parametrize("width", range(24, 121))
def test_bar_labels_that_one_row_would_cut_take_two_rows_each_whole_under_its_tick(width):
    """At a 45-column terminal the demo's card plots about 34 cells wide, and one row cut "billing" to "billi…": the
    categories then take turns on two rows (the plot a row shorter, the chart as high as asked), every label whole,
    centred on its tick, a space or more from its row's neighbours."""
    lines = plot(DEMO_BARS, width, 10, None, (True, True))
    assert len(lines) == 10
    bottom = next(row for row, line in enumerate(lines) if "└" in line.plain)
    ticks = [i for i, cell in enumerate(lines[bottom].plain) if cell == "┬"]
    label_rows = [line.plain for line in lines[bottom + 1:]]
    assert len(ticks) == 4 and 1 <= len(label_rows) <= 2
    runs = [run for row in label_rows for run in label_runs(row)]
    assert sorted(text for _, _, text in runs) == ["api", "auth", "billing", "web"], (width, label_rows)
    for start, end, text in runs:
        tick = ticks[["api", "auth", "billing", "web"].index(text)]
        assert start <= tick < end, (width, text, label_rows)
    for row in label_rows:
        spans = label_runs(row)
        assert all(b[0] - a[1] >= 1 for a, b in zip(spans, spans[1:]))
    one_row_fits = bar_labels(DEMO_BARS.ticks, (ticks[1] - ticks[0]))[0] == list(DEMO_BARS.ticks)
    assert len(label_rows) == (1 if one_row_fits else 2), (width, label_rows)


def test_two_rows_of_labels_only_where_they_cut_fewer():
    from kandev_tui.ui.charts import bar_label_rows

    assert bar_label_rows(("api", "auth", "billing", "web"), 8) == ([{0: "api", 1: "auth", 2: "billing", 3: "web"}],
                                                                     None)
    assert bar_label_rows(("api", "auth", "billing", "web"), 6) == ([{0: "api", 2: "billing"}, {1: "auth", 3: "web"}],
                                                                     None)
    # cut alike in one row (a note), told apart in two
    assert bar_label_rows(("service-a", "service-b", "service-c"), 6)[0] == [{0: "service-a", 2: "service-c"},
                                                                            {1: "service-b"}]
    assert bar_label_rows(("a", "b"), 1.5) == ([{0: "a"}, {1: "b"}], None)  # a letter each, on two rows
    assert bar_label_rows(("alpha", "beta"), 0.9) == ([], "labels hidden: too narrow · d: data table")
