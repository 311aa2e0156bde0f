"""What the agent tells the user beside its messages (ACP notices and context compaction): items of their own, drawn
by severity and status, stored, exported, searchable; with the dialect kit's agent (a real process) in the app."""

from __future__ import annotations

import json

from kandev_tui.ui.textual_hooks import screen_text
from kandev_tui.widgets.entries.compaction import CompactionRow

from ..support.app_helpers import until
from ..support.kit import agent_text, kit_app

NOTICES = [{"op": "update", "update": {"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited",
                                       "description": "Retrying in 20 s"}},
           {"op": "update", "update": {"sessionUpdate": "usage_update", "used": 90_000, "size": 100_000}},
           {"op": "update", "update": {"sessionUpdate": "compaction_update", "compactionId": "c1",
                                       "status": "in_progress"}},
           {"op": "update", "update": {"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1",
                                       "content": {"type": "text", "text": "Kept: the release plan."}}},
           {"op": "update", "update": {"sessionUpdate": "compaction_update", "compactionId": "c1",
                                       "status": "completed"}},
           {"op": "update", "update": {"sessionUpdate": "usage_update", "used": 5_000, "size": 100_000}},
           {"op": "caps"}]
async def test_the_app_offers_notices_and_compaction_and_shows_both(tmp_path):
    store, app = kit_app(tmp_path, NOTICES)
    async with app.run_test(size=(90, 30)) as pilot:
        await until(pilot, lambda: app.current.last_state == "idle" and "caps: " in agent_text(app))
        caps = json.loads(agent_text(app).split("caps: ", 1)[1])
        assert caps["session"] == {"notices": {}, "compaction": {}}
        await until(pilot, lambda: "▲ Rate limited" in screen_text(app)
                    and "✔ Context compacted · 90k → 5.0k of 100k tokens" in screen_text(app))
        assert "Retrying in 20 s" in screen_text(app) and "Kept: the release plan." not in screen_text(app)
        row = app.query_one(CompactionRow)
        row.query_one("CollapsibleTitle").focus()
        await pilot.press("enter")  # expands to the summary
        await until(pilot, lambda: "Kept: the release plan." in screen_text(app))
        await app.action_quit()
    (session,) = store.sessions()
    kinds = [i.kind for i in store.items(session["id"])]
    assert "agent_notice" in kinds and kinds.count("compaction") == 1
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


# the child kid-1 reads a file, says it found nothing, and is done (the dialect kit's steps)
REVIEWER_WORKS = [
    {"op": "update", "session": "kid-1", "update": {"sessionUpdate": "tool_call", "toolCallId": "k1",
                                                    "title": "Read a.py", "status": "completed"}},
    {"op": "update", "session": "kid-1", "update": {"sessionUpdate": "agent_message_chunk",
                                                    "content": {"type": "text", "text": "No issue found."}}},
    {"op": "update", "update": {"sessionUpdate": "subagent_update", "sessionId": "kid-1",
                                "state": {"state": "idle", "stopReason": "end_turn"}}},
]
async def test_the_app_offers_subagents_and_shows_one_live_inside_the_parents_transcript(tmp_path):
    steps = [{"op": "update", "update": {"sessionUpdate": "subagent_update", "sessionId": "kid-1",
                                         "title": "Reviewer", "description": "Reviews the diff"}},
             *REVIEWER_WORKS,
             {"op": "say", "text": "The reviewer is done."},
             {"op": "caps"}]
    store, app = kit_app(tmp_path, steps)
    async with app.run_test(size=(90, 30)) as pilot:
        await until(pilot, lambda: app.current.last_state == "idle" and "caps: " in agent_text(app))
        assert json.loads(agent_text(app).split("caps: ", 1)[1])["subagents"] == {}
        assert "No issue found." not in agent_text(app)  # the child's words are not the parent's
        await until(pilot, lambda: "↳ Reviewer · done · 1 call" in screen_text(app))
        from kandev_tui.widgets.entries.subagent import SubagentCard

        app.query_one(SubagentCard).query_one("CollapsibleTitle").focus()
        await pilot.press("enter")
        await until(pilot, lambda: "✔ Read a.py" in screen_text(app) and "No issue found." in screen_text(app))
        await app.action_quit()
    (session,) = store.sessions()
    (kid,) = [i for i in store.items(session["id"]) if i.kind == "subagent"]
    assert kid.payload["text"] == "No issue found." and kid.payload["state"] == "done"
