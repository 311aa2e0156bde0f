"""The search marks a hit wherever an entry draws it (a card's title or description, a chart's summary, a metric's
detail, a call's output, a failed rich output) and brings that row into view, not only the entry's top."""

from __future__ import annotations

from textual.widgets import Static

from kandev_tui.ui.textual_hooks import screen_text
from kandev_tui.widgets.search_marks import HIT_STYLE

from ..support.app_helpers import message_item, rich_item, settle, stored_app, tool_item, until

NEEDLE = "billing"


def card(title: str) -> dict:
    return {"version": 1, "title": title, "description": "Costs by team for the quarter.", "blocks": [
        {"type": "chart", "chart_type": "bar", "title": "Spend", "summary": "Storage leads, then compute.",
         "labels": ["storage", "compute", "network"], "series": [{"label": "USD", "values": [120, 80, 30]}]},
        {"type": "chart", "chart_type": "line", "title": "Trend", "summary": "Flat since June.",
         "labels": ["2026-05", "2026-06", "2026-07"], "series": [{"label": "USD", "values": [200, 230, 230]}]},
        {"type": "metrics", "items": [{"label": "Total", "value": "$230"},
                                      {"label": "Invoices", "value": "3", "detail": "one Billing run late"}]},
    ]}


def session() -> list:
    output = "\n".join(f"row {n}: ok" for n in range(60)) + "\nrow 60: billing export failed"
    return [message_item(0, "Show me the costs."),
            rich_item("c", card("Quarterly costs")),
            message_item(2, "And the export log:"),
            tool_item("t", title="Read export.log", output=output),
            message_item(4, "One more try at a chart:"),
            rich_item("f", {}, status="error",
                      output={"content": [{"type": "text", "text": "blocks[0].title: billing chart title too long"}]}),
            *[message_item(n, f"Filler paragraph {n}.") for n in range(6, 40)]]


def transcript_rows(app) -> list[str]:
    """The rows of the screen the transcript covers (not the search box, which shows the words typed)."""
    region = app.view.region
    return [line[region.x:region.right] for line in screen_text(app).splitlines()[region.y:region.bottom]]


def marked(widget) -> list[str]:
    """The texts a hit's statics draw reversed."""
    found = []
    for static in widget.walk_children(Static, with_self=True):
        content = static.content
        for span in getattr(content, "spans", ()):
            if str(span.style) == HIT_STYLE:
                found.append(content.plain[span.start:span.end])
    return found


async def next_hit(pilot, app, number: int, shows: str) -> None:
    """Enter: the search's next hit, once the transcript shows ``shows`` (the row where it is drawn)."""
    screen = app.transcript_screen
    await pilot.press("enter")
    await until(pilot, lambda: screen.search_box.border_subtitle.startswith(f"match {number} of"))
    await until(pilot, lambda: any(shows in row for row in transcript_rows(app)))


async def test_hits_in_a_card_a_metric_an_output_and_a_failed_card_are_marked_and_in_view(tmp_path):
    app = stored_app(tmp_path, session())
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await settle(pilot)
        screen, view = app.transcript_screen, app.view
        await pilot.press("ctrl+f", *NEEDLE)
        await next_hit(pilot, app, 1, "one Billing run late")  # the metric's detail, far below the card's top
        assert [key for _, key in screen.hits] == ["tool:c", "tool:t", "tool:f"]
        rich = app.screen.query_one(".search-hit")  # the card's entry
        await until(pilot, lambda: marked(rich) == ["Billing"])

        await next_hit(pilot, app, 2, "row 60: billing export failed")  # a call's output, 60 rows into it
        group = view.query_one("ToolGroup")
        call = group.call_view("tool:t")
        assert call is not None and call.has_class("search-hit") and not marked(rich)  # the last hit unmarked

        await next_hit(pilot, app, 3, "Visual output failed")  # a failed rich output: its one row
        failed = app.screen.query_one(".search-hit")
        assert marked(failed) == ["billing"]
        assert any("Visual output failed" in row and "billing" in row for row in transcript_rows(app))
        await pilot.press("escape")
        assert not marked(failed)


async def test_a_hit_in_a_cards_title_is_marked_there(tmp_path):
    app = stored_app(tmp_path, [message_item(0, "Costs:"), rich_item("c", card("Billing by team")),
                                *[message_item(n, f"Filler {n}.") for n in range(2, 30)]])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f", *NEEDLE)
        await next_hit(pilot, app, 1, "Billing by team")
        rich = app.screen.query_one(".search-hit")
        await until(pilot, lambda: marked(rich) == ["Billing", "Billing"])  # the title, and the metric's detail
