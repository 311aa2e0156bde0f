"""The user comes first while an agent floods the transcript: input before output, a covered transcript waits,
and full garbage collections wait for quiet moments."""

from __future__ import annotations

import gc
import time

from kandev_tui.base.gcpolicy import FULL_AT_LEAST_EVERY, NO_AUTOMATIC_FULL, GcPolicy


def test_full_collections_wait_for_a_quiet_moment_but_not_for_ever():
    before = gc.get_threshold()
    policy = GcPolicy()
    policy.start()
    try:
        assert gc.get_freeze_count() > 0 and gc.get_threshold()[2] == NO_AUTOMATIC_FULL
        while gc.get_count()[2] < before[2]:  # as many young passes as would trigger a full one
            gc.collect(1)
        now = time.monotonic()
        assert not policy.tick(last_activity=now - 10)  # just started (agents start, the first keys): not now
        policy.worked_at -= 10
        assert not policy.tick(last_activity=now)  # the agent is streaming: not now
        assert policy.tick(last_activity=now - 10) and policy.full_passes == 1  # quiet: now
        assert gc.get_count()[2] == 0
        assert not policy.tick(last_activity=now - 10)  # nothing due again yet
        policy.last_full -= FULL_AT_LEAST_EVERY  # a session that never pauses still gets one
        assert policy.tick(last_activity=time.monotonic()) and policy.full_passes == 2
    finally:
        policy.stop()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_no_full_collection_while_the_screen_works_a_slice_at_a_time():
    """The screen drawing a long message's blocks between keys is not a quiet moment: a full pass then (70-100 ms
    after a 1 MB flood, one a second) held a key back for its length."""
    policy = GcPolicy()
    policy.start()
    try:
        while gc.get_count()[2] < policy.saved[2]:
            gc.collect(1)
        policy.working()
        assert not policy.tick(last_activity=time.monotonic() - 10)  # the user and the agent quiet, the screen not
        policy.worked_at -= 10
        assert policy.tick(last_activity=time.monotonic() - 10) and policy.full_passes == 1
    finally:
        policy.stop()


async def test_the_transport_gives_the_loop_a_turn_every_few_frames():
    """The SDK handles each notification in a task of its own, queued behind the earlier ones: reading a full pipe
    gives the event loop a turn every YIELD_EVERY frames, so a key's task waits behind a few of them, not a flood."""
    import asyncio

    from kandev_tui.acp.transport import YIELD_EVERY, LineTransport

    reader = asyncio.StreamReader()
    reader.feed_data(b"".join(b'{"jsonrpc":"2.0","method":"m%d"}\n' % n for n in range(10 * YIELD_EVERY)))
    frames = []
    transport = LineTransport(reader, None, frames.append)  # type: ignore[arg-type]  # only reads
    turns: list[int] = []

    async def other_task() -> None:  # runs whenever the loop gets a turn
        while True:
            turns.append(len(frames))
            await asyncio.sleep(0)

    watcher = asyncio.ensure_future(other_task())
    try:
        await asyncio.sleep(0)
        for n in range(10 * YIELD_EVERY):
            assert (await transport.receive())["method"] == f"m{n}"  # every frame, in order
    finally:
        watcher.cancel()
    reads_between = [b - a for a, b in zip(turns, turns[1:]) if b > a]
    assert len(frames) == 10 * YIELD_EVERY and reads_between and max(reads_between) <= YIELD_EVERY
