"""Item versions never change once handed out.

A hypothesis state machine plays random sequences of the frames agents send (text, thoughts, tool calls and
their updates with content and output, plans, permission requests and their answers, questions, turn ends, local
events, garbage) into a normaliser, settling its open texts at random points as the pipeline does. After every
step each version handed out so far still equals what it was when it was handed out. Every in-process test also
deep-freezes the versions it is handed (tests/support/frozen.py, the autouse fixture in conftest.py); the first tests here
show that check can fail.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from kandev_tui.transcript import IN, LOCAL, OUT, Frame, Item, Normalizer

from ..support import frozen
from ..support.frozen import FrozenError, Versions, freeze, thaw
from ..support.strategies import json_values


def test_a_reader_that_changes_a_frozen_version_fails_where_it_does():
    versions = Versions()
    [item] = versions.hand_out([Item("tool:a", "tool_call", 1, {"content": [{"text": "x"}], "input": {"a": 1}})])
    assert isinstance(item.payload["content"], list) and isinstance(item.payload, dict)  # still what readers check
    with pytest.raises(FrozenError):
        item.payload["content"].append({"text": "y"})
    with pytest.raises(FrozenError):
        item.payload["input"]["a"] = 2
    with pytest.raises(FrozenError):
        item.payload.update(status="done")
    assert thaw(item.payload) == {"content": [{"text": "x"}], "input": {"a": 1}}
    assert {**item.payload, "b": 1}["b"] == 1  # a new payload from it is the reader's own


def test_a_producer_that_changes_a_version_it_handed_out_is_found():
    versions = Versions()
    built = {"entries": [{"content": "one"}]}
    versions.hand_out([Item("plan:1", "plan", 1, built)])
    assert versions.changed() == []
    built["entries"].append({"content": "two"})  # what a normaliser sharing its working state would do
    assert versions.changed() == ["plan:1 (version %d)" % versions.handed[0][1]]


def test_freezing_keeps_every_value_equal():
    value = {"a": [1, {"b": [None, "x", 2.5]}], "c": {}}
    assert freeze(value) == value and thaw(freeze(value)) == value


def _update(update: dict) -> Frame:
    return Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": update}})


CALL_IDS = st.sampled_from(["c1", "c2", "c3", "c4"])
TEXTS = st.text(max_size=30)
SMALL_JSON = json_values.filter(lambda v: len(repr(v)) < 400)
STATUSES = st.sampled_from(["pending", "in_progress", "completed", "failed", None])
KINDS = st.sampled_from(["read", "edit", "execute", "search", "other", "think", None])
CONTENT = st.lists(st.one_of(
    st.builds(lambda t: {"type": "content", "content": {"type": "text", "text": t}}, TEXTS),
    st.builds(lambda p, old, new: {"type": "diff", "path": p, "oldText": old, "newText": new},
              st.sampled_from(["a.py", "/w/b.md"]), st.one_of(st.none(), TEXTS), TEXTS),
    st.builds(lambda t: {"type": "terminal", "terminalId": t}, st.sampled_from(["t1", "t2"])),
), max_size=3)


class VersionsNeverChange(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.normalizer = Normalizer()
        self.versions = frozen.current  # the fixture's: what the normaliser hands out is frozen and kept there
        self.unreadable: list[Item] = []
        self.request_ids = 100
        self.asked: list[int] = []
        self.prompts: list[int] = []

    def feed(self, frame: Frame) -> None:
        items = self.normalizer.feed(frame)
        self.unreadable += [i for i in items if "could not be read" in str(i.payload.get("message"))]

    @rule(kind=st.sampled_from(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]), text=TEXTS)
    def chunk(self, kind, text):
        self.feed(_update({"sessionUpdate": kind, "content": {"type": "text", "text": text}}))

    @rule()
    def settle(self):
        self.normalizer.settle()

    @rule(call=CALL_IDS, kind=KINDS, title=TEXTS, raw_input=SMALL_JSON, status=STATUSES, content=CONTENT)
    def tool_call(self, call, kind, title, raw_input, status, content):
        update = {"sessionUpdate": "tool_call", "toolCallId": call, "title": title, "rawInput": raw_input,
                  "content": content}
        update.update({k: v for k, v in (("kind", kind), ("status", status)) if v is not None})
        self.feed(_update(update))

    @rule(call=CALL_IDS, status=STATUSES, content=st.one_of(st.none(), CONTENT), raw_output=st.one_of(st.none(), SMALL_JSON),
          locations=st.lists(st.builds(lambda p: {"path": p}, st.sampled_from(["a.py", "c.txt"])), max_size=2))
    def tool_call_update(self, call, status, content, raw_output, locations):
        update: dict = {"sessionUpdate": "tool_call_update", "toolCallId": call, "locations": locations}
        update.update({k: v for k, v in (("status", status), ("content", content), ("rawOutput", raw_output))
                       if v is not None})
        self.feed(_update(update))

    @rule(entries=st.lists(st.builds(lambda c, s: {"content": c, "status": s, "priority": "medium"},
                                     TEXTS, st.sampled_from(["pending", "in_progress", "completed"])), max_size=4))
    def plan(self, entries):
        self.feed(_update({"sessionUpdate": "plan", "entries": entries}))

    @rule(update=SMALL_JSON.filter(lambda v: isinstance(v, dict)),
          kind=st.sampled_from(["current_mode_update", "session_info_update", "usage_update", "available_commands_update",
                                "config_option_update", "something_new"]))
    def state_update(self, update, kind):
        self.feed(_update({**update, "sessionUpdate": kind}))

    @rule(call=CALL_IDS, title=TEXTS, kind=KINDS)
    def ask_permission(self, call, title, kind):
        self.request_ids += 1
        self.asked.append(self.request_ids)
        tool_call = {"toolCallId": call, "title": title, **({"kind": kind} if kind else {})}
        self.feed(Frame(IN, {"jsonrpc": "2.0", "id": self.request_ids, "method": "session/request_permission",
                             "params": {"sessionId": "s", "toolCall": tool_call, "options": [
                                 {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                                 {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]}}))

    @rule(data=st.data())
    def answer_permission(self, data):
        if not self.asked:
            return
        request = self.asked.pop(data.draw(st.integers(0, len(self.asked) - 1)))
        outcome = data.draw(st.sampled_from([{"outcome": "selected", "optionId": "allow"}, {"outcome": "cancelled"}]))
        self.feed(Frame(OUT, {"jsonrpc": "2.0", "id": request, "result": {"outcome": outcome}}))

    @rule(message=st.sampled_from(["Deploy?", "Which branch?"]))
    def ask_question(self, message):
        self.request_ids += 1
        self.feed(Frame(IN, {"jsonrpc": "2.0", "id": self.request_ids, "method": "elicitation/create", "params": {
            "sessionId": "s", "mode": "form", "message": message,
            "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}))

    @rule(text=TEXTS)
    def prompt(self, text):
        self.request_ids += 1
        self.prompts.append(self.request_ids)
        self.feed(Frame(OUT, {"jsonrpc": "2.0", "id": self.request_ids, "method": "session/prompt",
                              "params": {"sessionId": "s", "prompt": [{"type": "text", "text": text}]}}))

    @rule(reason=st.sampled_from(["end_turn", "cancelled", "max_tokens", "refusal"]))
    def end_turn(self, reason):
        if self.prompts:
            self.feed(Frame(IN, {"jsonrpc": "2.0", "id": self.prompts.pop(0), "result": {"stopReason": reason}}))

    @rule(path=st.sampled_from(["/w/a.py", "/w/notes/b.md"]), text=TEXTS)
    def write_asked(self, path, text):
        self.request_ids += 1
        self.feed(Frame(IN, {"jsonrpc": "2.0", "id": self.request_ids, "method": "fs/write_text_file",
                             "params": {"sessionId": "s", "path": path, "content": text}}))

    @rule(path=st.sampled_from(["/w/a.py", "/w/notes/b.md"]), old=st.one_of(st.none(), TEXTS))
    def file_written(self, path, old):
        self.feed(Frame(LOCAL, {"event": "file_written", "path": path, "real_path": path, "old": old,
                                "new_file": old is None}))

    @rule(value=SMALL_JSON)
    def garbage(self, value):
        self.feed(Frame(IN, value if isinstance(value, dict) else {"jsonrpc": "2.0", "params": value}))

    @invariant()
    def handed_out_versions_never_changed(self):
        assert self.versions is not None and self.versions.changed() == []

    @invariant()
    def every_frame_is_read_as_what_it_is(self):
        """The normaliser's safety net (an exception becomes "a frame could not be read") is never what keeps it
        going, and a frozen version it tried to change would be one."""
        assert self.unreadable == []


VersionsNeverChange.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None,
                                                 suppress_health_check=list(HealthCheck))


def test_the_machines_rules_make_versions_of_every_kind(frozen_versions):
    """Each rule reaches the normaliser as a real agent's frame would: one pass over them hands out versions of the
    message, the thought, tool calls, the plan, a permission and a question, and changes none."""
    machine = VersionsNeverChange()
    machine.prompt("go")
    machine.chunk("agent_thought_chunk", "thinking")
    machine.chunk("agent_message_chunk", "hello")
    machine.settle()
    machine.chunk("agent_message_chunk", " world")
    machine.tool_call("c1", "edit", "Edit a.py", {"path": "a.py"}, "pending",
                      [{"type": "diff", "path": "a.py", "oldText": "a", "newText": "b"}])
    machine.tool_call_update("c1", "completed", None, {"ok": True}, [{"path": "a.py"}])
    machine.plan([{"content": "step", "status": "pending", "priority": "medium"}])
    machine.plan([{"content": "step", "status": "completed", "priority": "medium"}])
    machine.ask_permission("c2", "Run ls", "execute")
    machine.ask_question("Deploy?")
    machine.end_turn("end_turn")
    kinds = {key.split(":")[0] for key, *_ in frozen_versions.handed}
    assert {"message", "thought", "tool", "plan", "permission", "elicitation"} <= kinds, kinds
    machine.handed_out_versions_never_changed()
    machine.every_frame_is_read_as_what_it_is()


test_item_versions_never_change = VersionsNeverChange.TestCase
