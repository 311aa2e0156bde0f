"""The app's life: its first frame, the sources started after it (at most FIRST_FRAME_WAIT later), what is loaded
in the background, garbage collected when quiet, the end (ctrl+q, ctrl+c twice, a signal) with every source closed
and the exit status."""

from __future__ import annotations

from typing import TYPE_CHECKING

import asyncio
import logging
import time

from textual import events

from kandev_tui.base import pacing, stats
from kandev_tui.screens.transcript import TranscriptScreen
from kandev_tui.base.shutdown import ENDING_GRACE, EndingSignals, ending_reason, exit_status
from kandev_tui.ui.textual_hooks import mount_screen_ahead, note_input_at_driver
from kandev_tui.widgets.transcript_view import entry_widgets

if TYPE_CHECKING:
    from kandev_tui.app.parts import AppParts
else:
    AppParts = object  # a plain mixin at run time: see app_parts

log = logging.getLogger("kandev_tui.app.kandev_app")
# what counts as the user's input: the agent's output waits a moment after each (pacing.py)
INPUT_EVENTS = (events.Key, events.MouseDown, events.MouseUp, events.MouseScrollDown, events.MouseScrollUp)


class Lifecycle(AppParts):
    """The app from its first frame to its exit status (a part of :class:`~kandev_tui.app.kandev_app.KandevApp`)."""

    def on_mount(self) -> None:
        note_input_at_driver(self, INPUT_EVENTS, self.user_input.note)
        self.gc_policy.start()  # full collections wait for quiet moments from the first frame (kandev_tui/base/gcpolicy.py)
        # a hang-up, a kill or SIGINT from outside quits as ctrl+q does (kandev_tui/base/shutdown.py)
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
        self.keep_looking()
        if len(self.sessions) > 1:  # the others said in the status line, the sidebar shown where there is room
            self.call_after_refresh(self.lists.show)
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
        self.set_timer(pacing.FIRST_FRAME_WAIT, self._run_sources)

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
        from kandev_tui.widgets import markdown_rich  # (Rich's Markdown: not before the first frame)

        markdown_rich.preload()
        from kandev_tui.ui.charts import preload as preload_charts
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
        first.reset_transcript(first.model.transcript.reset([]))
        first.model.pick(None)
        first.started = False  # the one picked next starts
        self._picker = SessionPickerScreen(first.source)
        self.push_screen(self._picker, self._picked)

    def keep_looking(self) -> None:
        """Something happened (an input, items for a session): the app looks at its sessions' rows and the collector
        in a moment (pacing.LOOK_EVERY), and again while a full collection is due. An idle app has no timer: a
        wake costs even when it finds nothing to do."""
        if self._look is None and self.is_running:
            self._look = self.set_timer(pacing.LOOK_EVERY, self._look_around, name="look")

    def _look_around(self) -> None:
        """What arrived off screen, titles and costs (the rows, when they changed), and a full collection once quiet."""
        self._look = None
        self.gc_policy.tick(max([self.user_input.at, *(s.model.batch.received_at for s in self.sessions)]))  # none: the home
        self.lists.refresh()
        if self.gc_policy.due:  # not quiet yet
            self.keep_looking()

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

    async def _close_sources(self, reason: str = "") -> None:
        """Every session closed at once (each agent's process group ended; its grace runs beside the others')."""
        if self._sources_closed:
            return
        self._sources_closed = True
        await asyncio.gather(*(session.close(reason) for session in self.sessions))
        if self.stats_path is not None:
            stats.write(self.stats_path)

    async def action_interrupt(self) -> None:
        """ctrl+c: with text selected (in the prompt, or in the transcript with the mouse), a copy of it, as in the
        terminal's other programs (this binding, first so that a busy screen never holds back quitting, came before
        Textual's own copy keys); else once more within 2 s quits."""
        if self._copy_selection():
            return
        now = time.monotonic()
        if now - self._interrupt_at < 2.0:
            await self.action_quit()
            return
        self._interrupt_at = now
        self.notify("Press ctrl+c again to quit (ctrl+q quits at once).", timeout=2)

    def _copy_selection(self) -> bool:
        """The text selected copied to the clipboard (OSC 52: the terminal's, through tmux and SSH), if there is any."""
        from textual.widgets import Input, TextArea

        focused = self.focused
        text = focused.selected_text if isinstance(focused, (Input, TextArea)) else ""
        if not text:
            text = self.screen.get_selected_text() or ""
        if not text:
            return False
        self.copy_to_clipboard(text)
        lines = text.count("\n") + 1
        self.notify(f"Copied {lines:,} lines." if lines > 1 else f"Copied {len(text):,} characters.", timeout=2)
        return True
