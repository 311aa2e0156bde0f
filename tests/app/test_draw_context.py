"""Widgets are given what they draw with (kandev_tui/widgets/context.py): the transcript view's DrawContext, set by
the app; outside any view, the defaults (no theme colours, no motion, no workspace)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from kandev_tui.widgets.entries.chart_block import ChartBlock
from kandev_tui.widgets.context import DEFAULT, context_of

from ..support.app_helpers import bar_chart, rich_item, settle, stored_app


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("alone", id="alone")


async def test_a_widget_outside_the_transcript_draws_with_the_defaults():
    app = Bare()
    async with app.run_test() as pilot:
        await pilot.pause()
        context = context_of(app.query_one("#alone"))
    assert context is DEFAULT
    assert context.series_colors() is None and not context.should_animate("chart") and context.workspace() is None
    assert context.visible()


async def test_the_transcripts_widgets_draw_with_what_the_app_gives_the_view(tmp_path):
    app = stored_app(tmp_path, [rich_item("c1", bar_chart("Build times"))], animation=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        chart = app.query_one(ChartBlock)
        context = context_of(chart)
        assert context is app.view.draw_context
        assert context.series_colors() == app.looks.series_colors()  # the theme's, by series index
        assert not context.should_animate(chart.data.key)  # the setting says no
        app.view.draw_context.visible = lambda: False  # the terminal went to the background
        chart.plotted = False
        app.view.check_charts(at_once=True)
        assert not chart.plotted  # nothing is plotted for nobody
