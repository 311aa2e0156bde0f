"""A session's login: the login screen over its transcript while its agent waits for one, and a login the agent
runs in the user's terminal (the app suspended meanwhile)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from kandev_tui.session import SessionState

if TYPE_CHECKING:
    from kandev_tui.app.session_parts import SessionParts
else:
    SessionParts = object  # a plain mixin at run time: see app_session_parts

log = logging.getLogger("kandev_tui.app.kandev_app")


class SessionLogin(SessionParts):
    """Logging in (a part of :class:`~kandev_tui.app.session.AppSession`)."""

    def show_login(self, state: SessionState, detail: str) -> None:
        """The login screen while the agent waits for a login (with why the last try failed), gone once it does
        not. Shown on this session's own screen stack, so only while it is on screen (switching to it shows it)."""
        from kandev_tui.screens.login import LoginScreen

        screen = self.login_screen
        if state != SessionState.LOGIN:
            if screen is not None and state != SessionState.STARTING:
                self.login_screen = None
                if screen.is_current:
                    screen.dismiss()
            return
        if screen is not None and screen.is_attached:
            screen.say(detail)
            return
        if isinstance(self.app.screen, LoginScreen):
            return
        self.login_screen = LoginScreen(self.status.agent, detail or "The agent needs a login.",
                                        list(self.status.login_methods), self.terminal_command)
        self.app.push_screen(self.login_screen)

    def terminal_command(self, method_id: Any) -> list[str] | None:
        found = self.model.terminal_login(method_id) if isinstance(method_id, str) else None
        return found[0] if found else None

    def _run_in_terminal(self, command: list[str], env: dict[str, str]) -> str:
        """Run a login command in the user's terminal, the app stepped aside (``App.suspend``); what went wrong,
        or "" when it ended well. Ctrl+C ends the command, not kandev-tui."""
        import signal
        import subprocess

        from textual.app import SuspendNotSupported

        from kandev_tui.acp.options import agent_env

        def child() -> None:  # the command gets ctrl+c as usual (this process ignores it meanwhile)
            signal.signal(signal.SIGINT, signal.SIG_DFL)

        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            with self.app.suspend():
                print(f"kandev-tui: logging in: {' '.join(command)}\n(kandev-tui comes back when it ends)\n",
                      flush=True)
                code = subprocess.run(command, env=agent_env(env), preexec_fn=child,  # PATH: its absolute entries
                                      cwd=str(self.status.workspace or ".")).returncode
        except SuspendNotSupported:
            return f"this terminal cannot be handed over here: run `{' '.join(command)}` yourself, then ctrl+l"
        except OSError as exc:
            return f"the login command could not run: {exc.strerror or exc}"
        finally:
            signal.signal(signal.SIGINT, previous)
        if code != 0:
            return f"the login command ended with status {code}{' (interrupted)' if code < 0 else ''}: choose again"
        return ""
