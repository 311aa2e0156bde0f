"""Where a transcript comes from: a live agent, the store, a recording, a Kandev backend (headless).

Each is a :class:`kandev_tui.session.Source`: it delivers item batches to ``on_items`` and state changes to
``on_state``; the app draws what it is given. None of this imports Textual.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, Callable

from kandev_tui.acp import AgentClient, AgentError, AgentOptions, LoginRequired
from kandev_tui.transcript import Item, RecordingWriter, Store, read_recording
from kandev_tui.transcript.items import as_interrupted
from kandev_tui.transcript.pipeline import Pipeline
from kandev_tui.session.background import RunsInBackground
from kandev_tui.session.source import ItemsCallback, Source, StateCallback
from kandev_tui.session.state import SessionState


LAUNCHERS = ("python", "python3", "node", "npx", "uvx", "bunx", "pnpm", "deno")


def agent_display_name(command: list[str]) -> str:
    """The agent a command starts, in a word or two.

    ``claude-code-acp`` for ``[".../claude-code-acp"]``; ``opencode acp`` for ``["opencode", "acp"]`` (a
    subcommand is part of the name); for launchers (``npx -y @scope/pkg``, ``python -m mod``) the package or
    module, options skipped.
    """
    if not command:
        return "agent"
    first = Path(command[0]).name
    rest = command[1:]
    if first.startswith(LAUNCHERS) and rest:
        words = [word for word in rest if not word.startswith("-")]
        return Path(words[0]).name if words else first
    if rest and not rest[0].startswith("-") and "/" not in rest[0] and len(rest[0]) <= 20:
        return f"{first} {rest[0]}"
    return first


class LiveSource(RunsInBackground, Source):
    """An ACP agent started by kandev-tui; every frame recorded, normalised and stored first.

    The agent is read, and its frames normalised and stored, on a loop of its own in a thread
    (:class:`~kandev_tui.session.background.Background`); the app's calls come from its loop and run there.

    ``choices`` (``mode``, ``model``) are chosen once the session is open (an unknown one is said as a notice).
    ``continuing``: a stored session (a row of :meth:`Store.sessions`) whose agent session is continued with
    ``session/resume`` or ``session/load``: its items show first and new ones follow them. ``pick``: the agent's
    own sessions (``session/list``) are offered to choose from first, and the chosen one is continued.
    """

    can_prompt = True
    can_cancel = True
    picker_title = ("Continue one of the agent's sessions", "")
    picker_loading = "Asking the agent for its sessions…"
    picker_empty = "The agent lists no sessions for this workspace: quit, and start a new one with kandev-tui run."

    def __init__(self, options: AgentOptions, store: Store, on_items: ItemsCallback, on_state: StateCallback,
                 *, record: Path | None = None, title: str = "", choices: dict[str, str] | None = None,
                 continuing: dict[str, Any] | None = None, pick: bool = False) -> None:
        super().__init__(on_items, on_state)
        self.options = options
        self.store = store
        self.record = record
        self.title = title or (continuing or {}).get("title") or "new session"
        self.state = SessionState.STARTING  # until start() has the agent's answer (the app starts it after its first frame)
        self.agent_name = agent_display_name(options.command)
        self.agent_command = list(options.command)
        self.workspace = options.workspace
        self.repos = dict(options.repos)
        self.choices = dict(choices or {})
        self.continuing = continuing
        self.can_pick_session = pick
        self.login_methods: list[dict[str, Any]] = []  # the agent's ways to log in, while it waits for one
        self._futures: dict[str, asyncio.Future[str | None]] = {}  # the permission questions, on the agent's loop
        self._waiting: frozenset[str] = frozenset()  # their keys while unanswered (read from the app's loop)
        self.client: AgentClient | None = None
        self.pipeline: Pipeline | None = None
        self.background_name = f"kandev-tui agent {self.agent_name}"

    # -- starting: a new session, a stored one continued, or one the agent lists ----------------------------

    async def sessions(self) -> list[Any]:
        """The agent's own sessions in this workspace (``session/list``), for the picker (``run --pick``)."""
        return await self._there(self._agent_sessions())

    async def _agent_sessions(self) -> list[Any]:
        from kandev_tui.kandev.catalog import SessionEntry

        client = await self._connected()
        if client is None:
            return []
        listed = await client.list_sessions()
        ours = {row["agent_session_id"]: row["title"] for row in self.store.sessions() if row.get("agent_session_id")}
        return [SessionEntry(workspace_id="", workspace=str(s.get("cwd") or ""), task_id="",
                             task=ours.get(s["sessionId"]) or _without_guidance(s.get("title")),
                             session_id=s["sessionId"], state="",
                             updated_at=str(s.get("updatedAt") or "")[:16].replace("T", " "), agent=self.agent_name)
                for s in listed]

    async def start(self) -> None:
        await self._there(self._start())

    async def _connected(self) -> AgentClient | None:
        """The agent, started and initialised (once): its stored session made, frames flowing to the store."""
        if self.client is not None:
            return self.client
        self._set_state("starting", "starting the agent")
        after, history = (0, 0), []
        if self.continuing is not None:  # kandev-tui's own session, continued: its items first, new keys after
            self.session_id = self.continuing["id"]
            history = self.store.packed_items(self.session_id)
            after = _last_turn_and_counter(history)
            self.store.update_session(self.session_id, state="running")
        else:
            self.session_id = self.store.create_session(title=self.title, agent_command=self.options.command,
                                                        workspace=str(self.options.workspace),
                                                        recording=str(self.record) if self.record else None)
        if self.options.log_path is None:
            self.options.log_path = self.store.path.parent / "logs" / f"{self.session_id}.log"
        self.pipeline = Pipeline(self.store, self.session_id,
                                 recording=RecordingWriter(self.record) if self.record else None,
                                 listener=self._items, after=after, stored_history=bool(history))
        if history:
            self.on_items(history)
        self.client = AgentClient(self.options, self.pipeline.feed, self._ask)
        try:
            await self.client.connect()
        except AgentError as exc:
            self._failed(exc)
            return None
        name = self.client.agent_info.get("title") or self.client.agent_info.get("name")
        if isinstance(name, str) and name:
            self.agent_name = name
        return self.client

    async def _start(self) -> None:
        picked = self.session_id if self.can_pick_session else None
        client = await self._connected()
        if client is None:
            return
        if picked:
            self.options.resume = picked  # one of the agent's own sessions, chosen in the picker
        await self._open()

    async def _open(self) -> None:
        """Open the session (new, resumed or loaded); a login first when the agent needs one."""
        assert self.client is not None
        try:
            await self.client.open_session()
        except LoginRequired as exc:
            self.login_methods = exc.methods
            self._set_state("login", str(exc))
            return
        except AgentError as exc:
            self._failed(exc)
            return
        self.login_methods = []
        self._update_session(agent_session_id=self.client.session_id, continues=self.client.continues_by)
        await self._choose_at_start()
        self._set_state("idle", "")

    def _failed(self, exc: AgentError) -> None:
        self.can_prompt = False
        self.read_only_reason = "the agent could not be started"
        self._update_session(state="failed")
        self._set_state("error", str(exc))

    async def _choose_at_start(self) -> None:
        if self.client is not None:
            await choose_at_start(self.client, self.choices, lambda text: self.on_state("notice", text))

    # -- logging in -------------------------------------------------------------------------------------------

    def terminal_login(self, method_id: str) -> tuple[list[str], dict[str, str]] | None:
        """The command a ``terminal`` login runs in the user's terminal (the method's own command, else the agent's,
        with the method's ``args``) and its environment (the method's ``env`` added), or None for another kind of
        method (see :func:`kandev_tui.acp.client.login_method`)."""
        method = next((m for m in self.login_methods if m.get("id") == method_id), None)
        if method is None or method.get("type") != "terminal":
            return None
        args = [a for a in method.get("args") or [] if isinstance(a, str)]
        env = dict(self.options.env if self.options.env is not None else os.environ)
        given = method.get("env") if isinstance(method.get("env"), dict) else {}
        env.update({k: v for k, v in given.items() if isinstance(k, str) and isinstance(v, str)})
        command = method.get("command")  # a command of its own (_meta terminal-auth), else the agent's
        return ([command, *args] if isinstance(command, str) and command else [*self.options.command, *args]), env

    async def log_in(self, method_id: str, env: dict[str, str] | None = None) -> None:
        """Log in with one of the agent's methods and open the session again: an ``agent`` method is the agent's
        ``authenticate``; after an ``env_var`` one (``env``: the values the user gave) or a ``terminal`` one (run
        by the app in the user's terminal) the agent is started again, with the values in its environment."""
        await self._there(self._log_in(method_id, env or {}))

    async def _log_in(self, method_id: str, env: dict[str, str]) -> None:
        method = next((m for m in self.login_methods if m.get("id") == method_id), None)
        if method is None or self.client is None:
            raise AgentError(f"the agent offers no login {method_id!r}")
        kind = method.get("type") or "agent"
        self._set_state("starting", f"logging in: {method.get('name') or method_id}")
        if kind == "agent":
            try:
                await self.client.authenticate(method_id)
            except AgentError as exc:
                self._set_state("login", str(exc))
                raise
            await self._open()
            return
        if kind == "env_var":
            base = self.options.env if self.options.env is not None else dict(os.environ)
            self.options.env = {**base, **{k: v for k, v in env.items() if v}}
        await self.client.close()  # started again: it reads the new credentials
        self.client = AgentClient(self.options, self.pipeline.feed if self.pipeline else (lambda frame: None), self._ask)
        try:
            await self.client.connect()
        except AgentError as exc:
            self._failed(exc)
            return
        await self._open()

    # -- choices --------------------------------------------------------------------------------------------

    async def choose(self, method: str, params: dict[str, Any]) -> None:
        """A choice for the session (``session/set_mode``…); AgentError with the agent's reason when refused."""
        await self._there(self._choose(method, params))

    async def _choose(self, method: str, params: dict[str, Any]) -> None:
        if self.client is None:
            raise AgentError("the agent is not running")
        await self.client.choose(method, params)

    def _set_state(self, state: str, detail: str = "") -> None:
        if self.pipeline is not None:
            self.pipeline.flush()  # what led to the new state is stored and shown first
        super()._set_state(state, detail)

    @property
    def streaming(self) -> bool:  # type: ignore[override]
        return self.pipeline is not None and self.pipeline.streaming

    def _items(self, items: list[Item]) -> None:
        if self.take_title(items):
            self._update_session(title=self.title)
        self.on_items(items)

    async def send(self, text: str) -> None:
        if self.client is None or not self.can_prompt:
            raise AgentError(self.read_only_reason or "the agent is not running")
        await self._there(self._send(text))

    async def _send(self, text: str) -> None:
        assert self.client is not None
        if self.client.turn_running:  # on the agent's loop: a second send waits its turn here, and is refused
            raise AgentError("a turn is already running (Escape cancels it)")
        if self.title in ("", "new session"):
            from kandev_tui.runner import session_title

            self.title = session_title(text)
            self._update_session(title=self.title)
        self._set_state("running", "")
        stop = await self.client.prompt(text)
        if self.client.process is not None and self.client.process.returncode is not None:
            self.can_prompt = False
            self.read_only_reason = "the agent has exited"
            if self.client.exit_reason:  # it died during the turn: the session failed (the command exits 1)
                self._update_session(state="failed")
                self._set_state("error", self.client.exit_reason)
            else:
                self._update_session(state="ended")
                self._set_state("ended", "the agent has exited")
        else:
            self._set_state("idle", stop)

    async def cancel(self) -> None:
        await self._there(self._cancel())

    async def _cancel(self) -> None:
        if self.client is not None and self.client.turn_running:
            self._set_state("cancelling", "")
            for future in self._futures.values():
                if not future.done():
                    future.set_result(None)
            self._waiting = frozenset()
            await self.client.cancel()

    async def _ask(self, params: dict[str, Any]) -> str | None:
        assert self.pipeline is not None
        tool_call = params.get("toolCall") if isinstance(params.get("toolCall"), dict) else {}
        key = self.pipeline.normalizer.pending_permission_key(tool_call.get("toolCallId"))
        if key is None:
            return None
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._futures[key] = future
        self._waiting = self._waiting | {key}
        self._set_state("waiting", "the agent asks for permission")
        try:
            return await future
        finally:
            self._futures.pop(key, None)
            self._waiting = self._waiting - {key}
            if self.state == "waiting":
                self._set_state("running", "")

    def answer(self, permission_key: str, option_id: str) -> bool:
        if permission_key not in self._waiting:
            return False
        self._waiting = self._waiting - {permission_key}  # answered: the question is taken back at once
        self._soon_there(self._resolve, permission_key, option_id)
        return True

    def _resolve(self, permission_key: str, option_id: str) -> None:
        future = self._futures.get(permission_key)
        if future is not None and not future.done():
            future.set_result(option_id)

    @property
    def waiting_for(self) -> set[str]:
        return set(self._waiting)

    async def _close(self) -> None:
        interrupted = self.client is not None and self.client.turn_running
        if self.client is not None:
            await self.client.close(self.closing_reason)
        if self.pipeline is not None:
            self.pipeline.close()
        if self.state not in ("ended", "error"):
            self._update_session(state="interrupted" if interrupted else "ended")
            # the app goes on showing it (one session of several closed): ended, the prompt closed
            Source._set_state(self, "ended", self.closing_reason or "closed")

    def _update_session(self, **fields: Any) -> None:
        """The session's row (through the pipeline, which says once when the store fails)."""
        if self.pipeline is not None:
            self.pipeline.update_session(**fields)


