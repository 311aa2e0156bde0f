"""The normaliser on every wire shape of ``shared/fixtures/acp`` (as the project's own fixtures)."""

from __future__ import annotations

import json

import pytest

from kandev_tui.presentation import State, read_stored_call
from kandev_tui.transcript import IN, LOCAL, OUT, Frame, Normalizer
from kandev_tui.transcript.replay import items_from_frames
from kandev_tui.transcript.tools import shell_output, summarize

from ..support.documents import load_fixture
from ..support.frames import by_key, frames_of, tool


def end_turn(frames: list[Frame], result: dict | None = None) -> list[Frame]:
    return frames + [Frame(IN, {"jsonrpc": "2.0", "id": 1, "result": result or {"stopReason": "end_turn"}})]


def test_codex_mcp_envelope_is_unwrapped_and_remembered():
    items = items_from_frames(frames_of("codex-mcp-rich-output.json"))
    call = tool(items, "call-7")
    assert call.payload["name"] == "kandev/show_rich_output_kandev"
    assert call.payload["input"]["title"] == "Queue depth"  # the arguments, unwrapped
    assert call.payload["input"]["version"] == 1  # the terminal frame's rawInput is never merged back
    assert call.payload["output"] == {"content": [{"type": "text", "text": "Rich output accepted."}]}
    assert call.status == "complete"
    stored = read_stored_call(call.payload["name"], call.payload["title"], call.status, call.payload["input"], call.payload["output"])
    assert stored.state is State.READY and stored.presentation.title == "Queue depth"


def test_codex_foreign_server_is_named_by_its_server():
    call = tool(items_from_frames(frames_of("codex-mcp-foreign-server.json")), "call-8")
    assert call.payload["name"] == "metrics/show_rich_output_kandev"
    stored = read_stored_call(call.payload["name"], call.payload["title"], "complete", call.payload["input"], None)
    assert stored.state is State.NOT_RICH_OUTPUT


def test_codex_mcp_error_wrapper_fails_the_call():
    call = tool(items_from_frames(frames_of("codex-mcp-error.json")), "call-9")
    assert call.status == "error" and call.payload["output"] == {"error": "server disconnected"}


def test_execute_without_marker_stays_a_shell_command():
    call = tool(items_from_frames(frames_of("codex-execute-no-marker.json")), "call-10")
    assert call.payload["name"] == "execute"
    assert call.payload["input"] == {"kind": "execute", "raw_input": {"command": "git status", "server": "kandev", "tool": "x", "arguments": {}}}
    assert summarize(call.payload)["command"] == "git status"


def test_codex_subagent_lifecycle_merges_into_one_card():
    items = items_from_frames(frames_of("codex-subagent-lifecycle.json"))
    spawn = tool(items, "spawn-1")
    assert spawn.status == "complete" and spawn.payload["title"] == "Start subagent reviewer"
    assert spawn.payload["subagent"]["provider"] == "codex" and spawn.payload["subagent"]["threads"] == ["t-2"]
    assert tool(items, "life-1").payload["subagent"]["activity"] == "interrupted"


def test_codex_capacity_error_replaces_the_chunk():
    items = items_from_frames(frames_of("codex-capacity-error.json"))
    assert [i.kind for i in items] == ["user_message", "session_info", "error"]
    assert "capacity" in items[-1].payload["message"]


def test_prompt_response_usage_ends_the_turn():
    result = load_fixture("acp/codex-prompt-usage.json")["prompt_result"]
    items = items_from_frames(end_turn(frames_of("cursor-session-info.json"), result))
    end = items[-1]
    assert end.kind == "turn_end" and end.payload == {"stop_reason": "end_turn", "usage": result["usage"]}


