"""The agent transport gives the event loop turns while a fast agent keeps its read buffer full."""

from __future__ import annotations

import asyncio
import json

from kandev_tui.acp.transport import LineTransport


async def _turns_while(work) -> int:
    """The turns the event loop gave another task while ``work()`` ran."""
    turns = 0
    done = False

    async def ticker() -> None:
        nonlocal turns
        while not done:
            turns += 1
            await asyncio.sleep(0)

    task = asyncio.ensure_future(ticker())
    await asyncio.sleep(0)
    turns = 0
    try:
        await work()
    finally:
        done = True
        await task
    return turns


async def test_reading_a_full_buffer_yields_to_the_event_loop():
    reader = asyncio.StreamReader(limit=1 << 24)
    line = json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"update": {
        "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x" * 40}}}}) + "\n"
    reader.feed_data(line.encode() * 30_000)  # everything already buffered: reading never has to wait
    reader.feed_eof()
    frames = []
    transport = LineTransport(reader, writer=None, on_frame=frames.append)  # type: ignore[arg-type]
    received = 0

    async def read_all() -> None:
        nonlocal received
        while await transport.receive() is not None:
            received += 1

    ticks = await _turns_while(read_all)
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


async def _read_all(data: list[bytes], max_line: int = 1 << 20) -> list:
    """Every frame a transport makes of ``data``, fed to its reader in these pieces (each a read of its own)."""
    reader = asyncio.StreamReader(limit=1 << 24)
    frames = []
    transport = LineTransport(reader, None, frames.append, max_line=max_line)  # type: ignore[arg-type]

    async def feed() -> None:
        for piece in data:
            reader.feed_data(piece)
            await asyncio.sleep(0)
            await asyncio.sleep(0)
        reader.feed_eof()

    feeder = asyncio.ensure_future(feed())
    while await transport.receive() is not None:
        pass
    await feeder
    return frames


async def test_lines_are_whole_however_the_reads_cut_them():
    """The transport reads whatever the agent has written and splits it into lines itself: a line cut by a read, a
    read of many lines, a CRLF, a blank line and a last line without a newline all come out as the agent wrote
    them, each with its size."""
    lines = [b'{"jsonrpc":"2.0","method":"a","params":{"text":"%s"}}' % (b"x" * n) for n in (3, 70, 5000)]
    data = lines[0] + b"\n" + lines[1] + b"\r\n\n" + lines[2] + b"\n" + b'{"jsonrpc":"2.0","method":"last"}'
    for cut in (1, 7, 64, 4096, len(data)):
        pieces = [data[at:at + cut] for at in range(0, len(data), cut)]
        frames = await _read_all(pieces)
        assert [frame.msg["method"] for frame in frames] == ["a", "a", "a", "last"], cut
        assert [len(frame.msg["params"]["text"]) for frame in frames[:3]] == [3, 70, 5000]


async def test_a_line_over_the_bound_is_kept_short_and_counted_whole_across_reads():
    """A line longer than the bound becomes a raw frame with a bounded prefix and its full size, whether it came in
    one read or many, and the lines after it are read as usual."""
    from kandev_tui.transcript.frames import RAW_PREFIX

    huge = b'{"jsonrpc":"2.0","method":"big","params":{"text":"' + b"y" * 200_000 + b'"}}'
    data = huge + b"\n" + b'{"jsonrpc":"2.0","method":"after"}\n' + b"not json\n" + b'{"a":1} {"b":2}\n'
    for cut in (1000, 65536, len(data)):
        frames = await _read_all([data[at:at + cut] for at in range(0, len(data), cut)], max_line=50_000)
        raw = frames[0]
        assert raw.msg is None and raw.size == len(huge) + 1 and raw.raw.startswith('{"jsonrpc":"2.0","method":"big"')
        assert len(raw.raw) <= RAW_PREFIX
        assert frames[1].msg == {"jsonrpc": "2.0", "method": "after"}
        assert frames[2].raw == "not json" and frames[3].raw == '{"a":1} {"b":2}'  # two values: not one message
        assert len(frames) == 4


async def test_a_buffered_flood_is_read_in_long_runs_between_turns_of_the_loop(monkeypatch):
    """Each turn of the reader's loop polls its selector, which gives up the interpreter's lock; the UI's thread,
    busy drawing, takes it and keeps it for a switch interval (5 ms). Turns every 16 frames (0.2 ms of reading) left
    the reader a small part of the time while the UI drew, and a fast agent's 20,000 chunks reached the screen
    0.4 s after its last frame (0.2 s with turns every YIELD_AFTER or YIELD_EVERY frames)."""
    import kandev_tui.acp.transport as transport_module

    monkeypatch.setattr(transport_module, "YIELD_AFTER", 60.0)  # only the count of frames decides here
    reader = asyncio.StreamReader(limit=1 << 24)
    reader.feed_data(b'{"jsonrpc":"2.0","method":"session/update","params":{}}\n' * 20_000)
    reader.feed_eof()
    transport = LineTransport(reader, None, lambda frame: None,  # type: ignore[arg-type]
                              observed_only=frozenset({"session/update"}))

    async def read_all() -> None:
        assert await transport.receive() is None

    turns = await _turns_while(read_all)
    assert 20_000 // 512 <= turns <= 20_000 // 128


async def test_while_the_users_input_is_on_its_way_the_reader_gives_way_then_reads_on():
    """While ``gives_way()`` says so (the app's: a key on its way to the screen) the reader pauses at its turns, and
    reads every frame once it stops saying so; a ``gives_way`` that never stops holds it GIVE_WAY_AT_MOST per turn
    at most."""
    import time

    from kandev_tui.base.pacing import GIVE_WAY_AT_MOST

    line = json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"update": {
        "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x" * 40}}}}) + "\n"

    async def read(gives_way) -> tuple[int, int]:
        reader = asyncio.StreamReader(limit=1 << 24)
        reader.feed_data(line.encode() * 2_000)
        reader.feed_eof()
        frames: list = []
        asked = 0

        def asking() -> bool:
            nonlocal asked
            asked += 1
            return gives_way(len(frames))

        transport = LineTransport(reader, writer=None, on_frame=frames.append,  # type: ignore[arg-type]
                                  observed_only=frozenset({"session/update"}), gives_way=asking)
        assert await transport.receive() is None
        return len(frames), asked

    frames, asked = await read(lambda seen: False)
    assert frames == 2_000 and asked >= 2_000 // 256  # asked at each turn, reading on at once
    paused_at: list[int] = []
    until = [0.0]

    def a_key(seen: int) -> bool:  # a key arrives after 512 frames and is drawn 30 ms later
        if seen >= 512 and not paused_at:
            paused_at.append(seen)
            until[0] = time.monotonic() + 0.03
        return bool(paused_at) and time.monotonic() < until[0]

    started = time.monotonic()
    frames, asked = await read(a_key)
    assert frames == 2_000 and paused_at and paused_at[0] >= 512 and asked >= 2_000 // 256 + 1  # looked again meanwhile
    assert time.monotonic() - started >= 0.03
    started = time.monotonic()
    frames, _ = await read(lambda seen: seen >= 256)  # never stops saying so: bounded at each turn
    assert frames == 2_000 and time.monotonic() - started >= GIVE_WAY_AT_MOST
