"""ACP frames and the items the normaliser makes of them: a prompt, an update, a recording's versions, a
fixture's frames, the real adapters' recordings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kandev_tui.transcript import IN, OUT, Frame
from kandev_tui.transcript.frames import read_recording
from kandev_tui.transcript.normalize import Normalizer

from . import FIXTURES
from .documents import load_fixture


PROMPT = Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                     "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}})
END = Frame(IN, {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}})


def chunk(text: str, kind: str = "agent_message_chunk") -> Frame:
    """A chunk of the agent's message (``kind``: also ``agent_thought_chunk``, ``user_message_chunk``)."""
    return Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": kind, "content": {"type": "text", "text": text}}}})


def frames(*updates, prompt: bool = True) -> list[Frame]:
    out = [Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                       "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}})] if prompt else []
    return out + [Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": u}})
                  for u in updates]


def frames_of(name: str, *, prompt: bool = True) -> list[Frame]:
    frames = [Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                          "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}})] if prompt else []
    return frames + [Frame(IN, message) for message in load_fixture(f"acp/{name}")["frames"]]


def by_key(items) -> dict:
    return {item.key: item for item in items}


def tool(items, call_id):
    return by_key(items)[f"tool:{call_id}"]


def update(normalizer: Normalizer, body: dict) -> list:
    return normalizer.feed(Frame.now(IN, {"jsonrpc": "2.0", "method": "session/update",
                                          "params": {"sessionId": "s", "update": body}}))


def child(session: str, body: dict) -> dict:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": body}}


RECORDINGS = FIXTURES / "recordings"


def versions(recording: Path) -> list:
    """Every version of every item, in the order a live session hands them to its layout."""
    normalizer = Normalizer(recorded=True)
    out = []
    for frame in read_recording(recording):
        out += normalizer.feed(frame)
    return out + normalizer.settle()


CLAUDE = FIXTURES / "recordings" / "claude-real.jsonl"


CODEX = FIXTURES / "recordings" / "codex-real.jsonl"


def messages_of(seen: list[Any]) -> list[dict[str, Any]]:
    return [frame.msg for frame in seen]