def _compact_to_frames(compact: list[dict]) -> list[Frame]:
    """Kandev's compact recorder schema → JSON-RPC frames."""
    frames = []
    for entry in compact:
        if entry["dir"] == "sent":
            frames.append(Frame(OUT, {"jsonrpc": "2.0", "id": entry["id"], "method": entry["method"],
                                      "params": {"sessionId": "s", "prompt": [{"type": "text", "text": f"prompt {entry['id']}"}]}}))
        elif "promptResponseFor" in entry:
            frames.append(Frame(IN, {"jsonrpc": "2.0", "id": entry["promptResponseFor"],
                                     "result": {"stopReason": entry["stopReason"], "usage": entry["usage"]}}))
        else:
            update = {"sessionUpdate": entry["update"]}
            if "toolCallId" in entry:
                update["toolCallId"] = entry["toolCallId"]
                if entry.get("title") is not None:
                    update["title"] = entry["title"]
                if entry.get("status") is not None:
                    update["status"] = entry["status"]
                if entry["update"] == "tool_call":
                    update["kind"] = "execute"
            else:
                update["content"] = {"type": "text", "text": entry["text"]}
            frames.append(Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": update}}))
    return frames


def test_claude_fold_handoff_recording():
    items = items_from_frames(_compact_to_frames(load_fixture("acp/claude-fold-handoff.compact.json")["frames"]))
    call = tool(items, "toolu_a")
    assert call.payload["title"] == "sleep 5" and call.status == "complete"
    messages = [i for i in items if i.kind == "agent_message"]
    assert [m.payload["text"] for m in messages] == ["GONE"]
    ends = [i for i in items if i.kind == "turn_end"]
    assert [e.payload["usage"]["inputTokens"] for e in ends] == [0, 900]


def test_claude_bash_placeholder_gets_its_command():
    call = tool(items_from_frames(frames_of("claude-bash-placeholder.json")), "tc-4")
    assert call.status == "in_progress"  # no status, but a title and rawInput moved it on
    assert call.payload["title"] == "du -sh build"
    assert call.payload["input"]["raw_input"]["command"] == "du -sh build"


def test_claude_subagent_nests_its_child():
    items = items_from_frames(frames_of("claude-subagent-and-child.json"))
    assert tool(items, "agent-1").payload["subagent"]["provider"] == "claude"
    assert tool(items, "bash-1").payload["parent_id"] == "agent-1"
    assert by_key(items)["usage"].payload == {"size": 200000, "used": 4100}


def test_claude_async_subagent_launch_completes_the_call():
    call = tool(items_from_frames(frames_of("claude-async-subagent.json")), "task-1")
    assert call.status == "complete"
    assert call.payload["subagent"]["status"] == "async_launched" and call.payload["subagent"]["isAsync"] is True


def test_claude_subagent_completed_meta():
    call = tool(items_from_frames(frames_of("claude-subagent-completed.json")), "task-2")
    assert call.status == "complete"
    assert call.payload["subagent"]["totalToolUseCount"] == 4 and call.payload["output"][0]["text"] == "Found 3 errors."


def test_claude_monitor_registration_keeps_it_running():
    frames = frames_of("claude-monitor.json")
    normalizer = Normalizer()
    states = []
    for frame in frames:
        for item in normalizer.feed(frame):
            if item.key == "tool:mon-1":
                states.append(item.status)
    assert states == ["pending", "in_progress", "complete"]


def test_usage_updates_with_cost():
    items = items_from_frames(frames_of("usage-updates.json"))
    assert by_key(items)["usage"].payload == {"size": 128000, "used": 3500}
    first = Normalizer()
    first.feed(frames_of("usage-updates.json")[0])
    assert first.feed(frames_of("usage-updates.json")[1])[0].payload["cost"] == {"amount": 0.42, "currency": "USD"}


def test_cursor_session_info_title():
    items = items_from_frames(frames_of("cursor-session-info.json"))
    assert by_key(items)["session_info"].payload == {"title": "Refactor the parser", "updatedAt": "2026-09-02T08:00:00Z"}


def test_cursor_task_extension_merges_subagent_metadata():
    call = tool(items_from_frames(frames_of("cursor-task-extension.json")), "ct-1")
    assert call.payload["subagent"] == {"provider": "cursor", "agentId": "ag-3", "description": "Count TODOs", "model": "composer-fast"}
    assert call.status == "complete"


def test_opencode_subagent_and_todos_become_the_plan():
    items = items_from_frames(frames_of("opencode-subagent-and-todos.json"))
    assert tool(items, "oc-1").payload["subagent"]["provider"] == "opencode"
    plan = [i for i in items if i.kind == "plan"]
    assert len(plan) == 1
    assert plan[0].payload["entries"] == [{"content": "Read docs", "priority": None, "status": "completed"}]


@pytest.mark.parametrize("case", load_fixture("acp/shell-rawoutput-shapes.json")["cases"], ids=lambda c: c["agent"])
def test_shell_output_per_provider(case):
    got = shell_output(case["rawOutput"])
    assert {k: got[k] for k in case["expect"]} == case["expect"]


def test_shell_exit_code_fails_the_call_and_terminal_meta():
    frames = [Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": u}}) for u in (
        {"sessionUpdate": "tool_call", "toolCallId": "x", "kind": "execute", "status": "in_progress", "rawInput": {"command": "false"}},
        {"sessionUpdate": "tool_call_update", "toolCallId": "x", "status": "completed", "rawOutput": {"exit_code": 1},
         "_meta": {"terminal_output": "boom\n"}},
    )]
    call = tool(items_from_frames(frames), "x")
    assert call.status == "error" and call.payload["shell"] == {"stdout": "boom\n", "exit_code": 1}


