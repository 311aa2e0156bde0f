"""The tool calls of a turn: made or merged from each frame, stored away at the turn's end and looked up again."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any


from .. import items as K
from ..items import TERMINAL, Item
from ..tools import merge_tool_frame, new_call
from .content import _todos
from .requests import asked_mark

if TYPE_CHECKING:
    from ._parts import NormalizerParts
else:
    NormalizerParts = object  # a plain mixin at run time: see _parts


class ToolCalls(NormalizerParts):
    """Tool calls (a part of :class:`Normalizer`)."""

    def _tool(self, tool_call_id: str) -> dict[str, Any]:
        call = self._tools.get(tool_call_id)
        if call is None and self._loader is not None and (self._continued or tool_call_id in self._released):
            stored = self._loader(f"tool:{tool_call_id}")
            if stored is not None:
                call = dict(stored)
        if call is None:
            call = new_call(tool_call_id, self.turn)
            call["new"] = True
        self._tools[tool_call_id] = call
        return call

    def _running_call(self) -> str | None:
        """The newest call of this turn still running (a subagent announced now was spawned by it)."""
        for call in reversed(list(self._tools.values())):
            if call.get("status") not in TERMINAL:
                call_id: str = call["tool_call_id"]
                return call_id
        return None

    def _tool_item(self, call: dict[str, Any]) -> Item:
        payload = {k: v for k, v in call.items() if k != "new"}
        return Item(f"tool:{call['tool_call_id']}", K.TOOL, int(call["turn"] if "turn" in call else self.turn), payload,
                    status=call.get("status"), tool_call_id=call["tool_call_id"], final=call.get("status") in TERMINAL)

    def _tool_frame(self, update: dict[str, Any], first: bool) -> list[Item]:
        tool_call_id = update.get("toolCallId")
        if not isinstance(tool_call_id, str) or not tool_call_id:
            return [self._error(f"The agent sent a tool call without an id{self._kept}.")]
        call = self._tool(tool_call_id)
        is_new = call.pop("new", False)
        asked = self._asked_first.pop(tool_call_id, None)
        seeded = is_new and asked is not None and not first
        if seeded and asked is not None:  # its first frame an update: the permission request said what the call is (title, kind,
            # rawInput, content), as its announcement would have
            merge_tool_frame(call, {k: v for k, v in asked.items() if k != "status"}, first=True)
        merge_tool_frame(call, update, first=is_new and not seeded)
        self._rich.note(call, update, made=is_new)
        self._place(call)
        asked_now = [item for item in self._permissions.values() if item.tool_call_id == tool_call_id]
        if is_new and asked_now:  # asked about before it was reported (Gemini CLI)
            call["asking"] = asked_mark(asked_now[0].payload.get("tool_call") or {})
        self._show_terminals(call)
        changed: list[Item] = []
        if is_new and not call.get("parent_id"):
            changed.extend(self._texts.at_call())  # a top-level tool call ends the message (not mid-sentence)
        changed.append(self._tool_item(call))
        todos = _todos(call.get("output"))
        if todos is not None:
            changed.append(self._set_plan(todos))
        return changed

    def _set_plan(self, entries: list[dict[str, Any]]) -> Item:
        payload = {"entries": [
            {"content": str(e.get("content", e.get("text", ""))), "priority": e.get("priority"), "status": e.get("status")}
            for e in entries]}
        self._plan = (Item(self._next("plan"), K.PLAN, self.turn, payload) if self._plan is None
                      else self._plan.but(payload=payload))
        return self._plan
