"""What the agent tells the user beside its messages (ACP notices and context compaction): items of their own, drawn
by severity and status, stored, exported, searchable; with the dialect kit's agent (a real process) in the app."""

from __future__ import annotations

import json

import pytest

from kandev_tui.transcript.frames import IN, OUT, Frame
from kandev_tui.transcript.normalize import Normalizer
from kandev_tui.ui.textual_hooks import screen_text
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


def test_the_usage_display_follows_a_compaction_what_the_context_held_before_and_after():
    normalizer = Normalizer()
    update(normalizer, {"sessionUpdate": "usage_update", "used": 182_000, "size": 200_000})
    (started,) = update(normalizer, {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "in_progress"})
    assert started.payload["context_before"] == 182_000 and started.payload["context_size"] == 200_000
    (done,) = update(normalizer, {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "completed"})
    usage, followed = update(normalizer, {"sessionUpdate": "usage_update", "used": 12_400, "size": 200_000})
    assert usage.kind == "usage" and usage.payload["used"] == 12_400  # the status line's usage, as ever
    assert followed.key == done.key and followed.payload["context_after"] == 12_400
    from kandev_tui.widgets.compaction import compaction_title

    assert compaction_title(followed) == "✔ Context compacted · 182k → 12k of 200k tokens"
    (later,) = update(normalizer, {"sessionUpdate": "usage_update", "used": 13_000, "size": 200_000})
    assert later.kind == "usage"  # only the first report after it is the compaction's
    # reported while it runs (as Codex does): the context it leaves, said when it completes
    update(normalizer, {"sessionUpdate": "compaction_update", "compactionId": "c3", "status": "in_progress"})
    update(normalizer, {"sessionUpdate": "usage_update", "used": 7_387, "size": 258_400})
    (codex,) = update(normalizer, {"sessionUpdate": "compaction_update", "compactionId": "c3", "status": "completed"})
    assert (codex.payload["context_before"], codex.payload["context_after"]) == (13_000, 7_387)
    assert update(normalizer, {"sessionUpdate": "usage_update", "used": 9_000, "size": 258_400})[1:] == []
    (failed,) = update(normalizer, {"sessionUpdate": "compaction_update", "compactionId": "c2", "status": "failed"})
    assert update(normalizer, {"sessionUpdate": "usage_update", "used": 1, "size": 2})[1:] == []  # a failed one: no
    assert compaction_title(failed) == "✖ Compacting the context failed · 9.0k of 258k tokens"


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


@pytest.mark.system
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


@pytest.mark.system
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


def child(session: str, body: dict) -> dict:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": body}}


def test_a_subagent_is_one_item_fed_by_its_own_session_and_cycles_are_ignored():
    normalizer = Normalizer()
    normalizer.feed(Frame.now(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                                    "params": {"sessionId": "root", "prompt": [{"type": "text", "text": "go"}]}}))
    update(normalizer, {"sessionUpdate": "tool_call", "toolCallId": "spawn-1", "title": "Spawn a reviewer",
                        "kind": "other", "status": "in_progress"})
    (announced,) = normalizer.feed(Frame.now(IN, child("root", {
        "sessionUpdate": "subagent_update", "sessionId": "kid", "title": "Reviewer", "capabilities": {"cancel": {}}})))
    assert announced.kind == "subagent" and announced.payload["spawned_by"] == "spawn-1"
    assert announced.payload["can_cancel"] and announced.payload["state"] == "running"
    (said,) = normalizer.feed(Frame.now(IN, child("kid", {"sessionUpdate": "agent_message_chunk",
                                                          "content": {"type": "text", "text": "Looks fine."}})))
    (called,) = normalizer.feed(Frame.now(IN, child("kid", {"sessionUpdate": "tool_call", "toolCallId": "k1",
                                                            "title": "Read a.py", "status": "pending"})))
    (ran,) = normalizer.feed(Frame.now(IN, child("kid", {"sessionUpdate": "tool_call_update", "toolCallId": "k1",
                                                         "status": "completed"})))
    assert said.key == called.key == ran.key == announced.key  # the child's updates patch its one item
    assert ran.payload["text"] == "Looks fine." and ran.payload["tools"] == [
        {"id": "k1", "title": "Read a.py", "status": "completed"}]
    assert not any(i.kind == "agent_message" for i in [said, called, ran])  # nothing leaks into the parent
    (nested,) = normalizer.feed(Frame.now(IN, child("kid", {"sessionUpdate": "subagent_update", "sessionId": "grandkid",
                                                            "title": "Linter"})))
    assert nested.key != announced.key and nested.payload["parent_title"] == "Reviewer"
    assert normalizer.feed(Frame.now(IN, child("grandkid", {"sessionUpdate": "subagent_update",
                                                            "sessionId": "kid"}))) != []  # kid is known: a patch
    assert normalizer.feed(Frame.now(IN, child("grandkid", {"sessionUpdate": "subagent_update",
                                                            "sessionId": "root"}))) == []  # a cycle: ignored
    (done,) = normalizer.feed(Frame.now(IN, child("root", {"sessionUpdate": "subagent_update", "sessionId": "kid",
                                                           "state": {"state": "idle", "stopReason": "end_turn"}})))
    assert done.payload["state"] == "done" and done.final


