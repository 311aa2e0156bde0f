"""A running turn's silence: how long its agent has said nothing, in the status line and the sessions list's row once
it is :data:`~kandev_tui.base.pacing.QUIET_AFTER` seconds (an agent retrying a model API it cannot reach
says nothing, for minutes, and its session only said "working").

Looked at with one-shot timers, for a session on screen or not: once when the agent's last word is QUIET_AFTER old
(an agent that keeps talking costs a wake per QUIET_AFTER, not one a second), then once a second while it stays
quiet; none when no turn runs (an idle app sets no timer)."""

from __future__ import annotations

from typing import Callable, Protocol

from kandev_tui.base import pacing


class Stoppable(Protocol):
    def stop(self) -> object: ...


class Timers(Protocol):
    """What sets a one-shot timer (Textual's app does)."""

    def set_timer(self, delay: float, callback: Callable[[], object], *, name: str | None = None) -> Stoppable: ...


class QuietCounter:
    """Counts one session's silence while a turn runs. ``quiet_for`` says how long the agent has said nothing;
    ``show`` is given the seconds to say (0: nothing to say), only when they change."""

    def __init__(self, timers: Timers, quiet_for: Callable[[], float], show: Callable[[int], None], *,
                 name: str) -> None:
        self._timers = timers
        self._quiet_for = quiet_for
        self._show = show
        self._name = name
        self._look: Stoppable | None = None
        self.shown = 0  # the seconds said last

    @property
    def counting(self) -> bool:
        return self._look is not None

    def count(self, running: bool) -> None:
        """The session's state changed: counting starts with a turn (or the agent's work after an answer), and
        stops, said no more, when it is not running."""
        if running and self._look is None:
            self._look_later()
        elif not running and self._look is not None:
            self._look.stop()
            self._look = None
            self._say(0)

    def _look_later(self) -> None:
        due = 1.0 if self.shown else pacing.QUIET_AFTER - self._quiet_for()
        self._look = self._timers.set_timer(max(0.05, due), self._look_now, name=self._name)

    def _look_now(self) -> None:
        quiet = self._quiet_for()
        self._say(int(quiet) if quiet >= pacing.QUIET_AFTER else 0)
        self._look_later()

    def _say(self, seconds: int) -> None:
        if seconds != self.shown:
            self.shown = seconds
            self._show(seconds)
