"""One session in the app: its headless model (a source plus its transcript), its transcript screen, and what the app
shows of it. The app holds several (kandev_tui/app/kandev_app.py); each streams, stores and asks whether or not it is on screen.

:class:`AppSession` is the :class:`~kandev_tui.session.model.SessionUI` of its model: change sets go into its own
transcript view, its state into its own status line and prompt box. A session not on screen is covered: its model
keeps the agent's output waiting (merged by item) until it is shown again, and its source stores everything as it
comes. What the sessions list shows of it is :meth:`row`, an immutable snapshot.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from textual.app import ScreenStackError

from kandev_tui.app.session_host import ItemsApplied, SessionHost
from kandev_tui.app.session_login import LoginFlow
from kandev_tui.app.session_prompts import PromptQueue
from kandev_tui.app.session_quiet import QuietCounter
from kandev_tui.app.session_reveal import PendingReveal
from kandev_tui.app.session_subagents import Subagents
from kandev_tui.base.sanitize import visible
from kandev_tui.screens.transcript import TranscriptScreen
from kandev_tui.session import SessionState
from kandev_tui.session.changes import ChangeSet
from kandev_tui.session.controls import Controls
from kandev_tui.session.model import SessionModel, StateChange, quiet_text
from kandev_tui.session.source import SourceStatus
from kandev_tui.session.row import WAITING_STATES, SessionRow, activity
from kandev_tui.session.source import Source
from kandev_tui.transcript.database import StoreError
from kandev_tui.transcript.items import SESSION_INFO, USAGE, USER, Item
from kandev_tui.widgets.context import DrawContext
from kandev_tui.widgets.chrome.status_line import StatusLine, cost_text
from kandev_tui.widgets.transcript_view import TranscriptView

if TYPE_CHECKING:
    from kandev_tui.widgets.chrome.prompt_input import PromptInput
    from kandev_tui.workspace.reads import Workspace
    from kandev_tui.workspace.worktree import Worktree

log = logging.getLogger("kandev_tui.app.kandev_app")
EXIT_STORE = 2  # the session database cannot be used, as the command line exits for it


class AppSession:
    """One session of the app (see the module docstring). ``mode`` is the name of its Textual mode: each session has
    a screen stack of its own (its login screen, a file it opened), so switching shows it as it was left. It delegates
    its prompts and their queue (``prompts``), its login (``login``), the count of a turn's silence (``quiet``) and
    its subagents (``subagents``)."""

    def __init__(self, app: SessionHost, number: int, source: Source, *,
                 initial_prompt: str | None = None, on_state: Callable[[AppSession, StateChange, SessionState], None]) -> None:
        self.app = app
        self.number = number
        self.mode = f"session-{number}"
        self.initial_prompt = initial_prompt
        self._on_state = on_state
        self.model = SessionModel(source, app.registry, app.settings_store.settings.card_limit)
        self.view = TranscriptView(self.model.transcript)
        self.revealing = PendingReveal(self.view, self.model.transcript, app.call_after_refresh)  # a search's hit
        self.view.draw_context = DrawContext(  # what the transcript's widgets draw with (widgets/context.py)
            series_colors=app.looks.series_colors, should_animate=app.looks.should_animate,
            animations_enabled=app.looks.animations_enabled, workspace=lambda: self.workspace,
            visible=lambda: app.looks.visible, flooding=lambda: self.model.streaming,
            working=lambda: app.gc_policy.working())
        self.screen = TranscriptScreen(self.view, shown=self.model.look_now)
        # from the first frame, the source's state ("starting"), not the line's own default ("ready")
        self.screen.status.set_reactive(StatusLine.state, str(self.model.status.state))
        self.controls = Controls()  # what the agent lets the user choose (session_info): modes, models, commands
        self.focus_prompt = False
        self.request_takes_keys = False  # a request waits for the user's answer, and takes the keys when shown
        self.prompts = PromptQueue(self)  # sent, held while the agent starts, queued while a turn runs
        self.login = LoginFlow(app, self.model, lambda: self.model.status)
        self.quiet = QuietCounter(app, self.model.quiet_for, self._show_quiet, name=f"quiet {number}")
        self.started_turns = 0  # turns sent to the agent
        self.last_state = SessionState.STARTING
        self.detail = ""
        self.waiting_since: float | None = None
        self.closed = False
        self.started = False  # its source was started (once)
        self.cost = ""
        self.subagents = Subagents(lambda: self.view.model.items, owner=self)  # its subagents: rows, full screen
        self._workspace: Workspace | None = None
        self._folder: Path | None = None  # its workspace, resolved once (edits_folder)
        self.worktree: Worktree | None = None  # made for it (ctrl+n): removed on close when nothing is uncommitted
        self.branch = ""  # the git branch of its workspace, once read (off the UI's thread)
        self.closing_note = ""  # what closing did with its worktree

    # -- lifecycle ---------------------------------------------------------------

    def attach(self, loop: Any) -> None:
        self.model.attach(self, loop)
        status = self.status
        self.screen.status.agent = status.agent
        self.screen.status.title = status.title
        # a session that will take prompts takes typing from the first frame (type-ahead while the agent starts)
        self.screen.set_prompt_enabled(status.can_prompt, "starting…")
        self.screen.prompt.recallable = self.sent_messages  # ↑ in the empty prompt: what the user said here
        if status.can_prompt and status.workspace is not None:
            self.screen.prompt.workspace = Path(status.workspace)  # @ offers its files

    def start(self) -> None:
        self.started = True
        if self.worktree is not None:  # the user is told where it works (sessions editing one folder say so in
            self.app.notify(f"Session {self.number} works in {visible(str(self.worktree.path))} on branch "  # rows)
                            f"{visible(self.worktree.branch)}.", timeout=6, markup=False)
        self.app.run_worker(self._start_source(), name=f"source-{self.number}", exclusive=True,
                            group=f"source-{self.number}")
        status = self.status
        self.prompts.restore(list(status.continuing_queue))  # queued when it last ran, never sent: offered again
        if self.worktree is not None:
            self.branch = self.screen.status.branch = self.worktree.branch
        elif status.workspace is not None and status.can_prompt:  # the list says which branch it is on
            self.app.run_worker(self._read_branch(status.workspace), name=f"branch-{self.number}",
                                group=f"branch-{self.number}")

    async def _read_branch(self, folder: Any) -> None:
        from kandev_tui.workspace.worktree import current_branch

        self.branch = self.screen.status.branch = await asyncio.to_thread(current_branch, folder)
        if self.branch and len(self.app.sessions) > 1:
            self.app.lists.changed()

    async def _start_source(self) -> None:
        turn = None
        try:
            if self.initial_prompt:  # sent by the source as soon as the session is open (the app's loop may be busy)
                turn = await self.model.start_with(self.initial_prompt)
            else:
                await self.model.start()
        except StoreError as exc:  # the session database cannot be read (damaged): nothing to show; said once the
            log.info("store: %s", exc)  # screen is gone, as the command line says it
            self.model.fail(str(exc), EXIT_STORE)
            self.app.exit(EXIT_STORE, return_code=EXIT_STORE)
            return
        except Exception as exc:  # noqa: BLE001 - never a traceback on screen
            log.exception("source failed")
            self.model.failed_to_start(f"{type(exc).__name__}: {exc}")
            return
        if turn is not None:
            self.app.run_worker(self._turn(turn), name="turn", group=f"turn-{self.number}")
        elif self.initial_prompt and self.status.held_back:  # held back (a mode asked for is not offered):
            prompt = self.screen.prompt  # in the prompt box, to send once the user has chosen; the transcript says why
            prompt.text = self.initial_prompt + (f"\n\n{prompt.text}" if prompt.text.strip() else "")
        elif self.initial_prompt:  # not sent: the agent waits for a login (it goes once the session is ready), or
            # it failed (back in the prompt box, said), as a message the user sent while it started
            self.prompts.hold(self.initial_prompt, first=True)
            change = self.model.state_change(self.status.state, "")
            self._after_state(change.state, change.prompt.read_only)

    async def close(self, reason: str = "") -> None:
        """Close the source (the agent stops, what came is stored, the session marked); once."""
        if self.closed:
            return
        self.closed = True
        try:
            await self.model.close(reason)
        except Exception:  # noqa: BLE001
            log.exception("closing the source failed")
        if self.worktree is not None:  # the agent has stopped: nothing writes there any more
            from kandev_tui.workspace.worktree import close as close_worktree

            self.closing_note = await asyncio.to_thread(close_worktree, self.worktree)
            log.info("session %d: %s", self.number, self.closing_note)

    def detach(self) -> None:
        self.model.detach()
        self.quiet.count(False)

    # -- what the session model asks of its UI (kandev_tui/session/model.py: SessionUI) -----------------

    def apply_changes(self, changes: ChangeSet) -> None:
        self.view.apply(changes)
        self.revealing.applied()
        self.app.keep_looking()  # a full collection may come due
        self._show_status_items(changes.status)
        self.subagents.note(changes.keys)
        self.subagents.follow(self.app.screen_stack, changes.keys)  # one shown full screen follows its items
        self.app.post_message(ItemsApplied(changes.keys))

    def open_subagent(self, key: str) -> None:
        """The subagent of item ``key`` full screen over the transcript (``o`` on its row, or from the list)."""
        screen = self.subagents.screen_for(key)
        if screen is not None:
            self.app.push_screen(screen)

    def reset_transcript(self, changes: ChangeSet) -> None:
        """Every item again, in order (older history arrived under attach): the transcript model has placed them."""
        self.view.reset(changes, more_at_source=self.status.more_above)
        self._show_status_items(changes.status)
        self.subagents.noted_again(changes.keys)
        self.screen.status.title = self.status.title
        self.app.call_after_refresh(self.fill_screen)

    def held_while_covered(self) -> None:
        self.app.keep_looking()  # the lists say what arrived, within a look

    def holding(self) -> float:
        return self.app.user_input.holding()

    def covered(self) -> bool:
        try:
            screen = self.app.screen
        except ScreenStackError:  # the app is closing: nothing is shown any more
            return True
        # one of its subagents shown full screen shows its news: the transcript follows, under it
        return screen is not self.screen and not self.subagents.shown_by(screen)

    def settling(self) -> bool:
        return self.view.settling

    def request_without_keys(self) -> bool:
        """On screen, a request of this session waits for the user's answer without the keys: the user typed in the
        prompt meanwhile (f4 gives them back; the state is looked at first, the transcript only then)."""
        return self.last_state == SessionState.WAITING and self.on_screen and self.view.request_without_keys()

    def gives_way(self) -> bool:  # (any thread)
        return self.app.user_input.gives_way()

    def notice(self, text: str) -> None:
        self.app.notify(visible(text), severity="warning", markup=False)

    def show_state(self, change: StateChange) -> None:
        """The status line, the prompt box and the footer follow the session's state."""
        screen = self.screen
        log.info("session %d: state %s (%s)", self.number, change.state, change.detail)
        previous, self.last_state, self.detail = self.last_state, change.state, change.detail
        if change.state in WAITING_STATES and previous not in WAITING_STATES:
            self.waiting_since = time.monotonic()
        elif change.state not in WAITING_STATES:
            self.waiting_since = None
        screen.status.state = change.state
        self.quiet.count(change.state == SessionState.RUNNING)
        screen.status.title = self.status.title
        screen.status.agent = self.status.agent
        if self.on_screen:
            self.login.show(change.state, change.detail)
        prompt = change.prompt
        screen.set_prompt_enabled(prompt.enabled, visible(prompt.reason), prompt.read_only)
        self._after_state(change.state, prompt.read_only)
        screen.set_turn_running(change.turn_running)
        app = self.app
        focused = screen.focused
        # a request takes the focus (1-9 answer it), unless the user is typing in the prompt: their keys would answer
        typing = screen.prompt.has_focus and bool(screen.prompt.text.strip())
        self.request_takes_keys = change.answerable and not typing
        if self.request_takes_keys:
            self.focus_prompt = False  # shown, the session gives the keys to its request (AppLists.switch_to)
        elif prompt.enabled and (focused is None or self.focus_prompt or isinstance(focused, TranscriptView)
                                 or (self.view.is_request(focused) and not change.answerable)):
            # the session takes prompts (again): typing goes to the prompt, unless the user is busy elsewhere (a
            # chart, a group, a request still waiting for its answer: the prompt takes messages during a turn too);
            # the transcript itself only has focus because the disabled prompt lost it
            self.focus_prompt = not self.on_screen  # off screen: when it is shown
            if self.on_screen:
                screen.prompt.focus()
        self.view.set_permissions_answerable(change.answerable, visible(change.elsewhere), take_focus=not typing)
        if change.more_above != self.view.more_at_source:
            self.view.set_more_at_source(change.more_above)
            app.call_after_refresh(self.fill_screen)
        self._on_state(self, change, previous)

    def _show_status_items(self, items: list[Item]) -> None:
        """Items that are not in the flow: the session's usage, title and choices, for the status line (and the
        prompt's slash commands, the picker's choices)."""
        status = self.screen.status
        if items:
            self.app.call_later(self.app.lists.changed)
        for item in items:
            if item.kind == USAGE:
                status.usage = dict(item.payload)
                self.cost = cost_text(self.screen.status.usage)
            elif item.kind == SESSION_INFO:
                if item.payload.get("title"):
                    status.title = str(item.payload["title"])
                self.controls = Controls(item.payload)
                status.choices = self.controls.summary()
                self.screen.prompt.take_commands(self.controls.commands)
                if self.on_screen:
                    self.app.refresh_bindings()

    # -- the prompts (kandev_tui/app/session_prompts.py), and what they need of the session ------------------

    def sent_messages(self) -> list[str]:
        """What the user said in this session, oldest first (the first prompt given on the command line, and a
        continued session's earlier turns, too): ↑ in the empty prompt goes back through them."""
        return [text for item in self.view.model.items.values()
                if item.kind == USER and isinstance(text := item.payload.get("text"), str)]

    def submit(self, text: str) -> None:
        """The user's message: sent now, held while the agent starts, or queued while a turn runs."""
        log.info("session %d: prompt submitted (%d characters)", self.number, len(text))
        self.view.jump_to_latest()
        self.prompts.submit(text, self.last_state)

    def unsent(self) -> list[str]:
        return self.prompts.unsent()

    def _after_state(self, state: str, read_only: bool) -> None:
        if not self.closed:  # closed: what waits is kept for unsent(), said at the exit
            self.prompts.after_state(state, read_only)

    @property
    def prompt(self) -> PromptInput:
        return self.screen.prompt

    def show_queue(self, texts: list[str], offered: bool) -> None:
        self.screen.show_queue(texts, offered=offered)
        if self.on_screen:
            self.app.refresh_bindings()  # ctrl+r and ctrl+t are offered while messages are queued

    def keep_queued(self, texts: list[str]) -> None:
        self.model.keep_queued(texts)

    def start_turn(self, text: str) -> None:
        self.app.run_worker(self.send(text), name="turn", group=f"turn-{self.number}")

    def cancel_turn(self) -> None:
        self.app.run_worker(self.model.cancel(), name="cancel", group=f"cancel-{self.number}")

    def say_not_sent(self, texts: list[str]) -> None:
        self.app.notify(f"{'Your message was' if len(texts) == 1 else 'Your messages were'} not sent: the agent "
                        f"{'did not start' if self.started_turns == 0 else 'stopped'}. It is back in the prompt box.",
                        title="Not sent", severity="warning", markup=False)

    def _show_quiet(self, seconds: int) -> None:
        self.screen.status.quiet = seconds
        self.app.keep_looking()  # the sessions list's row says it too

    async def send(self, text: str) -> None:
        await self._turn(self.model.send(text))

    async def _turn(self, turn: Awaitable[None]) -> None:
        """A turn, sent: awaited until it ends; why it failed, said."""
        self.started_turns += 1
        try:
            await turn
        except Exception as exc:  # noqa: BLE001
            self.app.notify(visible(str(exc)), title="Not sent", severity="warning", markup=False)

    # -- the transcript ---------------------------------------------------------------

    async def load_older(self) -> None:
        loaded = await self.model.load_older()
        if not loaded:
            self.view.set_more_at_source(self.status.more_above)

    def fill_screen(self) -> None:
        """History shorter than the screen cannot be scrolled up: ask for the next page at once."""
        if self.view.more_at_source and self.view.lo == 0 and self.view.max_scroll_y <= 1:
            self.view.ask_for_older()

    @property
    def on_screen(self) -> bool:
        return self.app.current_mode == self.mode

    @property
    def status(self) -> SourceStatus:
        """The session as its model last said it (an immutable snapshot): what the UI shows, never read from the
        source."""
        return self.model.status

    @property
    def workspace(self) -> Workspace | None:
        status = self.status
        if self._workspace is None and status.workspace is not None:
            from kandev_tui.workspace.reads import Workspace

            self._workspace = Workspace(status.workspace, dict(status.repos))
        return self._workspace

    @property
    def edits_folder(self) -> Path | None:
        """The folder its agent works in (resolved), while the agent runs and may edit files there: None for a session
        opened read-only, or whose agent has stopped."""
        if self.closed or not self.status.can_prompt or self.last_state in (SessionState.ENDED, SessionState.ERROR):
            return None
        if self._folder is None and self.status.workspace is not None:
            self._folder = Path(self.status.workspace).resolve()
        return self._folder

    def row(self, shares_with: tuple[int, ...] = ()) -> SessionRow:
        """What the sessions list shows of this session now (``shares_with``: the other sessions editing its folder)."""
        status = self.status
        state = self.last_state
        detail = quiet_text(self.screen.status.quiet) if self.screen.status.quiet else self.detail  # (working)
        return SessionRow(self.number, visible(status.agent or "agent", keep_newlines=False),
                          visible(status.title or "", keep_newlines=False),
                          visible(str(status.workspace or ""), keep_newlines=False),
                          visible(self.branch, keep_newlines=False), state, activity(state),
                          visible(detail, keep_newlines=False), self.waiting_since,
                          0 if self.on_screen else self.model.unshown(), self.cost, self.on_screen,
                          self.subagents.rows, shares_with)
