"""Several sessions in one app: switching and closing them, the sessions list and sidebar, a new session (ctrl+n),
logging in and the agent's modes and models (ctrl+o) for the session on screen."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from textual import events

from kandev_tui.base.sanitize import visible
from kandev_tui.app.session import AppSession
from kandev_tui.session import SessionState
from kandev_tui.session.controls import Control
from kandev_tui.session.model import StateChange
from kandev_tui.widgets.sessions_sidebar import SessionsSidebar

if TYPE_CHECKING:
    from kandev_tui.app.parts import AppParts
else:
    AppParts = object  # a plain mixin at run time: see app_parts

if TYPE_CHECKING:  # the screens not shown at start are imported when first shown (the first frame comes sooner)
    from kandev_tui.screens.login import LoginScreen

log = logging.getLogger("kandev_tui.app.kandev_app")
TOAST_REASON = 60  # characters of a failure's reason the toast says for the session on screen


class Switching(AppParts):
    """Sessions, logins and choices (a part of :class:`~kandev_tui.app.kandev_app.KandevApp`)."""

    def _session_state(self, session: AppSession, change: StateChange, previous: SessionState) -> None:
        """A session's state changed (it shows it itself): the footer, the failure notice, the user called."""
        if session.on_screen:
            self.refresh_bindings()  # ctrl+l and ctrl+o are offered as the state allows
        if change.state == SessionState.ERROR:
            title = "The agent stopped" if len(self.sessions) == 1 else f"Session {session.number} stopped"
            said = visible(change.detail or "error")
            if session.on_screen and len(said) > TOAST_REASON:  # the transcript under the toast says it whole (at 45
                # columns a toast is 22 wide: the whole reason covered the transcript that says it)
                said = said[:TOAST_REASON].rstrip() + "… (see the transcript)"
            self.notify(said, title=title, severity="error", timeout=10, markup=False)
        self.attention.state_changed(session, previous, change.state)
        self.lists.show_soon()

    def on_resize(self, event: events.Resize) -> None:
        if len(self.sessions) > 1:  # once the app has its new size (its own handler, after this one, takes it)
            self.call_after_refresh(self.lists.show)

    def action_toggle_sidebar(self) -> None:
        self.lists.toggle_sidebar()

    def action_sessions(self) -> None:
        """ctrl+s: the sessions list, or the sidebar focused (kandev_tui/app/lists.py)."""
        self.lists.open()

    def from_sessions_list(self, choice: tuple[str, Any] | None) -> None:
        """What the sessions list chose (kandev_tui/app/starting.py)."""
        self.starter.from_list(choice)

    def action_new_session(self) -> None:
        """ctrl+n: a new session from a preset (kandev_tui/app/starting.py)."""
        self.starter.ask_new()

    def on_sessions_sidebar_picked(self, event: SessionsSidebar.Picked) -> None:
        self.lists.switch_to(self.sessions[event.number - 1])

    def action_next_waiting(self) -> None:
        """f4: the session that has waited longest for the user (kandev_tui/app/lists.py)."""
        self.lists.next_waiting()

    async def close_current(self) -> None:
        """The session on screen closed at once (the palette's command: chosen, nothing to confirm)."""
        self._close_at = time.monotonic()
        await self.action_close_session()

    async def action_close_session(self) -> None:
        """ctrl+w twice: the session on screen closes (its turn cancelled, its agent's process group ended, all of
        it kept stored); it stays in the list, ended, and the next live session is shown. The last one: quit."""
        session = self.current
        now = time.monotonic()
        if now - self._close_at >= 2.0:
            self._close_at = now
            last = all(s.closed or s is session for s in self.sessions) and not self.has_home
            what = "quit" if last else f"close session {session.number}"
            self.notify(f"Press ctrl+w again to {what} (the transcript stays stored).", timeout=2)
            return
        self._close_at = 0.0
        live = [s for s in self.sessions if not s.closed and s is not session]
        if not live and not self.has_home:
            await self.action_quit()
            return
        await session.close()
        if session.closing_note:
            self.notify(session.closing_note, title=f"Session {session.number} closed", timeout=10, markup=False)
        if not live:  # the home: the list again
            self.action_sessions()
            return
        self.lists.switch_to(live[0])
        self.lists.show()

    def action_log_in(self, reason: str = "") -> None:
        session = self.current
        if session.last_state == SessionState.LOGIN:
            session.show_login(SessionState.LOGIN, reason or session.detail)

    def on_login_screen_chosen(self, event: LoginScreen.Chosen) -> None:
        session = self.current
        self.run_worker(session.log_in(event.method_id, event.env), name="login", group="login", exclusive=True)

    def action_choices(self) -> None:
        from kandev_tui.screens.choices import ChoicesScreen

        session = self.current
        if not (session.controls and session.status.can_prompt) or isinstance(self.screen, ChoicesScreen):
            return
        self.push_screen(ChoicesScreen(session.status.agent, session.controls),
                         lambda chosen: self._chosen(session, chosen))

    def _chosen(self, session: AppSession, chosen: tuple[Control, str] | None) -> None:
        if chosen is not None:
            self.run_worker(self._choose(session, *chosen), name="choose", group="choose")

    async def _choose(self, session: AppSession, control: Control, value: str) -> None:
        method, params = control.request(value)
        try:
            await session.model.choose(method, params)
        except Exception as exc:  # noqa: BLE001 - the agent refused: its reason, and the old choice stays
            self.notify(visible(str(exc)), title=f"{control.name} not changed", severity="warning", markup=False)
            return
        if control.category in ("mode", "model") and session.status.agent_command:  # its next sessions start so
            self.settings_store.remember_agent_choice(list(session.status.agent_command), control.category, value)