def _kid(n: int, spawned_by: str | None, title: str = "Reviewer"):
    from kandev_tui.transcript.items import Item

    payload = {"session_id": f"kid-{n}", "title": title, "description": "", "state": "running", "text": "", "tools": []}
    return Item(f"subagent:{n}", "subagent", 1, {**payload, **({"spawned_by": spawned_by} if spawned_by else {})})


def _shape(layout) -> list[tuple[str, list[str]]]:
    return [(e.kind, e.item_keys) for e in layout.entries]


@pytest.mark.parametrize("first", [True, False], ids=["spawner-first-in-its-group", "spawner-later-in-its-group"])
def test_a_subagent_is_placed_inside_the_call_that_spawned_it_live_as_when_stored(first):
    """The call a subagent names (``spawned_by``) leaves its tool group for an entry of its own holding the call and
    its children; what follows starts a new group below it. Placed live (the call running, then finished) or stored
    (each item's last version, in order), the entries are the same."""
    from kandev_tui.renderers import Registry
    from kandev_tui.session.layout import Layout

    from .app_helpers import message_item, tool_item

    spawn = tool_item("spawn-1", name="spawn_agent", kind="other", status="in_progress")
    read = tool_item("r1", status="complete")
    calls = [spawn, read] if first else [read, spawn]
    later = [_kid(1, "spawn-1"), _kid(2, "spawn-1", "Linter"), tool_item("r2"), spawn.but(status="complete"),
             _kid(1, "spawn-1").but(payload={**_kid(1, "spawn-1").payload, "state": "done"}), message_item(9, "done")]
    live = Layout(Registry())
    for item in [message_item(1, "hi"), *calls, *later]:
        live.place(item)
    final = {}
    for item in [message_item(1, "hi"), *calls, *later]:
        final[item.key] = item  # a dict keeps the order keys first came: the store's
    stored = Layout(Registry())
    for item in final.values():
        stored.place(item)
    expected_calls = [("call", ["tool:spawn-1", "subagent:1", "subagent:2"])]
    expected = [("item", ["message:1"]), *(expected_calls + [("group", ["tool:r1"])] if first else
                                          [("group", ["tool:r1"])] + expected_calls),
                ("group", ["tool:r2"]), ("item", ["message:9"])]
    assert _shape(live) == _shape(stored) == expected
    assert [e.index for e in live.entries] == list(range(len(live.entries)))
    assert all(live.by_key[e.key] is e for e in live.entries) and live.entry_of["subagent:2"].kind == "call"


def test_a_subagent_of_no_call_or_of_a_card_stands_on_its_own():
    from kandev_tui.renderers import Registry, Renderer
    from kandev_tui.session.layout import Layout

    from .app_helpers import tool_item

    registry = Registry([Renderer(id="spawner", widget=lambda item: None, tool_names=frozenset({"spawn_agent"}))])
    layout = Layout(registry)
    for item in [tool_item("spawn-1", name="spawn_agent"), _kid(1, "spawn-1"), _kid(2, None), _kid(3, "gone")]:
        layout.place(item)
    assert _shape(layout) == [("card", ["tool:spawn-1"]), ("item", ["subagent:1"]), ("item", ["subagent:2"]),
                              ("item", ["subagent:3"])]


