"""ACP subagent sessions (``subagents: {}`` offered in ``initialize``): the agent announces a child session with
``subagent_update`` on the parent's session (its id, title, description, state, whether it can be cancelled), then
sends the child's own updates as ``session/update`` notifications of the child's session id, and messages between
the sessions as ``session_message`` / ``session_message_chunk``.

Each child is one item of the parent's transcript, placed where it is first announced (beside the call that
spawned it: the parent's call still running then) and patched as the child works: its state, what it says (the
latest part of it), its tool calls with their states, and ``parts``: the child's own transcript in order (what it
said, what it was told, each call), the latest of it, for the full-screen view. Each part has a number ``n`` that
stays its own while it grows. A child of a child is one more item; an announcement
that would make a cycle (a session its own ancestor) is ignored. Headless: the normaliser's helper.
"""

from __future__ import annotations

from typing import Any, Callable

from kandev_tui.base.jsonutil import of_type

from .items import SUBAGENT
from .items import Item

MAX_TEXT = 20_000  # characters of a child's words kept (its latest)
MAX_TOOLS = 200  # tool calls of a child listed (its latest)
MAX_CHILDREN = 500
MAX_PARTS = 400  # parts of a child's own transcript kept (its latest)
# what the sessions list and the row say of a child's state; "unknown" (the agent does not know what it does now:
# Codex says it once a child is done) changes nothing
STATES = {"running": "running", "idle": "done", "requires_action": "waiting for you"}