@pytest.mark.parametrize("case", load_fixture("acp/normalizer-cases.json")["cases"], ids=lambda c: c["kind"])
def test_tool_classification(case):
    call = {"kind": case["kind"], "input": {"kind": case["kind"], "raw_input": case["raw_input"]},
            "locations": case.get("locations"), "title": None}
    got = summarize(call)
    assert {k: got.get(k) for k in case["expect"]} == case["expect"]


def _update(update: dict) -> Frame:
    return Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": update}})


def _chunk(text: str, kind="agent_message_chunk", **extra) -> Frame:
    return _update({"sessionUpdate": kind, "content": {"type": "text", "text": text}, **extra})


def test_messages_stream_and_split():
    frames = [
        Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {"prompt": [{"type": "text", "text": "hi"}]}}),
        _chunk("thinking", "agent_thought_chunk"), _chunk("Hel"), _chunk("lo."),
        _update({"sessionUpdate": "tool_call", "toolCallId": "c", "kind": "read", "status": "pending"}),
        _chunk("after"), _chunk("other id", messageId="m2"), _chunk(" more", messageId="m2"),
        _update({"sessionUpdate": "tool_call", "toolCallId": "child", "kind": "read", "_meta": {"claudeCode": {"parentToolUseId": "c"}}}),
        _chunk(" still m2", messageId="m2"),
    ]
    items = items_from_frames(end_turn(frames))
    texts = [(i.kind, i.payload.get("text")) for i in items if i.kind in ("agent_message", "thought", "user_message")]
    assert texts == [("user_message", "hi"), ("thought", "thinking"), ("agent_message", "Hello."),
                     ("agent_message", "after"), ("agent_message", "other id more still m2")]
    assert tool(items, "c").status == "cancelled"  # unfinished at the end of the turn


@pytest.mark.parametrize("before, after, one", [
    (["I'll check the confi"], ["guration file first."], True),  # the rest of a word
    (["Let me run the tests"], [" and fix what fails."], True),  # a lowercase word
    (["Counting: 1, 2,"], [" 3."], True),
    (["Reading the ", ""], ["", "README", " next."], True),  # empty chunks say nothing either way
    (["Let me look"], [" Done: it works."], False),  # a new sentence
    (["Let me look"], ["\n\nDone."], False),  # a new paragraph
    (["I'll check the file."], ["it is fine"], False),  # the message had ended its sentence
    (["Checking"], ["Done."], False),  # a capital straight after a lowercase letter: not a word going on
])
def test_a_sentence_the_agent_interleaves_with_a_tool_call_stays_whole_above_its_row(before, after, one):
    """An agent may announce a call while its model is still writing the sentence about it: the message held open at
    the call grows whole when its next chunk goes on with the sentence, and anything else starts a new message
    after the call (as every other tool call ends the message)."""
    frames = [Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                          "params": {"prompt": [{"type": "text", "text": "hi"}]}}),
              *[_chunk(text) for text in before],
              _update({"sessionUpdate": "tool_call", "toolCallId": "c", "kind": "read", "status": "pending"}),
              *[_chunk(text) for text in after]]
    items = items_from_frames(end_turn(frames))
    order = [(i.kind, i.payload.get("text")) for i in items if i.kind in ("agent_message", "tool_call")]
    whole, first, rest = "".join(before + after), "".join(before), "".join(after)
    assert order == ([("agent_message", whole), ("tool_call", None)] if one else
                     [("agent_message", first), ("tool_call", None), ("agent_message", rest)]), order