async def choose_at_start(client: AgentClient, choices: dict[str, str], notice: Callable[[str], None]) -> list[str]:
    """The mode and model asked for (``run --mode/--model``, or remembered for this agent), once the session is
    open: what the agent does not offer, or refuses, is said (``notice``) and the agent's own stays. The problems,
    as said."""
    from kandev_tui.session.controls import Controls

    setup = client.session_setup
    controls = Controls({"modes": setup.get("modes"), "config": setup.get("configOptions"), "models": setup.get("models")})
    problems = []
    for category in ("mode", "model"):
        value = choices.get(category)
        if not value:
            continue
        try:
            control, value = controls.resolve(category, value)
            method, params = control.request(value)
            await client.choose(method, params)
        except (ValueError, AgentError) as exc:
            problems.append(f"{category} {value!r} was not chosen: {exc}")
            notice(problems[-1])
    return problems


def _without_guidance(title: Any) -> str:
    """An agent's title for one of its sessions, never kandev-tui's guidance (an agent that titles a session with
    the start of its first prompt had the guidance there, when it took no system prompt)."""
    from kandev_tui.presentation import GUIDANCE

    text = " ".join(str(title or "").split())
    if not text or " ".join(GUIDANCE.split()).startswith(text[:40].rstrip("…. ")):
        return "untitled"
    return text


