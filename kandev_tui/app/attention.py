"""Calling the user when a session needs them and they look elsewhere: the bell, the terminal's title and a desktop
notification (each as the settings allow), and a notice naming a session that is not on screen.

The user is called at once, then at most every ``CALL_OUT_EVERY`` (pacing.py): what needs them meanwhile is said in
one call at the end of that time ("Sessions 2, 6 and 15 are waiting for you"), without what no longer does (a request
answered meanwhile, a session the user went to). Thirty sessions asking at once ring once, not thirty times.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from kandev_tui.app.holds import HoldsSessions
from kandev_tui.app.session import AppSession
from kandev_tui.base import pacing
from kandev_tui.base.sanitize import visible
from kandev_tui.session import SessionState
from kandev_tui.ui.textual_hooks import notify_desktop, set_terminal_title

if TYPE_CHECKING:
    from textual.timer import Timer


TURN_RUNS = (SessionState.RUNNING, SessionState.WAITING, SessionState.CANCELLING)
TURN_STOPS = (SessionState.IDLE, SessionState.ENDED, SessionState.ERROR)
NEEDS_USER = {SessionState.WAITING: "waiting for you", SessionState.LOGIN: "needs a login"}
SAID = {"waiting for you": ("is waiting for you", "are waiting for you"),  # (one session, several)
        "needs a login": ("needs a login", "need a login")}
NAMED_AT_MOST = 5  # sessions named in one notice; the others are counted


@dataclass(frozen=True)
class Call:
    """One reason to call the user: ``what`` happened to ``session`` (its state then ``state``)."""

    session: AppSession
    what: str
    state: SessionState


class AttentionHost(HoldsSessions, Protocol):
    """What calling the user needs of the app, beside Textual's app."""




class Attention:
    """See the module docstring. ``title_set``: the terminal's title calls the user (it is set back when they are
    back, or on the next switch)."""

    def __init__(self, app: AttentionHost) -> None:
        self.app = app
        self.title_set = False
        self._gathered: list[Call] = []  # what came since the last call, said at the end of its time
        self._next: Timer | None = None  # the end of the last call's time (none: the next call goes at once)

    def state_changed(self, session: AppSession, previous: SessionState, state: SessionState) -> None:
        """When a request waits for the user, the agent needs a login, or a turn ends, while the terminal is not in
        view (Textual's app focus: the terminal reports it, as tmux does with ``focus-events on``), or while another
        session is on screen: ring the bell and say it in the terminal's title, as the settings allow; a session not
        on screen is said in a notice too (f4 goes to it)."""
        what = NEEDS_USER.get(state)
        if previous in TURN_RUNS and state in TURN_STOPS:
            what = "turn ended" if state == SessionState.IDLE else "the agent stopped"
        if what is None or state == previous:
            return
        call = Call(session, what, state)
        if not self._calls_for(call):
            return
        if self._next is not None:  # called a moment ago: said with what else comes meanwhile
            self._gathered = [c for c in self._gathered if c.session is not session] + [call]
            return
        self._call([call])

    def _elsewhere(self, call: Call) -> bool:
        return not call.session.on_screen and call.state in NEEDS_USER

    def _calls_for(self, call: Call) -> bool:
        """Whether ``call`` calls the user now: it is about a session elsewhere, or the terminal is not in view; and
        the session is still as it was said (a request answered meanwhile is not called out)."""
        session = call.session
        if session.closed or session.last_state != call.state:
            return False
        return self._elsewhere(call) or not self.app.app_focus

    def _call(self, calls: list[Call]) -> None:
        app = self.app
        self._next = app.set_timer(pacing.CALL_OUT_EVERY, self._call_gathered, name="call out")
        notices = [call for call in calls if self._elsewhere(call)]
        if notices:
            app.notify(self._notice(notices), timeout=6, markup=False)
        settings = app.settings_store.settings
        if settings.attention_bell:
            app.bell()
        whats = {call.what for call in calls}
        what = calls[0].what if len(whats) == 1 else "sessions need you"
        if len(calls) == 1:
            label = visible(calls[0].session.status.title, keep_newlines=False)
            if len(app.sessions) > 1:
                label = f"session {calls[0].session.number} · {label}"
        else:
            label = f"sessions {_numbers(sorted(call.session.number for call in calls))}"
        if settings.attention_title:
            self.title_set = set_terminal_title(app, f"kandev-tui: {what} · {label}")
        if settings.attention_desktop and any(call.state in NEEDS_USER for call in calls):
            notify_desktop(app, f"kandev-tui: {what}", label)

    def _call_gathered(self) -> None:
        """The end of a call's time: what came meanwhile, and still calls the user, in one call."""
        self._next = None
        calls, self._gathered = [call for call in self._gathered if self._calls_for(call)], []
        if calls and self.app.is_running:
            self._call(calls)

    @staticmethod
    def _notice(calls: list[Call]) -> str:
        """The sessions not on screen that need the user, in one sentence; f4 goes to them."""
        if len(calls) == 1:
            call = calls[0]
            name = visible(call.session.status.agent or "agent", keep_newlines=False)
            return f"Session {call.session.number} ({name}) {SAID[call.what][0]}: f4 goes there."
        by_what: dict[str, list[int]] = {}
        for call in calls:
            by_what.setdefault(call.what, []).append(call.session.number)
        text = "; ".join(f"session {numbers[0]} {SAID[what][0]}" if len(numbers) == 1  # in order, to be read at a glance
                         else f"sessions {_numbers(sorted(numbers))} {SAID[what][1]}" for what, numbers in by_what.items())
        return f"{text[0].upper()}{text[1:]}: f4 goes to each, the one waiting longest first."

    def back_in_view(self) -> None:
        """The terminal is in view again: the title no longer calls."""
        if self.title_set:
            title = visible(self.app.current.status.title, keep_newlines=False)
            set_terminal_title(self.app, f"kandev-tui · {title}")


def _numbers(numbers: list[int]) -> str:
    """2, 6 and 15; past NAMED_AT_MOST, the rest counted (2, 6, 15, 20, 21 and 24 more)."""
    shown = [str(n) for n in numbers[:NAMED_AT_MOST]]
    if len(numbers) > NAMED_AT_MOST:
        return f"{', '.join(shown)} and {len(numbers) - NAMED_AT_MOST} more"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"
