"""Frames: every JSON-RPC message in either direction, plus local events.

A frame is what a recording stores, one JSON object a line:
``{"t": <unix time>, "dir": "in"|"out"|"local", "msg": {...}}``. ``in`` is from
the agent, ``out`` to it; ``local`` holds what the client itself observed
(the agent exiting, a line that was not JSON, a timeout) so that a replay
yields exactly the items of the live run. A line that was not JSON keeps a
bounded prefix: ``{"dir": "in", "raw": "...", "bytes": N}``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import IO, Any, Callable, Iterator, NamedTuple

from kandev_tui.base.jsonutil import dumps, of_type

IN, OUT, LOCAL = "in", "out", "local"
RAW_PREFIX = 4096  # characters of a non-JSON line kept in a frame


class Frame(NamedTuple):
    """One frame (immutable). A named tuple, not a frozen dataclass: every line an agent writes makes one, and a
    frozen dataclass's ``__init__`` (an ``object.__setattr__`` per field) cost 0.7 µs of a reader's 10 µs a frame,
    a tuple's 0.27 µs."""

    dir: str
    msg: dict[str, Any] | None = None
    t: float = 0.0
    raw: str | None = None
    size: int | None = None

    @classmethod
    def now(cls, direction: str, msg: dict[str, Any] | None = None, raw: str | None = None,
            size: int | None = None) -> "Frame":
        return cls(direction, msg, time.time(), raw, size)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t": round(self.t, 6), "dir": self.dir}
        if self.msg is not None:
            out["msg"] = self.msg
        if self.raw is not None:
            out["raw"] = self.raw
        if self.size is not None:
            out["bytes"] = self.size
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Frame":
        msg = data.get("msg")
        return cls(
            dir=str(data.get("dir", IN)),
            msg=msg if isinstance(msg, dict) else None,
            t=float(data.get("t") or 0.0),
            raw=of_type(data, "raw", str, None),
            size=data.get("bytes") if isinstance(data.get("bytes"), int) else None,
        )


class RecordingWriter:
    """Writes one run's frames to a new JSONL file, flushed per frame so a crash loses nothing written.

    An existing file is never replaced (FileExistsError): a recording holds one run and is not lost to the next.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        from kandev_tui.base.userpaths import open_private

        self._handle: IO[str] = open_private(self.path, "x", encoding="utf-8")  # the user's alone: 0600

    def write(self, frame: Frame) -> None:
        self._handle.write(dumps(frame.to_json(), separators=(",", ":")) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


class RecordingError(ValueError):
    """A recording line that is not a frame."""


def read_recording(path: str | Path, on_torn: Callable[[int], None] | None = None) -> Iterator[Frame]:
    """Frames of a recording; a torn last line (a crash mid-write) is skipped, and ``on_torn(line number)`` told."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):  # streamed: constant memory
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                if not line.endswith("\n") and not handle.readline():
                    if on_torn is not None:
                        on_torn(number)
                    return  # a torn final write (a crash mid-line)
                raise RecordingError(f"line {number} is not JSON") from None
            if not isinstance(data, dict) or data.get("dir") not in (IN, OUT, LOCAL):
                raise RecordingError(f"line {number} is not a frame")
            yield Frame.from_json(data)


def torn_warning(line: int) -> str:
    """What is said of a recording whose last line was cut short."""
    return f"it ends mid-line (line {line} was cut short: the recording stopped mid-write); what came before is shown"


def recording_problem(path: str | Path, on_torn: Callable[[int], None] | None = None) -> str | None:
    """Why ``path`` is not a recording to replay (one line: "line 3 is not JSON", "has no frames"), or None; a last
    line cut short is no reason, but ``on_torn`` is told of it.

    Reads it through once (JSON only, no normalising), so that a replay can say it before the app opens.
    OSError (a missing or unreadable file) is the caller's to word.
    """
    frames = 0
    try:
        for _frame in read_recording(path, on_torn):
            frames += 1
    except RecordingError as exc:
        return str(exc)
    return None if frames else "has no frames (not a recording made with --record)"
