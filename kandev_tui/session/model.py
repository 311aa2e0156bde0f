"""The session, headless: one source, the item batches on their way to the screen, the transcript's entries, and
the state the UI shows. The app is its wiring: it gives the model a :class:`SessionUI` and its event loop, and
draws what it is told.

- Items arrive from the source (from any thread: a live agent is read in a thread of its own); the
  :class:`TranscriptModel` places them there, and they wait in the :class:`~kandev_tui.session.batch.Batcher`,
  merged by key. The model looks at the batch on the UI's loop, at most every frame or so, and when the policy lets
  it through, takes what was placed meanwhile as one :class:`ChangeSet`, which the UI applies. The policy's inputs
  come from the UI: how long the user's last input still
  holds output (``holding``), whether the transcript is covered, whether the last batch is still being put on
  screen (``settling``). That is the one place output waits for the user.
- The source's status arrives too, a frozen :class:`~kandev_tui.session.source.SourceStatus` made on its thread
  whenever it changes; the model keeps the last as :attr:`SessionModel.status` (what the UI shows of the session is
  read there, never from the source), and when its state changed works out what the prompt box is
  (:func:`prompt_state`), whether a turn can be cancelled, and the exit status of a session that failed, and gives
  the UI a :class:`StateChange`.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Protocol

from kandev_tui.renderers.registry import Registry
from kandev_tui.transcript.items import Item

from .batch import UNTIL_SHOWN, Batcher
from .changes import ChangeSet, TranscriptModel
from .source import Source, SourceStatus
from .state import PromptState, SessionState, prompt_state

# the states in which an agent's output flows: a batch waits its turn to be merged with what comes next
OUTPUT_FLOWS = (SessionState.RUNNING, SessionState.CANCELLING, SessionState.STARTING, SessionState.LOADING,
                SessionState.CONNECTING, SessionState.RECONNECTING)



@dataclass(frozen=True)
class StateChange:
    state: SessionState
    detail: str
    prompt: PromptState  # what the prompt box is now
    turn_running: bool  # a turn runs that the user can cancel
    answerable: bool  # permission requests wait for the user's answer
    more_above: bool  # the source holds older items (a Kandev session's earlier pages)
    elsewhere: str = ""  # a session shown read-only that another kandev-tui runs: where its requests are answered


class SessionUI(Protocol):
    """What the session model asks of the UI that shows it (the app)."""

    def apply_changes(self, changes: ChangeSet) -> None:
        """Put a change set on screen (the transcript model has it already)."""

    def reset_transcript(self, changes: ChangeSet) -> None:
        """The transcript model placed every item again (:meth:`TranscriptModel.reset`; ``changes.reset_from``: the
        entries before): show it anew, keeping the user's place."""

    def show_state(self, change: StateChange) -> None: ...

    def notice(self, text: str) -> None:
        """Something the user should know that changes nothing else."""

    def held_while_covered(self) -> None:
        """Items arrived while another screen covers the transcript: they wait until it is shown again, and what
        the sessions list says of it (how much arrived) may have changed."""

    def holding(self) -> float:
        """Seconds the user's last input still holds the agent's output back (0: it need not)."""

    def covered(self) -> bool:
        """Whether another screen covers the transcript (it catches up when shown again: the UI then calls
        :meth:`SessionModel.look_now`)."""

    def settling(self) -> bool:
        """Whether the last batch is still being put on screen (mounted, parsed)."""

    def gives_way(self) -> bool:
        """Whether the source's reading pauses for now (asked from its thread): the user's input is on its way to the
        screen."""


