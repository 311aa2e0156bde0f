"""An ACP agent started by kandev-tui (the app's live sessions): its session kept by the agent-session core
(kandev_tui/session/agent.py), its frames read on a loop of its own."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from kandev_tui.acp import AgentError, AgentOptions, LoginRequired
from kandev_tui.session.agent import AgentSession, choose_at_start, session_title
from kandev_tui.base.jsonutil import of_type
from kandev_tui.session.background import OwnLoop
from kandev_tui.session.source import NullSource
from kandev_tui.session.state import SessionState
from kandev_tui.transcript import Item, Store
from kandev_tui.transcript.frames import LOCAL, Frame

from .names import agent_display_name


if TYPE_CHECKING:
    from kandev_tui.acp.client import AgentClient
    from kandev_tui.transcript.pipeline import Pipeline


class LiveSource(NullSource):
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

    def __init__(self, options: AgentOptions, store: Store, *, record: Path | None = None, title: str = "", choices: dict[str, str] | None = None,
                 continuing: dict[str, Any] | None = None, pick: bool = False,
                 asked: frozenset[str] = frozenset()) -> None:
        """``choices``: the mode, model and options to choose once the session is open; ``asked``: those of them
        the user asked for in this command (``run --mode``…), not remembered: one the agent refuses holds the first
        prompt back."""
        super().__init__()
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
        self.asked = asked
        self.continuing = continuing
        self.can_pick_session = pick
        self.login_methods: list[dict[str, Any]] = []  # the agent's ways to log in, while it waits for one
        self._futures: dict[str, asyncio.Future[Any]] = {}  # permission requests and questions, on the agent's loop
        self._waiting: frozenset[str] = frozenset()  # their keys while unanswered (read from the app's loop)
        self.client: AgentClient | None = None
        self.pipeline: Pipeline | None = None
        self.core: AgentSession | None = None  # the stored session, its pipeline (made when the agent starts)
        self.io = OwnLoop(f"kandev-tui agent {self.agent_name}")  # the agent is read on a loop of its own
        self.closing_reason = ""  # why kandev-tui closes it (said where a turn is cut short)
        self._refused: list[str] = []  # the choices asked for that the agent does not offer or refused

    # -- starting: a new session, a stored one continued, or one the agent lists ----------------------------

    async def sessions(self) -> list[Any]:
        """The agent's own sessions in this workspace (``session/list``), for the picker (``run --pick``)."""
        found = await self.io.run(self._agent_sessions())
        return found if isinstance(found, list) else []  # None: the source is closed

    async def _agent_sessions(self) -> list[Any]:
        from kandev_tui.kandev.catalog import SessionEntry

        client = await self._connected()
        if client is None:
            return []
        listed = await client.ops.list_sessions()
        ours = {row["agent_session_id"]: row["title"] for row in self.store.sessions() if row.get("agent_session_id")}
        return [SessionEntry(workspace_id="", workspace=str(s.get("cwd") or ""), task_id="",
                             task=ours.get(s["sessionId"]) or _without_guidance(s.get("title")),
                             session_id=s["sessionId"], state="",
                             updated_at=str(s.get("updatedAt") or ""), agent=self.agent_name)  # (the picker says it)
                for s in listed]

    async def start(self) -> None:
        await self.io.run(self._start())

    async def start_with(self, text: str) -> Awaitable[None] | None:
        """The first prompt goes from the agent's loop as soon as its session is open, with no round trip through
        the app's loop (busy drawing the sessions that stream already): the session goes from starting to running."""
        turn = await self.io.run(self._start(first_prompt=text))
        return asyncio.wrap_future(turn) if turn is not None else None

    async def _connected(self) -> AgentClient | None:
        """The agent, started and initialised (once): its stored session made, frames flowing to the store."""
        if self.client is not None:
            return self.client
        self._set_state("starting", "starting the agent")
        self.core = AgentSession(self.options, self.store, title=self.title, record=self.record,
                                 continuing=self.continuing, listener=self._items)
        history = self.core.begin()
        self.session_id, self.pipeline = self.core.session_id, self.core.pipeline
        if history:  # kandev-tui's own session, continued: its items first, new keys after
            self.on_items(history)
        self.client = self.core.client(self._ask, self._ask_user)
        self.core.prepare_turns()  # meanwhile
        try:
            await self.client.connect()
        except AgentError as exc:
            self._failed(exc)
            return None
        name = self.client.agent_info.get("title") or self.client.agent_info.get("name")
        if isinstance(name, str) and name:
            self.agent_name = name
        return self.client

    async def _start(self, first_prompt: str | None = None) -> concurrent.futures.Future[None] | None:
        """Start the agent and open its session; with ``first_prompt``, its turn (running on this loop) once it is
        open, else None."""
        picked = self.session_id if self.can_pick_session else None
        client = await self._connected()
        if client is None:
            return None
        if picked:
            self.options.resume = picked  # one of the agent's own sessions, chosen in the picker
        if not await self._open(idle=first_prompt is None) or first_prompt is None:
            return None
        if self._refused:  # run --mode NAME the agent does not offer: not sent in a mode the user did not ask for
            self.held_back = "; ".join(self._refused)
            if self.pipeline is not None:
                self.pipeline.feed(Frame.now(LOCAL, {"event": "note", "message": (
                    f"Your first prompt was not sent: {self.held_back}. It is in the prompt box: choose with ctrl+o, "
                    "then send it.")}))
            self._set_state("idle", "")
            return None
        return asyncio.run_coroutine_threadsafe(self._send(first_prompt), asyncio.get_running_loop())

    async def _open(self, idle: bool = True) -> bool:
        """Open the session (new, resumed or loaded); a login first when the agent needs one. Whether it is open;
        ``idle``: then say so (not when a prompt goes at once: the session is running next)."""
        assert self.client is not None
        try:
            await self.client.open_session()
        except LoginRequired as exc:
            self.login_methods = exc.methods
            self._set_state("login", str(exc))
            return False
        except AgentError as exc:
            self._failed(exc)
            return False
        self.login_methods = []
        if self.core is not None:
            self.core.opened(self.client)
        await self._choose_at_start()
        if idle:
            self._set_state("idle", "")
        return True

    def _failed(self, exc: AgentError) -> None:
        self.can_prompt = False
        self.read_only_reason = "the agent could not be started"
        self._update_session(state="failed")
        self._set_state("error", str(exc))

    async def _choose_at_start(self) -> None:
        """The remembered choices, then those asked for (a refusal of which :meth:`_start` holds the prompt for)."""
        if self.client is not None:
            said = self.notify
            await choose_at_start(self.client, {k: v for k, v in self.choices.items() if k not in self.asked}, said)
            self._refused = await choose_at_start(
                self.client, {k: v for k, v in self.choices.items() if k in self.asked}, said)

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
        given = of_type(method, "env", dict, {})
        env.update({k: v for k, v in given.items() if isinstance(k, str) and isinstance(v, str)})
        command = method.get("command")  # a command of its own (_meta terminal-auth), else the agent's
        return ([command, *args] if isinstance(command, str) and command else [*self.options.command, *args]), env

    async def log_in(self, method_id: str, env: dict[str, str] | None = None) -> None:
        """Log in with one of the agent's methods and open the session again: an ``agent`` method is the agent's
        ``authenticate``; after an ``env_var`` one (``env``: the values the user gave) or a ``terminal`` one (run
        by the app in the user's terminal) the agent is started again, with the values in its environment."""
        await self.io.run(self._log_in(method_id, env or {}))

    async def _log_in(self, method_id: str, env: dict[str, str]) -> None:
        method = next((m for m in self.login_methods if m.get("id") == method_id), None)
        if method is None or self.client is None:
            raise AgentError(f"the agent offers no login {method_id!r}")
        kind = method.get("type") or "agent"
        self._set_state("starting", f"logging in: {method.get('name') or method_id}")
        if kind == "agent":
            try:
                await self.client.ops.authenticate(method_id)
            except AgentError as exc:
                self._set_state("login", str(exc))
                raise
            await self._open()
            return
        if kind == "env_var":
            base = self.options.env if self.options.env is not None else dict(os.environ)
            self.options.env = {**base, **{k: v for k, v in env.items() if v}}
        await self.client.close()  # started again: it reads the new credentials
        assert self.core is not None
        self.client = self.core.client(self._ask, self._ask_user)
        try:
            await self.client.connect()
        except AgentError as exc:
            self._failed(exc)
            return
        await self._open()

    # -- choices --------------------------------------------------------------------------------------------

    async def choose(self, method: str, params: dict[str, Any]) -> None:
        """A choice for the session (``session/set_mode``…); AgentError with the agent's reason when refused."""
        await self.io.run(self._choose(method, params))

    async def _choose(self, method: str, params: dict[str, Any]) -> None:
        if self.client is None:
            raise AgentError("the agent is not running")
        await self.client.ops.choose(method, params)

    def _set_state(self, state: str, detail: str = "") -> None:
        if self.pipeline is not None:
            self.pipeline.store_all()  # what led to the new state is stored and shown first
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
        await self.io.run(self._send(text))

    async def _send(self, text: str) -> None:
        assert self.client is not None
        if self.client.turn_running or (self.core is not None and self.core.in_turn):  # on the agent's loop: a
            # second send waits its turn here, and is refused
            raise AgentError("a turn is already running (Escape cancels it)")
        if self.title in ("", "new session"):
            self.title = session_title(text)
            self._update_session(title=self.title)
        self._set_state("running", "")
        assert self.core is not None
        stop = await self.core.turn(self.client, text)
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
        await self.io.run(self._cancel())

    async def note(self, text: str) -> bool:
        pipeline = self.pipeline
        if pipeline is None:
            return False

        async def say() -> None:  # on the agent's loop, where its frames go through the pipeline
            pipeline.feed(Frame.now(LOCAL, {"event": "note", "message": text}))

        await self.io.run(say())
        return True

    async def cancel_subagent(self, session_id: str) -> None:
        if self.client is not None:
            await self.io.run(self.client.ops.cancel_session(session_id))

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
        tool_call = of_type(params, "toolCall", dict, {})
        key = self.pipeline.normalizer.pending_permission_key(tool_call.get("toolCallId"))
        option = await self._wait_for_user(key, "the agent asks for permission")
        return option if isinstance(option, str) else None

    async def _ask_user(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """A question (elicitation) the user answers in its card: the response for the agent, or None."""
        assert self.pipeline is not None
        response = await self._wait_for_user(self.pipeline.normalizer.pending_elicitation_key(),
                                             "the agent asks you a question")
        return response if isinstance(response, dict) else None

    async def _wait_for_user(self, key: str | None, why: str) -> Any:
        """The answer the user gives to the request ``key`` (None: cancelled, or no such request)."""
        if key is None:
            return None
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._futures[key] = future
        self._waiting = self._waiting | {key}
        self._set_state("waiting", why)
        try:
            return await future
        finally:
            self._futures.pop(key, None)
            self._waiting = self._waiting - {key}
            if self.state == "waiting":
                self._set_state("running", "")

    def answer(self, permission_key: str, option_id: Any) -> bool:
        if permission_key not in self._waiting:
            return False
        self._waiting = self._waiting - {permission_key}  # answered: the question is taken back at once
        self.tell()
        self.io.soon(self._resolve, permission_key, option_id)
        return True

    def _resolve(self, permission_key: str, option_id: Any) -> None:
        future = self._futures.get(permission_key)
        if future is not None and not future.done():
            future.set_result(option_id)

    def give_way_to(self, gives_way: Callable[[], bool]) -> None:
        self.options.gives_way = gives_way  # the transport asks it at its turns (kandev_tui/acp/transport.py)

    def keep_queued(self, texts: list[str]) -> None:
        """Stored on the agent's loop, in the order asked (the last asked is what stays)."""
        if self.session_id and self.can_prompt:
            self.io.soon(self.store.set_queued, self.session_id, list(texts))

    @property
    def waiting_for(self) -> set[str]:
        return set(self._waiting)

    async def close(self, reason: str = "") -> None:  # what it started closed on its loop (_close), then the loop
        self.closing_reason = reason
        await self.io.close(self._close())

    async def _close(self) -> None:
        interrupted = self.client is not None and self.client.turn_running
        if self.client is not None:
            await self.client.close(self.closing_reason)
        if self.core is not None:
            self.core.close()
        if self.state not in ("ended", "error"):
            self._update_session(state="interrupted" if interrupted else "ended")
            # the app goes on showing it (one session of several closed): ended, the prompt closed
            NullSource._set_state(self, "ended", self.closing_reason or "closed")

    def _update_session(self, **fields: Any) -> None:
        """The session's row (through the pipeline, which says once when the store fails)."""
        if self.core is not None:
            self.core.update(**fields)


def _without_guidance(title: Any) -> str:
    """An agent's title for one of its sessions, never kandev-tui's guidance (an agent that titles a session with
    the start of its first prompt had the guidance there, when it took no system prompt)."""
    from kandev_tui.presentation import GUIDANCE

    text = " ".join(str(title or "").split())
    if not text or " ".join(GUIDANCE.split()).startswith(text[:40].rstrip("…. ")):
        return "untitled"
    return text
