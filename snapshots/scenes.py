"""Deterministic scenes for snapshots: the real app over stored or recorded sessions."""

from __future__ import annotations

from pathlib import Path

from tests.app_helpers import message_item, replay_app, rich_item, settle, stored_app, tool_item

from kandev_tui.transcript import Item
from kandev_tui.widgets.chart_block import ChartBlock
from kandev_tui.widgets.file_preview import FilePreview
from kandev_tui.widgets.tool_card import ToolCard
from kandev_tui.widgets.tool_group import ToolGroup


def state_items() -> list[Item]:
    return [
        Item("user:1", "user_message", 1, {"text": "Show me every state."}),
        Item("thought:2", "thought", 1, {"text": "I should cover each card state."}),
        Item("plan:3", "plan", 1, {"entries": [{"content": "Read", "status": "completed"},
                                               {"content": "Chart", "status": "in_progress"},
                                               {"content": "Report", "status": "pending"}]}),
        tool_item("r1", name="read", kind="read", title="Read src/app.py"),
        tool_item("s1", name="search", kind="search", title="Search TODO", raw_input={"query": "TODO"}),
        tool_item("e1", name="execute", kind="execute", title="make lint", status="error",
                  output={"stderr": "no rule", "exit_code": 2}, shell={"stdout": "", "stderr": "no rule", "exit_code": 2}),
        Item("permission:4", "permission", 1, {"tool_call": {"toolCallId": "w1", "title": "Write notes.md"},
                                               "options": [{"optionId": "a", "name": "Allow once", "kind": "allow_once"},
                                                           {"optionId": "r", "name": "Reject", "kind": "reject_once"}]},
             status="pending", tool_call_id="w1"),
        message_item(5, "Here is **each** rich-output state:"),
        rich_item("p", {}, status="pending", output=None),
        rich_item("f", {}, status="error", output={"content": [{"type": "text", "text": "title: must be 1-120 characters"}]}),
        rich_item("c", {}, status="cancelled", output=None),
        rich_item("u", {"version": 2, "title": "future", "blocks": []}),
        Item("error:6", "error", 1, {"message": "The agent exited with code 3 during the turn.", "exit_code": 3,
                                     "stderr": ["fatal: connection dropped"]}),
        Item("turn_end:7", "turn_end", 1, {"stop_reason": "end_turn"}),
    ]


def block_items() -> list[Item]:
    doc = {"version": 1, "title": "Blocks", "description": "One of each block", "blocks": [
        {"type": "chart", "chart_type": "line", "title": "Latency", "summary": "p95 settled after the fix.",
         "labels": ["2026-09-01T10:00:00Z", "2026-09-01T11:00:00Z", "2026-09-01T12:00:00Z", "2026-09-01T13:00:00Z"],
         "series": [{"label": "p95", "values": [420, 380, None, 180]}, {"label": "p50", "values": [90, 85, 80, 0]}]},
        {"type": "metrics", "items": [{"label": "Requests", "value": "1.2M"}, {"label": "Errors", "value": "0.4%", "detail": "down"},
                                      {"label": "Apdex", "value": "0.97"}]},
        {"type": "file", "path": "reports/latency.json", "title": "Raw data", "caption": "From the load test",
         "mime_type": "application/json"}]}
    return [message_item(1, "A chart, metrics and a file:"), rich_item("b", doc)]


async def plot_visible(pilot) -> None:
    app = pilot.app
    await settle(pilot)
    app.transcript_screen.prompt.cursor_blink = False
    app.view.check_charts()
    await pilot.pause(0.1)


async def park(pilot, widget) -> None:
    """The deterministic last step of a scene: the widget at the top of the view, nothing moving."""
    view = pilot.app.view
    view._set_following(False)
    for _ in range(2):
        await pilot.pause(0.05)
        view.scroll_to_widget(widget, animate=False, top=True, immediate=True)
        view.check_charts()
    await pilot.pause(0.1)


async def scroll_home(pilot) -> None:
    await plot_visible(pilot)
    view = pilot.app.view
    await park(pilot, next(w for w in view.children if w.display and w is not view.top))


async def scroll_to_first_chart(pilot) -> None:
    await plot_visible(pilot)
    card = next(c for c in pilot.app.view.query(ToolCard) if c.query(ChartBlock))
    await park(pilot, card)


async def expand_group(pilot) -> None:
    await plot_visible(pilot)
    group = pilot.app.view.query_one(ToolGroup)
    group.focus()
    await pilot.press("enter")
    await park(pilot, group)


async def inspect_chart(pilot) -> None:
    await plot_visible(pilot)
    chart = pilot.app.view.query_one(ChartBlock)
    chart.ensure_plotted()
    chart.focus()
    await pilot.press("2", "right", "right")
    preview = pilot.app.view.query_one(FilePreview)
    preview.focus()
    await pilot.press("enter")
    for _ in range(50):
        await pilot.pause(0.02)
        if preview.state != "loading":
            break
    chart.focus()
    await park(pilot, chart)


def make(scene: str, tmp_path: Path, theme: str):
    if scene in ("demo_top", "demo_chart", "demo_end"):
        return replay_app(tmp_path, theme=theme)
    if scene in ("states", "group_expanded"):
        return stored_app(tmp_path, state_items(), theme=theme)
    workspace = tmp_path / "ws"
    (workspace / "reports").mkdir(parents=True)
    (workspace / "reports" / "latency.json").write_text('{"p95": [420, 380, null, 180], "unit": "ms"}')
    return stored_app(tmp_path, block_items(), theme=theme, workspace=str(workspace))


async def at_end(pilot) -> None:
    await plot_visible(pilot)
    pilot.app.view.jump_to_latest()
    for _ in range(3):
        await pilot.pause(0.05)
        pilot.app.view.scroll_end(animate=False, immediate=True)
    await pilot.pause(0.1)


RUN_BEFORE = {"demo_top": scroll_home, "demo_chart": scroll_to_first_chart, "demo_end": at_end,
              "states": scroll_home, "group_expanded": expand_group, "blocks": inspect_chart}
