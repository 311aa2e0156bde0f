"""The collaborators an app session delegates to, each alone: the prompts and their queue, the count of a turn's
silence and the login. No app and no process: each is given the small view it needs."""

from __future__ import annotations

from typing import Callable

import pytest

from kandev_tui.app.session_login import LoginFlow
from kandev_tui.app.session_prompts import STARTING_REASON, PromptQueue
from kandev_tui.app.session_quiet import QuietCounter
from kandev_tui.base import pacing
from kandev_tui.session import SessionState

from ..support.login import Model, Screens, Status


class Prompt:
    def __init__(self) -> None:
        self.text = ""
        self.reason = ""
        self.at_end = False

    def set_reason(self, reason: str) -> None:
        self.reason = reason

    def to_end(self) -> None:
        self.at_end = True


class View:
    """The session as the queue sees it: what it was asked to do, in order."""

    def __init__(self) -> None:
        self.prompt = Prompt()
        self.shown: list[tuple[list[str], bool]] = []
        self.stored: list[list[str]] = []
        self.turns: list[str] = []
        self.cancels = 0
        self.not_sent: list[list[str]] = []

    def show_queue(self, texts: list[str], offered: bool) -> None:
        self.shown.append((list(texts), offered))

    def keep_queued(self, texts: list[str]) -> None:
        self.stored.append(list(texts))

    def start_turn(self, text: str) -> None:
        self.turns.append(text)

    def cancel_turn(self) -> None:
        self.cancels += 1

    def say_not_sent(self, texts: list[str]) -> None:
        self.not_sent.append(list(texts))


def test_a_message_sent_while_the_agent_starts_is_held_and_goes_once_it_is_idle():
    view = View()
    prompts = PromptQueue(view)
    prompts.submit("first", SessionState.STARTING)
    prompts.submit("second", SessionState.LOGIN)
    assert prompts.held == "first\n\nsecond" and view.turns == [] and view.prompt.reason == STARTING_REASON
    prompts.after_state(SessionState.IDLE, False)
    assert view.turns == ["first\n\nsecond"] and prompts.held is None and prompts.unsent() == []


def test_messages_sent_during_a_turn_queue_in_order_stored_and_go_one_a_turn():
    view = View()
    prompts = PromptQueue(view)
    prompts.submit("a", SessionState.RUNNING)
    prompts.submit("b", SessionState.WAITING)
    assert prompts.queue == ["a", "b"] and view.stored[-1] == ["a", "b"] and view.turns == []
    prompts.after_state(SessionState.IDLE, False)
    assert view.turns == ["a"] and view.stored[-1] == ["b"]
    prompts.send_now(SessionState.RUNNING)  # ctrl+r during the next turn: cancelled first
    assert view.cancels == 1 and prompts.queue == ["b"]
    prompts.send_now(SessionState.CANCELLING)  # cancelling already: not twice
    assert view.cancels == 1


def test_recall_and_remove_put_the_queued_text_back_in_the_prompt_after_what_is_typed():
    view = View()
    prompts = PromptQueue(view)
    for text in ("one", "two", "three"):
        prompts.submit(text, SessionState.RUNNING)
    prompts.recall()
    assert view.prompt.text == "three" and prompts.queue == ["one", "two"] and view.prompt.at_end
    view.prompt.text = "typed"
    assert prompts.remove_next() == "one" and view.prompt.text == "typed\n\none" and prompts.queue == ["two"]
    assert view.stored[-1] == ["two"]


def test_a_queue_from_the_last_run_is_offered_and_waits_for_the_user():
    view = View()
    prompts = PromptQueue(view)
    prompts.restore(["left over"])
    assert view.shown[-1] == (["left over"], True)
    prompts.after_state(SessionState.IDLE, False)
    assert view.turns == []  # offered: not sent by itself
    prompts.submit("new", SessionState.IDLE)  # a new message goes; the offered ones follow its turn
    assert view.turns == ["new"] and view.shown[-1] == (["left over"], False)
    prompts.after_state(SessionState.IDLE, False)
    assert view.turns == ["new", "left over"] and view.shown[-1] == ([], False)


@pytest.mark.parametrize("state, read_only", [(SessionState.ENDED, False), (SessionState.ERROR, False),
                                              (SessionState.IDLE, True)])
def test_what_waits_when_the_agent_stops_goes_back_to_the_prompt_box_and_is_never_lost(state, read_only):
    view = View()
    prompts = PromptQueue(view)
    prompts.submit("held", SessionState.STARTING)
    view.prompt.text = "typed meanwhile"
    prompts.after_state(state, read_only)
    if state == SessionState.IDLE:  # read only, but idle: the held message goes as the session is idle
        assert view.turns == ["held"]
        return
    assert view.prompt.text == "held\n\ntyped meanwhile" and view.not_sent == [["held"]]
    assert prompts.unsent() == ["held"]  # still in the prompt box: said at the exit
    view.prompt.text = ""
    assert prompts.unsent() == []


def test_the_first_prompt_that_went_first_is_followed_by_what_was_typed_while_the_agent_started():
    view = View()
    prompts = PromptQueue(view)
    prompts.submit("typed ahead", SessionState.STARTING)
    prompts.after_state(SessionState.RUNNING, False)  # run --prompt's turn runs first
    assert prompts.queue == ["typed ahead"] and prompts.held is None
    prompts.hold("first", first=True)
    prompts.hold("then")
    assert prompts.held == "first\n\nthen"


class Timer:
    def __init__(self, timers: Timers, delay: float, callback: Callable[[], object]) -> None:
        self.timers, self.delay, self.callback, self.stopped = timers, delay, callback, False

    def stop(self) -> None:
        self.stopped = True


class Timers:
    def __init__(self) -> None:
        self.set: list[Timer] = []

    def set_timer(self, delay: float, callback: Callable[[], object], *, name: str | None = None) -> Timer:
        self.set.append(Timer(self, delay, callback))
        return self.set[-1]

    def fire(self) -> None:
        self.set[-1].callback()


def test_a_turns_silence_is_said_once_it_is_long_with_one_timer_at_a_time_and_none_when_no_turn_runs():
    timers, said, quiet = Timers(), [], [0.0]
    counter = QuietCounter(timers, lambda: quiet[0], said.append, name="quiet 1")
    counter.count(True)
    assert len(timers.set) == 1 and timers.set[0].delay == pytest.approx(pacing.QUIET_AFTER)
    counter.count(True)  # already counting: no second timer
    assert len(timers.set) == 1
    quiet[0] = pacing.QUIET_AFTER + 2.4
    timers.fire()
    assert said == [int(pacing.QUIET_AFTER + 2.4)] and timers.set[-1].delay == 1.0  # then once a second
    quiet[0] = 1.0  # the agent spoke: said no more
    timers.fire()
    assert said[-1] == 0
    counter.count(False)  # the turn ended: the timer stopped, nothing left to say
    assert timers.set[-1].stopped and not counter.counting and said[-1] == 0


async def test_a_login_the_agent_refuses_is_said_on_its_screen_and_an_agent_login_is_sent():
    model = Model(None, refuse="bad key\x1b[2J")
    login = LoginFlow(Screens(), model, lambda: Status())
    said: list[str] = []

    class Shown:
        def say(self, text: str) -> None:
            said.append(text)

    login.screen = Shown()
    await login.log_in("key", {"KEY": "x"})
    assert model.logins == ["key"] and len(said) == 1 and "bad key" in said[0] and "\x1b" not in said[0]
