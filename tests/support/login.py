"""Stand-ins for what the login flow (kandev_tui/app/session_login.py) is given: the app's screens (it pushes the
login screen and suspends the app for a terminal login), the session model (the agent's logins) and its status."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any


class Screens:
    def __init__(self) -> None:
        self.screen: Any = None
        self.pushed: list[Any] = []
        self.suspended = 0

    def push_screen(self, screen: Any) -> None:
        self.pushed.append(screen)
        self.screen = screen

    @contextmanager
    def suspend(self):
        self.suspended += 1
        yield


class Model:
    def __init__(self, terminal: tuple[list[str], dict[str, str]] | None, refuse: str = "") -> None:
        self.terminal, self.refuse, self.logins = terminal, refuse, []

    def terminal_login(self, method_id: str) -> tuple[list[str], dict[str, str]] | None:
        return self.terminal

    async def log_in(self, method_id: str, env: dict[str, str]) -> None:
        self.logins.append(method_id)
        if self.refuse:
            raise RuntimeError(self.refuse)


class Status:
    agent = "Agent [b]x[/b]"
    login_methods = (("key", "API key", ""),)
    workspace = None