def _last_turn_and_counter(items: list[Item]) -> tuple[int, int]:
    """The last turn of stored items and the highest number in their keys (``message:12``): a session continued
    numbers its new items after them."""
    counter = 0
    for item in items:
        tail = item.key.rpartition(":")[2]
        if tail.isdigit():
            counter = max(counter, int(tail))
    return max((item.turn for item in items), default=0), counter


class StoredSource(Source):
    """A session from the store, read-only (the agents we start cannot be resumed); without one, the stored
    sessions are offered to pick from."""

    read_only_reason = "a stored session is read-only; start a new one with kandev-tui run"
    can_pick_session = True
    can_pick_again = True
    picker_loading = "Reading the stored sessions…"
    picker_empty = "No sessions are stored yet: start one with kandev-tui run or kandev-tui demo."

    def __init__(self, store: Store, session: dict[str, Any] | None, on_items: ItemsCallback,
                 on_state: StateCallback) -> None:
        super().__init__(on_items, on_state)
        self.store = store
        self.session: dict[str, Any] = {}
        self.picker_title = ("Open a stored session", str(getattr(store, "path", None) or ""))
        if session is not None:
            self._take(session)

        self.state = SessionState.LOADING  # until its items are read (start)

    def _take(self, session: dict[str, Any]) -> None:
        self.session = session
        self.session_id = session["id"]
        if session.get("running_elsewhere"):  # another kandev-tui runs it: this is what it had stored by then
            from datetime import datetime

            self.runs_elsewhere = f"the kandev-tui that runs it (pid {session['running_elsewhere']})"
            as_of = datetime.fromtimestamp(session.get("updated") or session.get("created") or 0).strftime("%H:%M:%S")
            self.read_only_reason = (f"running in another kandev-tui (pid {session['running_elsewhere']}); shown as "
                                     f"stored at {as_of}: prompt and answer there")
        self.title = session.get("title") or "session"
        self.agent_name = agent_display_name(session.get("agent_command") or [])
        self.workspace = Path(session["workspace"]) if session.get("workspace") else None

    async def sessions(self) -> list[Any]:
        from datetime import datetime, timezone

        from kandev_tui.kandev.catalog import SessionEntry

        return [SessionEntry(workspace_id="", workspace=row["workspace"] or "", task_id="",
                             task=row["title"] or "session", session_id=row["id"], state=(row["state"] or "").upper(),
                             updated_at=datetime.fromtimestamp(row["updated"] or row["created"], timezone.utc)
                             .astimezone().isoformat(timespec="minutes"),
                             agent=agent_display_name(row["agent_command"] or []), items=row["items"])
                for row in await asyncio.to_thread(self.store.sessions)]

    async def start(self) -> None:
        if self.session.get("id") != self.session_id:  # picked
            session = self.store.session(self.session_id or "")
            if session is None:
                self._set_state("error", f"no stored session {self.session_id}")
                return
            self._take(session)
        self._set_state(SessionState.LOADING, "reading the stored session")
        # read in a thread (the screen keeps drawing and taking keys meanwhile: 50,000 items take a second), then one
        # batch: the view places every item, then mounts only its window, once; payloads are parsed when used
        items = await asyncio.to_thread(self.store.packed_items, self.session_id or "")
        if self.session.get("state") == "interrupted":  # its process is gone: nothing it left waiting still waits
            items = as_interrupted(items)
        self.on_items(items)
        self._set_state("stored", self.session.get("state", ""))


