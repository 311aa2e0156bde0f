"""The bare ``kandev-tui``: the app opened on the sessions list, with no session yet."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kandev_tui.app.kandev_app import KandevApp

if TYPE_CHECKING:
    from kandev_tui.sources.launch import Launcher


class HomeApp(KandevApp):
    """The bare ``kandev-tui``: it opens on the sessions list (no session yet, the stored ones listed); ctrl+n starts
    one from a preset, enter opens a stored one, ``c`` continues one. ctrl+s (or closing the last live session)
    comes back to the list; from ctrl+s, escape goes back to the session it was pressed in."""

    DEFAULT_MODE = "home"  # the list's own screen stack, under the sessions' modes
    has_home = True

    def __init__(self, launcher: Launcher, **kwargs: Any) -> None:
        super().__init__(None, launcher=launcher, **kwargs)
        from kandev_tui.app.lists import ListOfApp
        from kandev_tui.screens.sessions import SessionsScreen

        self.list = self.home = SessionsScreen(ListOfApp(self), [], self.starter.stored_reader(), home=True,
                                                   search=self.starter.searcher())
        self.install_screen(self.list, "home")
        self.add_mode("home", "home")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "sessions" and self.current_mode == "home":
            return False
        if action == "close_session":  # the last one too: the list comes back
            return bool(self.sessions) and self.current_mode != "home"
        return super().check_action(action, parameters)

    def action_sessions(self) -> None:
        if self.current_mode == "home":
            return
        self.left = None if self.current.closed else self.current  # not one just closed
        self.switch_mode("home")
        self.list.show_rows(self.lists.rows())
        self.list.read_stored()  # what was stored since
