"""Rich-output blocks in the real app: charts, metric groups, file previews; and the work counters."""

from __future__ import annotations

import os

import pytest
from rich.text import Text

from kandev_tui.base import stats
from kandev_tui.widgets.entries.chart_block import ChartBlock, LegendEntry, PlotArea
from kandev_tui.widgets.entries.file_preview import BINARY, FilePreview
from kandev_tui.widgets.entries.metrics_block import MetricsBlock, columns_for
from kandev_tui.widgets.entries.tool_card import ToolCard

from ..support.app_helpers import bar_chart, message_item, rich_item, settle, stored_app, until

ISO = ["2026-08-12T09:00:00Z", "2026-08-13T09:00:00Z", "2026-08-14T09:00:00Z"]


def chart_doc(chart_type="line", labels=ISO, series=(("Total", (12.5, 0, None)), ("Cached", (3, 4, 5)))):
    return {"version": 1, "title": "Chart", "blocks": [{
        "type": "chart", "chart_type": chart_type, "title": "Build time", "summary": "It fell.",
        "labels": list(labels), "series": [{"label": l, "values": list(v)} for l, v in series]}]}


def many_charts(count: int):
    items = []
    for n in range(count):
        items.append(message_item(2 * n, f"Paragraph {n}.\n\nSome words between charts."))
        items.append(rich_item(f"c{n}", bar_chart(f"Chart {n}", labels=("a", "b", "c"), series=(("S", (n, n + 1, 2)), ("T", (1, 2, 3))))))
    return items


async def _load_everything(pilot, view):
    """Scroll to the top until the window holds the first entry (it loads earlier entries on the way)."""
    for _ in range(1000):  # until it holds it, not a fixed number of rounds: a loaded machine is slower
        if view.lo == 0:
            break
        view.action_scroll_home()  # as the user's home key does
        await pilot.pause(0.05)
    assert view.lo == 0


async def _scroll_through(pilot, view, step=25):
    await _load_everything(pilot, view)
    view.scroll_home(animate=False)
    await pilot.pause()
    for _ in range(1000):
        if view.scroll_y >= view.max_scroll_y:
            break
        view.scroll_relative(y=step, animate=False)
        await pilot.pause(0.01)


async def test_charts_coming_into_view_are_plotted_a_slice_at_a_time_and_after_the_users_input(tmp_path,
                                                                                                  monkeypatch):
    """Several charts coming into view at once (the transcript shown again after the help, a flood) are plotted a
    slice of the UI's time at a time, those on screen first, the rest a moment later; none while the user's input is
    on its way. Plotting costs plotext 10-30 ms a chart: all at once held a key behind them."""
    import time

    from kandev_tui.base.pacing import CHART_SLICE
    from kandev_tui.ui import charts as chart_module
    from kandev_tui.widgets.entries import chart_block

    plot = chart_module.plot

    def slow_plot(*args, **kwargs):  # a chart as costly as plotext makes a big one: more than a slice
        until_ = time.perf_counter() + 2 * CHART_SLICE
        while time.perf_counter() < until_:
            pass
        return plot(*args, **kwargs)

    app = stored_app(tmp_path, many_charts(4))
    async with app.run_test(size=(100, 80)) as pilot:
        await settle(pilot)
        view = app.view
        charts = list(view.query(ChartBlock))
        assert len(charts) == 4 and all(c.plotted for c in charts)  # (all in view)
        for chart in charts:
            chart.plotted = False
        monkeypatch.setattr(chart_block, "plot", slow_plot)
        view.check_charts()
        assert sum(c.plotted for c in charts) == 1  # one slice: one chart, the rest later
        await until(pilot, lambda: all(c.plotted for c in charts))
        for chart in charts:
            chart.plotted = False
        app.user_input.note()  # a key on its way to the app: nothing is plotted before it
        view.check_charts()
        assert not any(c.plotted for c in charts)
        app.user_input.served()
        await until(pilot, lambda: all(c.plotted for c in charts))
        for chart in charts:
            chart.plotted = False
        view.check_charts(at_once=True)  # a snapshot's: every one now
        assert all(c.plotted for c in charts)