def test_a_held_sentence_ends_at_anything_else_and_at_another_message_id():
    frames = [Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                          "params": {"prompt": [{"type": "text", "text": "hi"}]}}),
              _chunk("I'll check the confi", messageId="m1"),
              _update({"sessionUpdate": "tool_call", "toolCallId": "c", "kind": "read", "status": "pending"}),
              _chunk("guration", messageId="m2"),  # another message: not the rest of the first one's word
              _update({"sessionUpdate": "tool_call", "toolCallId": "d", "kind": "read", "status": "pending"}),
              _chunk("thinking", "agent_thought_chunk"),  # a thought closes the held message
              _chunk("uration")]
    items = items_from_frames(end_turn(frames))
    texts = [i.payload.get("text") for i in items if i.kind in ("agent_message", "thought")]
    assert texts == ["I'll check the confi", "guration", "thinking", "uration"]


def test_guidance_is_stripped_from_the_user_message():
    prefix = "GUIDANCE TEXT\n\n"
    frame = Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {
        "prompt": [{"type": "text", "text": prefix + "real question"}], "_meta": {"kandevTui": {"guidanceChars": len(prefix)}}}})
    assert items_from_frames([frame])[0].payload == {"text": "real question"}


def test_permission_request_and_answer():
    request = Frame(IN, {"jsonrpc": "2.0", "id": 9, "method": "session/request_permission", "params": {
        "sessionId": "s", "toolCall": {"toolCallId": "e1", "title": "Write x"},
        "options": [{"optionId": "ok", "name": "Allow once", "kind": "allow_once"}, {"optionId": "no", "name": "Reject", "kind": "reject_once"}]}})
    answer = Frame(OUT, {"jsonrpc": "2.0", "id": 9, "result": {"outcome": {"outcome": "selected", "optionId": "no"}}})
    normalizer = Normalizer()
    asked = normalizer.feed(request)[-1]
    assert asked.status == "pending" and not asked.final
    answered = normalizer.feed(answer)[0]
    assert answered.status == "answered"
    assert answered.payload["answer"] == {"outcome": "selected", "option_id": "no", "name": "Reject", "option_kind": "reject_once"}


def test_unknown_updates_are_ignored_and_remembered():
    normalizer = Normalizer()
    assert normalizer.feed(_update({"sessionUpdate": "brand_new_thing", "x": 1})) == []
    assert normalizer.unknown_updates == {"brand_new_thing"}


def test_garbage_and_local_events_become_error_items():
    normalizer = Normalizer()
    garbage = normalizer.feed(Frame(IN, None, raw="not json at all", size=15))[0]
    assert garbage.kind == "error" and garbage.payload["bytes"] == 15
    normalizer.feed(Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {"prompt": []}}))
    items = normalizer.feed(Frame(LOCAL, {"event": "error", "message": "The agent exited with code 3 during the turn.",
                                          "exit_code": 3, "stderr": ["boom"], "ends_turn": True}))
    assert [i.kind for i in items] == ["error", "turn_end"]
    assert items[0].payload == {"message": "The agent exited with code 3 during the turn.", "exit_code": 3, "stderr": ["boom"]}


def test_lines_that_are_not_json_rpc_in_a_row_are_one_item_final_once_another_item_follows():
    """A run of lines is one error item, patched as they come (its first KEPT lines kept, all counted); a frame that
    makes no item (kandev-tui's own request going out) leaves the run open, one that makes an item ends it first."""
    from kandev_tui.transcript.rawlines import KEPT

    normalizer = Normalizer()
    versions = [normalizer.feed(Frame(IN, None, raw=f"line {n}", size=7))[0] for n in range(KEPT + 10)]
    assert {v.key for v in versions} == {"error:1"} and not any(v.final for v in versions)
    last = versions[-1].payload
    assert last["lines"] == KEPT + 10 and last["bytes"] == 7 * (KEPT + 10) and len(last["first"]) == KEPT
    assert last["first"][:2] == ["line 0", "line 1"] and last["preview"] == "line 0"
    assert last["message"] == f"The agent wrote {KEPT + 10} lines that are not JSON-RPC ({7 * (KEPT + 10)} bytes; the first are below)."
    assert normalizer.feed(Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})) == []
    assert normalizer.feed(Frame(IN, None, raw="one more", size=9))[0].payload["lines"] == KEPT + 11
    items = normalizer.feed(_update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}))
    assert [(i.key, i.final) for i in items][:1] == [("error:1", True)] and items[0].payload["lines"] == KEPT + 11
    assert items[1].kind == "agent_message"
    again = normalizer.feed(Frame(IN, None, raw="{not json", size=9))[0]  # a new run: its own item
    assert again.key != "error:1" and again.payload["lines"] == 1
    assert again.payload["message"] == "The agent wrote a line that is not JSON-RPC (9 bytes; the first 200 are below)."


