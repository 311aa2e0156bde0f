"""Several sessions in one app: what a session's change of state does to the app (the footer, a failure's notice,
the user called), closing a session (ctrl+w twice), logging in and the agent's modes and models (ctrl+o) for the
session on screen."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Awaitable, Callable, Protocol

from kandev_tui.app.attention import Attention
from kandev_tui.app.lists import SessionLists
from kandev_tui.app.holds import HoldsSessions
from kandev_tui.app.session import AppSession
from kandev_tui.base.sanitize import visible
from kandev_tui.session import SessionState
from kandev_tui.session.controls import Control
from kandev_tui.session.model import StateChange

if TYPE_CHECKING:
    pass

log = logging.getLogger("kandev_tui.app.kandev_app")
TOAST_REASON = 60  # characters of a failure's reason the toast says for the session on screen
PRESS_AGAIN = 2.0  # seconds within which ctrl+w pressed again closes


class SwitchingHost(HoldsSessions, Protocol):
    """What switching needs of the app, beside Textual's app."""

    has_home: bool

    @property
    def lists(self) -> SessionLists: ...
    @property
    def attention(self) -> Attention: ...


class Switching:
    """Sessions' states, closing, logins and choices. ``quit`` ends the app (closing the last live session does);
    ``show_list`` shows the sessions list (closing the last one of the home does)."""

    def __init__(self, app: SwitchingHost, quit: Callable[[], Awaitable[None]], show_list: Callable[[], None]) -> None:
        self.app = app
        self._quit = quit
        self._show_list = show_list
        self._close_at = 0.0  # the first press of ctrl+w (pressed twice)

    def state_changed(self, session: AppSession, change: StateChange, previous: SessionState) -> None:
        """A session's state changed (it shows it itself): the footer, the failure notice, the user called."""
        app = self.app
        if session.on_screen:
            app.refresh_bindings()  # ctrl+l and ctrl+o are offered as the state allows
        if change.state == SessionState.ERROR:
            title = "The agent stopped" if len(app.sessions) == 1 else f"Session {session.number} stopped"
            said = visible(change.detail or "error")
            if session.on_screen and len(said) > TOAST_REASON:  # the transcript under the toast says it whole (at 45
                # columns a toast is 22 wide: the whole reason covered the transcript that says it)
                said = said[:TOAST_REASON].rstrip() + "… (see the transcript)"
            app.notify(said, title=title, severity="error", timeout=10, markup=False)
        app.attention.state_changed(session, previous, change.state)
        app.lists.show_soon()

    async def close_current(self) -> None:
        """The session on screen closed at once (the palette's command: chosen, nothing to confirm)."""
        self._close_at = time.monotonic()
        await self.close()

    async def close(self) -> None:
        """ctrl+w twice: the session on screen closes (its turn cancelled, its agent's process group ended, all of
        it kept stored); it stays in the list, ended, and the next live session is shown. The last one: quit."""
        app = self.app
        session = app.current
        now = time.monotonic()
        if now - self._close_at >= PRESS_AGAIN:
            self._close_at = now
            last = all(s.closed or s is session for s in app.sessions) and not app.has_home
            what = "quit" if last else f"close session {session.number}"
            app.notify(f"Press ctrl+w again to {what} (the transcript stays stored).", timeout=2)
            return
        self._close_at = 0.0
        live = [s for s in app.sessions if not s.closed and s is not session]
        if not live and not app.has_home:
            await self._quit()
            return
        await session.close()
        if session.closing_note:
            app.notify(session.closing_note, title=f"Session {session.number} closed", timeout=10, markup=False)
        if not live:  # the home: the list again
            self._show_list()
            return
        app.lists.switch_to(live[0])
        app.lists.show()

    def log_in(self, reason: str = "") -> None:
        session = self.app.current
        if session.last_state == SessionState.LOGIN:
            session.login.show(SessionState.LOGIN, reason or session.detail)

    def login_chosen(self, method_id: str, env: dict[str, str]) -> None:
        self.app.run_worker(self.app.current.login.log_in(method_id, env), name="login", group="login", exclusive=True)

    def choices(self) -> None:
        """ctrl+o: the agent's modes, models and options, for the session on screen."""
        from kandev_tui.screens.choices import ChoicesScreen

        app = self.app
        session = app.current
        if not (session.controls and session.status.can_prompt) or isinstance(app.screen, ChoicesScreen):
            return
        app.push_screen(ChoicesScreen(session.status.agent, session.controls),
                        lambda chosen: self._chosen(session, chosen))

    def _chosen(self, session: AppSession, chosen: tuple[Control, str] | None) -> None:
        if chosen is not None:
            self.app.run_worker(self._choose(session, *chosen), name="choose", group="choose")

    async def _choose(self, session: AppSession, control: Control, value: str) -> None:
        method, params = control.request(value)
        try:
            await session.model.choose(method, params)
        except Exception as exc:  # noqa: BLE001 - the agent refused: its reason, and the old choice stays
            self.app.notify(visible(str(exc)), title=f"{control.name} not changed", severity="warning", markup=False)
            return
        if control.category in ("mode", "model") and session.status.agent_command:  # its next sessions start so
            self.app.settings_store.remember_agent_choice(list(session.status.agent_command), control.category, value)
