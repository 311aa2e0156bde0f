"""The agent transport gives the event loop turns while a fast agent keeps its read buffer full."""

from __future__ import annotations

import asyncio
import json

from kandev_tui.acp.transport import LineTransport


async def test_reading_a_full_buffer_yields_to_the_event_loop():
    reader = asyncio.StreamReader(limit=1 << 24)
    line = json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"update": {
        "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x" * 40}}}}) + "\n"
    reader.feed_data(line.encode() * 30_000)  # everything already buffered: reading never has to wait
    reader.feed_eof()
    frames = []
    transport = LineTransport(reader, writer=None, on_frame=frames.append)  # type: ignore[arg-type]
    ticks = 0
    done = False

    async def ticker() -> None:
        nonlocal ticks
        while not done:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.ensure_future(ticker())
    await asyncio.sleep(0)
    ticks = 0
    received = 0
    while await transport.receive() is not None:
        received += 1
    done = True
    await task
    assert received == 30_000 and len(frames) == 30_000
    assert ticks >= 2  # other tasks (keys, repaints) ran while the buffer was being read


async def test_session_updates_are_observed_and_never_dispatched_through_the_sdk():
    """A flood is mostly session/update notifications: their frames are normalised as they are read, and handing
    each to the SDK as well cost a task and a dispatch apiece (a 5,000-chunk stream reached the screen 0.5 s after
    the agent's last frame; 0.04 s without). Requests, answers and other notifications still go to the SDK."""
    import asyncio

    from kandev_tui.acp.client import OBSERVED_ONLY
    from kandev_tui.acp.transport import LineTransport

    reader = asyncio.StreamReader()
    reader.feed_data(b'{"jsonrpc":"2.0","method":"session/update","params":{}}\n'
                     b'{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{}}\n'
                     b'{"jsonrpc":"2.0","method":"session/update","params":{}}\n'
                     b'{"jsonrpc":"2.0","method":"cursor/task","params":{}}\n')
    reader.feed_eof()
    frames = []
    transport = LineTransport(reader, None, frames.append, observed_only=OBSERVED_ONLY)  # type: ignore[arg-type]
    handed = []
    while (message := await transport.receive()) is not None:
        handed.append(message.get("method"))
    assert handed == ["session/request_permission", "cursor/task"]
    assert [frame.msg["method"] for frame in frames] == ["session/update", "session/request_permission",
                                                             "session/update", "cursor/task"]
