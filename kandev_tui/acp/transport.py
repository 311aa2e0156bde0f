"""Newline-delimited JSON-RPC over an agent's stdio, every frame observed.

Unlike the SDK's stdio transport, which drops a line that is not JSON, this
one hands every line to ``on_frame``: a JSON object as an ``in`` frame,
anything else (or a line over :data:`MAX_LINE_BYTES`) as a raw frame with a
bounded prefix and its size. Outgoing messages are observed as ``out`` frames
once written. The agent never gets more than one line of memory from us.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Callable, Protocol

from kandev_tui.transcript.frames import IN, OUT, RAW_PREFIX, Frame

MAX_LINE_BYTES = 8 * 1024 * 1024
YIELD_AFTER = 0.004  # seconds of reading before the event loop gets a turn
YIELD_EVERY = 16  # frames handed over before the event loop gets a turn (the SDK starts a task for each)
READ_BETWEEN_HOLDS = 0.05  # seconds of reading, at least, between two holds for the user's input


class InputGate(Protocol):
    """What a screen's user input asks of the transport (the app's :data:`kandev_tui.pacing.USER`): while
    ``holding()`` is above 0, reading waits for ``wait_turn()``. The transport knows nothing else of a UI."""

    def holding(self) -> float: ...

    async def wait_turn(self) -> None: ...


class LineTransport:
    """An ``acp`` message transport over asyncio byte streams; ``gate``, when given, holds reading for a moment
    after the user's input (headless runs have none)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 on_frame: Callable[[Frame], None], max_line: int = MAX_LINE_BYTES,
                 gate: InputGate | None = None, observed_only: frozenset[str] = frozenset()) -> None:
        self._gate = gate
        # notifications of these methods are handed to on_frame only, not to the SDK: all there is to do with them
        # is done there (session/update: normalised from the frame), and the SDK's dispatch costs a task each
        self._observed_only = observed_only
        self._reader = reader
        self._writer = writer
        self._on_frame = on_frame
        self._max_line = max_line
        self._lock = asyncio.Lock()
        self._closed = False
        self._turn_started = time.perf_counter()
        self._turn_frames = 0  # frames handed over in this turn of the event loop
        self._released = float("-inf")  # when reading last resumed after the user's input

    async def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        async with self._lock:
            if self._closed:
                raise ConnectionError("the agent's input is closed")
            self._writer.write(data)
            await self._writer.drain()
        self._on_frame(Frame.now(OUT, message))

    async def receive(self) -> dict[str, Any] | None:
        while True:
            # A fast agent keeps the read buffer full, and reading from a full buffer never waits: give the
            # event loop a turn every few milliseconds of reading, or keys and repaints wait for the whole flood.
            # The SDK handles each notification in a task of its own, queued behind the ones before it: a turn
            # comes every YIELD_EVERY frames too, so a key (queued behind them) waits for a few, not hundreds.
            # For a moment after the user's input, no frame is read at all: the input's effect is drawn first
            # (the gate: kandev_tui/pacing.py). Input that never stops (a held key) holds reading at most 3/4 of the time.
            now = time.perf_counter()
            gate = self._gate
            hold = gate is not None and gate.holding() > 0 and now - self._released > READ_BETWEEN_HOLDS
            if hold or self._turn_frames >= YIELD_EVERY or now - self._turn_started > YIELD_AFTER:
                await asyncio.sleep(0)
                if hold:
                    await gate.wait_turn()  # type: ignore[union-attr]
                    self._released = time.perf_counter()
                self._turn_started = time.perf_counter()
                self._turn_frames = 0
            self._turn_frames += 1
            line, size = await self._read_line()
            if line is None:
                return None
            text = line.decode("utf-8", "replace").strip()
            if not text and size <= self._max_line:
                continue
            message: Any = None
            if size <= self._max_line:
                try:
                    message = json.loads(text)
                except (ValueError, RecursionError):
                    message = None
            if isinstance(message, dict):
                self._on_frame(Frame.now(IN, message))
                if "id" in message or message.get("method") not in self._observed_only:
                    return message
                continue
            self._on_frame(Frame.now(IN, raw=text[:RAW_PREFIX], size=size))

    async def _read_line(self) -> tuple[bytes | None, int]:
        """One line (without reading more than the bound into memory) and its full size."""
        kept: list[bytes] = []
        kept_size = 0
        size = 0
        while True:
            try:
                chunk = await self._reader.readuntil(b"\n")
                complete = True
            except asyncio.LimitOverrunError as exc:
                chunk = await self._reader.readexactly(exc.consumed)
                complete = False
            except asyncio.IncompleteReadError as exc:
                chunk = exc.partial
                if not chunk and size == 0:
                    return None, 0
                complete = True
            except (ConnectionError, OSError):
                return None, 0
            size += len(chunk)
            if kept_size <= self._max_line:
                kept.append(chunk)
                kept_size += len(chunk)
            if complete:
                data = b"".join(kept)
                return (data if size <= self._max_line else data[: RAW_PREFIX * 4]), size

    async def close(self) -> None:
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._writer.close()
            except (ConnectionError, OSError, RuntimeError):
                pass