def _text(value: Any, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _block_text(block: Any) -> str:
    return block.get("text", "") if isinstance(block, dict) and isinstance(block.get("text"), str) else ""


class Subagents:
    """The session's subagents by their session id (see the module docstring)."""

    def __init__(self, next_key: Callable[[str], str]) -> None:
        self._next = next_key
        self._items: dict[str, Item] = {}  # child session id → its item
        self._parents: dict[str, str] = {}  # child session id → its parent's session id
        self._senders: dict[str, str] = {}  # message id → the session that sent it (session_message)

    def is_child(self, session_id: Any) -> bool:
        return isinstance(session_id, str) and session_id in self._items

    def name_of(self, session_id: Any) -> str:
        """How a child is named where it asks the user something ("" for the session itself)."""
        if not self.is_child(session_id):
            return ""
        payload = self._items[session_id].payload
        return (payload.get("title") or payload.get("description") or "a subagent")[:120]

    def _ancestors(self, session_id: str) -> set[str]:
        seen = set()
        while session_id in self._parents and session_id not in seen:
            seen.add(session_id)
            session_id = self._parents[session_id]
        return seen | {session_id}

    def announce(self, parent: Any, update: dict[str, Any], turn: int, spawned_by: str | None) -> list[Item]:
        """``subagent_update`` sent on ``parent``'s session: a child registered, or its title, state… patched."""
        child = update.get("sessionId")
        if not isinstance(child, str) or not child or not isinstance(parent, str):
            return []
        item = self._items.get(child)
        if item is None:
            if child in self._ancestors(parent) or len(self._items) >= MAX_CHILDREN:
                return []  # a cycle (a session its own ancestor), or too many: ignored
            self._parents[child] = parent
            payload: dict[str, Any] = {"session_id": child[:200], "title": "", "description": "", "state": "running",
                                       "text": "", "tools": []}
            if self.is_child(parent):
                payload["parent_title"] = self._items[parent].payload.get("title") or "a subagent"
            if spawned_by:
                payload["spawned_by"] = spawned_by
            item = Item(self._next("subagent"), SUBAGENT, turn, payload)
        payload = dict(item.payload)
        for key, limit in (("title", 300), ("description", 2000)):
            if isinstance(update.get(key), str):
                payload[key] = update[key][:limit]
        if isinstance(update.get("capabilities"), dict):
            payload["can_cancel"] = isinstance(update["capabilities"].get("cancel"), dict)
        state = update.get("state")
        if isinstance(state, dict) and state.get("state") in STATES:
            payload["state"] = STATES[state["state"]]
            stop = state.get("stopReason")
            if payload["state"] == "done" and stop == "cancelled":
                payload["state"] = "cancelled"
            elif payload["state"] == "done" and stop == "error":
                payload["state"] = "failed"
        return [self._put(child, item, payload)]

    def child_update(self, child: str, update: dict[str, Any]) -> list[Item]:
        """One of the child's own updates (a ``session/update`` of its session id): what it says, its calls."""
        item = self._items[child]
        payload = dict(item.payload)
        kind = update.get("sessionUpdate")
        if kind in ("agent_message_chunk", "session_message_chunk", "session_message"):
            blocks = [update.get("content")] if kind != "session_message" else update.get("content") or []
            words = "".join(_block_text(b) for b in blocks if isinstance(blocks, list))
            told = kind != "agent_message_chunk" and self._told(child, update)
            message = of_type(update, "messageId", str, None)
            parts = payload.get("parts") or []
            # another message (its id, or a call between): a paragraph of its own
            new = bool(parts) and (told or "text" not in parts[-1] or parts[-1].get("m") != message)
            if words and not told:
                text = payload.get("text", "")
                payload["text"] = (text + ("\n\n" if text and new else "") + words)[-MAX_TEXT:]
            payload["parts"] = _said(parts, words, "told" if told else "text", message)
        elif kind in ("tool_call", "tool_call_update") and isinstance(update.get("toolCallId"), str):
            tools = [dict(t) for t in payload.get("tools", [])]
            call = next((t for t in tools if t["id"] == update["toolCallId"]), None)
            if call is None:
                call = {"id": update["toolCallId"][:200], "title": "", "status": "pending"}
                tools = (tools + [call])[-MAX_TOOLS:]
                payload["parts"] = _added(payload.get("parts") or [], {"call": call["id"]})
            for key, limit in (("title", 300), ("status", 40), ("kind", 40)):
                if isinstance(update.get(key), str):
                    call[key] = update[key][:limit]
            payload["tools"] = tools
        else:
            return []  # its plans, usage, commands…: not drawn in the parent's transcript
        return [self._put(child, item, payload)]

    def _told(self, child: str, update: dict[str, Any]) -> bool:
        """Whether a ``session_message(_chunk)`` in a child's transcript is what another session (its parent) told
        it: its sender, from the message's upsert (a chunk carries only content: its upsert may come before or
        after it; a chunk of a message not known yet counts as the child's own words)."""
        message = update.get("messageId")
        sender = update.get("senderSessionId")
        if isinstance(message, str) and isinstance(sender, str):
            self._senders[message[:200]] = sender
        elif isinstance(message, str):
            sender = self._senders.get(message[:200])
        return isinstance(sender, str) and sender != child

    def _put(self, child: str, item: Item, payload: dict[str, Any]) -> Item:
        changed = item.but(payload=payload, final=payload.get("state") in ("done", "cancelled", "failed"))
        self._items[child] = changed
        return changed


def _added(parts: list[dict[str, Any]], part: dict[str, Any]) -> list[dict[str, Any]]:
    """``parts`` with one more (numbered after the last), the oldest dropped past :data:`MAX_PARTS`."""
    number = parts[-1]["n"] + 1 if parts else 0
    return (parts + [{"n": number, **part}])[-MAX_PARTS:]


def _said(parts: list[dict[str, Any]], words: str, kind: str, message: str | None) -> list[dict[str, Any]]:
    """``parts`` with ``words`` said (``text``: by the child; ``told``: to it), added to the last part when that
    is one of the same kind and message (``m``, its id when the agent gives one); what it said kept to the latest
    :data:`MAX_TEXT` characters."""
    if not words:
        return parts
    if parts and kind in parts[-1] and parts[-1].get("m") == message:
        parts = parts[:-1] + [{**parts[-1], kind: (parts[-1][kind] + words)[-MAX_TEXT:]}]
    else:
        parts = _added(parts, {kind: words[-MAX_TEXT:], **({"m": message[:200]} if message else {})})
    total, kept = 0, list[dict[str, Any]]()
    for part in reversed(parts):  # the latest parts whose words fit in MAX_TEXT (calls cost nothing)
        total += len(part.get("text") or part.get("told") or "")
        if total > MAX_TEXT and kept:
            break
        kept.append(part)
    return kept[::-1]
