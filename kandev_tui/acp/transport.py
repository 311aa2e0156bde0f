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
import re
import time
from typing import Any, Callable

from kandev_tui.transcript.frames import IN, OUT, RAW_PREFIX, Frame

MAX_LINE_BYTES = 8 * 1024 * 1024
YIELD_AFTER = 0.004  # seconds of reading before the event loop gets a turn
YIELD_EVERY = 16  # frames handed over before the event loop gets a turn
# the start of a request: its id (a number or a string) and its method
_REQUEST_START = re.compile(r'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*,'
                            r'\s*"method"\s*:\s*"((?:[^"\\]|\\.)*)"')


class LineTransport:
    """An ``acp`` message transport over asyncio byte streams. It knows nothing of a UI: in the app it runs on a
    loop of its own, in a thread (:class:`kandev_tui.session.background.Background`)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 on_frame: Callable[[Frame], None], max_line: int = MAX_LINE_BYTES,
                 observed_only: frozenset[str] = frozenset()) -> None:
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
            # A fast agent keeps the read buffer full, and reading from a full buffer never waits: the loop gets a
            # turn every few milliseconds and every few frames, for the requests and timers that share it (the
            # pipeline's commit, the answer to a prompt).
            if self._turn_frames >= YIELD_EVERY or time.perf_counter() - self._turn_started > YIELD_AFTER:
                await asyncio.sleep(0)
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
            if size > self._max_line:
                await self._refuse_oversized(text, size)

    async def _refuse_oversized(self, prefix: str, size: int) -> None:
        """A request too big to read (a 50 MB file to write) gets an error answer, so the agent does not wait for
        one forever. Its id is found at the start of the line (agents write ``{"jsonrpc", "id", "method", …``)."""
        found = _REQUEST_START.match(prefix)
        if found is None:
            return
        try:
            request_id = json.loads(found.group(1))
        except ValueError:
            return
        message = (f"the request ({found.group(2)[:80]}) is {size / 1e6:.1f} MB, more than the "
                   f"{self._max_line >> 20} MiB kandev-tui reads in one message")
        try:
            await self.send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32600, "message": message}})
        except (ConnectionError, OSError):
            pass

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