async def test_a_subagent_shows_live_inside_the_call_that_spawned_it_and_opens_so_again(tmp_path):
    """The agent (a real process) runs a tool call, and announces a child while it runs: the call leaves the
    turn's tool group, and the child's row streams inside it, under the call; opened again from the store, the
    transcript has the same entries."""
    from kandev_tui.renderers import Registry
    from kandev_tui.session.layout import Layout
    from kandev_tui.widgets.entries.subagent import SpawningCall, SubagentCard

    def call(call_id: str, title: str, status: str, kind: str = "tool_call") -> dict:
        return {"op": "update", "update": {"sessionUpdate": kind, "toolCallId": call_id, "title": title,
                                           "kind": "other", "status": status}}

    steps = [call("r1", "Read notes.md", "completed"),
             call("spawn-1", "Spawn a reviewer", "in_progress"),
             {"op": "update", "update": {"sessionUpdate": "subagent_update", "sessionId": "kid-1", "title": "Reviewer"}},
             *REVIEWER_WORKS,
             call("spawn-1", "Spawn a reviewer", "completed", "tool_call_update"),
             call("r2", "Read b.py", "completed"),
             {"op": "say", "text": "The reviewer is done."}]
    store, app = kit_app(tmp_path, steps)
    async with app.run_test(size=(90, 30)) as pilot:
        await until(pilot, lambda: app.current.last_state == "idle" and "The reviewer is done." in agent_text(app))
        await until(pilot, lambda: "↳ Reviewer · done · 1 call" in screen_text(app))
        spawning = app.view.query_one(SpawningCall)
        card = app.view.query_one(SubagentCard)
        assert spawning.item.key == "tool:spawn-1" and spawning.item.status == "complete" and card.parent is spawning
        shown = screen_text(app)
        assert shown.index("1 tool: ") < shown.index("Spawn a reviewer") < shown.index("↳ Reviewer") < shown.rindex(
            "1 tool: ")  # r1's group, the call with its child, r2's group
        card.query_one("CollapsibleTitle").focus()
        await pilot.press("enter")
        await until(pilot, lambda: "✔ Read a.py" in screen_text(app) and "No issue found." in screen_text(app))
        live = [(e.kind, e.item_keys) for e in app.view.entries]
        await app.action_quit()
    (session,) = store.sessions()
    stored = Layout(Registry.from_entry_points())
    for item in store.items(session["id"]):
        stored.place(item)
    assert [(e.kind, e.item_keys) for e in stored.entries] == live
    assert ("call", ["tool:spawn-1", next(k for _, keys in live for k in keys if k.startswith("subagent:"))]) in live
async def test_x_on_a_subagent_that_can_be_cancelled_cancels_its_session_only(tmp_path):
    gate, log = tmp_path / "go", tmp_path / "asked.jsonl"
    steps = [{"op": "update", "update": {"sessionUpdate": "subagent_update", "sessionId": "kid-1", "title": "Reviewer",
                                         "capabilities": {"cancel": {}}}},
             {"op": "wait", "path": str(gate)}, {"op": "say", "text": "Parent done."}]
    store, app = kit_app(tmp_path, steps, session_log=str(log))
    async with app.run_test(size=(90, 30)) as pilot:
        from kandev_tui.widgets.entries.subagent import SubagentCard

        await until(pilot, lambda: "↳ Reviewer · running · x cancels" in screen_text(app))
        app.query_one(SubagentCard).query_one("CollapsibleTitle").focus()
        await pilot.press("x")
        await until(pilot, lambda: log.exists() and "kid-1" in log.read_text())
        assert [json.loads(line) for line in log.read_text().splitlines()] == [
            {"method": "session/cancel", "params": {"sessionId": "kid-1"}}]  # the child's, not the turn's
        assert app.current.last_state == "running"
        gate.write_text("")
        await until(pilot, lambda: app.current.last_state == "idle" and "Parent done." in agent_text(app))
        await app.action_quit()