async def test_a_chart_drawn_before_it_was_plotted_asks_and_the_plotter_keeps_only_the_mounted(tmp_path):
    """Nothing looks for charts: a chart Textual draws unplotted (it is on screen) asks the view's plotter, which
    plots it after that frame, with no scroll or batch to set it off; the plotter knows the charts mounted in the
    view, and forgets those the window unmounts."""
    filler = [message_item(1000 + n, f"An earlier paragraph {n}.") for n in range(60)]
    app = stored_app(tmp_path, filler + many_charts(3))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        view = app.view
        charts = list(view.query(ChartBlock))
        assert charts and all(c.plotted for c in charts) and view.plotter.charts == len(charts)
        shown = charts[-1]
        shown.plotted = False  # as if it had come on screen before any look at the view
        shown.query_one(PlotArea).refresh()  # drawn again, and only that
        await until(pilot, lambda: shown.plotted)
        await _load_everything(pilot, view)  # the window moves to the top: the charts at the end are unmounted
        assert view.plotter.charts == len(list(view.query(ChartBlock)))


async def test_deferred_plotting_and_memoisation(tmp_path):
    count = 24  # charts, with enough paragraphs before them that the session opens a window, not whole
    filler = [message_item(1000 + n, f"An earlier paragraph {n}.") for n in range(60)]
    app = stored_app(tmp_path, filler + many_charts(count))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        view = app.view
        opened = list(view.query(ChartBlock))
        assert 0 < len(opened) < 10  # the window mounts a few screens; the rest wait in the layout
        near = [c for c in opened if c.plotted]
        assert 0 < len(near) < 6  # only those near the viewport (the view opened at the end)
        assert stats.COUNTERS["charts_plotted"] == len(near)
        await _scroll_through(pilot, view)
        charts = list(view.query(ChartBlock))
        assert len(charts) == count and all(c.plotted for c in charts)
        assert stats.COUNTERS["charts_plotted"] == count  # each exactly once
        assert stats.COUNTERS["plot_frames"] == stats.COUNTERS["charts_plotted"]  # animation off
        parsed = stats.COUNTERS["presentations_parsed"]
        assert parsed == count

        before = dict(stats.COUNTERS)
        app.session.receive_items([message_item(999, "an unrelated new message")])
        await settle(pilot)
        await _scroll_through(pilot, view, step=25)
        work = ("presentations_parsed", "charts_plotted", "plot_frames")
        assert {k: stats.COUNTERS[k] for k in work} == {k: before[k] for k in work}  # nothing re-plotted or re-parsed

        target = charts[-1]
        view.scroll_to_widget(target, animate=False)
        await pilot.pause()
        target.action_toggle_series(1)
        await pilot.pause()
        assert stats.COUNTERS["charts_plotted"] == before["charts_plotted"] + 1  # one plot for the toggle
        target.action_toggle_series(1)
        await pilot.pause()
        assert stats.COUNTERS["charts_plotted"] == before["charts_plotted"] + 1  # toggling back reuses the plot


async def test_a_scrollbar_appearing_plots_nothing_again(tmp_path):
    """The transcript keeps the scrollbar's column while there is none: when output grows past the screen and
    the scrollbar appears, the chart already plotted keeps its width and is not plotted again."""
    app = stored_app(tmp_path, many_charts(1))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        view, chart = app.view, app.view.query_one(ChartBlock)
        assert chart.plotted and view.max_scroll_y == 0  # no scrollbar yet
        width, plotted = chart.size.width, stats.COUNTERS["charts_plotted"]
        app.session.receive_items([message_item(100 + n, f"More output {n}.") for n in range(10)])  # (within the window)
        await settle(pilot)
        await until(pilot, lambda: view.max_scroll_y > 0)  # now there is one
        assert chart.size.width == width and stats.COUNTERS["charts_plotted"] == plotted


async def test_placeholder_has_the_plots_height(tmp_path):
    app = stored_app(tmp_path, many_charts(6))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        charts = list(app.view.query(ChartBlock))
        unplotted = next(c for c in charts if not c.plotted)
        height = unplotted.query_one(PlotArea).size.height
        unplotted.ensure_plotted()
        await pilot.pause()
        assert unplotted.query_one(PlotArea).size.height == height == 12


