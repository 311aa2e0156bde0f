"""A running turn's silence: how long its agent has said nothing, in the status line and the sessions list's row once
it is :data:`~kandev_tui.base.pacing.QUIET_AFTER` seconds (an agent retrying a model API it cannot reach
says nothing, for minutes, and its session only said "working").

Looked at with one-shot timers, for a session on screen or not: once when the agent's last word is QUIET_AFTER old
(an agent that keeps talking costs a wake per QUIET_AFTER, not one a second), then once a second while it stays
quiet; none when no turn runs (an idle app sets no timer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.timer import Timer

from kandev_tui.base import pacing
from kandev_tui.session import SessionState

if TYPE_CHECKING:
    from kandev_tui.app.session_parts import SessionParts
else:
    SessionParts = object  # a plain mixin at run time: see app_session_parts


class SessionQuiet(SessionParts):
    """Counting a running turn's silence (a part of :class:`~kandev_tui.app.session.AppSession`)."""

    _quiet_look: Timer | None = None

    def count_quiet(self, running: bool) -> None:
        """The session's state changed: counting starts with a turn (or the agent's work after an answer), and
        stops, said no more, when it is not running."""
        if running and self._quiet_look is None:
            self._look_quiet_later()
        elif not running and self._quiet_look is not None:
            self._quiet_look.stop()
            self._quiet_look = None
            self._show_quiet(0)

    def _look_quiet_later(self) -> None:
        due = 1.0 if self.screen.status.quiet else pacing.QUIET_AFTER - self.model.quiet_for()
        self._quiet_look = self.app.set_timer(max(0.05, due), self._look_quiet, name=f"quiet {self.number}")

    def _look_quiet(self) -> None:
        self._quiet_look = None
        if self.last_state != SessionState.RUNNING:
            self._show_quiet(0)
            return
        quiet = self.model.quiet_for()
        self._show_quiet(int(quiet) if quiet >= pacing.QUIET_AFTER else 0)
        self._look_quiet_later()

    def _show_quiet(self, seconds: int) -> None:
        if seconds != self.screen.status.quiet:
            self.screen.status.quiet = seconds
            self.app.keep_looking()  # the sessions list's row says it too