def test_error_response_to_prompt():
    frames = [Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {"prompt": []}}),
              Frame(IN, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "rate limited"}})]
    items = items_from_frames(frames)
    assert items[-2].kind == "error" and "rate limited" in items[-2].payload["message"]
    assert items[-1].payload == {"stop_reason": "error"}


@pytest.mark.parametrize("weird", [
    {"sessionUpdate": "tool_call"}, {"sessionUpdate": "tool_call", "toolCallId": 5},
    {"sessionUpdate": "plan", "entries": "nope"}, {"sessionUpdate": "agent_message_chunk", "content": None},
    {"sessionUpdate": "tool_call_update", "toolCallId": "z", "rawOutput": {"error": {"x": 1}, "result": 3}, "_meta": "bad"},
    {"sessionUpdate": None},
])
def test_malformed_updates_never_raise(weird):
    """Each is read as what it is (or ignored): the normaliser's safety net, which turns an exception into an error
    item ("A frame could not be read"), is never what keeps it going."""
    items = Normalizer().feed(_update(weird))
    assert not [i for i in items if "could not be read" in i.payload.get("message", "")], items


def test_fixture_round_trip_through_json():
    frames = frames_of("claude-subagent-and-child.json")
    again = [Frame.from_json(json.loads(json.dumps(f.to_json()))) for f in frames]
    assert [i.to_json() for i in items_from_frames(again)] == [i.to_json() for i in items_from_frames(frames)]


def test_a_permission_request_knows_the_kind_of_the_call_it_is_for():
    """Claude's request carries only the id and title: the kind (what the prompt says the agent asks to do) comes
    from the tool call announced before it; one that says its kind keeps it."""
    update = {"sessionUpdate": "tool_call", "toolCallId": "e1", "title": "Edit app.py", "kind": "edit", "status": "pending"}
    frames = [Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                          "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}}),
              Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": update}}),
              Frame(IN, {"jsonrpc": "2.0", "id": 7, "method": "session/request_permission", "params": {
                  "sessionId": "s", "toolCall": {"toolCallId": "e1", "title": "Edit app.py"}, "options": []}}),
              Frame(IN, {"jsonrpc": "2.0", "id": 8, "method": "session/request_permission", "params": {
                  "sessionId": "s", "toolCall": {"toolCallId": "x9", "title": "Run ls", "kind": "execute"}, "options": []}})]
    permissions = [i for i in items_from_frames(frames) if i.kind == "permission"]
    assert [p.payload["tool_call"].get("kind") for p in permissions] == ["edit", "execute"]


# -- items are immutable: a version handed out never changes --------------------------------------------------

def _recorded_frames() -> list[list[Frame]]:
    from kandev_tui.transcript import read_recording

    from ..support.documents import FIXTURES

    sessions = [list(read_recording(path)) for path in sorted((FIXTURES / "recordings").glob("*.jsonl"))]
    names = [path.name for path in sorted((FIXTURES / "acp").glob("*.json"))
             if isinstance(load_fixture(f"acp/{path.name}"), dict) and "frames" in load_fixture(f"acp/{path.name}")]
    return sessions + [frames_of(name) for name in names]


def test_no_item_version_changes_after_it_is_handed_out():
    """The normaliser makes a new version for every change (a streamed chunk, an answer, a command's output, the end
    of a turn): a version kept by the store's writer, a widget or a search thread reads the same forever. Checked on
    every recorded session and frame fixture: each version, as it was when handed out, against itself at the end."""
    import copy

    sessions = _recorded_frames()
    assert len(sessions) >= 10
    handed_out = 0
    for frames in sessions:
        normalizer = Normalizer()
        seen: list[tuple[object, dict]] = []
        for frame in frames:
            for item in normalizer.feed(frame):
                seen.append((item, copy.deepcopy({**item.to_json(), "final": item.final})))
        for item, then in seen:
            assert {**item.to_json(), "final": item.final} == then, f"{item.key} changed after it was handed out"
        by_version: dict[int, object] = {}
        for item, _ in seen:  # one version number, one object (an item handed out twice is the same version)
            assert by_version.setdefault(item.version, item) is item
        handed_out += len(seen)
    assert handed_out > 200