# the child kid-1 reads a file, says it found nothing, and is done (the dialect kit's steps)
REVIEWER_WORKS = [
    {"op": "update", "session": "kid-1", "update": {"sessionUpdate": "tool_call", "toolCallId": "k1",
                                                    "title": "Read a.py", "status": "completed"}},
    {"op": "update", "session": "kid-1", "update": {"sessionUpdate": "agent_message_chunk",
                                                    "content": {"type": "text", "text": "No issue found."}}},
    {"op": "update", "update": {"sessionUpdate": "subagent_update", "sessionId": "kid-1",
                                "state": {"state": "idle", "stopReason": "end_turn"}}},
]


@pytest.mark.system
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
        from kandev_tui.widgets.subagent import SubagentCard

        app.query_one(SubagentCard).query_one("CollapsibleTitle").focus()
        await pilot.press("enter")
        await until(pilot, lambda: "✔ Read a.py" in screen_text(app) and "No issue found." in screen_text(app))
        await app.action_quit()
    (session,) = store.sessions()
    (kid,) = [i for i in store.items(session["id"]) if i.kind == "subagent"]
    assert kid.payload["text"] == "No issue found." and kid.payload["state"] == "done"


@pytest.mark.system
async def test_a_subagent_shows_live_inside_the_call_that_spawned_it_and_opens_so_again(tmp_path):
    """The agent (a real process) runs a tool call, and announces a child while it runs: the call leaves the
    turn's tool group, and the child's row streams inside it, under the call; opened again from the store, the
    transcript has the same entries."""
    from kandev_tui.renderers import Registry
    from kandev_tui.session.layout import Layout
    from kandev_tui.widgets.subagent import SpawningCall, SubagentCard

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


def test_a_subagents_permission_request_and_question_say_which_subagent_asks():
    normalizer = Normalizer()
    normalizer.feed(Frame.now(IN, child("root", {"sessionUpdate": "subagent_update", "sessionId": "kid",
                                                 "title": "Reviewer"})))
    asked = normalizer.feed(Frame.now(IN, {"jsonrpc": "2.0", "id": 9, "method": "session/request_permission",
                                           "params": {"sessionId": "kid", "toolCall": {"toolCallId": "k1",
                                                                                       "title": "rm -rf build"},
                                                      "options": [{"optionId": "a", "name": "Allow",
                                                                   "kind": "allow_once"}]}}))
    (permission,) = [i for i in asked if i.kind == "permission"]
    assert permission.payload["asked_by"] == "Reviewer"
    (question,) = normalizer.feed(Frame.now(IN, {"jsonrpc": "2.0", "id": 10, "method": "elicitation/create", "params": {
        "sessionId": "kid", "mode": "form", "message": "Which branch?", "requestedSchema": {"type": "object",
                                                                                           "properties": {}}}}))
    assert question.payload["asked_by"] == "Reviewer"
    own = normalizer.feed(Frame.now(IN, {"jsonrpc": "2.0", "id": 11, "method": "session/request_permission",
                                         "params": {"sessionId": "root", "toolCall": {"toolCallId": "r1"},
                                                    "options": []}}))
    assert not any("asked_by" in i.payload for i in own)  # the session's own request names nobody


@pytest.mark.system
async def test_x_on_a_subagent_that_can_be_cancelled_cancels_its_session_only(tmp_path):
    gate, log = tmp_path / "go", tmp_path / "asked.jsonl"
    steps = [{"op": "update", "update": {"sessionUpdate": "subagent_update", "sessionId": "kid-1", "title": "Reviewer",
                                         "capabilities": {"cancel": {}}}},
             {"op": "wait", "path": str(gate)}, {"op": "say", "text": "Parent done."}]
    store, app = kit_app(tmp_path, steps, session_log=str(log))
    async with app.run_test(size=(90, 30)) as pilot:
        from kandev_tui.widgets.subagent import SubagentCard

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


@pytest.mark.system
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
        from kandev_tui.widgets.subagent import SubagentCard

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


async def test_a_run_of_lines_that_are_not_json_rpc_shows_its_first_five_and_how_many_more(tmp_path):
    """``yes`` as the agent: thousands of lines, one error on screen with the first lines and the count of the rest."""
    from .app_helpers import settle, stored_app

    normalizer = Normalizer()
    items = [normalizer.feed(Frame.now(IN, raw=f"line {n}", size=7))[0] for n in range(60)]
    app = stored_app(tmp_path, [items[-1].but(final=True)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "The agent wrote 60 lines that are not JSON-RPC (420 bytes; the first" in text
        assert [f"line {n}" in text for n in range(6)] == [True] * 5 + [False]
        assert "… and 55 more lines" in text
