"""Where the app shows its sessions to each other: the sessions list (ctrl+s), the sidebar beside the transcript (120
columns and more), the status line's "+2 · 1 waiting f4", switching from one to another, and f4. The app keeps the
sessions; :class:`SessionLists` keeps what shows them, and redraws a row only when it changed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

from kandev_tui.app.holds import HoldsSessions
from kandev_tui.app.session import AppSession
from kandev_tui.base import pacing
from kandev_tui.base.sanitize import visible
from kandev_tui.session.row import SessionRow
from kandev_tui.ui.textual_hooks import set_terminal_title
from kandev_tui.widgets.chrome.sessions_sidebar import SIDEBAR_FROM

if TYPE_CHECKING:
    from textual.timer import Timer

    from kandev_tui.sources.launch import KandevBackend, Launcher
    from kandev_tui.screens.sessions import SessionsScreen


class Readers(Protocol):
    """What reads the stored and the Kandev backend's sessions for the list, and takes what it chose
    (kandev_tui/app/starting.py)."""

    def stored_reader(self) -> Callable[[], list[dict[str, Any]]] | None: ...
    def remote_reader(self) -> Callable[[], list[Any]] | None: ...
    def searcher(self) -> Callable[[str], tuple[list[Any], dict[str, dict[str, Any]]]] | None: ...
    def from_list(self, choice: tuple[str, Any] | None) -> None: ...
    def ask_new(self) -> None: ...
    def delete_stored(self, row: dict[str, Any], listing: Any) -> None: ...


class TitleSet(Protocol):
    title_set: bool


class ListsHost(HoldsSessions, Protocol):
    """What the lists need of the app, beside Textual's app."""

    @property
    def starter(self) -> Readers: ...
    @property
    def attention(self) -> TitleSet: ...
    @property
    def kandev(self) -> KandevBackend | None: ...
    @property
    def home(self) -> SessionsScreen | None: ...
    @property
    def launcher(self) -> Launcher | None: ...
    @property
    def left(self) -> AppSession | None: ...
    def back_from_home(self) -> None: ...


