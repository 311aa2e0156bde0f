"""Provider-neutral transcript items: what is stored and what the view renders."""

from __future__ import annotations

from dataclasses import dataclass, field
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

KINDS = (USER, AGENT, THOUGHT, PLAN, TOOL, PERMISSION, SESSION_INFO, USAGE, ERROR, TURN_END, NOTE)

# normalised tool statuses
PENDING, IN_PROGRESS, COMPLETE, FAILED, CANCELLED = "pending", "in_progress", "complete", "error", "cancelled"
TERMINAL = frozenset({COMPLETE, FAILED, CANCELLED})


@dataclass
class Item:
    """One transcript item, keyed stably so that updates replace it in place.

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