def test_an_item_is_frozen_and_a_change_is_a_new_version():
    from dataclasses import FrozenInstanceError

    from kandev_tui.transcript import Item

    item = Item("message:1", "agent_message", 1, {"text": "Hel"})
    with pytest.raises(FrozenInstanceError):
        item.final = True  # type: ignore[misc]
    newer = item.but(payload={"text": "Hello"}, final=True)
    assert (item.payload, item.final) == ({"text": "Hel"}, False) and (newer.payload, newer.final) == ({"text": "Hello"}, True)
    assert newer.key == item.key and newer.version > item.version
    assert item.but() == item and item.but().version != item.version  # equal in what it says, another version
    with pytest.raises(FrozenInstanceError):
        newer.status = "complete"  # type: ignore[misc]
    with pytest.raises(TypeError, match="stauts"):
        item.but(stauts="complete")  # a misspelt field is an error, not an attribute


# -- Gemini CLI's and OpenCode's rich-output calls (shapes seen from gemini-cli 0.61.0 and opencode-ai 1.18.33) -----

PROBE = {"version": 1, "title": "Probe", "blocks": [{"type": "metrics", "items": [{"label": "Files", "value": "2"}]}]}
CSV_PROBE = {"version": 1, "title": "Times", "blocks": [{"type": "chart", "chart_type": "line", "title": "Runtime",
             "summary": "Fell.", "csv": {"path": "t.csv", "x_column": "day", "series": [{"column": "s", "label": "S"}]}}]}
CSV_SNAPSHOT = {"version": 1, "resolved_charts": [{"block_index": 0, "labels": ["mon", "tue"],
                                                   "series": [{"label": "S", "values": [3, 2]}]}]}


def gemini_frames(arguments: dict, result_text: str, server: str = "kandev") -> list[Frame]:
    """Gemini CLI: no tool_call first and no rawInput anywhere; the permission request carries the arguments as the
    JSON text of its content; the MCP result comes back only as content text."""
    call_id = f"mcp_{server}_show_rich_output_kandev__call_s2_0"
    title = f"show_rich_output_kandev ({server} MCP Server)"
    return [Frame(OUT, {"jsonrpc": "2.0", "id": 7, "method": "session/prompt", "params": {"sessionId": "s", "prompt": []}}),
            Frame(IN, {"jsonrpc": "2.0", "id": 1, "method": "session/request_permission", "params": {
                "sessionId": "s", "options": [{"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"}],
                "toolCall": {"toolCallId": call_id, "status": "pending", "title": title, "kind": "other", "locations": [],
                             "content": [{"type": "content", "content": {"type": "text", "text": json.dumps(arguments)}}]}}}),
            Frame(OUT, {"jsonrpc": "2.0", "id": 1, "result": {"outcome": {"outcome": "selected", "optionId": "proceed_once"}}}),
            Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
                "sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": "completed", "title": title,
                "kind": "other", "locations": [],
                "content": [{"type": "content", "content": {"type": "text", "text": result_text}}]}}})]


def opencode_frames(arguments: dict, result_text: str, name: str = "kandev_show_rich_output_kandev") -> list[Frame]:
    """OpenCode: the tool as SERVER_TOOL in the title, rawInput once running, rawOutput {output, metadata}."""
    def update(**fields):
        return Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": fields}})
    return [Frame(OUT, {"jsonrpc": "2.0", "id": 7, "method": "session/prompt", "params": {"sessionId": "s", "prompt": []}}),
            update(sessionUpdate="tool_call", toolCallId="call_s2_0", title=name, kind="other", status="pending",
                   locations=[], rawInput={}),
            update(sessionUpdate="tool_call_update", toolCallId="call_s2_0", status="in_progress", kind="other",
                   title=name, locations=[], rawInput=arguments),
            update(sessionUpdate="tool_call_update", toolCallId="call_s2_0", status="completed",
                   content=[{"type": "content", "content": {"type": "text", "text": result_text}}],
                   rawOutput={"output": result_text, "metadata": {"truncated": False}})]


