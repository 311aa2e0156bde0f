"""What the agent tells the user beside its messages (ACP notices and context compaction): items of their own, drawn
by severity and status, stored, exported, searchable; with the dialect kit's agent (a real process) in the app."""

from __future__ import annotations

import pytest

from kandev_tui.transcript.frames import IN, OUT, Frame
from kandev_tui.transcript.normalize import Normalizer

from ..support.frames import child, update


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
    from kandev_tui.widgets.entries.compaction import compaction_title

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

    from ..support.app_helpers import message_item, tool_item

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

    from ..support.app_helpers import tool_item

    registry = Registry([Renderer(id="spawner", widget=lambda item: None, tool_names=frozenset({"spawn_agent"}))])
    layout = Layout(registry)
    for item in [tool_item("spawn-1", name="spawn_agent"), _kid(1, "spawn-1"), _kid(2, None), _kid(3, "gone")]:
        layout.place(item)
    assert _shape(layout) == [("card", ["tool:spawn-1"]), ("item", ["subagent:1"]), ("item", ["subagent:2"]),
                              ("item", ["subagent:3"])]


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
