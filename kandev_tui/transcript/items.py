"""Provider-neutral transcript items: what is stored and what the view renders."""

from __future__ import annotations

import itertools
import json
import re
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

# item kinds
USER = "user_message"
AGENT = "agent_message"
THOUGHT = "thought"
PLAN = "plan"
TOOL = "tool_call"
PERMISSION = "permission"
SESSION_INFO = "session_info"
USAGE = "usage"
ERROR = "error"
TURN_END = "turn_end"
NOTE = "note"  # a quiet one-line event from the source (a Kandev status row, a script run, an unknown row type)
ELICITATION = "elicitation"  # the agent asks the user a question: a form, or a link to open (transcript/elicitation.py)
AGENT_NOTICE = "agent_notice"  # the agent tells the user something: info, warning or error (transcript/notices.py)
COMPACTION = "compaction"  # the agent compacted its context, with the summary it kept
SUBAGENT = "subagent"  # a child session the agent runs (transcript/subagents.py)
CHANGES = "changes"  # what a turn changed in the workspace, from checkpoints (kandev_tui/workspace/turn_changes.py)

KINDS = (USER, AGENT, THOUGHT, PLAN, TOOL, PERMISSION, SESSION_INFO, USAGE, ERROR, TURN_END, NOTE, ELICITATION,
         AGENT_NOTICE, COMPACTION, SUBAGENT, CHANGES)

# normalised tool statuses
PENDING, IN_PROGRESS, COMPLETE, FAILED, CANCELLED = "pending", "in_progress", "complete", "error", "cancelled"
TERMINAL = frozenset({COMPLETE, FAILED, CANCELLED})


_CHANGEABLE = frozenset({"key", "kind", "turn", "payload", "status", "tool_call_id", "final", "grown_from"})  # Item.but's
_versions = itertools.count(1)  # every item version made in this process has its own number (thread-safe: one C call)


@dataclass(frozen=True)
class Item:
    """One version of a transcript item, keyed stably so that a newer version replaces it in place.

    Items are immutable: a change is a new version (:meth:`but`), with a new :attr:`version` number, and nothing
    changes the ``payload`` of a version that has been handed out. So a version can be read anywhere (a search in a
    thread, the store's writer, a widget) while newer ones are made, and what is derived from it (a parsed
    presentation, say) can be cached by ``(key, version)``.

    ``payload`` is plain JSON. For a tool call it is the provider-neutral form
    ``{name, input, output, status, title, kind, parent_id, ...}``. ``final``
    says that nothing more is expected for the item in its turn.
    """

    key: str
    kind: str
    turn: int
    payload: dict[str, Any] = field(default_factory=dict)
    status: str | None = None
    tool_call_id: str | None = None
    final: bool = False
    # unique in the process (two versions of one item, or two sessions' items with one key, never share one); not
    # part of equality, which is about what the item says
    version: int = field(default_factory=lambda: next(_versions), init=False, compare=False, repr=False)
    # a streaming text's claim (a message, a thought): its ``text`` only grew since the version numbered so, so a
    # reader holding any version from that one on appends ``text[len(what it holds):]``; 0 claims nothing. Not
    # carried over by :meth:`but` unless given again
    grown_from: int = field(default=0, compare=False, repr=False)

    __hash__ = None  # type: ignore[assignment]  # a payload is a dict: an item is no dictionary key

    def but(self, **changes: Any) -> "Item":
        """A new version of this item with ``changes`` (``payload``, ``status``, ``final``…).

        Made by copying the fields, not through the generated ``__init__`` (which sets each field of a frozen
        dataclass through ``object.__setattr__``): a streamed message makes a version per chunk, a fast agent
        thousands a second, on the source's thread."""
        if not _CHANGEABLE.issuperset(changes):
            raise TypeError(f"Item.but() got unknown fields: {sorted(set(changes) - _CHANGEABLE)}")
        new = object.__new__(Item)
        fields = new.__dict__
        fields.update(self.__dict__)
        fields["grown_from"] = 0
        fields.update(changes)
        fields["version"] = next(_versions)
        return new

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "kind": self.kind, "turn": self.turn}
        if self.status is not None:
            out["status"] = self.status
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        out["payload"] = self.payload
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Item":
        return cls(
            key=data["key"],
            kind=data["kind"],
            turn=int(data.get("turn", 0)),
            payload=data.get("payload") or {},
            status=data.get("status"),
            tool_call_id=data.get("tool_call_id"),
            final=True,
        )