def rich_result(frames: list[Frame]):
    items = {}
    normalizer = Normalizer()
    for frame in frames:
        for item in normalizer.feed(frame):
            items[item.key] = item
    (call,) = [i for i in items.values() if i.kind == "tool_call"]
    p = call.payload
    return read_stored_call(p["name"], p["title"], call.status, p["input"], p["output"], p.get("content"))


@pytest.mark.parametrize("dialect", [gemini_frames, opencode_frames], ids=["gemini", "opencode"])
def test_gemini_and_opencode_rich_output_is_recognised_with_its_arguments(dialect):
    result = rich_result(dialect(PROBE, "Rich output accepted."))
    assert result.state is State.READY and result.presentation.title == "Probe"


@pytest.mark.parametrize("dialect", [gemini_frames, opencode_frames], ids=["gemini", "opencode"])
def test_their_csv_charts_take_the_snapshot_from_the_result_text(dialect):
    result = rich_result(dialect(CSV_PROBE, json.dumps(CSV_SNAPSHOT)))
    assert result.state is State.READY
    assert result.presentation.blocks[0].labels == ["mon", "tue"]  # drawn from the snapshot the server resolved


def test_another_servers_tool_of_the_same_name_stays_generic():
    assert rich_result(gemini_frames(PROBE, "ok", server="other")).state is State.NOT_RICH_OUTPUT
    assert rich_result(opencode_frames(PROBE, "ok", name="other_show_rich_output_kandev")).state is State.NOT_RICH_OUTPUT


def test_gemini_arguments_that_are_not_a_presentation_are_unavailable_not_trusted():
    bad = {"version": 1, "title": "x" * 5000, "blocks": []}
    result = rich_result(gemini_frames(bad, "Rich output accepted."))
    assert result.state is State.UNAVAILABLE


