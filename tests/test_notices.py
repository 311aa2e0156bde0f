"""What the agent tells the user beside its messages (ACP notices and context compaction): items of their own, drawn
by severity and status, stored, exported, searchable; with the dialect kit's agent (a real process) in the app."""

from __future__ import annotations

import json

from kandev_tui.transcript.frames import IN, OUT, Frame
from kandev_tui.transcript.normalize import Normalizer
from kandev_tui.textual_hooks import screen_text
from kandev_tui.widgets.compaction import CompactionRow

from .app_helpers import until
from .test_elicitation_app import agent_text, kit_app


def update(normalizer: Normalizer, body: dict) -> list:
    return normalizer.feed(Frame.now(IN, {"jsonrpc": "2.0", "method": "session/update",
                                          "params": {"sessionId": "s", "update": body}}))


def test_a_notice_is_an_item_and_an_unknown_severity_counts_as_info():
    normalizer = Normalizer()
    (warning,) = update(normalizer, {"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited",
                                     "description": "Retrying in 20 s"})
    assert warning.kind == "agent_notice" and warning.payload == {
        "severity": "warning", "title": "Rate limited", "description": "Retrying in 20 s"}
    (odd,) = update(normalizer, {"sessionUpdate": "notice", "severity": "_vendor_loud", "title": 42})
    assert odd.payload["severity"] == "info" and odd.payload["title"] == "(no title)"
    keys = {i.key for _ in range(1000) for i in update(normalizer, {"sessionUpdate": "notice", "severity": "info",
                                                                    "title": "again"})}
    assert len(keys) == 1000  # a thousand notices: a thousand items, none lost


def test_a_compaction_is_one_item_patched_in_place_by_its_id():
    normalizer = Normalizer()
    normalizer.feed(Frame.now(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                                    "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}}))
    (first,) = update(normalizer, {"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1",
                                   "content": {"type": "text", "text": "Kept: the plan"}})
    assert first.kind == "compaction" and first.payload["status"] == "in_progress"
    (more,) = update(normalizer, {"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1",
                                  "content": {"type": "text", "text": " and the failing test."}})
    (done,) = update(normalizer, {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "completed"})
    assert first.key == more.key == done.key and done.final
    assert done.payload["summary"] == "Kept: the plan and the failing test." and done.status == "completed"
    (failed,) = update(normalizer, {"sessionUpdate": "compaction_update", "compactionId": "c2", "status": "failed",
                                    "error": "context too large", "summary": None})
    assert failed.key != done.key and failed.payload["error"] == "context too large" and failed.payload["summary"] == ""
    (pending,) = update(normalizer, {"sessionUpdate": "compaction_update", "compactionId": "c3", "status": "in_progress"})
    ended = normalizer.feed(Frame.now(IN, {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}))
    (unfinished,) = [i for i in ended if i.kind == "compaction"]
    assert unfinished.key == pending.key and unfinished.payload["unfinished"]
    assert update(normalizer, {"sessionUpdate": "compaction_update", "compactionId": 7, "status": "completed"}) == []


NOTICES = [{"op": "update", "update": {"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited",
                                       "description": "Retrying in 20 s"}},
           {"op": "update", "update": {"sessionUpdate": "compaction_update", "compactionId": "c1",
                                       "status": "in_progress"}},
           {"op": "update", "update": {"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1",
                                       "content": {"type": "text", "text": "Kept: the release plan."}}},
           {"op": "update", "update": {"sessionUpdate": "compaction_update", "compactionId": "c1",
                                       "status": "completed"}},
           {"op": "caps"}]


async def test_the_app_offers_notices_and_compaction_and_shows_both(tmp_path):
    store, app = kit_app(tmp_path, NOTICES)
    async with app.run_test(size=(90, 30)) as pilot:
        await until(pilot, lambda: app.current.last_state == "idle" and "caps: " in agent_text(app))
        caps = json.loads(agent_text(app).split("caps: ", 1)[1])
        assert caps["session"] == {"notices": {}, "compaction": {}}
        await until(pilot, lambda: "▲ Rate limited" in screen_text(app) and "✔ Context compacted" in screen_text(app))
        assert "Retrying in 20 s" in screen_text(app) and "Kept: the release plan." not in screen_text(app)
        row = app.query_one(CompactionRow)
        row.query_one("CollapsibleTitle").focus()
        await pilot.press("enter")  # expands to the summary
        await until(pilot, lambda: "Kept: the release plan." in screen_text(app))
        await app.action_quit()
    (session,) = store.sessions()
    kinds = [i.kind for i in store.items(session["id"])]
    assert "agent_notice" in kinds and kinds.count("compaction") == 1


def test_plans_by_id_are_patched_in_place_drawn_from_items_markdown_or_a_file_and_removed():
    normalizer = Normalizer()
    (first,) = update(normalizer, {"sessionUpdate": "plan_update", "plan": {
        "type": "items", "planId": "p1", "entries": [{"content": "Read", "priority": "high", "status": "completed"}]}})
    (second,) = update(normalizer, {"sessionUpdate": "plan_update", "plan": {
        "type": "markdown", "planId": "p2", "content": "# Release\n\n1. tag\n2. publish"}})
    (again,) = update(normalizer, {"sessionUpdate": "plan_update", "plan": {
        "type": "file", "planId": "p1", "uri": "file:///w/PLAN.md"}})
    assert first.kind == second.kind == "plan" and first.key == again.key != second.key  # two plans at once
    assert again.payload == {"plan_id": "p1", "file": "file:///w/PLAN.md"}
    (gone,) = update(normalizer, {"sessionUpdate": "plan_removed", "planId": "p2"})
    assert gone.key == second.key and gone.payload["removed"] and gone.payload["markdown"].startswith("# Release")
    assert update(normalizer, {"sessionUpdate": "plan_removed", "planId": "p2"}) == []  # once
    assert update(normalizer, {"sessionUpdate": "plan_update", "plan": {"type": "items"}}) == []  # no id: nothing


async def test_the_app_offers_plan_operations_and_draws_a_markdown_plan_and_a_removed_one(tmp_path):
    steps = [{"op": "update", "update": {"sessionUpdate": "plan_update", "plan": {
                 "type": "markdown", "planId": "p1", "content": "**Release** steps:\n\n- tag v1.0\n- publish"}}},
             {"op": "update", "update": {"sessionUpdate": "plan_update", "plan": {
                 "type": "items", "planId": "p2", "entries": [{"content": "Old plan", "priority": "low",
                                                               "status": "pending"}]}}},
             {"op": "update", "update": {"sessionUpdate": "plan_removed", "planId": "p2"}},
             {"op": "caps"}]
    store, app = kit_app(tmp_path, steps)
    async with app.run_test(size=(90, 30)) as pilot:
        await until(pilot, lambda: app.current.last_state == "idle" and "caps: " in agent_text(app))
        assert json.loads(agent_text(app).split("caps: ", 1)[1])["plan"] == {}
        await until(pilot, lambda: "Release steps:" in screen_text(app) and "Plan 0/1 (removed)" in screen_text(app))
        text = screen_text(app)
        assert "**Release**" not in text and "• tag v1.0" in text  # drawn as Markdown
        await app.action_quit()
    (session,) = store.sessions()
    plans = [i for i in store.items(session["id"]) if i.kind == "plan"]
    assert len(plans) == 2 and plans[1].payload["removed"]
