"""The protocol between a source of items and the app that shows them.

A source is made with what it reads, and bound (``bind``) to what shows it, a :class:`SourceEvents` (the session
model): it delivers item batches to ``on_items``, and what it is now to ``on_status``: a frozen
:class:`SourceStatus`, made on the source's own thread whenever its state changes (``_set_state``) or a fact beside it
does (``tell``: a title, older pages, requests waiting). The UI derives what it shows from the last status only,
never from the source's attributes, so a source in another process sends the same snapshots. Everything the app
may ask of a source is declared here, with what a source without the capability answers, so the app never has to
guess with ``hasattr``:

- prompting: ``can_prompt``, ``send``, ``read_only_reason``, and ``start_with`` (started with a first prompt, which a
  source that runs in a thread of its own sends from there); cancelling: ``can_cancel``, ``cancel``;
- permission requests: ``waiting_for`` (the keys still waiting), ``answer``;
- ``streaming``: the source is taking in output as fast as it can (a flood); the UI then takes batches less often,
  so that reading keeps up (read from any thread, it may be a moment out of date);
- paging (``kandev-tui attach``): ``more_above``, ``load_older``; and ``on_reset``, which the app sets when it can
  take every item again in order (older history arrived); ``fetch_output``: what an item left at its source;
- picking a session: ``can_pick_session``, ``sessions()``, the picker's titles; while ``session_id`` is None the
  app shows the picker, then sets ``session_id`` and starts the source;
- logging in (a live agent): ``login_methods`` while the state is ``login``, ``log_in(method_id, env)``,
  ``terminal_login(method_id)`` (the command the app runs in the user's terminal for a ``terminal`` method);
- choices (a live agent): ``choose(method, params)`` sends ``session/set_mode`` and the like;
- the user's queued messages: ``keep_queued(texts)`` stores them with the session (a live agent's), to be offered
  again when it is continued;
- notices: ``notify(text)`` tells the user something that changes no state (through ``on_notice``, which the app
  sets, as it sets ``on_reset``).

``on_items`` and ``on_status`` may be called from any thread (the app's session model takes them to its loop): a
source may read its agent in a thread of its own (:class:`kandev_tui.session.background.Background`). What the app
asks of a source (the methods and attributes above) it asks on its own loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Protocol

from kandev_tui.transcript.items import SESSION_INFO, Item

from .state import SessionState

@dataclass(frozen=True)
class SourceStatus:
    """What a source is, at one moment, as it says it (:meth:`Source.status`): never changed once made, so it
    crosses threads (and could cross processes) as it is. ``said`` counts the states the source has said: a state
    said again (``running`` after an answer) is a change the UI hears, though it equals the last."""

    state: SessionState = SessionState.IDLE
    detail: str = ""
    said: int = 0
    title: str = ""
    agent: str = ""
    agent_command: tuple[str, ...] = ()
    workspace: Path | None = None
    repos: tuple[tuple[str, Path], ...] = ()
    session_id: str | None = None
    can_prompt: bool = False
    can_cancel: bool = False
    read_only_reason: str = ""
    held_back: str = ""  # why the first prompt was not sent though the session opened ("": it was not held back)
    more_above: bool = False
    login_methods: tuple[dict[str, Any], ...] = ()
    waiting: bool = False  # permission requests or questions wait for the user's answer
    runs_elsewhere: str = ""
    continuing_queue: tuple[str, ...] = ()  # what was queued when the session continued last ran, never sent


ItemsCallback = Callable[[list[Item]], None]
StatusCallback = Callable[[SourceStatus], None]
NoticeCallback = Callable[[str], None]


class SourceEvents(Protocol):
    """What a source tells the one that shows it (the session model), from any thread: items (new versions), every
    item again in order (older history arrived), its status, and a notice that changes no state. A source in
    another process tells the same, through whatever carries it."""

    def receive_items(self, items: list[Item]) -> None: ...
    def receive_reset(self, items: list[Item]) -> None: ...
    def receive_status(self, status: SourceStatus) -> None: ...
    def receive_notice(self, text: str) -> None: ...


def _nobody(*args: Any) -> None:
    """What a source tells before it is bound: nobody hears it."""


class Source(Protocol):
    """What the session model asks of a source, and all it asks: a source is anything with these members (a source
    in another process is one more implementation). :class:`NullSource` answers each as a source without the
    capability does; the sources here build on it."""

    session_id: str | None
    title: str
    can_pick_session: bool
    can_pick_again: bool
    picker_title: tuple[str, str]
    picker_loading: str
    picker_empty: str

    @property
    def streaming(self) -> bool: ...
    def bind(self, events: SourceEvents) -> None: ...
    def status(self) -> SourceStatus: ...
    def tell(self) -> None: ...
    def give_way_to(self, gives_way: Callable[[], bool]) -> None: ...
    def keep_queued(self, texts: list[str]) -> None: ...
    async def start(self) -> None: ...
    async def start_with(self, text: str) -> Awaitable[None] | None: ...
    async def send(self, text: str) -> None: ...
    async def cancel(self) -> None: ...
    async def cancel_subagent(self, session_id: str) -> None: ...
    async def note(self, text: str) -> bool: ...
    def answer(self, permission_key: str, option_id: Any) -> bool: ...
    async def log_in(self, method_id: str, env: dict[str, str] | None = None) -> None: ...
    def terminal_login(self, method_id: str) -> tuple[list[str], dict[str, str]] | None: ...
    async def choose(self, method: str, params: dict[str, Any]) -> None: ...
    async def fetch_output(self, key: str) -> None: ...
    async def load_older(self) -> int: ...
    async def sessions(self) -> list[Any]: ...
    async def close(self, reason: str = "") -> None: ...


class NullSource:
    """A source of nothing: no items, no prompts, no capability; what each member of :class:`Source` answers where
    a source does not do it. A source builds on it and overrides what it can do. It is made with what it reads,
    then bound (:meth:`bind`) to whoever shows it."""

    title: str = ""
    agent_name: str = ""
    agent_command: list[str] = []  # the command of an agent kandev-tui started (its choices are remembered by it)
    workspace: Path | None = None
    can_prompt: bool = False
    can_cancel: bool = False  # whether cancel() can stop a running turn (a live agent, a Kandev session)
    held_back: str = ""  # why start_with did not send the first prompt though the session is open ("": it did not)
    read_only_reason: str = ""
    session_id: str | None = None
    can_pick_session: bool = False
    can_pick_again: bool = False  # the session picked can be left for the list again (escape): the stored ones
    picker_title: tuple[str, str] = ("Pick a session", "")  # (what, where)
    picker_loading: str = "Loading sessions…"
    picker_empty: str = "There are no sessions yet."
    more_above: bool = False  # older items exist that load_older() fetches
    runs_elsewhere: str = ""  # shown read-only, the session runs live in another process: which (its requests are
    # answered there)
    streaming: bool = False  # output keeps coming as fast as it is read (more items follow at once)
    def __init__(self) -> None:
        # what the source tells the one that shows it (bind): until bound, nobody is told
        self.on_items: ItemsCallback = _nobody
        self.on_status: StatusCallback = _nobody
        self.on_reset: ItemsCallback | None = None
        self.on_notice: NoticeCallback = _nobody
        self.state = SessionState.IDLE
        self.repos: dict[str, Path] = {}
        self._state_detail = ""  # the detail of the last state said
        self._states_said = 0
        self._told: SourceStatus | None = None  # the last status told (a status equal to it is not told again)

    def bind(self, events: SourceEvents) -> None:
        """From now on, what the source tells goes to ``events`` (the session model binds the source it is made
        with)."""
        self.on_items = events.receive_items
        self.on_status = events.receive_status
        self.on_reset = events.receive_reset
        self.on_notice = events.receive_notice

    def status(self) -> SourceStatus:
        """What the source is now, as a snapshot (made where its attributes change: its own thread)."""
        continuing = self.continuing or {}
        return SourceStatus(
            SessionState(self.state), self._state_detail, self._states_said, self.title or "", self.agent_name or "",
            tuple(self.agent_command or ()), self.workspace, tuple(sorted(self.repos.items())), self.session_id,
            self.can_prompt, self.can_cancel, self.read_only_reason, self.held_back, self.more_above,
            tuple(self.login_methods or ()), bool(self.waiting_for), self.runs_elsewhere,
            tuple(continuing.get("queued") or ()))

    def tell(self) -> None:
        """Tell whoever shows the source what it is now, if that changed since it last told (any thread): after a fact
        beside its state changed (a title, older pages, requests waiting, the session picked)."""
        status = self.status()
        if status != self._told:
            self._told = status
            self.on_status(status)

    def notify(self, text: str) -> None:
        """Tell the user ``text`` (any thread): a fault that changes nothing else (a page that did not load)."""
        self.on_notice(text)

    def take_title(self, items: list[Item]) -> bool:
        """The title the agent gave the session (its ``session_info``), if ``items`` bring one: the source's from now
        on, so that whatever shows the source's title shows it, whichever comes first. True when it changed."""
        titles = [item.payload["title"] for item in items if item.kind == SESSION_INFO
                  and isinstance(item.payload.get("title"), str) and item.payload["title"]]
        if not titles or titles[-1] == self.title:
            return False
        self.title = titles[-1]
        self.tell()
        return True

    def take_agent_name(self, items: list[Item]) -> None:
        """The name the agent gave itself in ``initialize`` (kept in its ``session_info``), if ``items`` bring one:
        a stored or replayed session names its agent as it was named live, not by its command."""
        names = [item.payload["agent"] for item in items if item.kind == SESSION_INFO
                 and isinstance(item.payload.get("agent"), str) and item.payload["agent"]]
        if names and names[-1][:80] != self.agent_name:
            self.agent_name = names[-1][:80]
            self.tell()

    def _set_state(self, state: str, detail: str = "") -> None:
        self.state = SessionState(state)
        self._state_detail = detail
        self._states_said += 1
        self.tell()

    def give_way_to(self, gives_way: Callable[[], bool]) -> None:
        """Have the source's reading pause while ``gives_way()`` says so (the user's input on its way to the screen,
        asked from the source's thread); a source that reads nothing in a thread of its own ignores it."""

    def keep_queued(self, texts: list[str]) -> None:
        """The messages the user queued and that were not sent yet, kept with the session (none: nothing to keep)."""

    async def start(self) -> None:
        """Begin delivering items."""

    async def start_with(self, text: str) -> Awaitable[None] | None:
        """:meth:`start`, then ``text`` sent as the session's first prompt when it can take one: the turn, to await
        (its end, or why it failed); None when the session took no prompt (it failed, or waits for a login)."""
        await self.start()
        if not self.can_prompt or self.state != SessionState.IDLE:
            return None
        return self.send(text)

    async def send(self, text: str) -> None:
        from kandev_tui.acp import AgentError

        raise AgentError(self.read_only_reason or "this session does not take prompts")

    async def cancel(self) -> None:
        """Cancel the running turn, if any."""

    async def cancel_subagent(self, session_id: str) -> None:
        """Cancel a subagent's work (``session/cancel`` of its session), where it says it can be."""

    async def note(self, text: str) -> bool:
        """A quiet line in the transcript, said by kandev-tui (a restore of files), stored with the session where
        this source stores one; whether it was said."""
        return False

    @property
    def waiting_for(self) -> set[str]:
        """The permission requests still waiting for the user's answer (by item key)."""
        return set()

    def answer(self, permission_key: str, option_id: Any) -> bool:
        """Answer a waiting permission request (an option id) or question (a response); False when it waits no
        more."""
        return False

    login_methods: list[dict[str, Any]] = []  # the agent's ways to log in, while the state is ``login``
    continuing: dict[str, Any] | None = None  # the stored session a live agent continues (its row), if any

    async def log_in(self, method_id: str, env: dict[str, str] | None = None) -> None:
        from kandev_tui.acp import AgentError

        raise AgentError("this session has nothing to log in to")

    def terminal_login(self, method_id: str) -> tuple[list[str], dict[str, str]] | None:
        return None

    async def choose(self, method: str, params: dict[str, Any]) -> None:
        """Send a choice for the session (a mode, a config option's value, a model)."""
        from kandev_tui.acp import AgentError

        raise AgentError("this session takes no choices")

    async def fetch_output(self, key: str) -> None:
        """Fetch what the item ``key`` left at its source (a Kandev command's output, which its row keeps only the
        size of): the item comes again, with it. Asked when the user opens it."""

    async def load_older(self) -> int:
        """Fetch older items (delivered through ``on_reset``); how many came."""
        return 0

    async def sessions(self) -> list[Any]:
        """The sessions to pick from (:class:`kandev_tui.kandev.catalog.SessionEntry`), newest first."""
        return []

    async def close(self, reason: str = "") -> None:
        """Stop everything the source started; ``reason``: why kandev-tui closes it (said where a turn is cut
        short)."""
