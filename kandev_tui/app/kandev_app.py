"""The Textual app: sessions (a live agent, a stored session, a recording, a Kandev task), each with its transcript
screen, one on screen at a time."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.messages import ExitApp
from textual.screen import Screen
from textual.signal import Signal

from kandev_tui.app.actions import UserActions
from kandev_tui.app.attention import Attention
from kandev_tui.app.lifecycle import INPUT_EVENTS, Lifecycle
from kandev_tui.app.lists import SessionLists
from kandev_tui.app.looks import Looks
from kandev_tui.app.palette import commands
from kandev_tui.app.session import AppSession
from kandev_tui.app.session_host import ItemsApplied
from kandev_tui.app.starting import SessionStarter
from kandev_tui.app.switching import Switching
from kandev_tui.base.gcpolicy import GcPolicy
from kandev_tui.base.settings import SettingsStore
from kandev_tui.renderers import Registry
from kandev_tui.screens.transcript import TranscriptScreen
from kandev_tui.session import SessionState
from kandev_tui.session.controls import Controls
from kandev_tui.session.model import SessionModel
from kandev_tui.session.source import Source
from kandev_tui.ui.key_order import KeyOrder
from kandev_tui.ui.textual_hooks import draw_after_batch, mend_textual, mount_screen_ahead
from kandev_tui.ui.user_input import UserInput
from kandev_tui.widgets.chrome.sessions_sidebar import SIDEBAR_FROM, SessionsSidebar
from kandev_tui.widgets.transcript_view import TranscriptView

if TYPE_CHECKING:  # the screens not shown at start are imported when first shown (the first frame comes sooner)
    from kandev_tui.screens.login import LoginScreen
    from kandev_tui.screens.sessions import SessionsScreen
    from kandev_tui.screens.settings import SettingsScreen
    from kandev_tui.sources.launch import KandevBackend, Launcher
    from kandev_tui.widgets.entries.changes_card import ChangesCard
    from kandev_tui.widgets.entries.elicitation import ElicitationCard
    from kandev_tui.widgets.entries.file_preview import FilePreview
    from kandev_tui.widgets.entries.permission import PermissionRequest
    from kandev_tui.widgets.chrome.prompt_input import PromptInput
    from kandev_tui.widgets.entries.subagent import SubagentCard
    from kandev_tui.widgets.entries.tool_call import ToolCallView
    from kandev_tui.workspace.reads import Workspace
    from kandev_tui.workspace.worktree import Worktree

log = logging.getLogger("kandev_tui.app.kandev_app")


class KandevApp(App[int]):
    """kandev-tui's app: the wiring between sessions (each a headless :class:`~kandev_tui.session.model.SessionModel`
    over its source, with its own transcript screen: :class:`~kandev_tui.app.session.AppSession`) and the screens and
    widgets that show them. Each session is a Textual mode with a screen stack of its own; one is on screen, the
    others go on streaming, storing and asking. ``session``, ``source``, ``view`` and ``transcript_screen`` are the
    one on screen's.

    The app is Textual's surface (bindings, handlers, actions): what they do is done by collaborators, each given
    the app as the small protocol of what it uses: its life (``life``), the sessions' states, closing, logins and
    choices (``switching``), the user's other actions (``actions``), the lists (``lists``), calling the user
    (``attention``) and starting sessions (``starter``)."""

    TITLE = "kandev-tui"
    DEFAULT_MODE = "session-1"  # each session is a mode (its own screen stack); the first is on screen at start
    has_home = False  # the bare kandev-tui's list is a screen of its own (kandev_tui/app/home.py)
    home: SessionsScreen | None = None  # that list
    left: AppSession | None = None  # the session on screen when ctrl+s showed that list (escape goes back to it)
    # drawn for a terminal of 16 colours (TERM=xterm): None, as the terminal says (a headless app: no); tests set it
    sixteen_colors: bool | None = None
    CSS_PATH = "../styles/app.tcss"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+c", "interrupt", "Quit", show=False, priority=True),
        Binding("f1", "help", "Help", priority=True),  # at once, however busy the transcript is
        Binding("f2", "settings", "Settings"),
        # what waits for the user before the rest: a narrow footer keeps the first keys (kandev_tui/widgets/chrome/key_footer.py)
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

    def __init__(self, source: Source | None, *, settings_store: SettingsStore | None = None,
                 registry: Registry | None = None, stats_path: Path | None = None,
                 initial_prompt: str | None = None, launcher: Launcher | None = None,
                 kandev: KandevBackend | None = None) -> None:
        self.looks = Looks(self)  # the theme, 16 colours, the charts' colours and animation (asked from __init__ on)
        super().__init__()
        self.launcher = launcher  # how the command line starts agents: ctrl+n starts more the same way
        self.kandev = kandev  # the Kandev backend attached to: its task sessions are in the list
        self.starter = SessionStarter(self)  # new sessions, and stored ones from the list
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
        self.actions = UserActions(self, quit=self.action_quit)
        self.life = Lifecycle(self, prepare_help=self.actions.prepare_help)
        self.switching = Switching(self, quit=self.action_quit, show_list=self.action_sessions)
        self.gc_policy = GcPolicy()
        if source is not None:  # else the home (HomeApp): the sessions list, none open yet
            self.open_session(source, initial_prompt)

    def open_session(self, source: Source, initial_prompt: str | None = None, *,
                     worktree: Worktree | None = None) -> AppSession:
        """A session more (the first is on screen when the app starts; the others start with it, or at once when
        the app runs already). ``worktree``: made for it, closed with it."""
        session = AppSession(self, len(self.sessions) + 1, source, initial_prompt=initial_prompt,
                             on_state=self.switching.state_changed)
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
        """The shown session's source (the tests' and the pytest plugin's; the app reads its model's status)."""
        return self.current.model.source

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

    def get_default_screen(self) -> Screen:
        return self.sessions[0].screen

    # -- what sessions ask of the app ------------------------------------------------

    def on_items_applied(self, message: ItemsApplied) -> None:  # a session's batch is in its transcript
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
            return bool(self.current.prompts.queue)
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
        await self.life.close_sources()

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
                self.life.keep_looking()

    def on_idle(self) -> None:  # Textual runs it as a batch of updates closes, which does not prompt the screen
        draw_after_batch(self)

    def keep_looking(self) -> None:
        self.life.keep_looking()

    def on_transcript_view_older_wanted(self, event: TranscriptView.OlderWanted) -> None:
        session = next((s for s in self.sessions if s.view is event.view), None)
        if session is not None:
            self.run_worker(session.load_older(), name=f"older-{session.number}", group=f"older-{session.number}",
                            exclusive=True)

    # -- how it looks (kandev_tui/app/looks.py) ---------------------------------------------------

    def get_css_variables(self) -> dict[str, str]:
        return self.looks.css_variables(super().get_css_variables())

    def watch_theme(self, theme: str) -> None:
        for session in self.sessions:
            self.call_after_refresh(session.view.refresh_theme)

    def on_app_focus(self, event: events.AppFocus) -> None:
        if self.sessions:  # charts that came into view while the terminal was in the background are plotted now
            self.call_after_refresh(self.view.check_charts)
        self.attention.back_in_view()

    # -- the app's life (kandev_tui/app/lifecycle.py) ----------------------------------------

    def on_load(self) -> None:
        """Before the driver starts: Textual mended where kandev-tui needs it (alt+enter read as alt+enter; nothing
        that left the screen stays on the terminal), when an app runs, not when one is made (a user's pytest that
        imports kandev_tui.testing is left alone)."""
        mend_textual()

    def on_mount(self) -> None:
        self.life.mount()
        self.looks.apply_settings()
        self.life.start()

    async def on_unmount(self) -> None:
        await self.life.unmount()

    async def action_quit(self) -> None:
        await self.life.quit()

    def finish(self) -> None:
        self.life.finish()

    async def action_interrupt(self) -> None:
        await self.actions.interrupt()

    def on_transcript_screen_back_to_list(self, event: TranscriptScreen.BackToList) -> None:
        self.life.back_to_list()

    # -- sessions (kandev_tui/app/switching.py, lists.py, starting.py) -------------------------

    def on_resize(self, event: events.Resize) -> None:
        if len(self.sessions) > 1:  # once the app has its new size (its own handler, after this one, takes it)
            self.call_after_refresh(self.lists.show)

    def action_toggle_sidebar(self) -> None:
        self.lists.toggle_sidebar()

    def action_sessions(self) -> None:
        """ctrl+s: the sessions list, or the sidebar focused."""
        self.lists.open()

    def back_from_home(self) -> None:
        """escape in the home's list: the session ctrl+s was pressed in, as it was left."""
        if self.left is not None and self.current_mode == "home":
            self.lists.switch_to(self.left)

    def action_new_session(self) -> None:
        """ctrl+n: a new session from a preset."""
        self.starter.ask_new()

    def on_sessions_sidebar_picked(self, event: SessionsSidebar.Picked) -> None:
        self.lists.switch_to(self.sessions[event.number - 1])

    def action_next_waiting(self) -> None:
        """f4: the session that has waited longest for the user."""
        self.lists.next_waiting()

    async def close_current(self) -> None:
        await self.switching.close_current()

    async def action_close_session(self) -> None:
        await self.switching.close()

    def action_log_in(self, reason: str = "") -> None:
        self.switching.log_in(reason)

    def on_login_screen_chosen(self, event: LoginScreen.Chosen) -> None:
        self.switching.login_chosen(event.method_id, event.env)

    def action_choices(self) -> None:
        self.switching.choices()

    # -- the session on screen (its prompts: kandev_tui/app/session_prompts.py; the rest: actions.py) ------

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        self.current.submit(event.text)

    def on_prompt_input_recall_queued(self, event: PromptInput.RecallQueued) -> None:
        self.current.prompts.recall()

    def action_send_queued_now(self) -> None:
        self.current.prompts.send_now(self.current.last_state)

    def action_remove_queued(self) -> None:
        self.actions.remove_queued()

    def on_transcript_screen_cancel_turn(self, event: TranscriptScreen.CancelTurn) -> None:
        self.actions.cancel_turn()

    def on_permission_request_answered(self, event: PermissionRequest.Answered) -> None:
        self.actions.answer(event.key, event.option_id)

    def on_elicitation_card_answered(self, event: ElicitationCard.Answered) -> None:
        self.actions.answer(event.key, event.response)

    def on_file_preview_open_file(self, event: FilePreview.OpenFile) -> None:
        self.actions.open_file(event.path, event.repo, event.title, event.line)

    def on_tool_call_view_output_wanted(self, event: ToolCallView.OutputWanted) -> None:
        self.actions.fetch_output(event.key)

    def on_changes_card_review_wanted(self, event: ChangesCard.ReviewWanted) -> None:
        self.actions.review(event.key)

    def on_subagent_card_open_wanted(self, event: SubagentCard.OpenWanted) -> None:
        self.current.open_subagent(event.key)

    def on_subagent_card_cancel_wanted(self, event: SubagentCard.CancelWanted) -> None:
        self.actions.cancel_subagent(event.session_id)

    def action_focus_next(self) -> None:
        super().action_focus_next()
        self.actions.keys_moved_focus()

    def action_focus_previous(self) -> None:
        super().action_focus_previous()
        self.actions.keys_moved_focus()

    # -- the app's screens (kandev_tui/app/actions.py, palette.py) ------------------------------

    def action_help(self) -> None:
        self.actions.help()

    def action_settings(self) -> None:
        self.actions.settings()

    def on_settings_screen_changed(self, event: SettingsScreen.Changed) -> None:
        self.actions.change_setting(**{event.name: event.value})

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        self.actions.screenshot(filename, path)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        return commands(self, super().get_system_commands(screen), self.actions)
