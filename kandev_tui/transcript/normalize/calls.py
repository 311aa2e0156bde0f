"""The tool calls of a turn: made or merged from each frame, their diffs placed against the files as they were
before them, the output of the terminals they embed, stored away at the turn's end and looked up again."""

from __future__ import annotations

from typing import Any

from ..items import PLAN, TOOL
from ..diffs import diff_blocks, diff_summary
from ..items import COMPLETE, FAILED, TERMINAL, Item
from ..tools import merge_tool_frame, new_call
from .content import _todos
from .shared import Shared


class ToolCalls:
    """The turn's tool calls, in the session's shared state."""

    def __init__(self, shared: Shared) -> None:
        self.s = shared

    def tool(self, tool_call_id: str) -> dict[str, Any]:
        call = self.s.tools.get(tool_call_id)
        if call is None and self.s.loader is not None and (self.s.continued or tool_call_id in self.s.released):
            stored = self.s.loader(f"tool:{tool_call_id}")
            if stored is not None:
                call = dict(stored)
        if call is None:
            call = new_call(tool_call_id, self.s.turn)
            call["new"] = True
        self.s.tools[tool_call_id] = call
        return call

    def running_call(self) -> str | None:
        """The newest call of this turn still running (a subagent announced now was spawned by it)."""
        for call in reversed(list(self.s.tools.values())):
            if call.get("status") not in TERMINAL:
                call_id: str = call["tool_call_id"]
                return call_id
        return None

    def item(self, call: dict[str, Any]) -> Item:
        payload = {k: v for k, v in call.items() if k != "new"}
        return Item(f"tool:{call['tool_call_id']}", TOOL, int(call["turn"] if "turn" in call else self.s.turn), payload,
                    status=call.get("status"), tool_call_id=call["tool_call_id"], final=call.get("status") in TERMINAL)

    def frame(self, update: dict[str, Any], first: bool) -> list[Item]:
        tool_call_id = update.get("toolCallId")
        if not isinstance(tool_call_id, str) or not tool_call_id:
            return [self.s.error(f"The agent sent a tool call without an id{self.s.kept}.")]
        call = self.tool(tool_call_id)
        is_new = call.pop("new", False)
        asked = self.s.asked_first.pop(tool_call_id, None)
        seeded = is_new and asked is not None and not first
        if seeded and asked is not None:  # its first frame an update: the permission request said what the call is (title, kind,
            # rawInput, content), as its announcement would have
            merge_tool_frame(call, {k: v for k, v in asked.items() if k != "status"}, first=True)
        merge_tool_frame(call, update, first=is_new and not seeded)
        self.s.rich.note(call, update, made=is_new)
        self.place(call)
        asked_now = [item for item in self.s.permissions.values() if item.tool_call_id == tool_call_id]
        if is_new and asked_now:  # asked about before it was reported (Gemini CLI)
            call["asking"] = asked_mark(asked_now[0].payload.get("tool_call") or {})
        self.show_terminals(call)
        changed: list[Item] = []
        if is_new and not call.get("parent_id"):
            changed.extend(self.s.texts.at_call())  # a top-level tool call ends the message (not mid-sentence)
        changed.append(self.item(call))
        todos = _todos(call.get("output"))
        if todos is not None:
            changed.append(self.set_plan(todos))
        return changed

    def set_plan(self, entries: list[dict[str, Any]]) -> Item:
        payload = {"entries": [
            {"content": str(e.get("content", e.get("text", ""))), "priority": e.get("priority"), "status": e.get("status")}
            for e in entries]}
        self.s.plan = (Item(self.s.next("plan"), PLAN, self.s.turn, payload) if self.s.plan is None
                      else self.s.plan.but(payload=payload))
        return self.s.plan

    def of_ours(self, tool_call_id: str) -> dict[str, Any]:
        return new_call(tool_call_id, self.s.turn)


    def place(self, call: dict[str, Any]) -> bool:
        """The call's diffs made against the files as they were before it (:meth:`ClientSide.placed`); True if they
        changed."""
        placed = self.s.client.placed(call["tool_call_id"], call.get("content"))
        if placed is None:
            return False
        call["content"] = placed
        call["diffs"] = diff_summary(placed)
        return True


    def show_terminals(self, call: dict[str, Any]) -> None:
        """The output of the client terminals a call embeds becomes its command output."""
        self.s.client.show_terminals(call)
        shell = call.get("shell")
        if (call.get("status") == COMPLETE and isinstance(shell, dict)
                and (shell.get("exit_code") not in (None, 0) or shell.get("signal") not in (None, ""))):
            call["status"] = FAILED


def asked_mark(tool_call: dict[str, Any]) -> bool | str:
    """How a call is marked while a request for it waits: ``"diff"`` when the request shows a diff (OpenCode's edit
    call carries only its arguments; its request, the diff), else True."""
    return "diff" if diff_blocks(tool_call.get("content")) else True
