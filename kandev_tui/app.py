"""The Textual app: sessions (a live agent, a stored session, a recording, a Kandev task), each with its transcript
screen, one on screen at a time."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.color import Color
from textual.message import Message
from textual.messages import ExitApp
from textual.screen import Screen

from kandev_tui import stats
from kandev_tui.gcpolicy import GcPolicy
from kandev_tui.pacing import USER
from kandev_tui.renderers import Registry
from kandev_tui.sanitize import visible
from kandev_tui.app_attention import Attention
from kandev_tui.app_lists import SessionLists
from kandev_tui.app_session import AppSession
from kandev_tui.app_starting import SessionStarter
from kandev_tui.screens.transcript import TranscriptScreen
from kandev_tui.settings import SettingsStore
from kandev_tui.shutdown import ENDING_GRACE, EndingSignals, ending_reason, exit_status
from kandev_tui.textual_hooks import mount_screen_ahead, note_input_at_driver, read_alt_enter
from kandev_tui.session import SessionState
from kandev_tui.session.controls import Control, Controls
from kandev_tui.session.model import SessionModel, SourceFactory, StateChange
from kandev_tui.widgets import markdown_lines
from kandev_tui.widgets.prompt_input import PromptInput
from kandev_tui.widgets.sessions_sidebar import SIDEBAR_FROM, SessionsSidebar
from kandev_tui.widgets.transcript_view import TranscriptView, entry_widgets

if TYPE_CHECKING:  # the screens not shown at start are imported when first shown (the first frame comes sooner)
    from kandev_tui.launch import KandevBackend, Launcher
    from kandev_tui.worktree import Worktree
    from kandev_tui.screens.login import LoginScreen
    from kandev_tui.screens.session_picker import SessionPickerScreen
    from kandev_tui.widgets.tool_call import ToolCallView
    from kandev_tui.widgets.file_preview import FilePreview
    from kandev_tui.widgets.elicitation import ElicitationCard
    from kandev_tui.widgets.changes_card import ChangesCard
    from kandev_tui.widgets.subagent import SubagentCard
    from kandev_tui.widgets.permission import PermissionRequest

log = logging.getLogger("kandev_tui.app")
# what counts as the user's input: the agent's output waits a moment after each (pacing.py)
# how long the agents wait for the first frame at most before they start (see on_mount)
FIRST_FRAME_WAIT = 0.5
INPUT_EVENTS = (events.Key, events.MouseDown, events.MouseUp, events.MouseScrollDown, events.MouseScrollUp)


class KandevApp(App[int]):
    """kandev-tui's app: the wiring between sessions (each a headless :class:`~kandev_tui.session.model.SessionModel`
    over its source, with its own transcript screen: :class:`~kandev_tui.app_session.AppSession`) and the screens and
    widgets that show them. Each session is a Textual mode with a screen stack of its own; one is on screen, the
    others go on streaming, storing and asking. ``session``, ``source``, ``view`` and ``transcript_screen`` are the
    one on screen's."""

    TITLE = "kandev-tui"
    DEFAULT_MODE = "session-1"  # each session is a mode (its own screen stack); the first is on screen at start
    has_home = False  # the bare kandev-tui's list is a screen of its own (kandev_tui/app_home.py)
    # drawn for a terminal of 16 colours (TERM=xterm): None, as the terminal says (a headless app: no); tests set it
    sixteen_colors: bool | None = None
    CSS_PATH = "styles/app.tcss"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+c", "interrupt", "Quit", show=False, priority=True),
        Binding("f1", "help", "Help", priority=True),  # at once, however busy the transcript is
        Binding("f2", "settings", "Settings"),
        Binding("ctrl+o", "choices", "Mode"),  # the agent's modes and models (shown when it offers any)
        Binding("ctrl+l", "log_in", "Log in"),  # shown while the agent waits for a login
        Binding("ctrl+s", "sessions", "Sessions"),  # shown when there are several
        Binding("ctrl+g", "next_waiting", "Next waiting", priority=True),  # shown when another session waits
        Binding("ctrl+w", "close_session", "Close session", show=False, priority=True),  # with several
        Binding("ctrl+n", "new_session", "New session", show=False),  # a preset, a folder, maybe a worktree
        Binding("ctrl+r", "send_queued_now", "Send queued now"),  # shown while messages are queued
        Binding("ctrl+t", "remove_queued", "Unqueue"),
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
        read_alt_enter()  # alt+enter from a real terminal is alt+enter (a new line), not enter (send)
        self.settings_store = settings_store or SettingsStore()
        self.registry = registry or Registry.from_entry_points(now=False)  # read after the first frame
        if not self.settings_store.settings.edits_inline:  # edits fold into the tool group, as other calls do
            self.registry = self.registry.without("edit")
        self.stats_path = stats_path
        self.sessions: list[AppSession] = []
        self.lists = SessionLists(self)  # the sessions list, the sidebar, switching (kandev_tui/app_lists.py)
        self.attention = Attention(self)  # the bell, the title, the desktop (kandev_tui/app_attention.py)
        if source_factory is not None:  # else the home (HomeApp): the sessions list, none open yet
            self.open_session(source_factory, initial_prompt)
        self._animated: set[str] = set()
        self._interrupt_at = 0.0
        self._close_at = 0.0
        self.gc_policy = GcPolicy()
        self._preloaded = False
        self._sources_closed = False
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
    def workspace(self):
        return self.current.workspace

    @property
    def exit_code(self) -> int:
        """What the command exits with when the user quits: 1 once a session failed (2: the store is damaged)."""
        return next((s.model.exit_code for s in self.sessions if s.model.exit_code), 0)

    @property
    def failure(self) -> str:
        """Why a session failed, said on stderr after the app closes (the screen is gone by then)."""
        for s in self.sessions:
            if s.model.failure:
                return s.model.failure if len(self.sessions) == 1 else f"session {s.number}: {s.model.failure}"
        return ""

    def closing_notes(self) -> list[str]:
        """What closing did with the sessions' worktrees (removed, or kept and where): said on stderr at the end."""
        return [f"session {s.number}: {s.closing_note}" for s in self.sessions if s.closing_note]

    def unsent(self) -> list[tuple[int, str]]:
        """The messages the user sent that never reached an agent (queued, or typed ahead of its start), by session:
        said on stderr once the app has closed, so that nothing typed is lost."""
        return [(s.number, text) for s in self.sessions for text in ([s.held] if s.held else []) + s.queue]

    # -- lifecycle -------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        return self.sessions[0].screen

    def on_mount(self) -> None:
        note_input_at_driver(self, INPUT_EVENTS, USER.note)
        # a hang-up, a kill or SIGINT from outside quits as ctrl+q does (kandev_tui/shutdown.py)
        self._signals = EndingSignals(asyncio.get_running_loop(), self._end_for_signal)
        self._signals.install()
        for session in self.sessions:
            session.attach(asyncio.get_running_loop())
        theme = self.settings_store.settings.theme
        self.theme = theme if theme in self.available_themes else "textual-dark"
        if theme not in self.available_themes:
            self.notify(f"The theme {theme!r} (settings) is not one kandev-tui has: textual-dark is used. Themes: "
                        f"{', '.join(sorted(self.available_themes))}.", severity="warning", timeout=10, markup=False)
        # a terminal of 16 colours: borders that stay visible once rounded to them (styles/app.tcss)
        sixteen = self.sixteen_colors
        if sixteen is None:
            sixteen = not self.is_headless and self.console.color_system in ("standard", "windows")
        self.set_class(sixteen, "-colors-16")
        if sixteen and not self.current_theme.dark:
            self.refresh_css(animate=False)  # the faint text of a light theme, as get_css_variables gives it there
        for warning in self.settings_store.warnings:
            self.notify(warning, severity="warning", timeout=8, markup=False)
        self.set_interval(1.0, self._collect_garbage_when_quiet)
        if len(self.sessions) > 1:  # the others said in the status line, the sidebar shown where there is room
            self.call_after_refresh(self.lists.show)
        self.set_interval(1.0, self.lists.refresh)
        if not self.sessions:  # the home: nothing starts until the user opens a session
            return
        first = self.sessions[0]
        if first.source.can_pick_session and not first.source.session_id:  # no session named: pick one
            from kandev_tui.screens.session_picker import SessionPickerScreen

            self._picker = SessionPickerScreen(first.source)
            self.push_screen(self._picker, self._picked)
            return
        # the first frame comes first: starting an agent imports the ACP SDK (over a second, in a thread that
        # still competes with the event loop for the interpreter). A screen shown before that frame (F1 or ctrl+s
        # pressed at once) holds the callback until the session's screen is back on top (Textual runs a screen's
        # after-refresh callbacks when it refreshes): the timer starts the agents anyway
        self.call_after_refresh(self._run_sources)
        self.set_timer(FIRST_FRAME_WAIT, self._run_sources)

    def _run_sources(self) -> None:
        """Each session not started yet starts (once: opened from the list meanwhile, it started already)."""
        for session in self.sessions:
            if session.started:
                continue
            session.start()
            if not session.on_screen:  # the first switch to it only draws it, after the first frame
                self.call_after_refresh(mount_screen_ahead, self, session.mode)
        if not self._preloaded:  # after the first frame, in a thread: the Markdown of the agent's first message
            self._preloaded = True  # is not drawn behind the imports it needs (60 ms, in the middle of its output)
            self.run_worker(self._preload, name="preload", thread=True, group="preload")
            self.call_after_refresh(self._prepare_help)  # and the help is ready before the first F1

    def _preload(self) -> None:
        """In a thread, after the first frame: what the agent's output will need, so that none of it is imported on
        the UI's thread in the middle of that output: the transcript's widgets, the renderer packs (their entry
        points, their widgets; the packs that failed are said then), the Markdown of its messages and the rich-output
        card with plotext (together 100-150 ms of imports that the first chart of a stream otherwise waited for)."""
        entry_widgets()
        self.registry.discover()
        if self.registry.errors:
            try:
                self.call_from_thread(self._say_renderer_errors)
            except RuntimeError:  # the app closed meanwhile: nobody to tell (the log has them)
                return
        markdown_lines.preload()
        from kandev_tui.charts import preload as preload_charts
        from kandev_tui.widgets import presentation_card  # noqa: F401 - imported for what it imports

        preload_charts()

    def _say_renderer_errors(self) -> None:
        for warning in self.registry.errors:
            self.notify(warning, severity="warning", timeout=8, markup=False)

    def _picked(self, session_id: str | None) -> None:
        first = self.sessions[0]
        if not session_id:
            if self._picker is not None and self._picker.failure:  # quit with no list to pick from: it failed
                first.model.fail(self._picker.failure)
            self.finish()
            return
        first.model.pick(session_id)
        first.focus_prompt = True  # when it takes prompts: typing goes there, as on a fresh start
        first.screen.back_to_list = first.source.can_pick_again
        first.screen.refresh_bindings()
        self._run_sources()

    def on_transcript_screen_back_to_list(self, event: TranscriptScreen.BackToList) -> None:
        """Escape in a session picked from the list: the list again (the session left as it was stored)."""
        from kandev_tui.screens.session_picker import SessionPickerScreen

        first = self.sessions[0]
        first.screen.back_to_list = False
        first.reset_transcript([])
        first.model.pick(None)
        first.started = False  # the one picked next starts
        self._picker = SessionPickerScreen(first.source)
        self.push_screen(self._picker, self._picked)

    def _collect_garbage_when_quiet(self) -> None:
        self.gc_policy.tick(max([USER.at, *(s.model.batch.received_at for s in self.sessions)]))  # none: the home

    async def on_unmount(self) -> None:
        """The app is ending, however it ends (a quit, a crash, a test's end, a browser gone): nothing more is put on
        screen and every source is closed (the agents stop, their threads end), if a quit has not closed them."""
        for session in self.sessions:
            session.detach()
        self.gc_policy.stop()
        await self._close_sources()
        if self._signals is not None:
            self._signals.uninstall()

    async def action_quit(self) -> None:
        await self._close_sources()
        self.finish()

    def _end_for_signal(self, signum: int) -> None:
        """SIGHUP, SIGTERM or SIGINT: what ctrl+q does (the sources closed: the agents stop, what came is stored, the
        sessions marked), then the app ends and gives the terminal back; the process exits as one ended by the
        signal (128 + its number). Should closing hang, the process ends anyway once the grace is over."""
        log.warning("ending: %s", ending_reason(signum))
        if self._signals is not None:
            self._signals.end_within(ENDING_GRACE)
        self.run_worker(self._end_for(signum), name="ending", group="ending", exclusive=True)

    async def _end_for(self, signum: int) -> None:
        await self._close_sources(ending_reason(signum))
        self.exit(exit_status(signum), return_code=exit_status(signum))

    def finish(self) -> None:
        """Exit with :attr:`exit_code`, as the process's status too (Textual's return code; a crash makes it 1)."""
        self.exit(self.exit_code, return_code=self.exit_code)

    @on(ExitApp)
    async def _close_on_exit(self) -> None:
        """However the app is asked to exit (a quit key, or a browser that went away under ``kandev-tui serve``,
        whose web driver posts ExitApp), the sources are closed first: the store has everything, the agents stop."""
        await self._close_sources()

    async def _close_sources(self, reason: str = "") -> None:
        """Every session closed at once (each agent's process group ended; its grace runs beside the others')."""
        if self._sources_closed:
            return
        self._sources_closed = True
        await asyncio.gather(*(session.close(reason) for session in self.sessions))
        if self.stats_path is not None:
            stats.write(self.stats_path)

    async def action_interrupt(self) -> None:
        now = time.monotonic()
        if now - self._interrupt_at < 2.0:
            await self.action_quit()
            return
        self._interrupt_at = now
        self.notify("Press ctrl+c again to quit (ctrl+q quits at once).", timeout=2)

    # -- several sessions --------------------------------------------------------------

    def _session_state(self, session: AppSession, change: StateChange, previous: SessionState) -> None:
        """A session's state changed (it shows it itself): the footer, the failure notice, the user called."""
        if session.on_screen:
            self.refresh_bindings()  # ctrl+l and ctrl+o are offered as the state allows
        if change.state == SessionState.ERROR:
            title = "The agent stopped" if len(self.sessions) == 1 else f"Session {session.number} stopped"
            self.notify(visible(change.detail or "error"), title=title, severity="error", timeout=10, markup=False)
        self.attention.state_changed(session, previous, change.state)
        self.lists.show()

    def on_resize(self, event: events.Resize) -> None:
        if len(self.sessions) > 1:  # once the app has its new size (its own handler, after this one, takes it)
            self.call_after_refresh(self.lists.show)

    def action_toggle_sidebar(self) -> None:
        self.lists.toggle_sidebar()

    def action_sessions(self) -> None:
        """ctrl+s: the sessions list, or the sidebar focused (kandev_tui/app_lists.py)."""
        self.lists.open()

    def from_sessions_list(self, choice: tuple[str, Any] | None) -> None:
        """What the sessions list chose (kandev_tui/app_starting.py)."""
        self.starter.from_list(choice)

    def action_new_session(self) -> None:
        """ctrl+n: a new session from a preset (kandev_tui/app_starting.py)."""
        self.starter.ask_new()

    def on_sessions_sidebar_picked(self, event: SessionsSidebar.Picked) -> None:
        self.lists.switch_to(self.sessions[event.number - 1])

    def action_next_waiting(self) -> None:
        """ctrl+g: the session that has waited longest for the user (kandev_tui/app_lists.py)."""
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

    # -- what sessions ask of the app ------------------------------------------------

    class ItemsApplied(Message):
        """A batch of items is in the transcript (their widgets placed; a test's or a tool's signal to look)."""

        def __init__(self, keys: list[str]) -> None:
            super().__init__()
            self.keys = keys

    # -- logging in ------------------------------------------------------------------

    def action_log_in(self, reason: str = "") -> None:
        session = self.current
        if session.last_state == SessionState.LOGIN:
            session.show_login(SessionState.LOGIN, reason or session.detail)

    def on_login_screen_chosen(self, event: LoginScreen.Chosen) -> None:
        session = self.current
        self.run_worker(session.log_in(event.method_id, event.env), name="login", group="login", exclusive=True)

    # -- choices -------------------------------------------------------------------------

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.sessions or self.current_mode == "home":  # the home list: what needs a session on screen is not
            if action == "next_waiting":  # offered; ctrl+g still goes to one waiting for the user
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
        if action == "next_waiting":  # offered while another session waits for the user
            return any(s.waiting_since is not None and not s.on_screen for s in self.sessions)
        return True

    def post_message(self, message: Message) -> bool:
        # the terminal's input arrives here (noted at the driver already, when there is one): the agent's output
        # waits from now, not from when the key's turn in the queue comes (pacing.py)
        if isinstance(message, INPUT_EVENTS):
            USER.note()
        return super().post_message(message)

    async def on_event(self, event: events.Event) -> None:
        try:
            await super().on_event(event)
        finally:
            if isinstance(event, INPUT_EVENTS):
                USER.served()  # dispatched: the transcript's frames go on (pacing.py)

    def on_transcript_view_older_wanted(self, event: TranscriptView.OlderWanted) -> None:
        session = next((s for s in self.sessions if s.view is event.view), None)
        if session is not None:
            self.run_worker(session.load_older(), name=f"older-{session.number}", group=f"older-{session.number}",
                            exclusive=True)

    # -- user actions ------------------------------------------------------------

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        self.current.submit(event.text)

    def on_prompt_input_recall_queued(self, event: PromptInput.RecallQueued) -> None:
        self.current.recall_queued()

    def action_send_queued_now(self) -> None:
        self.current.send_queued_now()

    def action_remove_queued(self) -> None:
        text = self.current.remove_queued()
        if text is not None:
            self.notify(f"Taken out of the queue: {' '.join(text.split())[:60]}", timeout=3, markup=False)

    @property
    def turn_running(self) -> bool:
        return self.session.turn_running

    def cancel_turn(self) -> None:
        if self.turn_running:
            self.run_worker(self.session.cancel(), name="cancel", group="cancel")

    def answer_permission(self, key: str, answer: Any) -> None:
        """A permission request's option, or a question's response, for the session on screen."""
        if not self.session.answer(key, answer):
            self.notify("That request is no longer waiting for an answer.", severity="warning")

    def on_file_preview_open_file(self, event: FilePreview.OpenFile) -> None:
        from kandev_tui.screens.file_viewer import FileViewerScreen

        self.push_screen(FileViewerScreen(event.path, event.repo, event.title, line=event.line,
                                          workspace=self.workspace))

    def on_tool_call_view_output_wanted(self, event: ToolCallView.OutputWanted) -> None:
        self.run_worker(self.session.fetch_output(event.key), name="fetch-output", group="fetch-output")

    def on_transcript_screen_cancel_turn(self, event: TranscriptScreen.CancelTurn) -> None:
        self.cancel_turn()

    def on_permission_request_answered(self, event: PermissionRequest.Answered) -> None:
        self.answer_permission(event.key, event.option_id)

    def on_changes_card_review_wanted(self, event: ChangesCard.ReviewWanted) -> None:
        from kandev_tui.screens.review import ReviewScreen

        item = self.view.layout_model.items.get(event.key)
        if item is not None:
            self.push_screen(ReviewScreen(item.payload, owner=self.current))

    def on_subagent_card_open_wanted(self, event: SubagentCard.OpenWanted) -> None:
        self.current.open_subagent(event.key)

    def on_subagent_card_cancel_wanted(self, event: SubagentCard.CancelWanted) -> None:
        self.run_worker(self.session.cancel_subagent(event.session_id), name="cancel-subagent", group="cancel-subagent")

    def on_elicitation_card_answered(self, event: ElicitationCard.Answered) -> None:
        self.answer_permission(event.key, event.response)

    def action_help(self) -> None:
        """F1 shows the keys, and hides them again. The screen is made once and kept: showing it again only draws it."""
        from kandev_tui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
            return
        self._prepare_help()
        self.push_screen("help")

    def _prepare_help(self) -> None:
        """Install the help screen and have it composed and mounted, not shown: the first F1 of a session (often
        while an agent is streaming) then only draws it, 40 ms sooner. Textual mounts an installed screen that is
        not running when it is first fetched for showing; this has it mounted ahead of time."""
        from kandev_tui.screens.help import HelpScreen

        if not self.is_screen_installed("help"):
            self.install_screen(HelpScreen(), "help")
        mount_screen_ahead(self, "help")

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """The palette's Screenshot: saved where it can be (the Downloads folder where there is one, else beside the
        sessions, else the temporary folder), and the notice says where (Textual only tried a Downloads folder, and
        said "Failed to save screenshot" where there is none)."""
        if path is None and not self.is_web:
            path = str(screenshot_directory())
        self.deliver_screenshot(filename, path)

    def action_settings(self) -> None:
        from kandev_tui.screens.settings import SettingsScreen

        self.push_screen(SettingsScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        # the sessions' keys have commands too: a browser (serve) keeps ctrl+n and ctrl+w for itself
        if self.launcher is not None:
            yield SystemCommand("New session", "An agent from a preset, in a folder or a new git worktree (ctrl+n)",
                                self.action_new_session)
        if self.check_action("sessions", ()):
            yield SystemCommand("Sessions", "Every session, and the stored ones (ctrl+s)", self.action_sessions)
        if self.check_action("next_waiting", ()):
            yield SystemCommand("Session waiting for you", "The one that has waited longest (ctrl+g)",
                                self.action_next_waiting)
        if not self.sessions or self.current_mode == "home":
            yield SystemCommand("Settings", "Theme, chart animation, card limit, guidance (F2)", self.action_settings)
            return
        if self.check_action("close_session", ()):
            yield SystemCommand("Close this session", "Its turn cancelled, its agent ended, everything kept stored "
                                "(ctrl+w twice)", self.close_current)
        if self.turn_running:
            yield SystemCommand("Cancel the running turn", "Send session/cancel to the agent (escape)", self.cancel_turn)
        if self.controls and self.current.status.can_prompt:
            yield SystemCommand("Mode and model", f"Choose the agent's mode, model and options ({self.controls.summary()})",
                                self.action_choices)
        if self.current.last_state == SessionState.LOGIN:
            yield SystemCommand("Log in to the agent", "The ways the agent offers (ctrl+l)", self.action_log_in)
        yield SystemCommand("Jump to the latest output", "Follow the transcript again (ctrl+end)", self.view.jump_to_latest)
        yield SystemCommand("Settings", "Theme, chart animation, card limit, guidance (F2)", self.action_settings)
        yield SystemCommand("Help: keys", "Every key kandev-tui knows (F1)", self.action_help)

    # -- settings ------------------------------------------------------------------

    def change_setting(self, **changes: Any) -> None:
        settings = self.settings_store.update(**changes)
        if "theme" in changes and settings.theme in self.available_themes:
            self.theme = settings.theme
        if "card_limit" in changes:
            for session in self.sessions:
                session.model.set_card_limit(settings.card_limit)

    def get_css_variables(self) -> dict[str, str]:
        variables = super().get_css_variables()
        if self.has_class("-colors-16") and not self.current_theme.dark:
            # rounded to 16 colours, a light theme's faint text (muted, disabled: a light grey) became the white it
            # is drawn on; a darker grey rounds to grey
            variables.update({"text-muted": "auto 70%", "text-disabled": "auto 60%"})
        return variables

    def watch_theme(self, theme: str) -> None:
        if self.is_mounted:
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
        if self.is_mounted:  # charts that came into view while the terminal was in the background are plotted now
            self.call_after_refresh(self.view.check_charts)
        self.attention.back_in_view()


def screenshot_directory() -> Path:
    """Where a screenshot can be saved: the user's Downloads folder when it exists, else ``screenshots`` beside the
    sessions (made), else the temporary folder."""
    import tempfile

    from platformdirs import user_downloads_path

    from kandev_tui.transcript.store import default_db_path
    from kandev_tui.userpaths import directory_problem

    for folder in (user_downloads_path(), default_db_path().parent / "screenshots"):
        if folder.is_dir() or folder.name == "screenshots":
            if directory_problem(folder) is None:
                try:
                    folder.mkdir(parents=True, exist_ok=True)
                    return folder
                except OSError:
                    continue
    return Path(tempfile.gettempdir())