_ESCAPED = re.compile(r'[\x00-\x1f"\\]')  # what JSON writes escaped
_ESCAPED_TEXT = re.compile(r'\\u(?!00[01])')  # text JSON wrote escaped beyond control characters (ensure_ascii)


@lru_cache(maxsize=512)
def _unpack(packed: bytes) -> dict[str, Any]:
    try:
        data = json.loads(zlib.decompress(packed))
    except (ValueError, zlib.error):
        data = None
    return data if isinstance(data, dict) else {"unreadable": True}


class PackedItem(Item):
    """A stored item whose payload is kept as compressed JSON and parsed when used.

    Opening a long session places every item, but builds widgets only for a window of them. Kept
    as a tree of parsed JSON, the payloads were most of the memory of a 50,000-item session (about
    16 objects per item); packed, each costs its compressed text. The last few hundred payloads
    parsed are kept, so placing an item or building its widget parses it once. Like every item, it never
    changes.
    """

    _packed: bytes  # the payload's JSON, compressed

    def __init__(self, key: str, kind: str, turn: int, payload_json: str | bytes, *, status: str | None = None,
                 tool_call_id: str | None = None, final: bool = True) -> None:
        raw = payload_json.encode("utf-8", "surrogatepass") if isinstance(payload_json, str) else payload_json
        for name, value in (("key", key), ("kind", kind), ("turn", turn), ("status", status),
                            ("tool_call_id", tool_call_id), ("final", final), ("version", next(_versions)),
                            ("_packed", zlib.compress(raw, 1))):
            object.__setattr__(self, name, value)  # a frozen dataclass's fields, set once

    @property
    def payload(self) -> dict[str, Any]:
        return _unpack(self._packed)

    def may_mention(self, needle: str) -> bool:
        """False when no text of the payload can contain ``needle`` (casefolded), read from the stored JSON
        without parsing it (search through 50,000 items reads them all). Every character of a match that JSON
        does not escape is in the stored text as it is, so this is only ever sure of a miss: a needle with a
        character JSON escapes, or a payload stored with escaped text, says True and the caller parses."""
        if _ESCAPED.search(needle):
            return True
        raw = zlib.decompress(self._packed).decode("utf-8", "surrogatepass")
        return needle in raw.casefold() or ("\\u" in raw and _ESCAPED_TEXT.search(raw) is not None)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Item):
            return NotImplemented
        return (self.key, self.kind, self.turn, self.payload, self.status, self.tool_call_id, self.final) == (
            other.key, other.kind, other.turn, other.payload, other.status, other.tool_call_id, other.final)

    __hash__ = None  # as the dataclass's


def as_interrupted(items: list[Item]) -> list[Item]:
    """A stored session whose process ended in a turn without closing it (killed, the power gone): its unfinished
    calls and unanswered requests read as cancelled, as the end of a turn leaves them; every other item as stored."""
    out = []
    for item in items:
        if item.kind == TOOL and (item.status not in TERMINAL or item.payload.get("asking")):
            payload = {k: v for k, v in item.payload.items() if k != "asking"}
            status = item.status if item.status in TERMINAL else CANCELLED
            item = Item(item.key, item.kind, item.turn, {**payload, "status": status}, status=status,
                        tool_call_id=item.tool_call_id, final=True)
        elif item.kind == PERMISSION and not item.payload.get("answer"):
            item = Item(item.key, item.kind, item.turn, {**item.payload, "answer": {"outcome": "cancelled"}},
                        status=CANCELLED, tool_call_id=item.tool_call_id, final=True)
        elif item.kind == ELICITATION and item.status == "pending":
            item = Item(item.key, item.kind, item.turn, {**item.payload, "answer": {"action": "cancel"}},
                        status="cancelled", tool_call_id=item.tool_call_id, final=True)
        out.append(item)
    return out
