"""The headless session model (kandev_tui.session): the batch policy with an injected clock, the prompt's rules per
state, and the Source protocol's declared capabilities, without a terminal."""

from __future__ import annotations

import pytest

from kandev_tui.session import Batcher, SessionState, Source, prompt_state
from kandev_tui.session.batch import COVERED_POLL, FLUSH_SECONDS, SETTLE_AT_MOST

from .app_helpers import message_item


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_updates_merge_by_key_and_leave_in_the_order_their_key_first_came():
    batch = Batcher(Clock())
    batch.add([message_item(1, "a"), message_item(2, "b")])
    batch.add([message_item(1, "a, longer"), message_item(3, "c")])
    assert batch.keys == ["message:1", "message:2", "message:3"]
    taken = batch.take()
    assert [item.payload["text"] for item in taken] == ["a, longer", "b", "c"] and not batch


def test_the_users_input_and_a_covering_screen_hold_the_batch():
    batch = Batcher(Clock())
    batch.add([message_item(1, "a")])
    assert batch.wait() == 0  # nothing holds it: it goes now
    assert batch.wait(holding=0.1) == 0.1  # the input's effect is drawn first
    assert batch.wait(covered=True) == COVERED_POLL  # under the help: look again later
    assert batch.wait(holding=0.4, covered=True) == 0.4


def test_one_batch_on_its_way_at_a_time_but_never_held_for_ever():
    clock = Clock()
    batch = Batcher(clock)
    batch.add([message_item(1, "a")])
    batch.take()
    batch.add([message_item(2, "b")])
    assert batch.wait(settling=True) == FLUSH_SECONDS  # the last batch is still being put on screen
    clock.now += SETTLE_AT_MOST + 0.01
    assert batch.wait(settling=True) == 0  # waited long enough: it goes


def test_the_first_look_waits_longer_after_a_slow_batch():
    batch = Batcher(Clock())
    assert batch.first_wait() == FLUSH_SECONDS
    batch.applied(0.2)
    assert batch.first_wait() == pytest.approx(0.4)  # at most about a third of the time goes to applying
    batch.applied(30.0)  # a pause (a suspended laptop), not the cost of a batch
    assert batch.first_wait() == 2.0


def test_nothing_waiting_needs_no_wait():
    assert Batcher(Clock()).wait(holding=1.0) == 0


@pytest.mark.parametrize("state, can_prompt, enabled, reason, read_only", [
    ("idle", True, True, "", False),
    ("running", True, False, "a turn is running · escape cancels", False),
    ("waiting", True, False, "a turn is running · escape cancels", False),
    ("starting", True, False, "starting the agent…", False),
    ("connecting", True, False, "connecting to Kandev…", False),
    ("ended", False, False, "the agent has exited", True),
    ("stored", False, False, "the agent has exited", True),
    ("starting", False, False, "starting the agent…", False),  # not read-only yet: it may still take prompts
    ("loading", False, False, "the agent has exited", True),  # a stored session being read: read-only already
])
def test_the_prompt_follows_the_state(state, can_prompt, enabled, reason, read_only):
    prompt = prompt_state(state, "", can_prompt=can_prompt, read_only_reason="the agent has exited")
    assert (prompt.enabled, prompt.reason, prompt.read_only) == (enabled, reason, read_only)


def test_a_reconnection_says_what_it_is_doing():
    assert prompt_state("reconnecting", "reconnecting in 2 s…", can_prompt=True, read_only_reason="").reason == \
        "reconnecting in 2 s…"


def test_an_unknown_state_is_a_programming_error_not_a_blank_prompt():
    with pytest.raises(ValueError):
        prompt_state("sleeping", "", can_prompt=True, read_only_reason="")


def test_states_are_the_strings_stored_and_shown():
    assert SessionState.IDLE == "idle" and f"{SessionState.RUNNING}" == "running"


async def test_a_source_declares_what_it_cannot_do():
    states = []
    source = Source(lambda items: None, lambda state, detail: states.append((state, detail)))
    assert not (source.can_prompt or source.can_cancel or source.can_pick_session or source.more_above)
    assert source.waiting_for == set() and not source.answer("permission:1", "allow")
    assert await source.load_older() == 0 and await source.sessions() == []
    source._set_state("running", "")
    assert states == [(SessionState.RUNNING, "")] and source.state is SessionState.RUNNING
    from kandev_tui.acp import AgentError

    with pytest.raises(AgentError):
        await source.send("hello")
