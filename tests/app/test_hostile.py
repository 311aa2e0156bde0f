"""Agent text is inert: markup is not run, control sequences never reach the terminal."""

from __future__ import annotations

import pytest

from kandev_tui.transcript import Item
from kandev_tui.widgets.entries.permission import PermissionRequest

from ..support.app_helpers import fleet_item, message_item, rich_item, settle, stored_app, tool_item, until
from ..support.app_helpers import drawn_text
from ..support.hostile_corpus import CORPUS, NEVER_SHOWN

NAMES = list(CORPUS)
BATCH = 3  # strings per app run: each string goes into every field (about 30 items), all mounted at once (≤ 100 entries)


def hostile_items(text: str, n: int = 0) -> list[Item]:
    doc = {"version": 1, "title": text[:120] or "t", "description": text[:2000], "blocks": [
        {"type": "chart", "chart_type": "bar", "title": text[:120] or "t", "summary": text[:500] or "s",
         "labels": [text[:120] or "x", "ok"], "series": [{"label": text[:120] or "s", "values": [1, 2]}]},
        {"type": "metrics", "items": [{"label": text[:120] or "l", "value": text[:200] or "v", "detail": text[:200]}]},
        {"type": "file", "path": "notes.txt", "title": text[:120], "caption": text[:500]}]}
    return [
        Item(f"user:{n}1", "user_message", 1, {"text": text}),
        Item(f"thought:{n}2", "thought", 1, {"text": text}),
        Item(f"plan:{n}3", "plan", 1, {"entries": [{"content": text, "status": "pending"}]}),
        message_item(n * 100 + 4, text),
        tool_item(f"t{n}", title=text, output=text),
        tool_item(f"o{n}", name="other", kind="other", title=text, output=text),  # labelled by its title in a group
        Item(f"permission:{n}5", "permission", 1, {"tool_call": {"toolCallId": f"x{n}", "title": text},
                                                   "options": [{"optionId": "a", "name": text, "kind": "allow_once"}],
                                                   "asked_by": text[:80]},
             status="pending", tool_call_id=f"x{n}"),
        rich_item(f"r{n}", doc),
        Item(f"error:{n}6", "error", 1, {"message": text, "stderr": [text]}),
        Item(f"elicitation:{n}7", "elicitation", 1, {
            "mode": "form", "message": text, "agent": text[:80], "asked_by": text[:80], "schema": {
                "type": "object", "properties": {"a": {"type": "string", "title": text[:200] or "t", "description": text},
                                                 "b": {"type": "string", "title": text[:100] or "c",
                                                       "oneOf": [{"const": "x", "title": text[:200] or "x"}]}}},
            "answer": {"action": "accept", "content": {"a": text, "b": "x"}}}, status="accepted", final=True),
        Item(f"elicitation:{n}8", "elicitation", 1, {"mode": "url", "message": text, "host": "example.com",
                                                     "url": "https://example.com/" + text[:300]}, status="pending"),
        Item(f"notice:{n}9", "agent_notice", 1, {"severity": "warning", "title": text[:500], "description": text},
             final=True),
        Item(f"compaction:{n}10", "compaction", 1, {"status": "failed", "summary": text, "error": text[:4000]},
             status="failed", final=True),
        Item(f"subagent:{n}11", "subagent", 1, {"session_id": "kid", "title": text[:300], "description": text[:2000],
                                                "state": "running", "text": text,
                                                "tools": [{"id": "k", "title": text[:300], "status": "pending"}]}),
        tool_item(f"s{n}", name="spawn", kind="other", title=text, output=text, status="in_progress"),
        Item(f"subagent:{n}12", "subagent", 1, {"session_id": "kid2", "title": text[:300], "description": text[:2000],
                                                "state": "running", "text": text, "tools": [], "spawned_by": f"s{n}"}),
        fleet_item(f"f1-{n}", "get_entity", {"slug": text[:500] or "s", "type": text[:500] or "t", "state": text[:200],
                                             "attributes": {text[:200]: text, "ip": text[:200]}}),
        fleet_item(f"f2-{n}", "list_entities", {"entities": [{"slug": text[:500] or "s", "type": text[:200],
                                                              "state": text[:200]}]}),
        fleet_item(f"f3-{n}", "search_knowledge", {"results": [{"title": text[:500] or "t", "excerpt": text,
                                                                "tags": [text[:100]]}]}),
        fleet_item(f"f4-{n}", "get_change_history", {"entries": [{"at": "2026-11-30T10:00:00Z", "summary": text,
                                                                  "actor": text[:200], "entity": text[:500]}]},
                   codex=True),
        fleet_item(f"f5-{n}", "get_entity", text, status="error"),
        fleet_item(f"f6-{n}", text[:200] or "t", {"__renderer": "health_summary", "healthy": 1, "degraded": 0,
                                                   "down": 0}),  # an agent-named tool drawn by a card
        *kandev_items(text, n),
    ]