async def test_legend_by_keys_and_mouse_and_all_hidden(tmp_path):
    app = stored_app(tmp_path, [rich_item("c", chart_doc())])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        chart = app.view.query_one(ChartBlock)
        chart.focus()
        await pilot.press("1")
        assert chart.visible_series == (False, True)
        entries = list(chart.query(LegendEntry))
        assert "strike" in str(entries[0].render().spans) or not entries[0].shown
        await pilot.click(LegendEntry)  # the first entry, by mouse
        await pilot.pause()
        assert chart.visible_series == (True, True)
        entries[1].focus()
        await pilot.press("space")
        assert chart.visible_series == (True, False)
        chart.focus()
        await pilot.press("1")
        assert chart.visible_series == (False, False)
        assert "All series are hidden" in chart.query_one(PlotArea).render().plain
        stored = app.view.query_one(ToolCard).inner._item.payload["input"]
        assert stored["blocks"][0]["series"][0]["label"] == "Total"  # view state only


async def test_single_series_has_a_plain_legend(tmp_path):
    app = stored_app(tmp_path, [rich_item("c", chart_doc(series=(("Only", (1, 2, 3)),)))])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        chart = app.view.query_one(ChartBlock)
        entry = chart.query_one(LegendEntry)
        assert not entry.can_focus and str(entry.render()).strip().endswith("Only")
        chart.action_toggle_series(0)
        assert chart.visible_series == (True,)


async def test_inspection_shows_original_labels_and_zero(tmp_path):
    app = stored_app(tmp_path, [rich_item("c", chart_doc())])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        chart = app.view.query_one(ChartBlock)
        chart.focus()
        await pilot.press("right")
        inspect = str(chart.query_one(".inspect", expect_type=None).render())
        assert "2026-08-12T09:00:00Z" in inspect and "12.5" in inspect
        await pilot.press("right")
        inspect = str(chart.query_one(".inspect").render())
        assert "2026-08-13T09:00:00Z" in inspect and "Total 0" in inspect and "Cached 4" in inspect
        await pilot.press("end")
        inspect = str(chart.query_one(".inspect").render())
        assert "Total no value" in inspect
        await pilot.press("1")  # hidden series leave the inspection line
        assert "Total" not in str(chart.query_one(".inspect").render())
        await pilot.press("escape")
        assert chart.cursor is None


async def test_inspection_by_mouse_hover(tmp_path):
    app = stored_app(tmp_path, [rich_item("c", chart_doc(chart_type="bar"))])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        chart = app.view.query_one(ChartBlock)
        plot_area = chart.query_one(PlotArea)
        await pilot.hover(plot_area, offset=(plot_area.size.width - 6, 5))
        await pilot.pause()
        assert chart.cursor == 2


async def test_data_view_is_a_table(tmp_path):
    app = stored_app(tmp_path, [rich_item("c", chart_doc())])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        chart = app.view.query_one(ChartBlock)
        chart.focus()
        await pilot.press("d")
        assert chart.has_class("data-view")
        table = chart._last_table
        assert [str(c.header) for c in table.columns] == ["", "Total", "Cached"]
        assert [str(c) for c in table.columns[0].cells] == ISO  # the original labels
        assert [str(c) for c in table.columns[1].cells] == ["12.5", "0", ""]
        assert [str(c) for c in table.columns[2].cells] == ["3", "4", "5"]
        assert all(isinstance(c, Text) for column in table.columns[1:] for c in [column.header, *column.cells])
        await pilot.press("d")
        assert not chart.has_class("data-view")


@pytest.mark.parametrize(("width", "columns"), [(120, 3), (80, 2), (45, 1)])
async def test_metric_group_reflows(tmp_path, width, columns):
    doc = {"version": 1, "title": "M", "blocks": [{"type": "metrics", "items": [
        {"label": f"Metric {n}", "value": "a long value " * 8 if n == 0 else str(n), "detail": "detail"} for n in range(6)]}]}
    app = stored_app(tmp_path, [rich_item("m", doc)])
    async with app.run_test(size=(width, 40)) as pilot:
        await settle(pilot)
        block = app.view.query_one(MetricsBlock)
        assert block.styles.grid_size_columns == columns == columns_for(width)
        for panel in block.children:
            assert panel.region.right <= width  # long values wrap inside, never past the edge


