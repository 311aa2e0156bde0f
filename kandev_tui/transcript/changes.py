"""The changes card's item: what a turn changed in the workspace (``changes`` events from
:mod:`kandev_tui.turn_changes`), one item per turn, placed (pending) when the agent answers the turn's prompt, before
its end marker, and patched to ready, none or unavailable. Headless:
everything in it is data, its paths as git wrote them (made inert where they are drawn)."""

from __future__ import annotations

from typing import Any, Callable

from . import items as K
from .items import Item

STATES = ("pending", "ready", "none", "unavailable")
MAX_FILES = 2000


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _file(entry: Any) -> dict[str, Any] | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
        return None
    kept: dict[str, Any] = {"path": entry["path"][:4096], "status": str(entry.get("status") or "modified")[:20],
                            "added": _int(entry.get("added")), "removed": _int(entry.get("removed"))}
    if entry.get("binary") is True:
        kept["binary"] = True
    if isinstance(entry.get("old_path"), str) and entry["old_path"]:
        kept["old_path"] = entry["old_path"][:4096]
    return kept


class TurnChangesItems:
    """The cards of a session's turns, by the turn they are for."""

    def __init__(self, next_key: Callable[[str], str]) -> None:
        self._next = next_key
        self._keys: dict[Any, str] = {}
        self._tracked: Any = None  # the running turn, when it will have a card

    def untrack(self) -> None:
        """The running turn will have no card (it was cut short)."""
        self._tracked = None

    def turn_ending(self, turn: int) -> list[Item]:
        """The turn's end (the agent answered its prompt): its card, pending, placed before the turn's end marker
        (what it changed is computed after)."""
        ref, self._tracked = self._tracked, None
        return [] if ref is None else self.event({"state": "pending", "turn_ref": ref}, turn)

    def event(self, event: dict[str, Any], turn: int) -> list[Item]:
        state = event.get("state")
        if state == "tracking":  # said as the turn starts: a card comes at its end
            self._tracked = event.get("turn_ref")
            return []
        ref = event.get("turn_ref")
        if state not in STATES or (state != "pending" and ref not in self._keys):
            return []  # a turn whose card was not placed (cut short by kandev-tui closing): nothing to say
        key = self._keys.get(ref) or self._next("changes")
        self._keys[ref] = key
        payload: dict[str, Any] = {"state": state}
        if state == "unavailable":
            payload["reason"] = str(event.get("reason") or "")[:500]
        if state in ("ready", "none"):
            files = [f for f in (_file(e) for e in (event.get("files") or [])[:MAX_FILES]) if f is not None]
            payload.update(files=files, count=max(_int(event.get("count")), len(files)),
                           added=_int(event.get("added")), removed=_int(event.get("removed")),
                           skipped=_int(event.get("skipped")), overlapped=event.get("overlapped") is True)
            for name in ("before", "after", "session", "repository"):
                if isinstance(event.get(name), str):
                    payload[name] = event[name][:4096]
        return [Item(key, K.CHANGES, turn, payload, final=state != "pending")]
