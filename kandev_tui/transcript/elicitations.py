"""The transcript's items of the agent's questions (:mod:`.elicitation` reads what they ask): one per request,
``pending`` until answered (``accepted``, ``declined``, ``cancelled``), ``withdrawn`` when the agent gives up on it,
``completed`` when a URL interaction it opened is done, cancelled when the turn ends. Headless."""

from __future__ import annotations

from typing import Any, Callable

from kandev_tui.base.jsonutil import of_type

from .items import ELICITATION
from .elicitation import (ACCEPTED, ANSWERED, CANCELLED, COMPLETED, PENDING, WITHDRAWN, _text, parse_form,
                          url_target)
from .items import Item


class Elicitations:
    """The transcript's elicitation items, for the normaliser: made from the agent's requests, changed by the
    client's answers, by ``elicitation/complete`` and by the turn's end."""

    def __init__(self, next_key: Callable[[str], str]) -> None:
        self._next = next_key
        self.agent = ""  # the agent's name (from initialize): its questions say who asks
        self._items: dict[str, Item] = {}  # key → the item, while it can still change
        self._by_url_id: dict[str, str] = {}  # a URL request's elicitationId → its key

    def waits(self, key: str) -> bool:
        """Whether the question ``key`` can still change (unanswered, or a link opened and not done)."""
        return key in self._items

    def pending_key(self) -> str | None:
        """The newest request still waiting for the user."""
        for key, item in reversed(list(self._items.items())):
            if item.status == PENDING:
                return key
        return None

    def request(self, params: dict[str, Any], turn: int, asked_by: str = "") -> Item:
        """The question an ``elicitation/create`` asks; ``asked_by``: the subagent whose session it is in."""
        mode = of_type(params, "mode", str, "form")
        payload: dict[str, Any] = {"mode": mode, "message": _text(params.get("message"))[:20000]}
        if self.agent:
            payload["agent"] = self.agent
        if isinstance(params.get("sessionId"), str):
            payload["scope"] = "session"
        elif "requestId" in params:
            payload["scope"] = "request"
        problem = ""
        if mode == "form":
            payload["schema"] = params.get("requestedSchema")
            problem = parse_form(params.get("requestedSchema"))[1]
        elif mode == "url":
            payload["url"] = _text(params.get("url"))[:4000]
            payload["host"], problem = url_target(params.get("url"))
            if isinstance(params.get("elicitationId"), str):
                payload["elicitation_id"] = params["elicitationId"]
        else:
            problem = f"kandev-tui does not know the mode {mode[:40]!r}"
        if problem:
            payload["problem"] = problem
        meta = of_type(params, "_meta", dict, {})
        for key in ("subagent", "subagentName", "agentName"):  # who asks, where the agent says it
            if isinstance(meta.get(key), str):
                payload["asked_by"] = meta[key][:200]
                break
        if asked_by:
            payload["asked_by"] = asked_by
        tool_call_id = of_type(params, "toolCallId", str, None)
        item = Item(self._next("elicitation"), ELICITATION, turn, payload, status=PENDING, tool_call_id=tool_call_id)
        self._items[item.key] = item
        if payload.get("elicitation_id"):
            self._by_url_id[payload["elicitation_id"]] = item.key
        return item

    def answered(self, key: str, msg: dict[str, Any]) -> list[Item]:
        """The client's response to the request (an error response: withdrawn, as the agent gave up on it)."""
        item = self._items.get(key)
        if item is None:
            return []
        result = of_type(msg, "result", dict, None)
        if result is None:
            self._items.pop(key, None)
            return [item.but(status=WITHDRAWN, final=True)]
        action = of_type(result, "action", str, "cancel")
        answer: dict[str, Any] = {"action": action}
        if action == "accept" and isinstance(result.get("content"), dict):
            answer["content"] = result["content"]
        status = ANSWERED.get(action, CANCELLED)
        if status == ACCEPTED and item.payload.get("mode") == "url":
            # opened: it stays open to its completion (elicitation/complete)
            changed = item.but(payload={**item.payload, "answer": answer}, status=ACCEPTED)
            self._items[key] = changed
            return [changed]
        self._items.pop(key, None)
        return [item.but(payload={**item.payload, "answer": answer}, status=status, final=True)]

    def withdrawn(self, key: str) -> list[Item]:
        """The agent cancelled its request (``$/cancel_request``) before it was answered."""
        item = self._items.get(key)
        if item is None or item.status != PENDING:
            return []
        self._items.pop(key, None)
        return [item.but(status=WITHDRAWN, final=True)]

    def complete(self, params: Any) -> list[Item]:
        """``elicitation/complete``: a URL interaction the user opened is done (ignored for any other id)."""
        eid = params.get("elicitationId") if isinstance(params, dict) else None
        key = self._by_url_id.pop(eid, None) if isinstance(eid, str) else None
        item = self._items.pop(key, None) if key is not None else None
        if item is None:
            return []
        return [item.but(status=COMPLETED if item.status == ACCEPTED else item.status, final=True)]

    def turn_ended(self) -> list[Item]:
        """A turn's end: its requests still waiting read as cancelled (a request-scoped one is left, as its request
        may still run); opened URL interactions stay open for their completion."""
        changed = []
        for key, item in list(self._items.items()):
            if item.status == PENDING and item.payload.get("scope") != "request":
                self._items.pop(key)
                changed.append(item.but(payload={**item.payload, "answer": {"action": "cancel"}}, status=CANCELLED,
                                        final=True))
        return changed