def _file_doc(path, **extra):
    return {"version": 1, "title": "F", "blocks": [{"type": "file", "path": path, **extra}]}


async def _preview_state(tmp_path, workspace, path, **extra):
    app = stored_app(tmp_path, [rich_item("f", _file_doc(path, **extra))], workspace=str(workspace))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        preview = app.view.query_one(FilePreview)
        assert preview.reads == 0 and preview.state == "collapsed"  # never read automatically
        preview.focus()
        await pilot.press("enter")
        for _ in range(100):
            await pilot.pause(0.02)
            if preview.state != "loading":
                break
        body = str(preview.query_one(".body").render())
        return preview.state, body, preview
async def test_file_preview_states(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "report.json").write_text('{"passed": 38, "failed": 0}')
    (ws / "big.txt").write_text("x" * 5000)
    (ws / "bin.dat").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "secret.txt").write_text("secret")
    (ws / "escape.txt").symlink_to(tmp_path / "secret.txt")
    os.mkfifo(ws / "pipe.txt")
    state, body, preview = await _preview_state(tmp_path / "a", ws, "report.json", mime_type="application/json")
    assert state == "ok" and preview.reads == 1
    state, body, _ = await _preview_state(tmp_path / "b", ws, "big.txt")
    assert state == "ok"
    state, body, _ = await _preview_state(tmp_path / "c", ws, "bin.dat")
    assert state == "binary" and BINARY in body
    for name, path, why in (("d", "missing.txt", "no such file"), ("e", "escape.txt", "outside"),
                            ("f", "pipe.txt", "not a regular file")):
        state, body, _ = await _preview_state(tmp_path / name, ws, path)
        assert state == "unavailable" and body.strip().startswith("Preview unavailable: "), path
        assert why in " ".join(body.split()), (path, body)  # the reason, said


async def test_file_preview_reuses_and_retries(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.md").write_text("# Notes")
    app = stored_app(tmp_path, [rich_item("f", _file_doc("notes.md")), rich_item("g", _file_doc("later.md"))],
                     workspace=str(ws))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        ok, missing = list(app.view.query(FilePreview))
        for preview in (ok, missing):
            preview.focus()
            await pilot.press("enter")
            await until(pilot, lambda preview=preview: preview.state in ("ok", "unavailable"))
        assert (ok.state, missing.state) == ("ok", "unavailable")
        for _ in range(2):  # collapse and expand: the loaded one is reused, the failed one retried
            for preview in (ok, missing):
                preview.focus()
                await pilot.press("enter")
                await pilot.pause(0.1)
        (ws / "later.md").write_text("now it exists")
        missing.focus()
        await pilot.press("enter")
        await pilot.pause(0.1)
        await pilot.press("enter")
        await until(pilot, lambda: missing.state == "ok")
        assert ok.reads == 1 and missing.state == "ok" and missing.reads >= 2


async def test_file_viewer_search_and_back(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "code.py").write_text("\n".join(f"line {n}" for n in range(200)) + "\nneedle here\n")
    app = stored_app(tmp_path, [rich_item("f", _file_doc("code.py"))], workspace=str(ws))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        preview = app.view.query_one(FilePreview)
        preview.focus()
        from kandev_tui.screens.file_viewer import FileViewerScreen

        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, FileViewerScreen))

        assert isinstance(app.screen, FileViewerScreen)
        await pilot.press("slash")
        await pilot.press(*"needle")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.hits == [(200, 0, 6)]
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, FileViewerScreen)


