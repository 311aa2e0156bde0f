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
