"""The user goes first: for a moment after a key, a click or a wheel turn, the agent's output waits.

:class:`UserInput` records the terminal's last input (the app owns one and notes every key and mouse event). For
:data:`~kandev_tui.base.pacing.INPUT_FIRST` seconds after it the session model puts no batch on screen
(``SessionUI.holding``: the one place output waits for the user), so the key's effect is drawn first. Nothing is
dropped: the agent is read, normalised and stored on a loop of its own meanwhile (but for the moment below), and its
items wait in the batch, merged by key.

An input is noted when the terminal driver hands it over (:func:`kandev_tui.ui.textual_hooks.note_input_at_driver`), a
few turns of the event loop before the app dispatches it; until then it is *waiting*, and the transcript does not
start drawing a frame (which can take tens of milliseconds during a flood): the frame after the input shows both
(at most :data:`~kandev_tui.base.pacing.FRAME_WAITS_AT_MOST` later). Until the input's effect is drawn (as long at most),
the agents' readers also give way (:meth:`UserInput.gives_way`): eight agents flooding kept eight threads asking for
the interpreter's lock, and the UI's thread, the ninth, waited its turn for it between every step of serving a key.
The UI's alone: nothing below it reads the clock (the ACP transport cannot: this module is above it; a source is
handed :meth:`UserInput.gives_way`).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

from kandev_tui.base.pacing import FRAME_WAITS_AT_MOST, GIVE_WAY_AT_MOST, GIVE_WAY_STEP, INPUT_FIRST


class UserInput:
    """When the user last pressed a key, clicked or scrolled (the app's terminal's: :func:`user_input`)."""

    def __init__(self) -> None:
        self.at = float("-inf")
        self.served_at = float("-inf")  # when the app last dispatched an input
        self.drawn_at = float("-inf")  # when the screen last drew what an input did (or found nothing to draw)

    def note(self) -> None:
        self.at = time.monotonic()

    def served(self) -> None:
        self.served_at = time.monotonic()

    def drawn(self) -> None:
        """What the last input did is on screen (or there was nothing to draw)."""
        self.drawn_at = time.monotonic()

    def gives_way(self) -> bool:
        """Whether the agents' readers give way (any thread): an input noted less than FRAME_WAITS_AT_MOST ago whose
        effect is not drawn yet."""
        at = self.at
        return at > self.drawn_at and time.monotonic() - at < FRAME_WAITS_AT_MOST

    def waiting(self) -> bool:
        """An input is on its way to the app, noted less than FRAME_WAITS_AT_MOST ago and not yet dispatched."""
        return self.at > self.served_at and time.monotonic() - self.at < FRAME_WAITS_AT_MOST

    def holding(self) -> float:
        """Seconds the agent's output still waits for the last input (0 when it need not)."""
        return max(0.0, min(INPUT_FIRST, self.at + INPUT_FIRST - time.monotonic()))


NEVER = UserInput()  # the clock of an app that keeps none (a screen of kandev-tui's in another app): no input, ever


def user_input(app: object) -> UserInput:
    """The terminal's input clock of ``app`` (each :class:`~kandev_tui.app.kandev_app.KandevApp` owns one; a test sets it as it
    likes, and two apps in one process never share one)."""
    clock = getattr(app, "user_input", None)
    return clock if isinstance(clock, UserInput) else NEVER


GIVE_WAY_EVERY = 32  # steps (lines of a diff) a thread's work takes between two give_way() points
_thread = threading.local()  # the work of this thread gives way to the user's input while this says so


@contextlib.contextmanager
def giving_way(gives_way: Callable[[], bool]) -> Iterator[None]:
    """Work a thread does inside this block (laying out a 2,000-line diff) pauses at its :func:`give_way` points while
    ``gives_way()`` says so (:meth:`UserInput.gives_way`): that work is Python too, and the UI's thread waited for the
    interpreter's lock between every step of serving a key (40-55 ms for one key, the diff laid out meanwhile)."""
    outer = getattr(_thread, "gives_way", None)
    _thread.gives_way = gives_way
    try:
        yield
    finally:
        _thread.gives_way = outer


def give_way() -> None:
    """A point where work in a thread pauses for the user's input on its way to the screen (inside
    :func:`giving_way`; GIVE_WAY_AT_MOST at most). Elsewhere (the event loop, a thread outside the block) it does
    nothing."""
    says = getattr(_thread, "gives_way", None)
    if says is None or not says():
        return
    until = time.monotonic() + GIVE_WAY_AT_MOST
    while says() and time.monotonic() < until:
        time.sleep(GIVE_WAY_STEP)
