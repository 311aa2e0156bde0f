"""The app's life: its first frame, the sources started after it (at most FIRST_FRAME_WAIT later), what is loaded
in the background, garbage collected when quiet, the end (ctrl+q, ctrl+c twice, a signal) with every source closed
and the exit status."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol

from textual import events

from kandev_tui.app.lists import SessionLists
from kandev_tui.app.holds import HoldsSessions
from kandev_tui.app.session import AppSession
from kandev_tui.base import pacing, stats
from kandev_tui.base.shutdown import ENDING_GRACE, EndingSignals, ending_reason, exit_status
from kandev_tui.ui.textual_hooks import mount_screen_ahead, note_input_at_driver
from kandev_tui.widgets.transcript_view import entry_widgets

if TYPE_CHECKING:
    from textual.timer import Timer

    from kandev_tui.base.gcpolicy import GcPolicy
    from kandev_tui.renderers import Registry
    from kandev_tui.screens.session_picker import SessionPickerScreen
    from kandev_tui.ui.user_input import UserInput

log = logging.getLogger("kandev_tui.app.kandev_app")
# what counts as the user's input: the agent's output waits a moment after each (pacing.py)
INPUT_EVENTS = (events.Key, events.MouseDown, events.MouseUp, events.MouseScrollDown, events.MouseScrollUp)


class LifeHost(HoldsSessions, Protocol):
    """What the app's life needs of the app, beside Textual's app."""

    user_input: UserInput
    gc_policy: GcPolicy
    registry: Registry
    stats_path: Path | None

    @property
    def lists(self) -> SessionLists: ...
    @property
    def exit_code(self) -> int: ...


class Lifecycle:
    """The app from its first frame to its exit status. ``prepare_help`` has the help screen made ahead of the
    first F1, once the agents have started."""

    def __init__(self, app: LifeHost, prepare_help: Callable[[], None]) -> None:
        self.app = app
        self._prepare_help = prepare_help
        self._preloaded = False
        self._sources_closed = False
        self._signals: EndingSignals | None = None  # taken while mounted
        self._picker: SessionPickerScreen | None = None  # the list of stored sessions, while one is to be picked
        self._look: Timer | None = None  # the next look at the sessions' rows and the collector (keep_looking)

    def mount(self) -> None:
        """The app's first frame is coming: input noted at the driver, signals taken, the sessions attached and
        started after that frame (or the stored session to show picked first)."""
        app = self.app
        note_input_at_driver(app, INPUT_EVENTS, app.user_input.note)
        app.gc_policy.start()  # full collections wait for quiet moments from the first frame (base/gcpolicy.py)
        # a hang-up, a kill or SIGINT from outside quits as ctrl+q does (base/shutdown.py)
        self._signals = EndingSignals(asyncio.get_running_loop(), self._end_for_signal)
        self._signals.install()
        for session in app.sessions:
            session.attach(asyncio.get_running_loop())

    def start(self) -> None:
        """After the app's own set-up: the sessions start (the first frame first), or the home waits for the user."""
        app = self.app
        self.keep_looking()
        if len(app.sessions) > 1:  # the others said in the status line, the sidebar shown where there is room
            app.call_after_refresh(app.lists.show)
        if not app.sessions:  # the home: nothing starts until the user opens a session
            return
        first = app.sessions[0]
        if first.model.can_pick_session and not first.status.session_id:  # no session named: pick one
            self._pick(first)
            return
        # the first frame comes first: starting an agent imports the ACP SDK (over a second, in a thread that
        # still competes with the event loop for the interpreter). A screen shown before that frame (F1 or ctrl+s
        # pressed at once) holds the callback until the session's screen is back on top (Textual runs a screen's
        # after-refresh callbacks when it refreshes): the timer starts the agents anyway
        app.call_after_refresh(self.run_sources)
        app.set_timer(pacing.FIRST_FRAME_WAIT, self.run_sources)

    def _pick(self, first: AppSession) -> None:
        from kandev_tui.screens.session_picker import SessionPickerScreen

        self._picker = SessionPickerScreen(first.model)
        self.app.push_screen(self._picker, self._picked)

    def run_sources(self) -> None:
        """Each session not started yet starts (once: opened from the list meanwhile, it started already)."""
        app = self.app
        for session in app.sessions:
            if session.started:
                continue
            session.start()
            if not session.on_screen:  # the first switch to it only draws it, after the first frame
                app.call_after_refresh(mount_screen_ahead, app, session.mode)
        if not self._preloaded:  # after the first frame, in a thread: the Markdown of the agent's first message
            self._preloaded = True  # is not drawn behind the imports it needs (60 ms, in the middle of its output)
            app.run_worker(self._preload, name="preload", thread=True, group="preload")
            app.call_after_refresh(self._prepare_help)  # and the help is ready before the first F1

    def _preload(self) -> None:
        """In a thread, after the first frame: what the agent's output will need, so that none of it is imported on
        the UI's thread in the middle of that output: the transcript's widgets, the renderer packs (their entry
        points, their widgets; the packs that failed are said then), the Markdown of its messages and the rich-output
        card with plotext (together 100-150 ms of imports that the first chart of a stream otherwise waited for)."""
        entry_widgets()
        registry = self.app.registry
        registry.discover()
        if registry.errors:
            try:
                self.app.call_from_thread(self._say_renderer_errors)
            except RuntimeError:  # the app closed meanwhile: nobody to tell (the log has them)
                return
        from kandev_tui.widgets import markdown_rich  # (Rich's Markdown: not before the first frame)

        markdown_rich.preload()
        from kandev_tui.ui.charts import preload as preload_charts
        from kandev_tui.widgets.entries import presentation_card  # noqa: F401 - imported for what it imports

        preload_charts()

    def _say_renderer_errors(self) -> None:
        for warning in self.app.registry.errors:
            self.app.notify(warning, severity="warning", timeout=8, markup=False)

    def _picked(self, session_id: str | None) -> None:
        first = self.app.sessions[0]
        if not session_id:
            if self._picker is not None and self._picker.failure:  # quit with no list to pick from: it failed
                first.model.fail(self._picker.failure)
            self.finish()
            return
        first.model.pick(session_id, self._picker.chosen_title if self._picker is not None else "")
        first.focus_prompt = True  # when it takes prompts: typing goes to the prompt, as on a fresh start
        first.screen.back_to_list = first.model.can_pick_again
        first.screen.refresh_bindings()
        self.run_sources()

    def back_to_list(self) -> None:
        """Escape in a session picked from the list: the list again (the session left as it was stored)."""
        first = self.app.sessions[0]
        first.screen.back_to_list = False
        first.reset_transcript(first.model.transcript.reset([]))
        first.model.pick(None)
        first.started = False  # the one picked next starts
        self._pick(first)

    @property
    def looking(self) -> bool:
        """A look at the sessions is due (an idle app has none)."""
        return self._look is not None

    def keep_looking(self) -> None:
        """Something happened (an input, items for a session): the app looks at its sessions' rows and the collector
        in a moment (pacing.LOOK_EVERY), and again while a full collection is due. An idle app has no timer: a
        wake costs even when it finds nothing to do."""
        if self._look is None and self.app.is_running:
            self._look = self.app.set_timer(pacing.LOOK_EVERY, self.look_around, name="look")

    def look_around(self) -> None:
        """What arrived off screen, titles and costs (the rows, when they changed), and a full collection once quiet."""
        self._look = None
        app = self.app
        app.gc_policy.tick(max([app.user_input.at, *(s.model.batch.received_at for s in app.sessions)]))  # none: home
        app.lists.refresh()
        if app.gc_policy.due:  # not quiet yet
            self.keep_looking()

    async def unmount(self) -> None:
        """The app is ending, however it ends (a quit, a crash, a test's end, a browser gone): nothing more is put on
        screen and every source is closed (the agents stop, their threads end), if a quit has not closed them."""
        for session in self.app.sessions:
            session.detach()
        self.app.gc_policy.stop()
        await self.close_sources()
        if self._signals is not None:
            self._signals.uninstall()

    async def quit(self) -> None:
        await self.close_sources()
        self.finish()

    def _end_for_signal(self, signum: int) -> None:
        """SIGHUP, SIGTERM or SIGINT: what ctrl+q does (the sources closed: the agents stop, what came is stored, the
        sessions marked), then the app ends and gives the terminal back; the process exits as one ended by the
        signal (128 + its number). Should closing hang, the process ends anyway once the grace is over."""
        log.warning("ending: %s", ending_reason(signum))
        if self._signals is not None:
            self._signals.end_within(ENDING_GRACE)
        self.app.run_worker(self._end_for(signum), name="ending", group="ending", exclusive=True)

    async def _end_for(self, signum: int) -> None:
        await self.close_sources(ending_reason(signum))
        self.app.exit(exit_status(signum), return_code=exit_status(signum))

    def finish(self) -> None:
        """Exit with the app's exit code, as the process's status too (Textual's return code; a crash makes it 1)."""
        code = self.app.exit_code
        self.app.exit(code, return_code=code)

    async def close_sources(self, reason: str = "") -> None:
        """Every session closed at once (each agent's process group ended; its grace runs beside the others')."""
        if self._sources_closed:
            return
        self._sources_closed = True
        await asyncio.gather(*(session.close(reason) for session in self.app.sessions))
        if self.app.stats_path is not None:
            stats.write(self.app.stats_path)

    # -- what is said once the app has closed (the screen is gone by then: on stderr) -------------------------

    def failures(self) -> list[str]:
        """Why each session that failed failed."""
        sessions = self.app.sessions
        return [s.model.failure if len(sessions) == 1 else f"session {s.number}: {s.model.failure}"
                for s in sessions if s.model.failure]

    def closing_notes(self) -> list[str]:
        """What closing did with the sessions' worktrees (removed, or kept and where)."""
        return [f"session {s.number}: {s.closing_note}" for s in self.app.sessions if s.closing_note]

    def unsent(self) -> list[tuple[int, str]]:
        """What the user sent that never reached an agent (queued, typed ahead of its start): never lost."""
        return [(s.number, text) for s in self.app.sessions for text in s.unsent()]
