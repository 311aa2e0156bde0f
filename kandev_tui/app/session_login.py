"""A session's login: the login screen over its transcript while its agent waits for one, and a login the agent
runs in the user's terminal (the app suspended meanwhile)."""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Callable, Protocol

from kandev_tui.base.sanitize import visible
from kandev_tui.session import SessionState

if TYPE_CHECKING:
    from kandev_tui.screens.login import LoginScreen
    from kandev_tui.session.model import SessionModel
    from kandev_tui.session.source import SourceStatus

log = logging.getLogger("kandev_tui.app.kandev_app")


class Screens(Protocol):
    """What the login needs of the app: the screen on top, a screen pushed, the terminal handed over."""

    @property
    def screen(self) -> Any: ...
    def push_screen(self, screen: Any) -> Any: ...
    def suspend(self) -> AbstractContextManager[None]: ...


class LoginFlow:
    """Logging one session's agent in. ``status`` gives the session's last status (its agent, login methods,
    workspace); ``screen`` is the login screen while one is shown for this session."""

    def __init__(self, screens: Screens, model: SessionModel, status: Callable[[], SourceStatus]) -> None:
        self._screens = screens
        self._model = model
        self._status = status
        self.screen: LoginScreen | None = None

    def show(self, state: SessionState, detail: str) -> None:
        """The login screen while the agent waits for a login (with why the last try failed), gone once it does
        not. Shown on this session's own screen stack, so only while it is on screen (switching to it shows it)."""
        from kandev_tui.screens.login import LoginScreen

        screen = self.screen
        if state != SessionState.LOGIN:
            if screen is not None and state != SessionState.STARTING:
                self.screen = None
                if screen.is_current:
                    screen.dismiss()
            return
        if screen is not None and screen.is_attached:
            screen.say(detail)
            return
        if isinstance(self._screens.screen, LoginScreen):
            return
        status = self._status()
        self.screen = LoginScreen(status.agent, detail or "The agent needs a login.", list(status.login_methods),
                                  self.terminal_command)
        self._screens.push_screen(self.screen)

    def terminal_command(self, method_id: Any) -> list[str] | None:
        found = self._model.terminal_login(method_id) if isinstance(method_id, str) else None
        return found[0] if found else None

    async def log_in(self, method_id: str, env: dict[str, str]) -> None:
        """The login the user chose on the login screen: a ``terminal`` one runs in the user's terminal first; what
        the agent refuses is said on that screen."""
        terminal = self._model.terminal_login(method_id)
        if terminal is not None:
            problem = self.run_in_terminal(*terminal)
            if problem:
                self._say(problem)
                return
        try:
            await self._model.log_in(method_id, env)
        except Exception as exc:  # noqa: BLE001 - the agent's reason, on the screen
            self._say(f"{visible(str(exc))}: choose a way again, or escape")

    def _say(self, problem: str) -> None:
        if self.screen is not None:
            self.screen.say(problem)

    def run_in_terminal(self, command: list[str], env: dict[str, str]) -> str:
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
            with self._screens.suspend():
                print(f"kandev-tui: logging in: {' '.join(command)}\n(kandev-tui comes back when it ends)\n",
                      flush=True)
                code = subprocess.run(command, env=agent_env(env), preexec_fn=child,  # PATH: its absolute entries
                                      cwd=str(self._status().workspace or ".")).returncode
        except SuspendNotSupported:
            return f"this terminal cannot be handed over here: run `{' '.join(command)}` yourself, then ctrl+l"
        except OSError as exc:
            return f"the login command could not run: {exc.strerror or exc}"
        finally:
            signal.signal(signal.SIGINT, previous)
        if code != 0:
            return f"the login command ended with status {code}{' (interrupted)' if code < 0 else ''}: choose again"
        return ""