async def test_file_viewer_search_marks_each_match_and_scrolls_by_the_rows_drawn(tmp_path):
    """/ marks every match and brings the current one into view by display rows: long lines above it wrap into
    many rows each (scrolled by lines, the view stopped far above the match)."""
    from textual.containers import VerticalScroll

    from kandev_tui.screens.file_viewer import FileViewerScreen
    from kandev_tui.ui.textual_hooks import screen_text

    ws = tmp_path / "ws"
    ws.mkdir()
    lines = [f"long line {n} " + "word " * 60 for n in range(40)] + ["the Needle here", "x", "and a needle there"]
    (ws / "notes.txt").write_text("\n".join(lines) + "\n")
    app = stored_app(tmp_path, [rich_item("f", _file_doc("notes.txt"))], workspace=str(ws))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.view.query_one(FilePreview).focus()
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, FileViewerScreen) and app.screen.text)
        screen = app.screen
        await pilot.press("slash", *"needle", "enter")
        await until(pilot, lambda: screen.hits == [(40, 4, 10), (42, 6, 12)])
        await until(pilot, lambda: "the Needle here" in screen_text(app))  # brought into view, 40 wrapped lines on
        scroll = screen.query_one(VerticalScroll)
        assert scroll.scroll_y > 40 * 3  # by rows, each long line three or more of them

        def marked() -> list[tuple[str, bool]]:
            """(the text, whether bold) of each reversed run the viewer draws."""
            console = app.console
            rows = console.render_lines(screen._body.content, console.options.update_width(78), pad=False)
            return [(segment.text, bool(segment.style.bold)) for row in rows for segment in row
                    if segment.style is not None and segment.style.reverse]

        assert marked() == [("Needle", True), ("needle", False)]  # both marked, the current one bold
        await pilot.press("n")
        await until(pilot, lambda: "and a needle there" in screen_text(app))
        assert marked() == [("Needle", False), ("needle", True)]


async def test_metric_cards_in_a_row_are_as_tall_as_the_tallest(tmp_path):
    """A metric with a detail line is a row taller: the others of its row grow with it (they staggered)."""
    from kandev_tui.widgets.entries.metrics_block import MetricPanel

    doc = {"version": 1, "title": "Metrics", "blocks": [{"type": "metrics", "items": [
        {"label": "Requests", "value": "1.2M"}, {"label": "Errors", "value": "0.4%", "detail": "down from 0.9%"},
        {"label": "Apdex", "value": "0.97"}, {"label": "Latency", "value": "120 ms"}]}]}
    app = stored_app(tmp_path, [rich_item("m", doc)])
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: len(app.view.query(MetricPanel)) == 4)
        await pilot.pause(0.1)
        panels = list(app.view.query(MetricPanel))
        first_row = [p for p in panels if p.region.y == panels[0].region.y]
        assert len(first_row) == 3 and {p.region.height for p in first_row} == {5}  # the detail's row height
        assert panels[3].region.height == 4  # alone in its row: its own height


async def test_a_replays_file_preview_says_why_it_cannot_show_the_file(tmp_path):
    from ..support.app_helpers import replay_app

    app = replay_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        preview = app.view.query(FilePreview).last()
        app.view.scroll_to_widget(preview, animate=False, immediate=True)
        preview.focus()
        await pilot.press("enter")
        await until(pilot, lambda: preview.state == "unavailable")
        shown = " ".join(str(preview._body.content).split())
        assert shown.startswith("Preview unavailable: this session has no workspace here to read it from (a replay")


async def test_the_inspection_cursor_stays_inside_the_frame_over_two_rows_of_labels(tmp_path):
    """At 45 columns the demo's categories take two rows of labels: the cursor's column is reversed on the plot's
    rows only, never on the frame's bottom edge or a label (it stopped two rows above the end, wherever the frame
    was)."""
    doc = chart_doc(chart_type="bar", labels=("api", "auth", "billing", "web"),
                    series=(("Passed", (128, 64, 91, 129)), ("Failed", (0, 1, 2, 0))))
    app = stored_app(tmp_path, [rich_item("c", doc)])
    async with app.run_test(size=(45, 30)) as pilot:
        await settle(pilot)
        chart = app.view.query_one(ChartBlock)
        chart.focus()
        await pilot.press("right")
        await until(pilot, lambda: chart.cursor == 0)
        lines = chart.query_one(PlotArea).render().split("\n")
        bottom = next(row for row, line in enumerate(lines) if "└" in line.plain)
        assert len(lines) - bottom - 1 == 2, [line.plain for line in lines]  # two rows of labels
        rows = [row for row, line in enumerate(lines) if any("reverse" in str(span.style) for span in line.spans)]
        assert rows and max(rows) < bottom and min(rows) > 0, rows