class ReplaySource(RunsInBackground, Source):
    """A recording played back through the same normaliser, at full speed or ``speed`` times real time; read and
    normalised on a loop of its own, in a thread (:class:`~kandev_tui.session.background.Background`)."""

    read_only_reason = "a replay is read-only"

    def __init__(self, path: Path, on_items: ItemsCallback, on_state: StateCallback, speed: float | None = None) -> None:
        super().__init__(on_items, on_state)
        self.path = path
        self.speed = speed
        self.title = path.name
        self.agent_name = "replay"
        self.pipeline = Pipeline(None, None, listener=self._items, recorded=True)  # every frame replayed is in the file
        self.background_name = "kandev-tui replay"

    def _items(self, items: list[Item]) -> None:
        self.take_title(items)  # before the items are shown: a state shown meanwhile shows the same title
        self.on_items(items)

    async def start(self) -> None:
        await self._there(self._play())

    async def _play(self) -> None:
        self._set_state("running", "replaying")
        previous = None
        batch = []
        def torn(line: int) -> None:
            from kandev_tui.transcript.frames import torn_warning

            self.on_state("notice", f"{self.path.name}: {torn_warning(line)}")

        for frame in read_recording(self.path, torn):
            if self.speed and previous is not None and frame.t > previous:
                delay = min(5.0, (frame.t - previous) / self.speed)
                if delay > 0.01:
                    self.pipeline.feed_many(batch)
                    batch = []
                    await asyncio.sleep(delay)
            previous = frame.t
            batch.append(frame)
            if len(batch) >= 200:
                self.pipeline.feed_many(batch)
                batch = []
                await asyncio.sleep(0)
        self.pipeline.feed_many(batch)
        self._set_state("replayed", "end of recording")