def test_a_call_is_marked_asking_while_its_permission_request_waits():
    """Whether the request comes after the call or before it (Gemini CLI), the call is ``asking`` until the answer, and
    never after the turn's end; ``"diff"`` when the request shows a diff (its own or the call's)."""
    def update(call_id: str) -> Frame:
        return Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
            "sessionUpdate": "tool_call", "toolCallId": call_id, "title": f"Write {call_id}", "kind": "edit",
            "status": "pending", "content": [{"type": "diff", "path": f"{call_id}.md", "oldText": None,
                                              "newText": "new\n"}]}}})

    def ask(request_id: int, call_id: str) -> Frame:
        return Frame(IN, {"jsonrpc": "2.0", "id": request_id, "method": "session/request_permission", "params": {
            "sessionId": "s", "toolCall": {"toolCallId": call_id},
            "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}]}})

    def answer(request_id: int) -> Frame:
        return Frame(OUT, {"jsonrpc": "2.0", "id": request_id,
                           "result": {"outcome": {"outcome": "selected", "optionId": "ok"}}})

    start = frames_of("codex-mcp-rich-output.json")[:1]
    asked = items_from_frames([*start, update("a"), ask(5, "a")])
    assert tool(asked, "a").payload["asking"] == "diff"  # the request shows the call's diff
    assert "asking" not in tool(items_from_frames([*start, update("a"), ask(5, "a"), answer(5)]), "a").payload
    early = items_from_frames([*start, ask(6, "b"), update("b")])
    assert tool(early, "b").payload["asking"] is True  # a request that says nothing of the call: no diff in it
    ended = items_from_frames(end_turn([*start, update("c"), ask(7, "c")]))
    assert "asking" not in tool(ended, "c").payload


def test_a_rich_output_call_reported_outside_a_turn_is_another_sessions_and_left_alone():
    """A server an agent shares between its sessions reports another session's call here while no turn runs: no
    card, and nothing waits to become one at this session's next turn's end."""
    chart = {"version": 1, "title": "Elsewhere", "blocks": [{"type": "metrics", "items": [
        {"label": "a", "value": "1"}]}]}
    normalizer = Normalizer()
    local = [{"event": "rich_output_server", "via": "stdio"},
             {"event": "rich_output", "phase": "start", "call": "9:1", "via": "stdio", "arguments": chart},
             {"event": "rich_output", "phase": "end", "call": "9:1", "via": "stdio", "is_error": False, "text": "ok"}]
    assert [item for msg in local for item in normalizer.feed(Frame(LOCAL, msg))] == []
    turn = [Frame(OUT, {"jsonrpc": "2.0", "id": 5, "method": "session/prompt",
                             "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]}}),
            Frame(IN, {"jsonrpc": "2.0", "id": 5, "result": {"stopReason": "end_turn"}})]
    items = [item for frame in turn for item in normalizer.feed(frame)]
    assert not [item for item in items if item.kind == "tool_call"]


def test_a_write_reported_after_its_call_is_done_still_gives_that_call_its_diff():
    """OpenCode on a busy machine: the write's call is reported completed before kandev-tui has said the write it
    did for it (the local ``file_written`` frame); the diff still joins that call, not a call of its own or none."""
    path = "/w/probe/new.txt"
    call = {"toolCallId": "w1", "title": "write", "kind": "edit", "locations": [{"path": path}],
            "rawInput": {"filePath": path, "content": "hello new\n"}}
    frames = [Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                          "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}}),
              Frame(IN, _update({"sessionUpdate": "tool_call", "status": "pending", **call}).msg),
              Frame(IN, {"jsonrpc": "2.0", "id": 7, "method": "session/request_permission", "params": {
                  "sessionId": "s", "toolCall": {**call, "content": [{"type": "diff", "path": path, "oldText": None,
                                                                      "newText": "hello new\n"}]},
                  "options": [{"optionId": "a", "name": "Allow", "kind": "allow_once"}]}}),
              Frame(IN, {"jsonrpc": "2.0", "id": 8, "method": "fs/write_text_file",
                         "params": {"sessionId": "s", "path": path, "content": "hello new\n"}}),
              Frame(IN, _update({"sessionUpdate": "tool_call_update", "toolCallId": "w1", "status": "completed",
                                 "content": [{"type": "content", "content": {"type": "text", "text": "Wrote it"}}]}).msg),
              Frame(LOCAL, {"event": "file_written", "path": path, "real_path": path, "old": None, "new_file": True})]
    calls = {i.key: i for i in items_from_frames(frames) if i.kind == "tool_call"}
    assert list(calls) == ["tool:w1"]
    assert calls["tool:w1"].payload["diffs"] == [{"path": path, "new_file": True, "added": 1, "removed": 0}]


def test_a_write_said_after_the_next_edit_began_still_joins_the_call_that_asked_for_it():
    """OpenCode on a busier machine (seen in CI): the write's call is done and its next edit (another file) has begun
    before kandev-tui has said the write it did. The write belongs to the call that was running when the agent asked
    for it (its fs/write_text_file request, in the agent's own order), not to whatever edit runs when it is done."""
    new, notes = "/w/probe/new.txt", "/w/notes.txt"
    write = {"toolCallId": "w1", "title": "write", "kind": "edit", "locations": [{"path": new}],
             "rawInput": {"filePath": new, "content": "hello new\n"}}
    edit = {"toolCallId": "e2", "title": "edit", "kind": "edit", "locations": [{"path": notes}],
            "rawInput": {"filePath": notes, "oldString": "beta", "newString": "BETA"}}
    frames = [Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                          "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}}),
              Frame(IN, _update({"sessionUpdate": "tool_call", "status": "in_progress", **write}).msg),
              Frame(IN, {"jsonrpc": "2.0", "id": 8, "method": "fs/write_text_file",
                         "params": {"sessionId": "s", "path": new, "content": "hello new\n"}}),
              Frame(IN, _update({"sessionUpdate": "tool_call_update", "toolCallId": "w1", "status": "completed"}).msg),
              Frame(IN, _update({"sessionUpdate": "tool_call", "status": "in_progress", **edit}).msg),
              Frame(LOCAL, {"event": "file_written", "path": new, "real_path": new, "old": None, "new_file": True}),
              Frame(OUT, {"jsonrpc": "2.0", "id": 8, "result": {}})]
    calls = {i.key: i for i in items_from_frames(frames) if i.kind == "tool_call"}
    assert calls["tool:w1"].payload["diffs"] == [{"path": new, "new_file": True, "added": 1, "removed": 0}]
    assert not calls["tool:e2"].payload.get("diffs")