class SessionLists:
    """What shows the app's sessions (see the module docstring)."""

    def __init__(self, app: ListsHost) -> None:
        self.app = app
        self.sidebar_hidden = False  # ctrl+b hid the sessions beside the transcript
        self._rows_shown: list[SessionRow] = []  # the rows the list and the sidebar were last given
        self._soon: Timer | None = None  # show_soon() asked, not done yet

    def rows(self) -> list[SessionRow]:
        """Each session's row; a session whose agent edits the folder of another one says which (in the row, not in a
        notice over the transcript, where a request may wait)."""
        sessions = self.app.sessions
        folders = [session.edits_folder for session in sessions]
        return [session.row(tuple(other.number for other, theirs in zip(sessions, folders)
                                  if other is not session and mine is not None and theirs == mine))
                for session, mine in zip(sessions, folders)]

    @property
    def screen(self) -> SessionsScreen | None:
        """The sessions list, when it is in the screen stack on screen."""
        from kandev_tui.screens.sessions import SessionsScreen

        app = self.app
        return next((s for s in app.screen_stack if isinstance(s, SessionsScreen)), None) if app.is_running else None

    @property
    def sidebar_shown(self) -> bool:
        """The sessions stand beside the transcript: several sessions, 120 columns or more, not hidden (ctrl+b)."""
        return len(self.app.sessions) > 1 and self.app.size.width >= SIDEBAR_FROM and not self.sidebar_hidden

    def show(self) -> None:
        """The status line of the session on screen says what the others do ("+2 · 1 waiting f4"); the
        sessions list and the sidebar show every session's row again."""
        app = self.app
        rows = self._rows_shown = self.rows()
        listed = self.screen
        if listed is not None:
            listed.show_rows(rows)
        home = app.home  # the bare kandev-tui's list (HomeApp)
        if home is not None and home.is_mounted:
            home.show_rows(rows)
        sidebar = self.sidebar_shown
        for session in app.sessions:
            session.screen.sidebar.display = session.screen.sidebar.can_focus = sidebar and session.on_screen
            if sidebar and session.on_screen:
                session.screen.sidebar.show_rows(rows)
        app.refresh_bindings()  # f4 is offered while another session waits
        others = [s for s in app.sessions if not s.on_screen]
        text = ""
        if others:
            waiting = sum(1 for s in others if s.waiting_since is not None)
            text = f"+{len(others)}" if waiting else f"+{len(others)} session{'s' if len(others) > 1 else ''}"
            if waiting:
                text += f" · {waiting} waiting f4"
        for session in app.sessions:
            session.screen.status.others = text if session.on_screen else ""

    def show_soon(self) -> None:
        """:meth:`show`, once for the changes of one moment: sessions' states change in bursts (eight agents starting,
        turns ending together), and each showing redraws the sidebar and looks at every key (pacing.py)."""
        if self._soon is None:
            self._soon = self.app.set_timer(pacing.LISTS_AT_MOST_EVERY, self._show_now, name="lists")

    def _show_now(self) -> None:
        self._soon = None
        if self.app.screen_stack:  # not once the app has closed its screens (quitting: the agents' ends were asked)
            self.show()

    def changed(self) -> None:
        """A session's title, branch or cost changed: the rows that show it, again."""
        if len(self.app.sessions) > 1:
            self.show_soon()

    def refresh(self) -> None:
        """Each second while the sessions are listed: what arrived off screen, titles and costs as they are now (when
        nothing changed, nothing is done: idle sessions cost no redraw, no footer)."""
        if len(self.app.sessions) > 1 and (self.sidebar_shown or self.screen is not None):
            if self.rows() != self._rows_shown:
                self.show()

    def toggle_sidebar(self) -> None:
        self.sidebar_hidden = not self.sidebar_hidden
        self.show()

    def open(self) -> None:
        """ctrl+s: the sessions list (enter shows one); again: closed. Beside the transcript (120 columns and more)
        the sidebar takes the focus instead."""
        from kandev_tui.screens.sessions import SessionsScreen

        app = self.app
        if isinstance(app.screen, SessionsScreen):
            app.screen.dismiss(None)
            return
        if self.sidebar_shown and app.screen is app.current.screen:
            self.show()  # the rows as they are now
            screen = app.current.screen
            if screen.sidebar.has_focus:
                screen.prompt.focus() if screen.prompt.can_focus else app.view.focus()
            else:
                screen.focus_when_mounted(screen.sidebar)
            return
        starter = app.starter
        app.push_screen(SessionsScreen(ListOfApp(app), self.rows(), starter.stored_reader(), remote=starter.remote_reader(),
                                       remote_title=app.kandev.url if app.kandev is not None else "",
                                       search=starter.searcher()),
                        starter.from_list)

    def switch_to(self, session: AppSession) -> None:
        """Show ``session`` where it was left (its screen stack, its place, its focus)."""
        app = self.app
        # the keys' place is set before the screen is shown: a key pressed right after the switch goes there (a screen
        # still to be composed sets it after its first refresh, where the keys typed behind the switch wait: KeyOrder)
        if session.request_takes_keys and session.view.is_mounted:
            session.view.take_keys_for_request()
        elif session.request_takes_keys:
            session.screen.call_after_refresh(session.view.take_keys_for_request)
        elif session.focus_prompt and session.screen.prompt.can_focus:
            session.focus_prompt = False
            session.screen.prompt.focus()
        if not session.on_screen:
            app.switch_mode(session.mode)
        # what waited while it was covered comes right after the first frame: the session shows at once, where it was
        # left, and its news follow (a covered session's backlog can be hundreds of items)
        app.call_after_refresh(session.model.look_now)
        session.login.show(session.last_state, session.detail)
        self.show()
        if app.attention.title_set:
            set_terminal_title(app, f"kandev-tui · {visible(session.status.title, keep_newlines=False)}")

    def next_waiting(self) -> None:
        """f4: the session that has waited longest for the user (a permission, a login), other than this one; but
        first this one's own request, when it waits while the user typed in the prompt (where 1 would be typed)."""
        app = self.app
        if app.sessions and app.screen is app.current.screen and app.current.request_without_keys():
            app.current.view.take_keys_for_request()
            return
        waiting = sorted((s for s in app.sessions if s.waiting_since is not None and not s.on_screen),
                         key=lambda s: s.waiting_since or 0.0)
        if not waiting:
            app.notify("No other session is waiting for you.", timeout=3)
            return
        from kandev_tui.screens.sessions import SessionsScreen

        if isinstance(app.screen, SessionsScreen) and not app.screen.home:
            app.screen.dismiss(None)
        self.switch_to(waiting[0])


class ListOfApp:
    """The app as the sessions list asks of it (:class:`~kandev_tui.screens.sessions.ListHost`)."""

    def __init__(self, app: ListsHost) -> None:
        self._app = app

    @property
    def can_start(self) -> bool:
        return self._app.launcher is not None

    @property
    def can_go_back(self) -> bool:
        return self._app.left is not None

    def new_session(self) -> None:
        self._app.starter.ask_new()

    def chosen(self, choice: tuple[str, Any]) -> None:
        self._app.starter.from_list(choice)

    def delete_stored(self, row: dict[str, Any], listing: SessionsScreen) -> None:
        self._app.starter.delete_stored(row, listing)

    def go_back(self) -> None:
        self._app.back_from_home()