class KandevSource(RunsInBackground, Source):
    """A session of a running Kandev backend (``kandev-tui attach``): cached, paged, live, reconnecting; its
    connection, its rows and its cache run on a loop of their own, in a thread
    (:class:`~kandev_tui.session.background.Background`)."""

    background_name = "kandev-tui attach"

    can_cancel = True
    can_pick_session = True
    picker_loading = "Loading sessions from Kandev…"
    picker_empty = "Kandev has no sessions yet: start a task in Kandev, then press r."

    def __init__(self, url: str, session_id: str | None, on_items: ItemsCallback, on_state: StateCallback, *,
                 token: str | None = None, store: Store | None = None, page_size: int = 100) -> None:
        super().__init__(on_items, on_state)
        from kandev_tui.kandev import backend_key

        self.url = url
        self.picker_title = ("Attach to a Kandev session", url)
        self.token = token
        self.store = store
        self.page_size = page_size
        self.session_id = session_id
        self.agent_name = f"kandev {backend_key(url)}"
        self.title = "Kandev session"
        self.attachment: Any = None
        self._runner: asyncio.Task[None] | None = None
        self._detail = ""
        self._waiting: frozenset[str] = frozenset()  # the requests waiting for an answer (made on the source's loop)

    # what the app asks
    @property
    def can_prompt(self) -> bool:  # type: ignore[override]
        return self.attachment is not None and self.attachment.can_prompt

    @property
    def read_only_reason(self) -> str:  # type: ignore[override]
        if self.attachment is None:
            return "not attached yet"
        return self.attachment.prompt_reason or self._detail or "the session does not take prompts now"

    @property
    def workspace(self) -> Path | None:  # type: ignore[override]
        """The session's directory when Kandev runs on this machine (file previews read from it)."""
        path = Path(self.attachment.workspace_path) if self.attachment is not None and self.attachment.workspace_path else None
        return path if path is not None and path.is_dir() else None

    @property
    def more_above(self) -> bool:
        return self.attachment is not None and not self.attachment.complete

    @property
    def waiting_for(self) -> set[str]:
        return set(self._waiting)

    def _note_waiting(self) -> None:
        attachment = self.attachment
        self._waiting = frozenset(attachment.pending_permissions() if attachment is not None
                                  and attachment.status == "live" else ())

    async def sessions(self) -> list[Any]:
        """Every session on the backend, newest first (the picker)."""
        return await self._there(self._sessions())

    async def _sessions(self) -> list[Any]:
        from kandev_tui.kandev.catalog import sessions
        from kandev_tui.kandev.connection import KandevConnection

        conn = KandevConnection(self.url, self.token)
        await conn.connect()
        try:
            return await sessions(conn, self.url, self.token)
        finally:
            await conn.close()

    async def start(self) -> None:
        await self._there(self._start())

    async def _start(self) -> None:
        from kandev_tui.kandev import Attachment, KandevError

        if not self.session_id:
            self._set_state("error", "no session chosen")
            return
        self.attachment = Attachment(self.url, self.session_id, token=self.token, store=self.store,
                                     page_size=self.page_size, on_items=self._items, on_reset=self._reset,
                                     on_status=self._status)
        if self.attachment.load_cache():
            self.title = self.attachment.title or self.title
        try:
            conn = await self.attachment.connect_once()
        except KandevError as exc:
            if exc.code in ("not_found", "refused", "handshake") or not self.attachment.rows:
                self._set_state("error", str(exc))
                return
            conn = None  # the cache is shown; keep trying in the background
        self._runner = asyncio.ensure_future(self.attachment.run(conn))

    def _items(self, items: list[Item]) -> None:
        self._title_from(items)
        self._note_waiting()
        self.on_items(items)
        if any(item.kind == "permission" for item in items) and self.attachment is not None:
            self._status(self.attachment.status, "")

    def _reset(self, items: list[Item]) -> None:
        self._title_from(items)
        if self.on_reset is not None:
            self.on_reset(items)
        else:
            self.on_items(items)

    def _title_from(self, items: list[Item]) -> None:
        if self.title in ("", "Kandev session"):
            first = next((i for i in items if i.kind == "user_message" and i.payload.get("text")), None)
            if first is not None:
                from kandev_tui.runner import session_title

                self.title = session_title(str(first.payload["text"]))
                if self.attachment is not None:
                    self.attachment.title = self.title

    def _status(self, status: str, detail: str) -> None:
        attachment = self.attachment
        self._detail = detail
        self._note_waiting()
        if status != "live" or attachment is None:
            self._set_state({"connecting": "connecting", "reconnecting": "reconnecting", "error": "error"}.get(
                status, "connecting"), detail)
            return
        if attachment.pending_permissions():
            self._set_state("waiting", "the agent asks for permission")
        elif attachment.session_state in ("RUNNING", "STARTING"):
            self._set_state("running", "")
        else:
            self._set_state("idle", "")

    async def fetch_output(self, key: str) -> None:
        if self.attachment is not None and key.startswith("kandev:"):
            await self._there(self.attachment.shell_output(key.removeprefix("kandev:")))

    async def load_older(self) -> int:
        return await self._there(self._load_older()) or 0

    async def _load_older(self) -> int:
        if self.attachment is None:
            return 0
        from kandev_tui.kandev import KandevError

        try:
            return await self.attachment.load_older()
        except KandevError as exc:
            self.on_state("notice", f"older messages could not be loaded: {exc}")
            return 0

    async def send(self, text: str) -> None:
        if not self.can_prompt:
            raise AgentError(self.read_only_reason)
        await self._there(self._send(text))

    async def _send(self, text: str) -> None:
        from kandev_tui.kandev import KandevError

        try:
            await self.attachment.send(text)
        except KandevError as exc:
            raise AgentError(str(exc)) from None

    async def cancel(self) -> None:
        await self._there(self._cancel())

    async def _cancel(self) -> None:
        from kandev_tui.kandev import KandevError

        conn = self.attachment.connection if self.attachment is not None else None
        if conn is None:
            return
        try:
            await conn.request("agent.cancel", {"session_id": self.session_id, "task_id": self.attachment.task_id})
        except KandevError as exc:
            self.on_state("notice", f"the turn could not be cancelled: {exc}")

    def answer(self, permission_key: str, option_id: str) -> bool:
        if permission_key not in self._waiting:
            return False
        self._waiting = self._waiting - {permission_key}  # answered: the question is taken back at once
        from kandev_tui.kandev import KandevError

        async def send() -> None:
            try:
                await self.attachment.answer(permission_key, option_id)
            except KandevError as exc:
                self.on_state("notice", f"the answer was not sent: {exc}")

        self._soon_there(asyncio.ensure_future, send())
        return True

    async def _close(self) -> None:
        if self.attachment is not None:
            await self.attachment.stop()
        if self._runner is not None:
            try:
                await asyncio.wait_for(self._runner, 5)
            except (asyncio.TimeoutError, asyncio.CancelledError, Exception):  # noqa: BLE001
                self._runner.cancel()