async def test_o_opens_a_subagent_full_screen_in_order_and_it_follows_it_live(tmp_path):
    """What the parent told the child, what the child says and its calls, in the order they came; new parts show
    while the screen is open; escape goes back to the parent's transcript."""
    gate = tmp_path / "go"
    kid = "kid-1"
    steps = [{"op": "update", "update": {"sessionUpdate": "subagent_update", "sessionId": kid, "title": "Reviewer"}},
             {"op": "update", "session": kid, "update": {"sessionUpdate": "session_message", "messageId": "m1",
                                                         "senderSessionId": "dialect-1", "recipientSessionId": kid,
                                                         "content": [{"type": "text", "text": "Review the diff."}]}},
             {"op": "update", "session": kid, "update": {"sessionUpdate": "agent_message_chunk",
                                                         "content": {"type": "text", "text": "Reading **a.py** first."}}},
             {"op": "wait", "path": str(gate)},
             {"op": "update", "session": kid, "update": {"sessionUpdate": "tool_call", "toolCallId": "k1",
                                                         "title": "Read a.py", "kind": "read", "status": "completed"}},
             {"op": "update", "session": kid, "update": {"sessionUpdate": "agent_message_chunk",
                                                         "content": {"type": "text", "text": "No issue found."}}},
             {"op": "update", "update": {"sessionUpdate": "subagent_update", "sessionId": kid,
                                         "state": {"state": "idle", "stopReason": "end_turn"}}},
             {"op": "say", "text": "The reviewer is done."}]
    store, app = kit_app(tmp_path, steps, launcher=True)
    async with app.run_test(size=(90, 30)) as pilot:
        from kandev_tui.screens.subagent import SubagentScreen
        from kandev_tui.screens.transcript import TranscriptScreen
        from kandev_tui.widgets.entries.subagent import SubagentCard

        await until(pilot, lambda: "↳ Reviewer · running" in screen_text(app) and app.query(SubagentCard)
                    and "Reading" in app.query_one(SubagentCard).item.payload.get("text", ""))
        app.query_one(SubagentCard).query_one("CollapsibleTitle").focus()
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, SubagentScreen) and "Reading a.py first." in screen_text(app))
        text = screen_text(app)
        assert "→ Review the diff." in text and "**" not in text  # told, then said (as Markdown)
        assert text.index("→ Review the diff.") < text.index("Reading a.py first.")
        gate.write_text("")
        await until(pilot, lambda: "No issue found." in screen_text(app) and "· done" in screen_text(app))
        text = screen_text(app)
        assert text.index("Reading a.py first.") < text.index("✔ Read a.py · read") < text.index("No issue found.")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        await until(pilot, lambda: "The reviewer is done." in agent_text(app))
        # the sessions list shows the subagent under its session; enter on it shows it full screen again
        from kandev_tui.screens.sessions import SessionsScreen

        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen) and "↳ Reviewer · done" in screen_text(app))
        options = app.screen.options
        options.highlighted = next(i for i in range(options.option_count)
                                   if (options.get_option_at_index(i).id or "").startswith("subagent:1:"))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SubagentScreen) and "No issue found." in screen_text(app))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        await app.action_quit()
    (session,) = store.sessions()
    (item,) = [i for i in store.items(session["id"]) if i.kind == "subagent"]
    assert [sorted(p) for p in item.payload["parts"]] == [["m", "n", "told"], ["n", "text"], ["call", "n"],
                                                          ["n", "text"]]
    # what it said, not what it was told; a message after a call, a paragraph of its own
    assert item.payload["text"] == "Reading **a.py** first.\n\nNo issue found."
