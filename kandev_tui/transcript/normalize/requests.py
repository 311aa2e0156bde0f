"""The agent's permission requests (and the calls they ask about), and their answers."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kandev_tui.base.jsonutil import of_type
from kandev_tui.presentation.names import is_rich_output_name

from ..items import PERMISSION
from ..items import Item
from .content import _request_view

from .calls import asked_mark

if TYPE_CHECKING:
    from .calls import ToolCalls
    from .shared import Shared


class Requests:
    """Permission requests: each an item, its call marked while it waits, and its answer."""

    def __init__(self, shared: Shared, calls: ToolCalls) -> None:
        self.s = shared
        self.calls = calls

    def permission_request(self, msg: dict[str, Any]) -> list[Item]:
        params = of_type(msg, "params", dict, {})
        key = self.s.next("permission")
        self.s.requests_in[msg["id"]] = key
        tool_call = of_type(params, "toolCall", dict, {})
        call_id = tool_call.get("toolCallId")
        known = self.s.tools.get(call_id) if isinstance(call_id, str) else None
        if known is not None:  # what the request leaves out (some send only the id), from the call it is for
            tool_call = {**_request_view(known), **tool_call}
        elif isinstance(call_id, str):  # asked about before it is reported: the request may be
            self.s.asked_first[call_id] = tool_call  # all the agent says of it (Qwen Code)
        options = [o for o in params.get("options") or [] if isinstance(o, dict)]
        placed = self.s.client.placed(call_id, tool_call.get("content")) if isinstance(call_id, str) else None
        if placed is not None:
            tool_call = {**tool_call, "content": placed}
        self.arguments_from_request(tool_call)
        self.s.client.asked(tool_call)
        payload = {"tool_call": tool_call, "options": options}
        asked_by = self.s.subagents.name_of(params.get("sessionId"))
        if asked_by:  # one of its subagents asks: the request says which
            payload["asked_by"] = asked_by
        item = Item(key, PERMISSION, self.s.turn, payload, status="pending", tool_call_id=tool_call.get("toolCallId"))
        self.s.permissions[key] = item
        return self.s.close_text() + self.asks(item.tool_call_id, asked_mark(tool_call)) + [item]

    def arguments_from_request(self, tool_call: dict[str, Any]) -> None:
        """Gemini CLI reports an MCP call with no ``rawInput``: the rich-output call's arguments are only in its
        permission request, as the JSON text of its content. They become the call's input (validated when the call
        is read, as any input is)."""
        call_id, title = tool_call.get("toolCallId"), tool_call.get("title")
        if not isinstance(call_id, str) or "rawInput" in tool_call or not isinstance(title, str):
            return
        if not is_rich_output_name(None, title):
            return
        texts = [block["content"]["text"] for block in tool_call.get("content") or []
                 if isinstance(block, dict) and isinstance(block.get("content"), dict)
                 and isinstance(block["content"].get("text"), str)]
        try:
            arguments = json.loads(texts[0]) if len(texts) == 1 else None
        except (ValueError, RecursionError):
            arguments = None
        call = self.calls.tool(call_id)
        if isinstance(arguments, dict) and not (call.get("input") or {}).get("raw_input"):
            call["input"] = {"kind": call.get("kind") or "other", "raw_input": arguments, "from": "permission request"}

    def answered(self, key: str, msg: dict[str, Any]) -> list[Item]:
        if key.startswith("elicitation:"):
            return self.s.elicitations.answered(key, msg)
        item = self.s.permissions.pop(key, None)
        if item is None:
            return []
        outcome = ((msg.get("result") or {}).get("outcome") or {}) if isinstance(msg.get("result"), dict) else {}
        answer: dict[str, Any] = {"outcome": outcome.get("outcome", "cancelled")}
        option_id = outcome.get("optionId")
        if isinstance(option_id, str):
            answer["option_id"] = option_id
            for option in item.payload.get("options", []):
                if isinstance(option, dict) and option.get("optionId") == option_id:
                    answer["name"] = option.get("name")
                    answer["option_kind"] = option.get("kind")
        answered = [item.but(payload={**item.payload, "answer": answer},
                             status="answered" if answer["outcome"] == "selected" else "cancelled", final=True)]
        return answered + self.asks(item.tool_call_id, False)

    def asks(self, tool_call_id: Any, asking: bool | str) -> list[Item]:
        """The call a permission request is for, marked ``asking`` while the request waits (its diff is shown once,
        in the request, where the answer is given: ``"diff"`` when the request carries one the call has not) and
        unmarked once it is answered; its item, if it changed."""
        call = self.s.tools.get(tool_call_id) if isinstance(tool_call_id, str) else None
        if call is None or call.get("new") or call.get("asking", False) == asking:
            return []  # a call not reported yet is marked when it is (the request must not place it first)
        if asking:
            call["asking"] = asking
        else:
            call.pop("asking", None)
        return [self.calls.item(call)]

    def cursor_task(self, params: dict[str, Any]) -> list[Item]:
        tool_call_id = params.get("toolCallId")
        if not isinstance(tool_call_id, str):
            return []
        call = self.calls.tool(tool_call_id)
        call["subagent"] = {**(call.get("subagent") or {}), "provider": "cursor",
                            **{k: params[k] for k in ("agentId", "description", "model") if k in params}}
        return [self.calls.item(call)]
