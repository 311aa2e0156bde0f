"""What the agent tells the user beside its messages (ACP ``session.notices`` and ``session.compaction``, offered in
``initialize``): a **notice** (``severity`` info, warning or error — an unknown one counts as info —, a title, a
description) is an item of its own; a **compaction** of the agent's context (``compaction_update``,
``compaction_summary_chunk``) is one item per ``compactionId``, patched in place as its status and summary come.
Headless: the normaliser's helper."""

from __future__ import annotations

from typing import Any, Callable

from kandev_tui.base.jsonutil import of_type

from .items import AGENT_NOTICE, COMPACTION
from .items import Item

SEVERITIES = ("info", "warning", "error")
COMPACTION_STATES = ("in_progress", "completed", "failed", "cancelled")
MAX_SUMMARY = 200_000  # characters of a compaction's summary kept (the rest is said to be cut)
MAX_COMPACTIONS = 1000  # compactions followed at once (an agent that never finishes them cannot grow memory)


def _text(value: Any, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


def content_text(block: Any) -> str:
    """The text of one content block (text, or a resource's text; others say what they are)."""
    if not isinstance(block, dict):
        return ""
    if block.get("type") == "text":
        return _text(block.get("text"), MAX_SUMMARY)
    resource = of_type(block, "resource", dict, {})
    if isinstance(text := resource.get("text"), str):
        return text[:MAX_SUMMARY]
    kind = block.get("type")
    return f"[{kind}]" if isinstance(kind, str) else ""


def notice_item(update: dict[str, Any], key: str, turn: int) -> Item:
    severity = update.get("severity")
    payload = {"severity": severity if severity in SEVERITIES else "info",
               "title": _text(update.get("title"), 500) or "(no title)",
               "description": _text(update.get("description"), 4000)}
    return Item(key, AGENT_NOTICE, turn, payload, final=True)


class Compactions:
    """The session's compactions by the agent's id, each an item patched in place (``summary``, ``error``: omitted
    leaves it, null clears it, a value replaces it; chunks append)."""

    def __init__(self, next_key: Callable[[str], str], usage: Callable[[], dict[str, Any]] = dict) -> None:
        self._next = next_key
        self._usage = usage  # the session's context usage as last reported (usage_update)
        self._items: dict[str, Item] = {}  # compactionId → its item, while it can change
        self._after: tuple[str, Item] | None = None  # the compaction completed last, until usage is reported after it
        self._during: dict[str, dict[str, Any]] = {}  # compactionId → the usage last reported while it ran

    def _item(self, compaction_id: str, turn: int) -> Item:
        item = self._items.get(compaction_id)
        if item is None:
            if len(self._items) >= MAX_COMPACTIONS:
                self._items.pop(next(iter(self._items)))
            payload: dict[str, Any] = {"status": "in_progress", "summary": ""}
            used, size = self._usage().get("used"), self._usage().get("size")
            if isinstance(used, int) and not isinstance(used, bool):
                payload["context_before"] = used
                if isinstance(size, int) and not isinstance(size, bool):
                    payload["context_size"] = size
            item = Item(self._next("compaction"), COMPACTION, turn, payload)
        return item

    def update(self, update: dict[str, Any], turn: int) -> list[Item]:
        cid = update.get("compactionId")
        if not isinstance(cid, str):
            return []
        item = self._item(cid, turn)
        payload = dict(item.payload)
        status = update.get("status")
        if isinstance(status, str):
            payload["status"] = status[:40]
        if "summary" in update:
            blocks = update["summary"] if isinstance(update["summary"], list) else []
            payload["summary"] = "".join(content_text(b) for b in blocks)[:MAX_SUMMARY]
        if "error" in update:
            payload["error"] = _text(update["error"], 4000)
        return [self._put(cid, item, payload)]

    def chunk(self, update: dict[str, Any], turn: int) -> list[Item]:
        cid = update.get("compactionId")
        if not isinstance(cid, str):
            return []
        item = self._item(cid, turn)
        summary = item.payload.get("summary", "")
        payload = {**item.payload, "summary": (summary + content_text(update.get("content")))[:MAX_SUMMARY]}
        return [self._put(cid, item, payload)]

    def _put(self, cid: str, item: Item, payload: dict[str, Any]) -> Item:
        done = payload.get("status") in ("completed", "failed", "cancelled")
        during = self._during.pop(cid, None) if done else None
        if during is not None and payload.get("status") == "completed":  # the context as it was left (Codex)
            payload = {**payload, **_context_after(during)}
        changed = item.but(payload=payload, status=payload.get("status"), final=done)
        if done:
            self._items.pop(cid, None)
            waits = payload.get("status") == "completed" and "context_after" not in payload
            self._after = (cid, changed) if waits else None
        else:
            self._items[cid] = changed
        return changed

    def usage_reported(self, usage: dict[str, Any]) -> list[Item]:
        """The context usage the agent reports: a compaction says what the context held after it (the usage display
        follows it), from the last report while it ran (Codex reports the compacted context then), else from the
        first report after it completed."""
        used = usage.get("used")
        if not isinstance(used, int) or isinstance(used, bool):
            return []
        for cid in self._items:  # reported while it runs: the context it leaves (said when it completes)
            self._during[cid] = usage
        if self._after is None:
            return []
        _cid, item = self._after
        self._after = None
        return [item.but(payload={**item.payload, **_context_after(usage)})]

    def turn_ended(self) -> list[Item]:
        """A compaction still in progress when the turn ends is said to be unfinished (it may still complete: an
        update with its id patches it again)."""
        changed = []
        for cid, item in list(self._items.items()):
            if not item.payload.get("unfinished"):
                self._items[cid] = item.but(payload={**item.payload, "unfinished": True})
                changed.append(self._items[cid])
        return changed


def _context_after(usage: dict[str, Any]) -> dict[str, Any]:
    size = usage.get("size")
    return {"context_after": usage["used"],
            **({"context_size": size} if isinstance(size, int) and not isinstance(size, bool) else {})}
