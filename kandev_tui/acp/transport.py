"""Newline-delimited JSON-RPC over an agent's stdio, every frame observed.

Unlike the SDK's stdio transport, which drops a line that is not JSON, this
one hands every line to ``on_frame``: a JSON object as an ``in`` frame,
anything else (or a line over :data:`MAX_LINE_BYTES`) as a raw frame with a
bounded prefix and its size. Outgoing messages are observed as ``out`` frames
once written. What it holds of the agent's output is bounded: the lines of
one read (:data:`READ_BYTES`) and the start of the next line, kept up to
the bound.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import deque
from contextvars import ContextVar
from typing import Any, Callable

from kandev_tui.transcript.frames import IN, OUT, RAW_PREFIX, Frame
from kandev_tui.base.pacing import GIVE_WAY_AT_MOST, GIVE_WAY_STEP, YIELD_AFTER, YIELD_EVERY  # reading before the loop gets a turn (see receive, pacing.py)

MAX_LINE_BYTES = 8 * 1024 * 1024
READ_BYTES = 256 * 1024  # read from the agent's output at most this much at a time
_decode = json.JSONDecoder().raw_decode
# the ids of the requests sent from the task that set it (and the tasks it starts): how a caller of the SDK's
# Connection.send_request, which does not say the id it gave, learns it, to withdraw the request ($/cancel_request)
SENT_IDS: ContextVar[list[Any] | None] = ContextVar("kandev_tui_sent_ids", default=None)
# the start of a request: its id (a number or a string) and its method
_REQUEST_START = re.compile(r'\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*,'
                            r'\s*"method"\s*:\s*"((?:[^"\\]|\\.)*)"')


class LineTransport:
    """An ``acp`` message transport over asyncio byte streams. It knows nothing of a UI: in the app it runs on a
    loop of its own, in a thread (:class:`kandev_tui.session.background.Background`)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 on_frame: Callable[[Frame], None], max_line: int = MAX_LINE_BYTES,
                 observed_only: frozenset[str] = frozenset(), scrub: Callable[[str], str] | None = None,
                 gives_way: Callable[[], bool] | None = None) -> None:
        # notifications of these methods are handed to on_frame only, not to the SDK: all there is to do with them
        # is done there (session/update: normalised from the frame), and the SDK's dispatch costs a task each
        self._observed_only = observed_only
        # what must never reach a frame (a recording, the store, the screen): the secret of kandev-tui's own MCP
        # server, given to the agent in session/new; scrub(text) returns text itself when it has none of it
        self._scrub = scrub
        # while this says so (the user's input on its way to the screen, any thread may ask), the reader pauses at its
        # turns, GIVE_WAY_AT_MOST at most each time: the UI's thread has the interpreter's lock to itself meanwhile
        self._gives_way = gives_way
        self._reader = reader
        self._writer = writer
        self._on_frame = on_frame
        self._max_line = max_line
        self._lock = asyncio.Lock()
        self._closed = False
        self._turn_started = time.perf_counter()
        self._turn_frames = 0  # frames handed over in this turn of the event loop
        self._lines: deque[tuple[bytes, int]] = deque()  # read and split, not handed over yet: (line, full size)
        self._partial = bytearray()  # the start of a line whose end is not read yet (kept up to the bound)
        self._partial_size = 0  # its full size

    async def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        data = (line + "\n").encode("utf-8")
        async with self._lock:
            if self._closed:
                if "method" not in message:  # an answer the agent can no longer read (it was stopped): dropped
                    return
                raise ConnectionError("the agent's input is closed")
            self._writer.write(data)
            await self._writer.drain()
        sent = SENT_IDS.get()
        if sent is not None and "method" in message and "id" in message:
            sent.append(message["id"])
        if self._scrub is not None and (clean := self._scrub(line)) is not line:
            message = json.loads(clean)
        self._on_frame(Frame.now(OUT, message))

    async def receive(self) -> dict[str, Any] | None:
        while True:
            # A fast agent keeps the read buffer full, and reading from a full buffer never waits: the loop gets a
            # turn every few milliseconds (or YIELD_EVERY frames), for the requests and timers that share it (the
            # pipeline's commit, the answer to a prompt) and to read the agent's pipe again. Not more often: each
            # turn polls the selector, which gives up the interpreter's lock, and a UI thread that is drawing takes
            # it for a switch interval (5 ms); a turn every 16 frames (0.2 ms) left the reader a small part of the
            # time while the UI drew, and a fast agent's stream reached the screen 0.4 s after its last frame.
            if self._turn_frames >= YIELD_EVERY or time.perf_counter() - self._turn_started > YIELD_AFTER:
                await asyncio.sleep(0)
                if self._gives_way is not None and self._gives_way():
                    await self._give_way()
                self._turn_started = time.perf_counter()
                self._turn_frames = 0
            self._turn_frames += 1
            if self._lines:  # read already: no coroutine for it (a flood's every frame but one a read)
                line, size = self._lines.popleft()
            else:
                read, size = await self._read_line()
                if read is None:
                    return None
                line = read
            text = line.decode("utf-8", "replace").strip()
            if self._scrub is not None:
                text = self._scrub(text)
            if not text and size <= self._max_line:
                continue
            message: Any = None
            if size <= self._max_line:
                try:
                    message, end = _decode(text)  # json.loads without its checks for what strip() took off
                    if end != len(text):
                        message = None  # more after the object: not one JSON value
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

    async def _give_way(self) -> None:
        """Pause while the user's input is on its way to the screen (nothing is lost: the agent's pipe holds what it
        writes meanwhile), GIVE_WAY_AT_MOST at most."""
        until = time.perf_counter() + GIVE_WAY_AT_MOST
        while self._gives_way is not None and self._gives_way() and time.perf_counter() < until:
            await asyncio.sleep(GIVE_WAY_STEP)

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
        """The next line (at most :data:`RAW_PREFIX` ``* 4`` bytes of one over the bound are kept) and its full
        size, newline included. Whatever the agent has written is read at once and split into lines in one pass: a
        flood costs a read per :data:`READ_BYTES`, not one per line."""
        while not self._lines:
            try:
                data = await self._reader.read(READ_BYTES)
            except (ConnectionError, OSError):
                data = b""
            if not data:  # the end: a last line without a newline is still a line
                if not self._partial_size:
                    return None, 0
                self._lines.append(self._take_partial())
                break
            self._split(data)
        return self._lines.popleft()

    def _split(self, data: bytes) -> None:
        pieces = data.split(b"\n")
        last = pieces.pop()  # what follows the last newline: the start of a line still to come (or b"")
        if pieces and self._partial_size:  # the line begun in an earlier read ends here
            self._keep(pieces[0] + b"\n")
            self._lines.append(self._take_partial())
            del pieces[0]
        for piece in pieces:
            self._lines.append(self._bounded(piece, len(piece) + 1))
        if last:
            self._keep(last)

    def _keep(self, piece: bytes) -> None:
        """Part of a line that is not complete yet: kept up to the bound, counted beyond it."""
        self._partial_size += len(piece)
        if self._partial_size <= self._max_line:
            self._partial += piece
            return
        kept = RAW_PREFIX * 4  # over the bound: only the start is kept
        if len(self._partial) > kept:
            del self._partial[kept:]
        elif len(self._partial) < kept:
            self._partial += piece[:kept - len(self._partial)]

    def _take_partial(self) -> tuple[bytes, int]:
        line, size = bytes(self._partial), self._partial_size
        self._partial.clear()
        self._partial_size = 0
        return self._bounded(line, size)

    def _bounded(self, line: bytes, size: int) -> tuple[bytes, int]:
        """A line and its full size; of a line over the bound, only its start."""
        return (line if size <= self._max_line else line[: RAW_PREFIX * 4]), size

    async def close(self) -> None:
        async with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._writer.close()
            except (ConnectionError, OSError, RuntimeError):
                pass
