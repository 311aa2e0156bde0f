"""The Textual app: sessions (a live agent, a stored session, a recording, a Kandev task), each with its transcript
screen, one on screen at a time."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.app import App
from textual.binding import Binding
from textual.color import Color
from textual.message import Message
from textual.messages import ExitApp
from textual.screen import Screen
from textual.signal import Signal

from kandev_tui.base.gcpolicy import GcPolicy
from kandev_tui.ui.user_input import UserInput
from kandev_tui.ui.key_order import KeyOrder
from kandev_tui.renderers import Registry
from kandev_tui.app.actions import UserActions
from kandev_tui.app.attention import Attention
from kandev_tui.app.lifecycle import INPUT_EVENTS, Lifecycle
from kandev_tui.app.lists import SessionLists
from kandev_tui.app.session import AppSession
from kandev_tui.app.starting import SessionStarter
from kandev_tui.app.switching import Switching
from kandev_tui.screens.transcript import TranscriptScreen
from kandev_tui.base.settings import SettingsStore
from kandev_tui.base.shutdown import EndingSignals
from kandev_tui.ui.textual_hooks import draw_after_batch, mend_textual, mount_screen_ahead
from kandev_tui.session import SessionState
from kandev_tui.session.controls import Controls
from kandev_tui.session.model import SessionModel, SourceFactory
from kandev_tui.widgets.sessions_sidebar import SIDEBAR_FROM
from kandev_tui.widgets.transcript_view import TranscriptView

if TYPE_CHECKING:  # the screens not shown at start are imported when first shown (the first frame comes sooner)
    from kandev_tui.sources.launch import KandevBackend, Launcher
    from kandev_tui.workspace.reads import Workspace
    from kandev_tui.workspace.worktree import Worktree
    from kandev_tui.screens.session_picker import SessionPickerScreen
    from textual.timer import Timer

log = logging.getLogger("kandev_tui.app.kandev_app")


class KandevApp(Lifecycle, Switching, UserActions, App[int]):
    """kandev-tui's app: the wiring between sessions (each a headless :class:`~kandev_tui.session.model.SessionModel`
    over its source, with its own transcript screen: :class:`~kandev_tui.app.session.AppSession`) and the screens and
    widgets that show them. Each session is a Textual mode with a screen stack of its own; one is on screen, the
    others go on streaming, storing and asking. ``session``, ``source``, ``view`` and ``transcript_screen`` are the
    one on screen's."""

    TITLE = "kandev-tui"
    DEFAULT_MODE = "session-1"  # each session is a mode (its own screen stack); the first is on screen at start
    has_home = False  # the bare kandev-tui's list is a screen of its own (kandev_tui/app/home.py)
    # drawn for a terminal of 16 colours (TERM=xterm): None, as the terminal says (a headless app: no); tests set it
    sixteen_colors: bool | None = None
    CSS_PATH = "../styles/app.tcss"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+c", "interrupt", "Quit", show=False, priority=True),
        Binding("f1", "help", "Help", priority=True),  # at once, however busy the transcript is
        Binding("f2", "settings", "Settings"),
        # what waits for the user before the rest: a narrow footer keeps the first keys (kandev_tui/widgets/key_footer.py)
        Binding("ctrl+l", "log_in", "Log in"),  # shown while the agent waits for a login
        Binding("f4", "next_waiting", "Next waiting", priority=True),  # shown when another session waits
        Binding("ctrl+r", "send_queued_now", "Send queued now"),  # shown while messages are queued
        Binding("ctrl+t", "remove_queued", "Unqueue"),
        Binding("ctrl+o", "choices", "Mode"),  # the agent's modes and models (shown when it offers any)
        Binding("ctrl+s", "sessions", "Sessions"),  # shown when there are several
        Binding("ctrl+w", "close_session", "Close session", show=False, priority=True),  # with several
        Binding("ctrl+n", "new_session", "New session", show=False),  # a preset, a folder, maybe a worktree
        Binding("ctrl+b", "toggle_sidebar", "Sidebar", show=False),  # the sessions beside the transcript (≥120 cols)
    ]

    def __init__(self, source_factory: SourceFactory | None, *, settings_store: SettingsStore | None = None,
                 registry: Registry | None = None, stats_path: Path | None = None,
                 initial_prompt: str | None = None, launcher: Launcher | None = None,
                 kandev: KandevBackend | None = None) -> None:
        super().__init__()
        self.launcher = launcher  # how the command line starts agents: ctrl+n starts more the same way
        self.kandev = kandev  # the Kandev backend attached to: its task sessions are in the list
        self.starter = SessionStarter(self)  # new sessions, and stored ones from the list
        mend_textual()  # alt+enter read as alt+enter; nothing that left the screen stays on the terminal
        self.user_input = UserInput()  # the terminal's last input: the agents' output waits a moment after it
        self.key_order = KeyOrder(self, super().on_event)  # keys typed behind one that moves the focus follow it
        self.settings_store = settings_store or SettingsStore()
        self.registry = registry or Registry.from_entry_points(now=False)  # read after the first frame
        if not self.settings_store.settings.edits_inline:  # edits fold into the tool group, as other calls do
            self.registry = self.registry.without("edit")
        self.stats_path = stats_path
        # each batch of items in a transcript (their keys): what a test or a tool waits on (ItemsApplied, published)
        self.items_applied: Signal[list[str]] = Signal(self, "items-applied")
        self.sessions: list[AppSession] = []
        self.lists = SessionLists(self)  # the sessions list, the sidebar, switching (kandev_tui/app/lists.py)
        self.attention = Attention(self)  # the bell, the title, the desktop (kandev_tui/app/attention.py)
        self._look: Timer | None = None  # the app's next look at its rows and the collector (keep_looking)
        if source_factory is not None:  # else the home (HomeApp): the sessions list, none open yet
            self.open_session(source_factory, initial_prompt)
        self._animated: set[str] = set()
        self._interrupt_at = self._close_at = 0.0  # the first press of ctrl+c, of ctrl+w (pressed twice)
        self.gc_policy = GcPolicy()
        self._preloaded = self._sources_closed = False
        self._signals: EndingSignals | None = None  # taken while mounted
        self._picker: SessionPickerScreen | None = None  # the list of stored sessions, while one is to be picked

    def open_session(self, source_factory: SourceFactory, initial_prompt: str | None = None, *,
                     worktree: Worktree | None = None) -> AppSession:
        """A session more (the first is on screen when the app starts; the others start with it, or at once when
        the app runs already). ``worktree``: made for it, closed with it."""
        session = AppSession(self, len(self.sessions) + 1, source_factory, initial_prompt=initial_prompt,
                             on_state=self._session_state)
        session.worktree = worktree
        self.sessions.append(session)
        self.install_screen(session.screen, session.mode)  # installed: composed and mounted ahead of its first show
        self.add_mode(session.mode, session.mode)
        if self.is_running:
            session.attach(asyncio.get_running_loop())
            session.start()
            self.call_after_refresh(mount_screen_ahead, self, session.mode)
            self.lists.show()
        return session

    # -- the session on screen -------------------------------------------------------

    @property
    def current(self) -> AppSession:
        mode = self.current_mode
        return next((s for s in self.sessions if s.mode == mode), self.sessions[0])

    @property
    def session(self) -> SessionModel:
        return self.current.model

    @property
    def source(self) -> Any:
        return self.current.source

    @property
    def view(self) -> TranscriptView:
        return self.current.view

    @property
    def transcript_screen(self) -> TranscriptScreen:
        return self.current.screen

    @property
    def controls(self) -> Controls:
        return self.current.controls

    @property
    def workspace(self) -> Workspace | None:
        return self.current.workspace

    @property
    def exit_code(self) -> int:
        """What the command exits with when the user quits: 1 once a session failed (2: the store is damaged)."""
        return next((s.model.exit_code for s in self.sessions if s.model.exit_code), 0)

    @property
    def failures(self) -> list[str]:
        """Why each session that failed failed, said on stderr after the app closes (the screen is gone by then)."""
        return [s.model.failure if len(self.sessions) == 1 else f"session {s.number}: {s.model.failure}"
                for s in self.sessions if s.model.failure]

    def closing_notes(self) -> list[str]:
        """What closing did with the sessions' worktrees (removed, or kept and where): said on stderr at the end."""
        return [f"session {s.number}: {s.closing_note}" for s in self.sessions if s.closing_note]

    def unsent(self) -> list[tuple[int, str]]:
        """What the user sent that never reached an agent (queued, typed ahead of its start), said once it closed."""
        return [(s.number, text) for s in self.sessions for text in s.unsent()]

    def get_default_screen(self) -> Screen:
        return self.sessions[0].screen

    # -- what sessions ask of the app ------------------------------------------------

    class ItemsApplied(Message):
        """A batch of items is in the transcript (their widgets placed; a test's or a tool's signal to look)."""

        def __init__(self, keys: list[str]) -> None:
            super().__init__()
            self.keys = keys

    def on_kandev_app_items_applied(self, message: ItemsApplied) -> None:
        self.items_applied.publish(message.keys)

    def notify(self, message: str, **options: Any) -> None:  # a widget's passes markup=True: never markup here
        """A toast is text, whoever asks: it says file names, paths, titles, never an action link or a crash."""
        super().notify(message, **{**options, "markup": False})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.sessions or self.current_mode == "home":  # the home list: what needs a session on screen is not
            if action == "next_waiting":  # offered; f4 still goes to one waiting for the user
                return any(s.waiting_since is not None for s in self.sessions)
            return action not in ("choices", "log_in", "sessions", "close_session", "toggle_sidebar",
                                  "send_queued_now", "remove_queued")
        if action == "choices":  # offered when the agent offers choices and can take one (not a stored session)
            return bool(self.controls) and self.current.status.can_prompt
        if action == "log_in":
            return self.current.last_state == SessionState.LOGIN
        if action in ("send_queued_now", "remove_queued"):
            return bool(self.current.queue)
        if action == "sessions":  # the others, and the stored sessions when there is a store
            return len(self.sessions) > 1 or self.launcher is not None or self.kandev is not None
        if action == "close_session":
            return len(self.sessions) > 1
        if action == "toggle_sidebar":
            return len(self.sessions) > 1 and self.size.width >= SIDEBAR_FROM
        if action == "next_waiting":  # offered while another session waits for the user, or this one's request
            return any(s.waiting_since is not None and not s.on_screen for s in self.sessions) or \
                self.current.request_without_keys()  # waits without the keys
        return True

    # (a handler declared with @on stays here: Textual registers those of its message pumps' classes only)
    @on(ExitApp)
    async def _close_on_exit(self) -> None:
        """However the app is asked to exit (a quit key, or a browser that went away under ``kandev-tui serve``,
        whose web driver posts ExitApp), the sources are closed first: the store has everything, the agents stop."""
        await self._close_sources()

    def post_message(self, message: Message) -> bool:
        # the terminal's input arrives here (noted at the driver already, when there is one): the agent's output
        # waits from now, not from when the key's turn in the queue comes (user_input.py)
        if isinstance(message, INPUT_EVENTS):
            self.user_input.note()
        return super().post_message(message)

    async def on_event(self, event: events.Event) -> None:
        try:
            await self.key_order.on_event(event)  # the terminal's keys each to the focus its turn finds, in order
        finally:
            if isinstance(event, INPUT_EVENTS):
                self.user_input.served()  # dispatched: the transcript's frames go on (pacing.py)
                self.keep_looking()

    def on_idle(self) -> None:  # Textual runs it as a batch of updates closes, which does not prompt the screen
        draw_after_batch(self)

    def on_transcript_view_older_wanted(self, event: TranscriptView.OlderWanted) -> None:
        session = next((s for s in self.sessions if s.view is event.view), None)
        if session is not None:
            self.run_worker(session.load_older(), name=f"older-{session.number}", group=f"older-{session.number}",
                            exclusive=True)

    # -- settings ------------------------------------------------------------------

    def get_css_variables(self) -> dict[str, str]:
        variables = super().get_css_variables()
        if self.has_class("-colors-16") and not self.current_theme.dark:
            # rounded to 16 colours, a light theme's faint text (muted, disabled: a light grey) became the white it
            # is drawn on; a darker grey rounds to grey
            variables.update({"text-muted": "auto 70%", "text-disabled": "auto 60%"})
        return variables

    def watch_theme(self, theme: str) -> None:
        for session in self.sessions:
            self.call_after_refresh(session.view.refresh_theme)

    # -- what widgets ask the app ----------------------------------------------------

    def animations_enabled(self) -> bool:
        return self.animation_level != "none"

    def should_animate(self, chart_key: str) -> bool:
        """A chart animates in once per run, unless the setting or reduced motion says no."""
        if not self.settings_store.settings.chart_animation or self.animation_level == "none":
            return False
        if chart_key in self._animated:
            return False
        self._animated.add(chart_key)
        return True

    def series_colors(self) -> tuple[tuple[int, int, int], ...] | None:
        """Series colours from the theme by series index (never from the agent); None under NO_COLOR."""
        if os.environ.get("NO_COLOR"):
            return None
        theme = self.current_theme
        if self.has_class("-colors-16") and not theme.dark:
            # rounded to 16 colours, a light theme's warning and success became yellow on white: ANSI's dark ones
            return ((0, 0, 170), (170, 0, 0), (170, 0, 170), (0, 130, 0))
        names = [theme.primary, theme.warning or "#e5c07b", theme.success or "#98c379", theme.error or "#e06c75"]
        return tuple(Color.parse(name).rgb for name in names)

    @property
    def app_visible(self) -> bool:
        return bool(self.app_focus)

    def on_app_focus(self, event: events.AppFocus) -> None:
        if self.sessions:  # charts that came into view while the terminal was in the background are plotted now
            self.call_after_refresh(self.view.check_charts)
        self.attention.back_in_view()