def kandev_items(text: str, n: int) -> list[Item]:
    """The same text in every field of the rows a Kandev backend sends (kandev-tui attach)."""
    from kandev_tui.kandev.rows import row_item

    def row(i: int, kind: str, content: str = text, **metadata) -> dict:
        return {"id": f"k{n}-{i}", "turn_id": text[:50], "type": kind, "author_type": "agent", "content": content,
                "metadata": metadata, "created_at": text[:40], "updated_at": text[:40]}

    rows = [
        row(1, "message"), row(2, "thinking", thinking=text), row(3, "todo", todos=[{"text": text, "status": text}]),
        row(4, "status"), row(5, "script_execution", agent_name=text, script_type=text, status=text, exit_code=3),
        row(6, "tool_read", status="complete", title=text, normalized={"kind": "read_file", "read_file": {
            "file_path": text, "output": {"content": text}}}),
        row(7, "tool_search", status="complete", title=text, normalized={"kind": "code_search", "code_search": {
            "query": text, "path": text, "output": {"files": [text]}}}),
        row(8, "tool_execute", status="error", title=text, normalized={"kind": "shell_exec", "shell_exec": {
            "command": text, "work_dir": text, "output": {"exit_code": 1, "stderr_bytes": 5}}}),
        row(9, "tool_call", status="complete", title=text, normalized={"kind": "generic", "generic": {
            "name": text, "input": {"kind": "other", "raw_input": {"q": text}}, "output": [{"type": "text", "text": text}]}}),
        row(10, "permission_request", options=[{"option_id": "a", "name": text, "kind": text}], action_details={
            "description": text}, pending_id=text, request_id=text),
        row(11, text[:60] or "odd"),  # an unknown row type named by the text
    ]
    return [item for item in (row_item(r) for r in rows) if item is not None]


@pytest.mark.reliability("Terminal and text", "65 hostile strings (markup, action links, CSI/OSC/DCS/APC/PM/SOS/8-bit C1, controls, bidi, zero-width, Markdown links, overlong, lone surrogates, huge numbers) in 48 agent-text fields each (37 from ACP agents, 11 Kandev row fields)", cases=BATCH * 48,
                         held="no control, bidi or invisible character drawn on any line; markup shown as text; no action ran; keys answered")
@pytest.mark.parametrize("start", range(0, len(NAMES), BATCH), ids=lambda i: ",".join(NAMES[i:i + BATCH]))
async def test_hostile_text_is_shown_inert(tmp_path, start):
    from kandev_tui.widgets.entries.tool_card import ToolCard

    names = NAMES[start:start + BATCH]
    items = [item for n, name in enumerate(names) for item in hostile_items(CORPUS[name], n)]
    app = stored_app(tmp_path, items, card_limit=100)  # every card drawn, none folded
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        app.view.check_charts(at_once=True)
        await until(pilot, lambda: len(app.view.widgets) == len(app.view.entries))  # everything is mounted and drawn
        fleet = [c for c in app.view.query(ToolCard) if c.key.startswith("tool:f")]
        assert len(fleet) == 6 * len(names) and not any(c.fallback or c.failed for c in fleet)
        from kandev_tui.widgets.entries.subagent import SpawningCall

        assert len(app.view.query(SpawningCall)) == len(names)  # each child inside its call
        drawn = drawn_text(app) + app.export_screenshot()
        for char in NEVER_SHOWN:
            assert char not in drawn, (repr(char), names)
        for request in app.view.query(PermissionRequest):
            from textual.widgets import Button

            for button in request.query(Button):
                assert not button.label.spans or all(not str(span.style).startswith("@") for span in button.label.spans)
        for request in app.view.query(PermissionRequest):
            request.set_answerable(True)
            request.focus()
            await pilot.press("1")
            await pilot.pause()
        assert app.is_running  # nothing the agent wrote quit the app
        await pilot.press("f1")  # and it still answers keys
        await pilot.pause()
        assert app.screen is not app.transcript_screen
