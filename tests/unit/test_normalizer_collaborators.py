"""The normaliser's collaborators, each over one shared state and nothing else: the tool calls, the permission
requests, the local events and the session's info (the normaliser's own tests feed whole frame sequences)."""

from __future__ import annotations

from kandev_tui.transcript.items import COMPLETE, ERROR, NOTE, PERMISSION, TOOL, TURN_END
from kandev_tui.transcript.normalize.calls import ToolCalls
from kandev_tui.transcript.normalize.info import SessionInfo
from kandev_tui.transcript.normalize.local import LocalEvents
from kandev_tui.transcript.normalize.requests import Requests
from kandev_tui.transcript.normalize.shared import Shared


def test_keys_are_numbered_in_the_shared_state_and_errors_carry_their_details():
    shared = Shared(turn=3, counter=7)
    assert shared.next("note") == "note:8" and shared.next("user") == "user:9"
    error = shared.error("broken", code=-1, data=None)
    assert error.key == "error:10" and error.turn == 3 and error.payload == {"message": "broken", "code": -1}


def test_a_tool_call_is_made_from_its_first_frame_merged_by_the_next_and_looked_up_in_the_store_when_released():
    stored = {"tool:old": {"tool_call_id": "old", "turn": 1, "title": "Stored", "status": "completed"}}
    shared = Shared(turn=2, loader=stored.get)
    calls = ToolCalls(shared)
    first = calls.frame({"toolCallId": "c1", "title": "Run tests", "kind": "execute", "status": "pending"}, first=True)
    assert [item.kind for item in first] == [TOOL] and first[0].payload["title"] == "Run tests"
    done = calls.frame({"toolCallId": "c1", "status": "completed"}, first=False)
    assert done[-1].status == COMPLETE and done[-1].final and calls.running_call() is None
    assert calls.frame({"title": "no id"}, first=True)[0].kind == ERROR
    shared.released.add("old")  # released at a turn's end: found in the store again
    assert calls.tool("old")["title"] == "Stored"


def test_a_request_marks_its_call_while_it_waits_and_its_answer_unmarks_it():
    shared = Shared(turn=1)
    calls = ToolCalls(shared)
    requests = Requests(shared, calls)
    calls.frame({"toolCallId": "c1", "title": "Edit", "kind": "edit", "status": "pending"}, first=True)
    asked = requests.permission_request({"id": 5, "params": {"toolCall": {"toolCallId": "c1"},
                                                             "options": [{"optionId": "ok", "name": "Allow",
                                                                          "kind": "allow_once"}]}})
    call, request = asked[-2], asked[-1]
    assert call.payload["asking"] is True and request.kind == PERMISSION and request.payload["tool_call"]["title"] == "Edit"
    answered = requests.answered(shared.requests_in.pop(5), {"result": {"outcome": {"outcome": "selected",
                                                                                    "optionId": "ok"}}})
    assert answered[0].payload["answer"] == {"outcome": "selected", "option_id": "ok", "name": "Allow",
                                             "option_kind": "allow_once"}
    assert "asking" not in answered[1].payload and not shared.permissions


def test_the_sessions_info_keeps_the_mode_in_both_places_and_titles_never_carry_the_guidance():
    shared = Shared(turn=1, guidance="Use kandev-tui's show_rich_output_kandev tool for charts.",
                    first_words="Plot the results")
    info = SessionInfo(shared)
    info.answered_request("session/new", {}, {"configOptions": [{"id": "m", "category": "mode",
                                                                  "currentValue": "ask"}]})
    assert shared.session_info["mode"] == "ask"
    info.update("current_mode_update", {"currentModeId": "code"})
    assert shared.session_info["config"][0]["currentValue"] == "code"
    item = info.update("session_info_update", {"title": "Use kandev-tui's show_rich_output"})
    assert item[0].payload["title"] == "Plot the results"


def test_a_note_that_ends_the_turn_finishes_it_through_the_normaliser():
    shared = Shared(turn=1, turn_open=True)
    ended: list[bool] = []

    def finish() -> list:
        ended.append(True)
        return []

    local = LocalEvents(shared, ToolCalls(shared), finish)
    items = local.event({"event": "note", "message": "closed", "ends_turn": True, "stop_reason": "cancelled"})
    assert ended == [True] and [item.kind for item in items] == [NOTE, TURN_END]
    assert items[-1].payload == {"stop_reason": "cancelled"}
    shared.turn_open = False  # no turn: a rich-output report is another session's (a server shared between them)
    assert local.event({"event": "rich_output", "tool_call_id": "x"}) == []
