"""Calling the user when a session needs them and they look elsewhere: the bell, the terminal's title and a desktop
notification (each as the settings allow), and a notice naming a session that is not on screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kandev_tui.sanitize import visible
from kandev_tui.session import SessionState
from kandev_tui.textual_hooks import notify_desktop, set_terminal_title

if TYPE_CHECKING:
    from kandev_tui.app import KandevApp
    from kandev_tui.app_session import AppSession

TURN_RUNS = (SessionState.RUNNING, SessionState.WAITING, SessionState.CANCELLING)
TURN_STOPS = (SessionState.IDLE, SessionState.ENDED, SessionState.ERROR)
NEEDS_USER = {SessionState.WAITING: "waiting for you", SessionState.LOGIN: "needs a login"}


class Attention:
    """See the module docstring. ``title_set``: the terminal's title calls the user (it is set back when they are
    back, or on the next switch)."""

    def __init__(self, app: KandevApp) -> None:
        self.app = app
        self.title_set = False

    def state_changed(self, session: AppSession, previous: SessionState, state: SessionState) -> None:
        """When a request waits for the user, the agent needs a login, or a turn ends, while the terminal is not in
        view (Textual's app focus: the terminal reports it, as tmux does with ``focus-events on``), or while another
        session is on screen: ring the bell and say it in the terminal's title, as the settings allow; a session not
        on screen is said in a notice too (ctrl+g goes to it)."""
        app = self.app
        what = NEEDS_USER.get(state)
        if previous in TURN_RUNS and state in TURN_STOPS:
            what = "turn ended" if state == SessionState.IDLE else "the agent stopped"
        if what is None or state == previous:
            return
        elsewhere = not session.on_screen and state in NEEDS_USER
        if elsewhere:
            name = visible(session.status.agent or "agent", keep_newlines=False)
            app.notify(f"Session {session.number} ({name}) is {what}: ctrl+g goes there.", timeout=6, markup=False)
        if app.app_focus and not elsewhere:
            return
        settings = app.settings_store.settings
        if settings.attention_bell:
            app.bell()
        label = visible(session.status.title, keep_newlines=False)
        if len(app.sessions) > 1:
            label = f"session {session.number} · {label}"
        if settings.attention_title:
            self.title_set = set_terminal_title(app, f"kandev-tui: {what} · {label}")
        if settings.attention_desktop and state in NEEDS_USER:
            notify_desktop(app, f"kandev-tui: {what}", label)

    def back_in_view(self) -> None:
        """The terminal is in view again: the title no longer calls."""
        if self.title_set:
            title = visible(self.app.current.status.title, keep_newlines=False)
            set_terminal_title(self.app, f"kandev-tui · {title}")
