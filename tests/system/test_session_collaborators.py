"""The login flow with a real process: a terminal login whose command cannot start."""

from __future__ import annotations

from kandev_tui.app.session_login import LoginFlow

from ..support.login import Model, Screens, Status


def test_a_login_that_fails_in_the_terminal_says_why_and_gives_the_terminal_back():
    screens = Screens()
    login = LoginFlow(screens, Model(None), lambda: Status())
    problem = login.run_in_terminal(["/nonexistent/kandev-login"], {})
    assert problem.startswith("the login command could not run") and screens.suspended == 1
