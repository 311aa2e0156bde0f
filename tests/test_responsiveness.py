"""The user comes first while an agent floods the transcript: input before output, a covered transcript waits,
and full garbage collections wait for quiet moments."""

from __future__ import annotations

import gc
import time

from kandev_tui.gcpolicy import FULL_AT_LEAST_EVERY, NO_AUTOMATIC_FULL, GcPolicy
from kandev_tui.screens.help import HelpScreen

from .app_helpers import message_item, settle, stored_app


def test_full_collections_wait_for_a_quiet_moment_but_not_for_ever():
    before = gc.get_threshold()
    policy = GcPolicy()
    policy.start()
    try:
        assert gc.get_freeze_count() > 0 and gc.get_threshold()[2] == NO_AUTOMATIC_FULL
        while gc.get_count()[2] < before[2]:  # as many young passes as would trigger a full one
            gc.collect(1)
        now = time.monotonic()
        assert not policy.tick(last_activity=now)  # the agent is streaming: not now
        assert policy.tick(last_activity=now - 10) and policy.full_passes == 1  # quiet: now
        assert gc.get_count()[2] == 0
        assert not policy.tick(last_activity=now - 10)  # nothing due again yet
        policy.last_full -= FULL_AT_LEAST_EVERY  # a session that never pauses still gets one
        assert policy.tick(last_activity=time.monotonic()) and policy.full_passes == 2
    finally:
        policy.stop()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


async def test_the_app_gives_the_collector_back_when_it_closes(tmp_path):
    before = gc.get_threshold()
    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert gc.get_threshold()[2] == NO_AUTOMATIC_FULL
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


async def test_a_covered_transcript_catches_up_when_shown_again(tmp_path):
    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        count = len(app.view.entries)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        app._receive_items([message_item(100, "Arrived while the help was open.")])
        await pilot.pause(0.6)  # several flush periods
        assert len(app.view.entries) == count and app._pending  # nothing built behind the help screen
        await pilot.press("escape")
        await settle(pilot)
        assert len(app.view.entries) == count + 1 and not app._pending


async def test_output_waits_for_what_the_user_just_did(tmp_path):
    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        count = len(app.view.entries)
        before = app._input_at
        await pilot.press("pageup")
        assert app._input_at > before  # a key counts as input
        app._input_at = time.monotonic() + 3600  # as if the user were pressing keys all along
        app._receive_items([message_item(100, "New output.")])
        await pilot.pause(0.3)
        assert len(app.view.entries) == count and app._pending
        app._input_at = 0.0  # the user stops
        await settle(pilot)
        assert len(app.view.entries) == count + 1