class SessionModel:
    """See the module docstring. ``clock`` and ``ui_time`` drive the batch policy (injected in tests)."""

    def __init__(self, source: Source, registry: Registry, card_limit: int = 16, *,
                 clock: Callable[[], float] = time.monotonic,
                 ui_time: Callable[[], float] = time.thread_time) -> None:
        self.batch = Batcher(clock, ui_time)  # ui_time: the UI thread's processor time (the batches are taken on it)
        self._clock = clock
        self.heard_at = clock()  # when the agent last sent anything (or its turn began): see quiet_for()
        self.transcript = TranscriptModel(registry, card_limit)
        self.source = source
        source.bind(self)  # what the source tells comes here (SourceEvents), from whatever thread it runs on
        self.status: SourceStatus = source.status()  # the last it told (here, what it was when bound)
        self._states_heard = self.status.said  # how many states the source has said that were heard here
        self.exit_code = 0  # what the command exits with: 1 once the session failed
        self.failure = ""  # why (said on stderr once the screen is gone)
        self._ui: SessionUI | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = 0
        self._timer: asyncio.TimerHandle | None = None
        self._waking = False  # a look at the batch is on its way from another thread
        self.looks = 0  # looks at the batch on the UI's loop (a covered session's: one per arrival, none while idle)
        self._lock = threading.Lock()
        self._turn_over = False  # the source's last state says no output is flowing: a batch need not wait its turn

    def attach(self, ui: SessionUI, loop: asyncio.AbstractEventLoop) -> None:
        """Show the session on ``ui``, whose event loop is ``loop`` (called on it). Items that came before wait."""
        self._ui, self._loop, self._thread = ui, loop, threading.get_ident()
        self.source.give_way_to(ui.gives_way)
        if self.batch:
            self._schedule()

    def detach(self) -> None:
        """The UI is going away: nothing more is put on screen (what waits is in the store already)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._ui = None

    def _on_ui_thread(self) -> bool:
        return threading.get_ident() == self._thread

    # -- items ---------------------------------------------------------------------

    def receive_items(self, items: list[Item]) -> None:
        """The source's ``on_items`` (any thread): matched, prepared and placed here (:class:`TranscriptModel`), then
        they wait in the batch until the policy lets them on (placed first: a batch taken meanwhile finds them).
        Preparing is for a source's thread, so that the UI's finds the cards' work done; items that arrive on the
        UI's thread (a stored session, read in a thread and handed over on the loop) are not prepared: a card parses
        its call when it is built, and most calls of a history are never shown (preparing the newest 256 of a
        50,000-item session, 64 charts, took 0.17 s of its first paint, for the six or so the screen showed)."""
        self.heard_at = self._clock()
        self._prepare(items)
        self.transcript.place(items)
        self.batch.add(item.key for item in items)
        self._wake()

    def quiet_for(self) -> float:
        """Seconds a running turn has gone without a word from the agent (0 when no turn runs): an agent retrying a
        model API it cannot reach says nothing for minutes, and its session only said "working"."""
        if self.status.state != SessionState.RUNNING:
            return 0.0
        return max(0.0, self._clock() - self.heard_at)

    def receive_reset(self, items: list[Item]) -> None:
        """The source's ``on_reset`` (any thread): every item again, in order, ahead of what comes after."""
        self._prepare(items)
        self.transcript.place_all(items)
        self.batch.reset()
        self._wake()

    def _prepare(self, items: list[Item]) -> None:
        """The cards' work done where items arrive, if that is not the UI's thread (see :meth:`receive_items`)."""
        if not self._on_ui_thread():
            self.transcript.prepare(items)

    def _wake(self) -> None:
        if self._loop is None:
            return  # not shown yet: attach() looks
        if self._on_ui_thread():
            self._schedule()
            return
        with self._lock:
            if self._waking:
                return
            self._waking = True
        self._loop.call_soon_threadsafe(self._schedule)

    def _schedule(self) -> None:
        with self._lock:
            self._waking = False
        if self._timer is None and self.batch and self._loop is not None:
            self._timer = self._loop.call_later(self.batch.first_wait(streaming=self.streaming), self._flush)

    def _flush(self) -> None:
        self._timer = None
        ui = self._ui
        if ui is None or self._loop is None:
            return
        self.looks += 1
        wait = self.batch.wait(holding=ui.holding(), covered=ui.covered(), settling=ui.settling(),
                               streaming=self.streaming, final=self._turn_over)
        if wait == UNTIL_SHOWN:  # the UI says when it shows the session again (look_now): no timer polls meanwhile
            ui.held_while_covered()
            return
        if wait > 0:
            self._timer = self._loop.call_later(wait, self._flush)
            return
        self.batch.take()
        changes = self.transcript.take()  # what was placed meanwhile (an empty one: taken with the batch before)
        if not changes:
            return
        if changes.reset:
            ui.reset_transcript(changes)
        else:
            ui.apply_changes(changes)

    def unshown(self) -> int:
        """How many items the source delivered that the transcript does not have yet: a covered session's news
        (counted by the transcript model as it places them: the rows ask every second and on every state change, and
        counting thousands of waiting items each time was 6% of the UI's thread in sessions.py 8)."""
        return self.transcript.news

    def look_now(self) -> None:
        """The UI shows the session again (it was covered): what waits goes on screen now, as the policy allows, not
        at the next look of a covered session."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.batch:
            self._flush()

    @property
    def settled(self) -> bool:
        """Every item the source delivered is on screen: none waiting, none on its way, none being put there."""
        return (not self.batch and self._timer is None and not self._waking
                and not (self._ui is not None and self._ui.settling()))

    # -- state -----------------------------------------------------------------------

    def receive_notice(self, text: str) -> None:
        """The source's ``on_notice`` (any thread): the UI tells the user on its own loop."""
        if self._loop is not None and not self._on_ui_thread():
            try:
                self._loop.call_soon_threadsafe(self.receive_notice, text)
            except RuntimeError:  # the UI's loop has closed (the app ended): nobody to tell
                pass
            return
        if self._ui is not None:
            self._ui.notice(text)

    def receive_status(self, status: SourceStatus) -> None:
        """The source's ``on_status`` (any thread): kept on the UI's loop; when its state changed (or was said
        again), the UI is told."""
        if self._loop is not None and not self._on_ui_thread():
            try:
                self._loop.call_soon_threadsafe(self.receive_status, status)
            except RuntimeError:  # the UI's loop has closed (the app ended): nobody to show it to
                pass
            return
        self.status = status
        if status.said == self._states_heard:
            return  # a fact beside the state (a title, older pages): read from the status when next shown
        self._states_heard = status.said
        self._state_changed(status)

    def failed_to_start(self, detail: str) -> None:
        """The source could not start and could not say so itself (it raised): the session is in error, as if it
        had said it."""
        from dataclasses import replace

        self.status = replace(self.status, state=SessionState.ERROR, detail=detail, can_prompt=False)
        self._state_changed(self.status)

    def _state_changed(self, status: SourceStatus) -> None:
        ui = self._ui
        state, detail = status.state, status.detail
        if state == SessionState.RUNNING:  # a turn begins, or goes on after the user's answer: quiet from here
            self.heard_at = self._clock()
        if state == SessionState.ERROR:
            self.exit_code, self.failure = 1, detail or "the session failed"
        elif state == SessionState.LOGIN:  # quitting now: the agent never started a session
            self.exit_code, self.failure = 1, f"{detail or 'the agent needs a login'} (not logged in)"
        elif state == SessionState.IDLE and self.failure.endswith("(not logged in)"):
            self.exit_code, self.failure = 0, ""  # logged in after all
        self._turn_over = state not in OUTPUT_FLOWS
        if self._turn_over and self._timer is not None:  # what the turn sent last goes on screen now, with its end
            self._timer.cancel()
            self._flush()
        if ui is not None:
            ui.show_state(self.state_change(state, detail))

    def fail(self, failure: str, exit_code: int = 1) -> None:
        """The session cannot go on (its store cannot be read, say): the command exits with ``exit_code``, saying
        ``failure``."""
        self.exit_code, self.failure = exit_code, failure

    def state_change(self, state: SessionState, detail: str) -> StateChange:
        status = self.status
        return StateChange(state, detail, prompt_state(state, detail, can_prompt=status.can_prompt,
                                                       read_only_reason=status.read_only_reason),
                           self.turn_running, status.waiting, status.more_above, status.runs_elsewhere)

    @property
    def turn_running(self) -> bool:
        """A turn runs that the user can cancel (escape, the palette)."""
        return self.status.can_cancel and self.status.state in (SessionState.RUNNING, SessionState.WAITING)

    # -- the user's requests -------------------------------------------------------------

    async def send(self, text: str) -> None:
        await self.source.send(text)

    async def cancel(self) -> None:
        if self.turn_running:
            await self.source.cancel()

    async def cancel_subagent(self, session_id: str) -> None:
        await self.source.cancel_subagent(session_id)

    def answer(self, key: str, answer: Any) -> bool:
        """A permission request's option id, or a question's response (``{"action": ...}``)."""
        return self.source.answer(key, answer)

    async def log_in(self, method_id: str, env: dict[str, str] | None = None) -> None:
        await self.source.log_in(method_id, env)

    def keep_queued(self, texts: list[str]) -> None:
        """The user's queued messages, kept with the session (a live agent's)."""
        self.source.keep_queued(texts)

    def terminal_login(self, method_id: str) -> tuple[list[str], dict[str, str]] | None:
        """The command (and environment) a ``terminal`` login runs in the user's terminal, or None."""
        return self.source.terminal_login(method_id)

    async def start(self) -> None:
        await self.source.start()

    async def start_with(self, text: str) -> Awaitable[None] | None:
        """Started with ``text`` as the first prompt (:meth:`Source.start_with`): its turn, or None."""
        return await self.source.start_with(text)

    async def load_older(self) -> int:
        """Older items fetched (a Kandev session's earlier pages): how many."""
        return await self.source.load_older()

    def pick(self, session_id: str | None, title: str = "") -> None:
        """The session the user picked in the list (None: back to the list); ``title``: its name in the list, which
        names it better than its first prompt."""
        self.source.session_id = session_id
        if title:
            self.source.title = title
        self.source.tell()

    @property
    def streaming(self) -> bool:
        """The source takes in output as fast as it can (a flood): read from any thread, a moment out of date."""
        return self.source.streaming

    @property
    def can_pick_session(self) -> bool:
        """The source offers sessions to pick from, and shows none until one is picked."""
        return self.source.can_pick_session

    @property
    def can_pick_again(self) -> bool:
        """The session picked can be left for the list again (escape): the stored ones."""
        return self.source.can_pick_again

    @property
    def picker(self) -> tuple[tuple[str, str], str, str]:
        """What the list of the source's sessions says: its title (what, where), while it loads, when it is empty."""
        return self.source.picker_title, self.source.picker_loading, self.source.picker_empty

    async def sessions(self) -> list[Any]:
        """The sessions to pick from, newest first (the picker)."""
        return await self.source.sessions()

    async def note(self, text: str) -> bool:
        """A quiet line in the transcript said by kandev-tui (a restore of files); whether it was said."""
        return await self.source.note(text)

    async def fetch_output(self, key: str) -> None:
        """What the item ``key`` left at its source, fetched (it comes as a new version of the item)."""
        await self.source.fetch_output(key)

    async def choose(self, method: str, params: dict[str, Any]) -> None:
        """A choice for the session (a mode, a config option's value, a model); the agent's refusal raises."""
        await self.source.choose(method, params)

    async def close(self, reason: str = "") -> None:
        """Close the source (``reason``: why, said where a turn is cut short)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        await self.source.close(reason)

    def set_card_limit(self, limit: int) -> None:
        self.transcript.card_limit = limit


def quiet_text(seconds: float) -> str:
    """How long a running turn has gone without a word from its agent ("quiet 45s", "quiet 1m 05s")."""
    minutes, seconds = divmod(int(seconds), 60)
    return f"quiet {minutes}m {seconds:02d}s" if minutes else f"quiet {seconds}s"
