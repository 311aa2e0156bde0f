"""The Textual app: one transcript screen over a source (live agent, stored session, recording)."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from textual import events, on
from textual.app import App, ScreenStackError, SystemCommand
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
from kandev_tui.screens.transcript import TranscriptScreen
from kandev_tui.settings import SettingsStore
from kandev_tui.shutdown import ENDING_GRACE, EndingSignals, ending_reason, exit_status
from kandev_tui.textual_hooks import (mount_screen_ahead, note_input_at_driver, read_alt_enter,
                                     set_terminal_title)
from kandev_tui.session import SessionState
from kandev_tui.session.changes import ChangeSet
from kandev_tui.session.controls import Control, Controls
from kandev_tui.session.model import SessionModel, SourceFactory, StateChange
from kandev_tui.transcript.database import StoreError
from kandev_tui.transcript.items import USAGE, SESSION_INFO, Item
from kandev_tui.widgets import markdown_lines
from kandev_tui.widgets.prompt_input import PromptInput
from kandev_tui.widgets.context import DrawContext
from kandev_tui.widgets.transcript_view import TranscriptView, entry_widgets

if TYPE_CHECKING:  # the screens not shown at start are imported when first shown (the first frame comes sooner)
    from kandev_tui.screens.login import LoginScreen
    from kandev_tui.screens.session_picker import SessionPickerScreen
    from kandev_tui.widgets.tool_call import ToolCallView
    from kandev_tui.widgets.file_preview import FilePreview
    from kandev_tui.widgets.permission import PermissionRequest

log = logging.getLogger("kandev_tui.app")
# what counts as the user's input: the agent's output waits a moment after each (pacing.py)
EXIT_STORE = 2  # the session database cannot be used, as the command line exits for it
INPUT_EVENTS = (events.Key, events.MouseDown, events.MouseUp, events.MouseScrollDown, events.MouseScrollUp)


class KandevApp(App[int]):
    """kandev-tui's app: the wiring between a headless :class:`~kandev_tui.session.model.SessionModel` (made over the
    source ``source_factory(on_items, on_state)`` makes) and the screens and widgets that show it."""

    TITLE = "kandev-tui"
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
    ]

    def __init__(self, source_factory: SourceFactory, *, settings_store: SettingsStore | None = None,
                 registry: Registry | None = None, stats_path: Path | None = None,
                 initial_prompt: str | None = None) -> None:
        super().__init__()
        read_alt_enter()  # alt+enter from a real terminal is alt+enter (a new line), not enter (send)
        self.initial_prompt = initial_prompt
        self.settings_store = settings_store or SettingsStore()
        self.registry = registry or Registry.from_entry_points(now=False)  # read after the first frame
        if not self.settings_store.settings.edits_inline:  # edits fold into the tool group, as other calls do
            self.registry = self.registry.without("edit")
        self.stats_path = stats_path
        # the session, headless: its source, the batches on their way, the transcript's entries (kandev_tui/session/)
        self.session = SessionModel(source_factory, self.registry, self.settings_store.settings.card_limit)
        self.source = self.session.source
        self.view = TranscriptView(self.session.transcript)
        self.view.draw_context = DrawContext(  # what the transcript's widgets draw with (widgets/context.py)
            series_colors=self.series_colors, should_animate=self.should_animate,
            animations_enabled=self.animations_enabled, workspace=lambda: self.workspace,
            visible=lambda: self.app_visible)
        self.transcript_screen = TranscriptScreen(self.view)
        self._animated: set[str] = set()
        self._interrupt_at = 0.0
        self._focus_prompt = False
        self._held: str | None = None  # a message sent while the agent starts: sent once it is ready (type-ahead)
        self.gc_policy = GcPolicy()
        self._workspace = None
        self._preloaded = False
        self._source_closed = False
        self.controls = Controls()  # what the agent lets the user choose (session_info): modes, models, commands
        self._login_screen: LoginScreen | None = None
        self._last_state = SessionState.STARTING
        self._title_set = False  # the terminal's title was set to call the user (attention)
        self._signals: EndingSignals | None = None  # taken while mounted
        self._picker: SessionPickerScreen | None = None  # the list of sessions, while one is to be picked

    @property
    def exit_code(self) -> int:
        """What the command exits with when the user quits: 1 once the session failed."""
        return self.session.exit_code

    @property
    def failure(self) -> str:
        """Why the session failed, said on stderr after the app closes (the screen is gone by then)."""
        return self.session.failure

    # -- lifecycle -------------------------------------------------------------

    def get_default_screen(self) -> Screen:
        return self.transcript_screen

    def on_mount(self) -> None:
        note_input_at_driver(self, INPUT_EVENTS, USER.note)
        # a hang-up, a kill or SIGINT from outside quits as ctrl+q does (kandev_tui/shutdown.py)
        self._signals = EndingSignals(asyncio.get_running_loop(), self._end_for_signal)
        self._signals.install()
        self.session.attach(self, asyncio.get_running_loop())
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
        self.transcript_screen.status.agent = self.source.agent_name
        self.transcript_screen.status.title = self.source.title
        # a session that will take prompts takes typing from the first frame (type-ahead while the agent starts)
        self.transcript_screen.set_prompt_enabled(self.source.can_prompt, "starting…")
        self.set_interval(1.0, self._collect_garbage_when_quiet)
        if self.source.can_pick_session and not self.source.session_id:  # no session named: pick one
            from kandev_tui.screens.session_picker import SessionPickerScreen

            self._picker = SessionPickerScreen(self.source)
            self.push_screen(self._picker, self._picked)
            return
        # the first frame comes first: starting an agent imports the ACP SDK (over a second, in a thread that
        # still competes with the event loop for the interpreter)
        self.call_after_refresh(self._run_source)

    def _run_source(self) -> None:
        self.run_worker(self._start_source(), name="source", exclusive=True, group="source")
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
        if not session_id:
            if self._picker is not None and self._picker.failure:  # quit with no list to pick from: it failed
                self.session.fail(self._picker.failure)
            self.finish()
            return
        self.source.session_id = session_id
        self._focus_prompt = True  # when it takes prompts: typing goes there, as on a fresh start
        self.transcript_screen.back_to_list = self.source.can_pick_again
        self.transcript_screen.refresh_bindings()
        self._run_source()

    def on_transcript_screen_back_to_list(self, event: TranscriptScreen.BackToList) -> None:
        """Escape in a session picked from the list: the list again (the session left as it was stored)."""
        from kandev_tui.screens.session_picker import SessionPickerScreen

        self.transcript_screen.back_to_list = False
        self.reset_transcript([])
        self.source.session_id = None
        self._picker = SessionPickerScreen(self.source)
        self.push_screen(self._picker, self._picked)

    async def _start_source(self) -> None:
        try:
            await self.source.start()
        except StoreError as exc:  # the session database cannot be read (damaged): nothing to show; said once the
            log.info("store: %s", exc)  # screen is gone, as the command line says it
            self.session.fail(str(exc), EXIT_STORE)
            self.exit(EXIT_STORE, return_code=EXIT_STORE)
            return
        except Exception as exc:  # noqa: BLE001 - never a traceback on screen
            log.exception("source failed")
            self.session.receive_state(SessionState.ERROR, f"{type(exc).__name__}: {exc}")
            return
        self.gc_policy.start()  # full collections wait for quiet moments (kandev_tui/gcpolicy.py)
        if self.initial_prompt and self.source.can_prompt and self.source.state == SessionState.IDLE:
            self.run_worker(self._send(self.initial_prompt), name="turn", group="turn")

    def _collect_garbage_when_quiet(self) -> None:
        self.gc_policy.tick(max(USER.at, self.session.batch.received_at))

    async def on_unmount(self) -> None:
        """The app is ending, however it ends (a quit, a crash, a test's end, a browser gone): nothing more is put on
        screen and the source is closed (the agent stops, its thread ends), if a quit has not closed it already."""
        self.session.detach()
        self.gc_policy.stop()
        await self._close_source()
        if self._signals is not None:
            self._signals.uninstall()

    async def action_quit(self) -> None:
        await self._close_source()
        self.finish()

    def _end_for_signal(self, signum: int) -> None:
        """SIGHUP, SIGTERM or SIGINT: what ctrl+q does (the source closed: the agents stop, what came is stored, the
        session marked), then the app ends and gives the terminal back; the process exits as one ended by the
        signal (128 + its number). Should closing hang, the process ends anyway once the grace is over."""
        log.warning("ending: %s", ending_reason(signum))
        if self._signals is not None:
            self._signals.end_within(ENDING_GRACE)
        self.run_worker(self._end_for(signum), name="ending", group="ending", exclusive=True)

    async def _end_for(self, signum: int) -> None:
        await self._close_source(ending_reason(signum))
        self.exit(exit_status(signum), return_code=exit_status(signum))

    def finish(self) -> None:
        """Exit with :attr:`exit_code`, as the process's status too (Textual's return code; a crash makes it 1)."""
        self.exit(self.exit_code, return_code=self.exit_code)

    @on(ExitApp)
    async def _close_on_exit(self) -> None:
        """However the app is asked to exit (a quit key, or a browser that went away under ``kandev-tui serve``,
        whose web driver posts ExitApp), the source is closed first: the store has everything, the agent stops."""
        await self._close_source()

    async def _close_source(self, reason: str = "") -> None:
        if self._source_closed:
            return
        self._source_closed = True
        try:
            await self.session.close(reason)
        except Exception:  # noqa: BLE001
            log.exception("closing the source failed")
        if self.stats_path is not None:
            stats.write(self.stats_path)

    async def action_interrupt(self) -> None:
        now = time.monotonic()
        if now - self._interrupt_at < 2.0:
            await self.action_quit()
            return
        self._interrupt_at = now
        self.notify("Press ctrl+c again to quit (ctrl+q quits at once).", timeout=2)

    # -- what the session model asks of its UI (kandev_tui/session/model.py: SessionUI) -----------------

    class ItemsApplied(Message):
        """A batch of items is in the transcript (their widgets placed; a test's or a tool's signal to look)."""

        def __init__(self, keys: list[str]) -> None:
            super().__init__()
            self.keys = keys

    def apply_changes(self, changes: ChangeSet) -> None:
        self.view.apply(changes)
        self._show_status_items(changes.status)
        self.post_message(self.ItemsApplied(changes.keys))

    def reset_transcript(self, items: list[Item]) -> None:
        """Every item again, in order (older history arrived under attach)."""
        self._show_status_items(self.view.reset(items, more_at_source=self.source.more_above).status)
        self.transcript_screen.status.title = self.source.title
        self.call_after_refresh(self._fill_screen)

    def holding(self) -> float:
        return USER.holding()

    def covered(self) -> bool:
        try:
            return self.screen is not self.transcript_screen
        except ScreenStackError:  # the app is closing: nothing is shown any more
            return True

    def settling(self) -> bool:
        return self.view.settling

    def notice(self, text: str) -> None:
        self.notify(visible(text), severity="warning", markup=False)

    def show_state(self, change: StateChange) -> None:
        """The status line, the prompt box and the footer follow the session's state."""
        screen = self.transcript_screen
        log.info("state %s (%s)", change.state, change.detail)
        screen.status.state = change.state
        screen.status.title = self.source.title
        screen.status.agent = self.source.agent_name
        self._show_login(change)
        self._call_attention(change.state)
        self.refresh_bindings()  # ctrl+l and ctrl+o are offered as the state allows
        if change.state == SessionState.ERROR:
            self.notify(visible(change.detail or "error"), title="The agent stopped", severity="error", timeout=10,
                        markup=False)
        prompt = change.prompt
        screen.set_prompt_enabled(prompt.enabled, visible(prompt.reason), prompt.read_only)
        self._send_held(change.state, prompt.read_only)
        screen.set_turn_running(change.turn_running)
        if prompt.enabled and (self.focused is None or self._focus_prompt or isinstance(self.focused, TranscriptView)
                               or self.view.is_request(self.focused)):
            # the session takes prompts (again): typing goes to the prompt, unless the user is busy elsewhere (a
            # chart, a group); the transcript itself only has focus because the disabled prompt lost it
            self._focus_prompt = False
            screen.prompt.focus()
        self.view.set_permissions_answerable(change.answerable, visible(change.elsewhere))
        if change.more_above != self.view.more_at_source:
            self.view.set_more_at_source(change.more_above)
            self.call_after_refresh(self._fill_screen)

    def _show_status_items(self, items: list[Item]) -> None:
        """Items that are not in the flow: the session's usage, title and choices, for the status line (and the
        prompt's slash commands, the picker's choices)."""
        status = self.transcript_screen.status
        for item in items:
            if item.kind == USAGE:
                status.usage = dict(item.payload)
            elif item.kind == SESSION_INFO:
                if item.payload.get("title"):
                    status.title = str(item.payload["title"])
                self.controls = Controls(item.payload)
                status.choices = self.controls.summary()
                self.transcript_screen.prompt.commands = self.controls.commands
                self.refresh_bindings()

    # -- logging in ------------------------------------------------------------------

    def _show_login(self, change: StateChange) -> None:
        """The login screen while the agent waits for a login (with why the last try failed), gone once it does
        not."""
        screen = self._login_screen
        if change.state != SessionState.LOGIN:
            if screen is not None and change.state != SessionState.STARTING:
                self._login_screen = None
                if screen.is_current:
                    screen.dismiss()
            return
        if screen is not None and screen.is_attached:
            screen.say(change.detail)
            return
        self.action_log_in(change.detail)

    def action_log_in(self, reason: str = "") -> None:
        from kandev_tui.screens.login import LoginScreen

        if self.source.state != SessionState.LOGIN or isinstance(self.screen, LoginScreen):
            return
        self._login_screen = LoginScreen(self.source.agent_name, reason or "The agent needs a login.",
                                         self.source.login_methods, self._terminal_command)
        self.push_screen(self._login_screen)

    def _terminal_command(self, method_id: Any) -> list[str] | None:
        found = self.source.terminal_login(method_id) if isinstance(method_id, str) else None
        return found[0] if found else None

    def on_login_screen_chosen(self, event: LoginScreen.Chosen) -> None:
        self.run_worker(self._log_in(event.method_id, event.env), name="login", group="login", exclusive=True)

    async def _log_in(self, method_id: str, env: dict[str, str]) -> None:
        terminal = self.source.terminal_login(method_id)
        if terminal is not None:
            problem = self._run_in_terminal(*terminal)
            if problem:
                if self._login_screen is not None:
                    self._login_screen.say(problem)
                return
        try:
            await self.session.log_in(method_id, env)
        except Exception as exc:  # noqa: BLE001 - the agent's reason, on the screen
            if self._login_screen is not None:
                self._login_screen.say(f"{visible(str(exc))}: choose a way again, or escape")

    def _run_in_terminal(self, command: list[str], env: dict[str, str]) -> str:
        """Run a login command in the user's terminal, the app stepped aside (``App.suspend``); what went wrong,
        or "" when it ended well. Ctrl+C ends the command, not kandev-tui."""
        import signal
        import subprocess

        from textual.app import SuspendNotSupported

        def child() -> None:  # the command gets ctrl+c as usual (this process ignores it meanwhile)
            signal.signal(signal.SIGINT, signal.SIG_DFL)

        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            with self.suspend():
                print(f"kandev-tui: logging in: {' '.join(command)}\n(kandev-tui comes back when it ends)\n",
                      flush=True)
                code = subprocess.run(command, env=env, preexec_fn=child, cwd=str(self.source.workspace or ".")).returncode
        except SuspendNotSupported:
            return f"this terminal cannot be handed over here: run `{' '.join(command)}` yourself, then ctrl+l"
        except OSError as exc:
            return f"the login command could not run: {exc.strerror or exc}"
        finally:
            signal.signal(signal.SIGINT, previous)
        if code != 0:
            return f"the login command ended with status {code}{' (interrupted)' if code < 0 else ''}: choose again"
        return ""

    # -- choices -------------------------------------------------------------------------

    def action_choices(self) -> None:
        from kandev_tui.screens.choices import ChoicesScreen

        if not (self.controls and self.source.can_prompt) or isinstance(self.screen, ChoicesScreen):
            return
        self.push_screen(ChoicesScreen(self.source.agent_name, self.controls), self._chosen)

    def _chosen(self, chosen: tuple[Control, str] | None) -> None:
        if chosen is not None:
            self.run_worker(self._choose(*chosen), name="choose", group="choose")

    async def _choose(self, control: Control, value: str) -> None:
        method, params = control.request(value)
        try:
            await self.session.choose(method, params)
        except Exception as exc:  # noqa: BLE001 - the agent refused: its reason, and the old choice stays
            self.notify(visible(str(exc)), title=f"{control.name} not changed", severity="warning", markup=False)
            return
        if control.category in ("mode", "model") and self.source.agent_command:  # its next sessions start so
            self.settings_store.remember_agent_choice(self.source.agent_command, control.category, value)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choices":  # offered when the agent offers choices and can take one (not a stored session)
            return bool(self.controls) and self.source.can_prompt
        if action == "log_in":
            return self.source.state == SessionState.LOGIN
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
        self.run_worker(self._load_older(), name="older", group="older", exclusive=True)

    async def _load_older(self) -> None:
        loaded = await self.source.load_older()
        if not loaded:
            self.view.set_more_at_source(self.source.more_above)

    def _fill_screen(self) -> None:
        """History shorter than the screen cannot be scrolled up: ask for the next page at once."""
        if self.view.more_at_source and self.view.lo == 0 and self.view.max_scroll_y <= 1:
            self.view.ask_for_older()

    # -- user actions ------------------------------------------------------------

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        log.info("prompt submitted (%d characters)", len(event.text))
        self.view.jump_to_latest()
        if self.source.state in (SessionState.STARTING, SessionState.LOGIN) or self._held is not None:
            # the agent is not ready: the message waits for it (a second one joins it), and is sent when it is
            self._held = event.text if self._held is None else f"{self._held}\n\n{event.text}"
            self.transcript_screen.prompt.set_reason("starting the agent… · your message is sent once it is ready")
            return
        self.run_worker(self._send(event.text), name="turn", group="turn")

    def _send_held(self, state: str, read_only: bool) -> None:
        """The message held while the agent started: sent once the session is idle; given back to the prompt box
        (never lost) when the session ends or fails before."""
        if self._held is None:
            return
        if state == SessionState.IDLE:
            text, self._held = self._held, None
            self.run_worker(self._send(text), name="turn", group="turn")
        elif read_only or state in (SessionState.ERROR, SessionState.ENDED):
            text, self._held = self._held, None
            prompt = self.transcript_screen.prompt
            prompt.text = text + (f"\n\n{prompt.text}" if prompt.text.strip() else "")
            self.notify("Your message was not sent: the agent did not start. It is back in the prompt box.",
                        title="Not sent", severity="warning", markup=False)
        elif state == SessionState.STARTING:
            self.transcript_screen.prompt.set_reason("starting the agent… · your message is sent once it is ready")

    async def _send(self, text: str) -> None:
        try:
            await self.session.send(text)
        except Exception as exc:  # noqa: BLE001
            self.notify(visible(str(exc)), title="Not sent", severity="warning", markup=False)

    @property
    def turn_running(self) -> bool:
        return self.session.turn_running

    def cancel_turn(self) -> None:
        if self.turn_running:
            self.run_worker(self.session.cancel(), name="cancel", group="cancel")

    def answer_permission(self, key: str, option_id: str) -> None:
        if not self.session.answer(key, option_id):
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
        if self.turn_running:
            yield SystemCommand("Cancel the running turn", "Send session/cancel to the agent (escape)", self.cancel_turn)
        if self.controls and self.source.can_prompt:
            yield SystemCommand("Mode and model", f"Choose the agent's mode, model and options ({self.controls.summary()})",
                                self.action_choices)
        if self.source.state == SessionState.LOGIN:
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
            self.session.set_card_limit(settings.card_limit)

    def get_css_variables(self) -> dict[str, str]:
        variables = super().get_css_variables()
        if self.has_class("-colors-16") and not self.current_theme.dark:
            # rounded to 16 colours, a light theme's faint text (muted, disabled: a light grey) became the white it
            # is drawn on; a darker grey rounds to grey
            variables.update({"text-muted": "auto 70%", "text-disabled": "auto 60%"})
        return variables

    def watch_theme(self, theme: str) -> None:
        if self.is_mounted:
            self.call_after_refresh(self.view.refresh_theme)

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
        if self._title_set:  # back from elsewhere: the title no longer calls
            set_terminal_title(self, f"kandev-tui · {visible(self.source.title, keep_newlines=False)}")

    # -- attention: the user is elsewhere when the agent needs them -----------------------------------

    def _call_attention(self, state: SessionState) -> None:
        """When a request waits for the user, the agent needs a login, or a turn ends, while the terminal is not in
        view (Textual's app focus: the terminal reports it, as tmux does with ``focus-events on``): ring the bell
        and say it in the terminal's title, as the settings allow."""
        previous, self._last_state = self._last_state, state
        turn_ended = previous in (SessionState.RUNNING, SessionState.WAITING, SessionState.CANCELLING) and state in (
            SessionState.IDLE, SessionState.ENDED, SessionState.ERROR)
        what = {SessionState.WAITING: "waiting for you", SessionState.LOGIN: "needs a login"}.get(state)
        if turn_ended:
            what = "turn ended" if state == SessionState.IDLE else "the agent stopped"
        if what is None or self.app_focus or state == previous:
            return
        settings = self.settings_store.settings
        if settings.attention_bell:
            self.bell()
        if settings.attention_title:
            self._title_set = set_terminal_title(
                self, f"kandev-tui: {what} · {visible(self.source.title, keep_newlines=False)}")

    @property
    def workspace(self):
        if self._workspace is None and self.source.workspace is not None:
            from kandev_tui.workspace import Workspace

            self._workspace = Workspace(self.source.workspace, self.source.repos)
        return self._workspace


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
