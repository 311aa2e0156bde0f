"""Agent text is inert: markup is not run, control sequences never reach the terminal."""

from __future__ import annotations

import pytest

from kandev_tui.sanitize import visible
from kandev_tui.transcript import Item
from kandev_tui.widgets.permission import PermissionRequest

from .app_helpers import fleet_item, message_item, rich_item, settle, stored_app, tool_item

HOSTILE = [
    "[@click=app.quit]click me[/]",
    "[bold red]not bold[/]",
    "\x1b]0;pwned title\x07",
    "\x1b]52;c;cGFzdGU=\x07",
    "\x1b[2J\x1b[H",
    "\x1bP+q544e\x1b\\",
    "\x9b31m",
    "before\u202eeman.exe",
    "zero\u200bwidth",
    "\x1b]8;;file:///etc/passwd\x1b\\link\x1b]8;;\x1b\\",
]
CONTROL = ["\x1b", "\x07", "\x9b", "\u202e", "\u200b"]


def hostile_items(text: str) -> list[Item]:
    doc = {"version": 1, "title": text[:120] or "t", "description": text, "blocks": [
        {"type": "chart", "chart_type": "bar", "title": text[:120] or "t", "summary": text or "s",
         "labels": [text[:120] or "x", "ok"], "series": [{"label": text[:120] or "s", "values": [1, 2]}]},
        {"type": "metrics", "items": [{"label": text[:120] or "l", "value": text[:200] or "v", "detail": text}]},
        {"type": "file", "path": "notes.txt", "title": text[:120], "caption": text}]}
    return [
        Item("user:1", "user_message", 1, {"text": text}),
        Item("thought:2", "thought", 1, {"text": text}),
        Item("plan:3", "plan", 1, {"entries": [{"content": text, "status": "pending"}]}),
        message_item(4, text),
        tool_item("t", title=text, output=text),
        Item("permission:5", "permission", 1, {"tool_call": {"toolCallId": "x", "title": text},
                                               "options": [{"optionId": "a", "name": text, "kind": "allow_once"}]},
             status="pending", tool_call_id="x"),
        rich_item("r", doc),
        Item("error:6", "error", 1, {"message": text, "stderr": [text]}),
        fleet_item("f1", "get_entity", {"slug": text[:500] or "s", "type": text[:500] or "t", "state": text[:200],
                                        "attributes": {text[:200]: text, "ip": text[:200]}}),
        fleet_item("f2", "list_entities", {"entities": [{"slug": text[:500] or "s", "type": text[:200],
                                                         "state": text[:200]}]}),
        fleet_item("f3", "search_knowledge", {"results": [{"title": text[:500] or "t", "excerpt": text,
                                                           "tags": [text[:100]]}]}),
        fleet_item("f4", "get_change_history", {"entries": [{"at": "2026-11-30T10:00:00Z", "summary": text,
                                                             "actor": text[:200], "entity": text[:500]}]}, codex=True),
        fleet_item("f5", "get_entity", text, status="error"),
    ]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
async def test_hostile_text_is_shown_inert(tmp_path, text):
    app = stored_app(tmp_path, hostile_items(text))
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        app.view.check_charts()
        await pilot.pause(0.1)
        from kandev_tui.widgets.tool_card import ToolCard

        fleet = [c for c in app.view.query(ToolCard) if c.key.startswith("tool:f")]
        assert len(fleet) == 5 and not any(c.fallback or c.failed for c in fleet)  # drawn by the cards themselves
        svg = app.export_screenshot()
        for char in CONTROL:
            assert char not in svg
        if text.startswith("[@click"):
            from textual.widgets import Button

            button = app.view.query_one(PermissionRequest).query_one(Button)
            assert "[@click=app.quit]" in button.label.plain and not button.label.spans  # literal text
        request = app.view.query_one(PermissionRequest)
        request.set_answerable(True)
        request.focus()
        await pilot.press("1")
        await pilot.pause()
        assert app.is_running  # nothing the agent wrote quit the app


def test_visible_shows_every_escape_family():
    assert visible("\x1b]0;x\x07") == "␛]0;x␇"
    assert visible("a\u202eb") == "a<U+202E>b"
    assert visible("\x9b") == "<U+009B>"
    assert visible("tab\tnew\nline") == "tab\tnew\nline"
    assert visible("tab\tnew\nline", keep_newlines=False) == "tab␉new␊line"
