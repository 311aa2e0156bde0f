"""The ACP client: start an agent, hand it our MCP server, prompt, cancel, answer.

Built on the ``agent-client-protocol`` SDK's JSON-RPC ``Connection`` with a
raw method handler (no ``acp.Client`` subclass, so every method we do not
implement answers "method not found") and :class:`LineTransport`, so that
every frame in both directions reaches ``on_frame`` in order: that is how the
recording, the normaliser and the store see the session.

The SDK is imported lazily, when an agent is started.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from kandev_tui import __version__
from kandev_tui.shutdown import forget_group, register_group, session_members, signal_session
from kandev_tui.transcript.clientside import edit_paths
from kandev_tui.transcript.frames import IN, LOCAL, Frame
from .transport import SENT_IDS

if TYPE_CHECKING:  # imported when a client is made (after the app's first frame)
    from kandev_tui.mcp_hub import McpHub

    from .terminals import Terminals

PROTOCOL_VERSION = 1
PermissionHandler = Callable[[dict[str, Any]], Awaitable[str | None]]
# a question (elicitation/create) asked of the user: the response ({"action": ...}), or None (cancelled)
ElicitationHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]


class AgentError(Exception):
    """The agent could not be started or stopped answering; ``str()`` says what happened."""


class LoginRequired(AgentError):
    """The agent cannot start a session until the user logs in: ``methods`` are the ways it offers (its
    ``authMethods``: ``{id, name, description, type?, vars?, args?, env?}``). The agent is still running, so that
    an ``agent`` method can be called (:meth:`AgentClient.authenticate`) and the session tried again."""

    def __init__(self, message: str, methods: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.methods = methods


AUTH_REQUIRED = -32000  # JSON-RPC error code of ACP's "Authentication required"


def request_error_text(exc: BaseException) -> str:
    """A JSON-RPC error as one line: its message, and what its ``data`` adds (``details``, ``message``, text)."""
    message = str(exc) or "error"
    data = getattr(exc, "data", None)
    detail = None
    if isinstance(data, dict):
        detail = next((data[k] for k in ("details", "detail", "message", "error") if isinstance(data.get(k), str)), None)
    elif isinstance(data, str):
        detail = data
    if detail and detail.strip() and detail.strip() not in message:
        message = f"{message}: {' '.join(detail.split())[:300]}"
    return message


@dataclass
class AgentOptions:
    """How to start and talk to one agent."""

    command: list[str]
    workspace: Path
    repos: dict[str, Path] = field(default_factory=dict)
    log_path: Path | None = None
    inject_guidance: bool = True
    extra_mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    init_timeout: float = 30.0
    cancel_grace: float = 10.0
    env: dict[str, str] | None = None
    # continue the agent's own session with this id (session/resume where offered, else session/load)
    resume: str | None = None
    # the history a loaded session replays is stored already (kandev-tui's own session continued): not shown again
    history_stored: bool = False
    # what kandev-tui offers to do for the agent (ACP client capabilities): read and write the workspace's files,
    # run commands in terminals of its own
    fs_read: bool = True
    fs_write: bool = True
    terminals: bool = True
    # what kandev-tui does beside the agent: each turn in a git workspace recorded, and what it changed said (the
    # settings track_changes and checkpoint_days: kandev_tui/turn_changes.py)
    track_changes: bool = True
    checkpoint_days: int = 30


def kandev_mcp_server(workspace: Path, repos: dict[str, Path]) -> dict[str, Any]:
    """The stdio entry offering kandev-tui's own MCP server (``kandev-tui mcp``)."""
    args = ["-m", "kandev_tui", "mcp", "--workspace", str(workspace), "--profile", "task"]
    for name, path in repos.items():
        args += ["--repo", f"{name}={path}"]
    return {"name": "kandev", "command": sys.executable, "args": args, "env": []}


def parse_mcp_config(data: Any) -> list[dict[str, Any]]:
    """User MCP servers from JSON (a list, or ``{"mcpServers": [...]}``) as ACP ``session/new`` entries.

    A stdio entry is ``{name, command, args?, env?}`` (``env`` as ``[{name, value}]`` or an
    object); an http/sse entry is ``{type, name, url, headers?}``. ValueError says what is wrong.
    """
    if isinstance(data, dict) and "mcpServers" in data:
        data = data["mcpServers"]
    if not isinstance(data, list):
        raise ValueError("expected a JSON list of MCP servers")
    servers = []
    for index, entry in enumerate(data):
        where = f"server {index + 1}"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"].strip():
            raise ValueError(f"{where}: needs a name")
        kind = entry.get("type")
        if kind in ("http", "sse"):
            if not isinstance(entry.get("url"), str):
                raise ValueError(f"{where} ({entry['name']}): an {kind} server needs a url")
            headers = entry.get("headers") or []
            if isinstance(headers, dict):
                headers = [{"name": k, "value": str(v)} for k, v in headers.items()]
            servers.append({"type": kind, "name": entry["name"], "url": entry["url"], "headers": headers})
            continue
        if kind not in (None, "stdio") or not isinstance(entry.get("command"), str):
            raise ValueError(f"{where} ({entry['name']}): a stdio server needs a command")
        args = entry.get("args") or []
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ValueError(f"{where} ({entry['name']}): args must be a list of strings")
        env = entry.get("env") or []
        if isinstance(env, dict):
            env = [{"name": k, "value": str(v)} for k, v in env.items()]
        if not isinstance(env, list) or not all(isinstance(e, dict) and "name" in e and "value" in e for e in env):
            raise ValueError(f"{where} ({entry['name']}): env must be an object or a list of {{name, value}}")
        servers.append({"name": entry["name"], "command": entry["command"], "args": args, "env": env})
    return servers


def mcp_capabilities(agent_caps: dict[str, Any]) -> dict[str, Any]:
    caps = agent_caps.get("mcpCapabilities")
    return caps if isinstance(caps, dict) else {}


def mcp_servers_for(options: AgentOptions, agent_caps: dict[str, Any],
                    ours: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Our server first (``ours``, else :func:`kandev_mcp_server`), then the user's; stdio always, http/sse only if
    the agent says it can; first entry per name."""
    mcp_caps = mcp_capabilities(agent_caps)
    servers, seen = [], set()
    for entry in [ours or kandev_mcp_server(options.workspace, options.repos), *options.extra_mcp_servers]:
        name = entry.get("name")
        kind = entry.get("type")
        if not isinstance(name, str) or name in seen:
            continue
        if kind in ("http", "sse") and not mcp_caps.get(kind):
            continue
        seen.add(name)
        servers.append(entry)
    return servers


def _tail(path: Path | None, lines: int = 12) -> list[str]:
    if path is None or not path.exists():
        return []
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - 16384))
        data = handle.read().decode("utf-8", "replace")
    return [line for line in data.splitlines() if line.strip()][-lines:]


# what kandev-tui asks of agents: an agent that asks it of kandev-tui sends its input back
AGENT_METHODS = frozenset({"initialize", "authenticate", "session/new", "session/load", "session/resume",
                           "session/prompt", "session/list", "session/set_mode"})

# notifications whose frame is all kandev-tui needs (the normaliser reads it): never dispatched through the SDK
OBSERVED_ONLY = frozenset({"session/update"})
SESSION_CLOSE_WAIT = 2.0  # seconds an agent that offers session/close has to answer it before it is ended


def login_method(method: dict[str, Any]) -> dict[str, Any]:
    """One of the agent's ``authMethods``, read in any of its forms: a login run in the user's terminal may be the
    stable ``type: "terminal"`` (the agent's own command with ``args`` and ``env``), only
    ``_meta["terminal-auth"]`` (Zed's form: ``{command, args, env, label}``, the command its own), or
    ``_meta: {type: "terminal", args}``; each becomes
    ``type: "terminal"`` with ``args``, ``env`` (a dict) and, when the agent names one, ``command``."""
    meta = method.get("_meta")
    marked = meta.get("terminal-auth") if isinstance(meta, dict) else None
    if not isinstance(marked, dict) and isinstance(meta, dict) and meta.get("type") == "terminal":
        marked = {"args": meta.get("args"), "env": meta.get("env")}  # the type itself in _meta (Qwen Code)
    if not isinstance(marked, dict) or method.get("type") not in (None, "agent", "terminal"):
        return method
    found = {**method, "type": "terminal"}
    command = marked.get("command")
    if isinstance(command, str) and command.strip():
        found["command"] = command
    if isinstance(marked.get("args"), list):
        found["args"] = [a for a in marked["args"] if isinstance(a, str)]
    env = marked.get("env")
    if isinstance(env, list):  # [{name, value}], as ACP spells environments elsewhere
        env = {e.get("name"): e.get("value") for e in env if isinstance(e, dict)}
    if isinstance(env, dict):
        found["env"] = {k: v for k, v in env.items() if isinstance(k, str) and isinstance(v, str)}
    if not method.get("name") and isinstance(marked.get("label"), str):
        found["name"] = marked["label"]
    return found


class AgentClient:
    """One agent process and one ACP session with it."""

    def __init__(self, options: AgentOptions, on_frame: Callable[[Frame], None],
                 ask_permission: PermissionHandler | None = None,
                 ask_user: ElicitationHandler | None = None) -> None:
        self.options = options
        self._on_frame = on_frame
        self._ask_permission = ask_permission
        self._ask_user = ask_user  # questions (elicitation): advertised only when someone can answer them
        self._question_ids: list[Any] = []  # the ids of questions received, not yet handled (in order)
        self._questions: dict[Any, asyncio.Task[Any]] = {}  # a question's id → its wait (the agent may withdraw it)
        self.process: asyncio.subprocess.Process | None = None
        self._conn: Any = None
        self._withdrawing: set[asyncio.Future[None]] = set()  # $/cancel_request notes being sent
        self._log: Any = None
        self.session_id: str | None = None
        self.agent_info: dict[str, Any] = {}
        self.agent_capabilities: dict[str, Any] = {}
        self.auth_methods: list[dict[str, Any]] = []
        self.session_setup: dict[str, Any] = {}  # the answer to session/new (load, resume): modes, config, models
        self._prefix_guidance = False  # the guidance goes before the first prompt (no system prompt taken)
        self._first_prompt = True
        self._turn: asyncio.Task[Any] | None = None
        self._permission_waits: set[asyncio.Task[Any]] = set()  # the questions being asked, cancelled by cancel()
        self._exit_reported = False
        self._echoed = False  # the agent asked kandev-tui what kandev-tui asks agents: it echoes (cat)
        self.exit_reason = ""  # how the agent ended during a turn ("the agent was ended by SIGKILL during the turn")
        self._closing: asyncio.Future[None] | None = None
        from .files import ClientFiles
        from .terminals import Terminals

        self._files = ClientFiles(options.workspace, options.repos)
        self._terminals = Terminals(self._files, on_frame, env=options.env)
        self._watcher: asyncio.Task[None] | None = None
        self._hub: McpHub | None = None  # kandev-tui's own MCP server as this session knows it (kandev_tui.mcp_hub)
        self._edits: set[str] = set()  # the agent's calls of kind edit (a later update may not repeat the kind)
        self._before_read: dict[tuple[str, str], None] = {}  # (call, path) whose file was read before the edit

    # -- frames ----------------------------------------------------------------

    def _frame(self, frame: Frame) -> None:
        """Each frame of the agent's stream, passed on; before the first frame of an edit that names a file, the
        file as it is then (``file_before``, :mod:`kandev_tui.transcript.clientside`)."""
        if frame.dir == IN and frame.msg is not None:
            self._before_edit(frame.msg)
            if frame.msg.get("method") == "elicitation/create" and "id" in frame.msg:
                self._question_ids.append(frame.msg["id"])
        self._on_frame(frame)

    def _before_edit(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        if method not in ("session/update", "session/request_permission"):
            return
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        call = params.get("update") if method == "session/update" else params.get("toolCall")
        if not isinstance(call, dict) or (method == "session/update" and call.get("sessionUpdate") not in (
                "tool_call", "tool_call_update")):
            return
        call_id = call.get("toolCallId")
        if not isinstance(call_id, str) or call.get("status") in ("completed", "failed"):
            return
        if call.get("kind") == "edit":
            self._edits.add(call_id)
        for path in edit_paths(call, call_id in self._edits):
            if (call_id, path) in self._before_read:
                continue
            self._before_read[(call_id, path)] = None
            if len(self._before_read) > 4096:  # bounded: the oldest calls are long done
                del self._before_read[next(iter(self._before_read))]
            state = self._files.before(path)
            if state is not None:
                self._on_frame(Frame.now(LOCAL, {"event": "file_before", "tool_call_id": call_id, "path": path,
                                                 **state}))

    # -- lifecycle -----------------------------------------------------------

    def _note(self, message: str) -> None:
        self._on_frame(Frame.now(LOCAL, {"event": "note", "message": message}))

    def _local(self, message: str, **details: Any) -> None:
        self._on_frame(Frame.now(LOCAL, {"event": "error", "message": message,
                                         **{k: v for k, v in details.items() if v is not None}}))

    async def start(self) -> None:
        """Spawn the agent, ``initialize`` and open the session (:meth:`open_session`); AgentError (reported) on
        failure, :class:`LoginRequired` when the agent needs a login first (the agent keeps running)."""
        await self.connect()
        await self.open_session()

    async def connect(self) -> None:
        """Spawn the agent and ``initialize``: its info, capabilities and ways to log in are kept."""
        # the SDK takes over a second to import: do it off the event loop
        await asyncio.to_thread(importlib.import_module, "acp.connection")
        from acp.connection import Connection

        from .transport import LineTransport

        options = self.options
        if options.log_path is not None:
            options.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = open(options.log_path, "ab")
        try:
            self.process = await asyncio.create_subprocess_exec(
                *options.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=self._log if self._log is not None else asyncio.subprocess.DEVNULL,
                cwd=str(options.workspace),
                env=options.env,
                start_new_session=True,
                limit=1 << 20,
            )
        except (OSError, ValueError) as exc:
            reason = "command not found" if isinstance(exc, FileNotFoundError) else (exc.strerror or str(exc))
            message = f"Could not start the agent ({' '.join(options.command)[:200]}): {reason}"
            self._local(message, ends_turn=True)
            raise AgentError(message) from None
        register_group(self.process.pid)  # ended however kandev-tui ends (kandev_tui/shutdown.py)
        assert self.process.stdout is not None and self.process.stdin is not None
        self._watcher = asyncio.ensure_future(self._watch_exit(self.process))
        self._hub = await self._start_hub()
        transport = LineTransport(self.process.stdout, self.process.stdin, self._frame, observed_only=OBSERVED_ONLY,
                                  scrub=self._hub.scrub if self._hub is not None else None)
        self._conn = Connection(self._handle, transport)
        try:
            response = await asyncio.wait_for(self._conn.send_request("initialize", {
                "protocolVersion": PROTOCOL_VERSION,
                # auth.terminal: the agent may offer a login to run in the user's terminal (the app steps aside)
                # _meta terminal-auth: the same, in the form agents read before auth.terminal (Zed's), some
                # offering their login only to a client that says so
                "clientCapabilities": {"fs": {"readTextFile": options.fs_read, "writeTextFile": options.fs_write},
                                       "terminal": options.terminals, "auth": {"terminal": True},
                                       # notices and compactions: items of the transcript (kandev_tui/transcript/notices.py)
                                       "session": {"notices": {}, "compaction": {}}, "plan": {}, "subagents": {},
                                       **({"elicitation": {"form": {}, "url": {}}} if self._ask_user else {}),
                                       "_meta": {"terminal-auth": True}},
                "clientInfo": {"name": "kandev-tui", "title": "kandev-tui", "version": __version__},
            }), timeout=options.init_timeout)
        except asyncio.TimeoutError:
            await self._fail(f"The agent did not answer initialize within {options.init_timeout:g} s.")
        except Exception as exc:  # noqa: BLE001 - ConnectionError, RequestError
            if self._echoed:
                await self._fail(f"{' '.join(options.command)[:200]} does not speak ACP: it sent kandev-tui's own "
                                 "initialize back (is it an ACP agent, or the command that starts one?)")
            await self._fail(f"The agent failed during initialize: {self._describe(exc)}")
        response = response if isinstance(response, dict) else {}
        self.agent_info = response.get("agentInfo") if isinstance(response.get("agentInfo"), dict) else {}
        caps = response.get("agentCapabilities")
        self.agent_capabilities = caps if isinstance(caps, dict) else {}
        methods = response.get("authMethods")
        self.auth_methods = [login_method(m) for m in methods if isinstance(m, dict) and isinstance(m.get("id"), str)] \
            if isinstance(methods, list) else []

    async def _start_hub(self) -> McpHub | None:
        """The loopback server through which this session knows each call of its MCP server (None if it cannot
        listen: the server is then offered over stdio, and the agent's frames are all there is to read)."""
        from kandev_tui.mcp_hub import McpHub

        hub = McpHub(self.options.workspace, self.options.repos, self._on_frame, busy=lambda: self.turn_running)
        try:
            await hub.start()
        except OSError as exc:
            self._note(f"kandev-tui could not listen on 127.0.0.1 for its MCP server ({exc.strerror or exc}); "
                       "rich output is read from the agent's frames alone.")
            return None
        return hub

    def _our_server(self) -> dict[str, Any]:
        """How the agent is offered kandev-tui's MCP server: over HTTP where it says it reaches servers so, else
        over stdio (reporting to the hub)."""
        if self._hub is None:
            return kandev_mcp_server(self.options.workspace, self.options.repos)
        if mcp_capabilities(self.agent_capabilities).get("http") is True:
            return self._hub.http_entry()
        return self._hub.stdio_entry()

    @property
    def terminals(self) -> Terminals:
        """The commands kandev-tui runs for the agent (ACP terminals)."""
        return self._terminals

    @property
    def session_capabilities(self) -> dict[str, Any]:
        caps = self.agent_capabilities.get("sessionCapabilities")
        return caps if isinstance(caps, dict) else {}

    @property
    def continues_by(self) -> str | None:
        """How the agent continues an earlier session: ``resume`` (nothing replayed), ``load`` (its history
        replayed), or None when it cannot."""
        if isinstance(self.session_capabilities.get("resume"), dict):
            return "resume"
        if self.agent_capabilities.get("loadSession") is True:
            return "load"
        return None

    def _guidance_params(self) -> dict[str, Any]:
        """The guidance as the client's system prompt, where the agent takes one (``sessionCapabilities
        .systemPrompt``; Claude's ``_meta.systemPrompt.append``); elsewhere it goes before the first prompt."""
        if not self.options.inject_guidance:
            return {}
        from kandev_tui.presentation import GUIDANCE

        if isinstance(self.session_capabilities.get("systemPrompt"), dict):
            return {"systemPrompt": {"mode": "append", "content": [{"type": "text", "text": GUIDANCE}]}}
        meta = self.agent_capabilities.get("_meta")
        if isinstance(meta, dict) and isinstance(meta.get("claudeCode"), dict):
            return {"_meta": {"systemPrompt": {"append": GUIDANCE}}}
        return {}

    async def open_session(self) -> None:
        """``session/new``, or, to continue the agent's session ``options.resume``, ``session/resume`` (where
        offered) or ``session/load``. :class:`LoginRequired` when the agent needs a login first."""
        options = self.options
        params: dict[str, Any] = {"cwd": str(options.workspace),
                                  "mcpServers": mcp_servers_for(options, self.agent_capabilities, self._our_server())}
        guidance = self._guidance_params()
        params.update(guidance)
        self._prefix_guidance = options.inject_guidance and not guidance
        method = "session/new"
        if options.resume:
            how = self.continues_by
            if how is None:
                await self._fail("This agent cannot continue a session (it offers neither session/resume nor "
                                 "session/load); start a new one with kandev-tui run.")
            method = f"session/{how}"
            params["sessionId"] = options.resume
            self._prefix_guidance = False  # the session had its guidance when it began
        try:
            session = await self._ask(method, params, options.init_timeout)
        except asyncio.TimeoutError:
            await self._fail(f"The agent did not answer {method} within {options.init_timeout:g} s.")
        except Exception as exc:  # noqa: BLE001
            if type(exc).__name__ == "RequestError" and (getattr(exc, "code", None) == AUTH_REQUIRED
                                                          or self.auth_methods) and method == "session/new":
                message = f"The agent needs a login: {self._describe(exc)}"
                self._note(message)
                raise LoginRequired(message, self.auth_methods) from None
            if options.resume:
                await self._fail(f"The agent could not continue session {options.resume}: {self._describe(exc)} "
                                 "(it may no longer know it); start a new one with kandev-tui run.")
            await self._fail(f"The agent could not start a session: {self._describe(exc)}")
        self.session_setup = session if isinstance(session, dict) else {}
        self.session_id = options.resume or self.session_setup.get("sessionId")
        if not isinstance(self.session_id, str):
            await self._fail("The agent answered session/new without a session id.")

    async def authenticate(self, method_id: str) -> None:
        """``authenticate`` with one of the agent's methods; AgentError with the agent's reason when it fails."""
        if self._conn is None:
            raise AgentError("the agent is not running")
        request = asyncio.ensure_future(self._ask("authenticate", {"methodId": method_id}, None))
        ended = asyncio.ensure_future(_exited(self.process)) if self.process is not None else None
        try:
            # the agent's end ends the wait: one that dies while logging in may leave its output open (a child)
            done, _ = await asyncio.wait([w for w in (request, ended) if w is not None], timeout=300,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in (request, ended):
                if waiter is not None and not waiter.done():
                    waiter.cancel()
        if request in done and request.exception() is None:
            self._note(f"Logged in ({method_id}).")
            return
        if request in done and not (ended is not None and ended in done):
            raise AgentError(f"The login failed: {self._describe(request.exception())}")
        if not done:
            raise AgentError("The agent did not finish the login within 5 minutes.")
        details = await self._exit_details(wait=0.5)
        code = details["exit_code"]
        what = f"was ended by {_signal_name(-code)}" if isinstance(code, int) and code < 0 else \
            f"exited with code {code}" if code is not None else "stopped answering"
        last = f" (its last words: {details['stderr'][-1].strip()[:200]})" if details["stderr"] else ""
        raise AgentError(f"The agent {what} during the login{last}.")

    async def choose(self, method: str, params: dict[str, Any]) -> None:
        """A choice for the session (``session/set_mode``, ``session/set_config_option``, ``session/set_model``);
        AgentError with the agent's reason when it refuses (the old choice stays)."""
        if self._conn is None or self.session_id is None:
            raise AgentError("the agent is not running")
        try:
            await self._ask(method, {"sessionId": self.session_id, **params}, self.options.init_timeout)
        except asyncio.TimeoutError:
            raise AgentError(f"The agent did not answer {method} within {self.options.init_timeout:g} s.") from None
        except Exception as exc:  # noqa: BLE001
            raise AgentError(f"The agent refused it: {self._describe(exc)}") from None

    async def list_sessions(self) -> list[dict[str, Any]]:
        """The agent's own sessions in this workspace (``session/list``, every page), newest first as it lists
        them; AgentError when it cannot list."""
        if self._conn is None:
            raise AgentError("the agent is not running")
        if not isinstance(self.session_capabilities.get("list"), dict):
            raise AgentError("This agent does not list its sessions (no sessionCapabilities.list).")
        found: list[dict[str, Any]] = []
        cursor = None
        for _ in range(50):
            params: dict[str, Any] = {"cwd": str(self.options.workspace)}
            if cursor:
                params["cursor"] = cursor
            try:
                page = await self._ask("session/list", params, self.options.init_timeout)
            except asyncio.TimeoutError:
                raise AgentError(f"The agent did not list its sessions within {self.options.init_timeout:g} s.") \
                    from None
            except Exception as exc:  # noqa: BLE001
                raise AgentError(f"The agent could not list its sessions: {self._describe(exc)}") from None
            page = page if isinstance(page, dict) else {}
            found += [s for s in page.get("sessions") or [] if isinstance(s, dict) and isinstance(s.get("sessionId"), str)]
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                break
        return found

    async def _ask(self, method: str, params: dict[str, Any], timeout: float | None) -> Any:
        """A request to the agent, withdrawn with ``$/cancel_request`` when kandev-tui stops waiting for it: the wait
        timed out, or whoever waited gave up (a picker closed, a login cancelled, the session closing). Raises
        asyncio.TimeoutError, or the agent's error as the SDK raises it. (A prompt is not asked this way: a turn
        is stopped with ``session/cancel``.)"""
        sent: list[Any] = []
        token = SENT_IDS.set(sent)  # the transport notes the id it sends (the SDK does not say it)
        try:
            return await asyncio.wait_for(self._conn.send_request(method, params), timeout=timeout)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            if sent:
                self._withdraw(sent[0])
            raise
        finally:
            SENT_IDS.reset(token)

    def _withdraw(self, request_id: Any) -> None:
        """``$/cancel_request`` for a request of ours no one waits for any more: the agent may stop its work (its
        late answer, an error -32800 or a result, is dropped by the SDK as an answer to nothing)."""
        async def send() -> None:
            try:
                await self._conn.send_notification("$/cancel_request", {"requestId": request_id})
            except Exception:  # noqa: BLE001 - the agent may be gone, or its input closed
                pass
        task = asyncio.ensure_future(send())
        self._withdrawing.add(task)
        task.add_done_callback(self._withdrawing.discard)

    def _describe(self, exc: BaseException) -> str:
        if type(exc).__name__ == "RequestError":
            return request_error_text(exc)
        if isinstance(exc, ConnectionError):
            return "the agent closed the connection"
        return f"{type(exc).__name__}: {exc}"

    async def _exit_details(self, wait: float = 3.0) -> dict[str, Any]:
        code = None
        if self.process is not None:
            try:
                code = await asyncio.wait_for(_exited(self.process), timeout=wait)
            except asyncio.TimeoutError:
                code = None
        tail = _tail(self.options.log_path)
        if self._hub is not None:
            tail = [self._hub.scrub(line) for line in tail]
        return {"exit_code": code, "stderr": tail or None}

    async def _fail(self, message: str) -> None:
        details = await self._exit_details(wait=0.5)
        if details["stderr"]:  # the agent's last line on stderr is often the reason (No module named …)
            message = f"{message} (its last words: {details['stderr'][-1].strip()[:200]})"
        self._local(message, ends_turn=True, **details)
        await self.close()
        raise AgentError(message)

    # -- turns -----------------------------------------------------------------

    async def prompt(self, text: str) -> str:
        """Send one prompt and wait for the end of the turn; returns the stop reason.

        Where the agent takes no system prompt from the client, the guidance paragraph is prepended to the first
        prompt (unless turned off); ``_meta.kandevTui.guidanceChars`` tells the normaliser how much of the text is
        ours, so the transcript (and the session's title) shows the user's words only.
        """
        if self._conn is None or self.session_id is None:
            raise AgentError("the agent is not running")
        from .mentions import mention_blocks

        caps = self.agent_capabilities.get("promptCapabilities")
        mentions, notes = await asyncio.to_thread(mention_blocks, text, self._files, caps if isinstance(caps, dict) else {}) \
            if "@" in text else ([], [])
        for note in notes:  # a file that was not sent, an agent that takes no images: said before the turn
            self._note(note)
        params: dict[str, Any] = {"sessionId": self.session_id,
                                  "prompt": [{"type": "text", "text": text}, *mentions]}
        if self._first_prompt and self._prefix_guidance:
            from kandev_tui.presentation import GUIDANCE

            prefix = GUIDANCE + "\n\n"
            params["prompt"][0]["text"] = prefix + text
            params["_meta"] = {"kandevTui": {"guidanceChars": len(prefix)}}
        self._first_prompt = False
        self._turn = asyncio.ensure_future(self._conn.send_request("session/prompt", params))
        try:
            result = await asyncio.shield(self._turn)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001
            if type(exc).__name__ == "RequestError":
                return "error"  # the normaliser already made an error item from the response frame
            if not self._exit_reported:
                self._exit_reported = True
                details = await self._exit_details()
                code = details["exit_code"]
                if code is not None and code < 0:  # ended by a signal: named, not a negative exit code
                    details["exit_code"] = None
                    what = f"was ended by {_signal_name(-code)}"
                else:
                    what = f"exited with code {code}" if code is not None else "closed its output"
                self.exit_reason = f"the agent {what} during the turn"
                self._local(f"The agent {what} during the turn.", ends_turn=True, **details)
            return "error"
        finally:
            if self._turn is not None and self._turn.done():
                self._turn = None
            elif self._turn is not None:  # cancelled here, the turn runs on until closed; its end is nobody's news
                self._turn.add_done_callback(lambda turn: turn.cancelled() or turn.exception())
        return result.get("stopReason", "end_turn") if isinstance(result, dict) else "end_turn"

    @property
    def turn_running(self) -> bool:
        return self._turn is not None and not self._turn.done()

    async def cancel(self) -> None:
        """``session/cancel``; pending permission questions are answered cancelled.

        An agent that has not ended the turn after ``cancel_grace`` seconds is stopped.
        """
        if self._conn is None or self.session_id is None or not self.turn_running:
            return
        for waiter in [*self._permission_waits, *self._questions.values()]:
            waiter.cancel()  # each question answers "cancelled" (see _permission, _question)
        await self._terminals.kill_all()  # the commands it runs in kandev-tui's terminals end with the turn
        try:
            await self._conn.send_notification("session/cancel", {"sessionId": self.session_id})
        except Exception:  # noqa: BLE001 - the agent may already be gone
            return
        turn = self._turn
        if turn is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(turn), timeout=self.options.cancel_grace)
        except asyncio.TimeoutError:
            self._exit_reported = True
            self._local(f"The agent ignored cancel for {self.options.cancel_grace:g} s and was stopped.", ends_turn=True)
            await self.close()
        except Exception:  # noqa: BLE001 - the turn ended with an error: fine
            pass

    # -- requests from the agent -------------------------------------------------

    async def _handle(self, method: str, params: Any, is_notification: bool) -> Any:
        from acp.exceptions import RequestError

        if method == "session/update":
            return None  # already normalised from the frame
        if method == "session/request_permission" and not is_notification:
            return await self._permission(params if isinstance(params, dict) else {})
        if method == "elicitation/create" and not is_notification:
            return await self._question(params if isinstance(params, dict) else {})
        if method == "$/cancel_request" and is_notification:  # the agent gave up on a question it asked
            waiter = self._questions.get(params.get("requestId") if isinstance(params, dict) else None)
            if waiter is not None:
                waiter.withdrawn = True  # type: ignore[attr-defined]
                waiter.cancel()
            return None
        if method == "cursor/task":
            return {}  # subagent metadata: merged into its tool call by the normaliser
        if is_notification:
            return None
        from .files import FileRequestError

        serve = self._services().get(method)
        if serve is None:
            if method in AGENT_METHODS:  # what kandev-tui asks of agents, asked of it: the command echoes its input
                self._echoed = True
            raise RequestError.method_not_found(method)
        try:
            return await serve(params)
        except FileRequestError as exc:
            data = {"path": exc.path} if exc.path is not None else None
            raise RequestError(exc.code, str(exc), data) from None

    def _services(self) -> dict[str, Callable[[Any], Awaitable[Any]]]:
        """The client methods kandev-tui serves, as far as the options offer them."""
        services: dict[str, Callable[[Any], Awaitable[Any]]] = {}
        if self.options.fs_read:
            services["fs/read_text_file"] = lambda params: asyncio.to_thread(self._files.read, params)
        if self.options.fs_write:
            services["fs/write_text_file"] = self._write
        if self.options.terminals:
            terminals = self._terminals
            services.update({"terminal/create": terminals.create, "terminal/output": terminals.output,
                             "terminal/wait_for_exit": terminals.wait_for_exit, "terminal/kill": terminals.kill,
                             "terminal/release": terminals.release})
        return services

    async def _write(self, params: Any) -> dict[str, Any]:
        """``fs/write_text_file``; the transcript learns the former text (for the diff) from a local frame."""
        from .files import FileRequestError

        try:
            written = await asyncio.to_thread(self._files.write, params)
        except FileRequestError as exc:
            self._note(f"kandev-tui refused the agent's write: {exc}")
            raise
        path = params.get("path") if isinstance(params, dict) else None
        self._on_frame(Frame.now(LOCAL, {"event": "file_written", "path": path, "real_path": written.path,
                                         "old": written.old, "new_file": written.new_file,
                                         **({"note": written.note} if written.note else {})}))
        return {}

    async def _watch_exit(self, process: asyncio.subprocess.Process) -> None:
        """The agent's exit ends the commands it ran in kandev-tui's terminals."""
        await process.wait()
        await self._terminals.end_all()

    async def _permission(self, params: dict[str, Any]) -> dict[str, Any]:
        if self._ask_permission is None:
            return {"outcome": {"outcome": "cancelled"}}
        options = {o.get("optionId") for o in params.get("options") or [] if isinstance(o, dict)}
        waiter = asyncio.ensure_future(self._ask_permission(params))
        self._permission_waits.add(waiter)
        try:
            choice = await waiter
        except asyncio.CancelledError:
            choice = None
        finally:
            self._permission_waits.discard(waiter)
        if isinstance(choice, str) and choice in options:
            return {"outcome": {"outcome": "selected", "optionId": choice}}
        return {"outcome": {"outcome": "cancelled"}}

    async def _question(self, params: dict[str, Any]) -> dict[str, Any]:
        """``elicitation/create``: asked of the user (declined when nobody can answer, or when kandev-tui cannot
        show it: the normaliser's item says why); withdrawn by the agent (``$/cancel_request``): the error the spec
        asks for; cancelled with the turn: ``cancel``."""
        from acp.exceptions import RequestError

        from kandev_tui.transcript.elicitation import parse_form, url_target

        request_id = self._question_ids.pop(0) if self._question_ids else None
        mode = params.get("mode", "form")
        problem = parse_form(params.get("requestedSchema"))[1] if mode == "form" else (
            url_target(params.get("url"))[1] if mode == "url" else "unknown mode")
        if self._ask_user is None or problem:
            return {"action": "decline"}
        waiter = asyncio.ensure_future(self._ask_user(params))
        waiter.withdrawn = False  # type: ignore[attr-defined]
        self._questions[request_id] = waiter
        try:
            response = await waiter
        except asyncio.CancelledError:
            if getattr(waiter, "withdrawn", False):
                raise RequestError(-32800, "Request cancelled") from None
            response = None
        finally:
            self._questions.pop(request_id, None)
        return response if isinstance(response, dict) and response.get("action") else {"action": "cancel"}

    # -- shutdown ------------------------------------------------------------------

    async def close(self, reason: str = "") -> None:
        """Close stdin, then SIGTERM and finally SIGKILL the agent's process group and whatever it left in its
        session. A turn still running ends here, as interrupted, with ``reason`` (why kandev-tui closes) in its
        closing line. A second call waits for the first to have ended the agent (quitting while a cancel that timed
        out is still stopping it)."""
        if self._closing is None:
            if self.turn_running and not self._exit_reported:
                self._exit_reported = True  # the agent's end that follows is kandev-tui's doing, not its failure
                self._on_frame(Frame.now(LOCAL, {"event": "note", "ends_turn": True, "stop_reason": "interrupted",
                                                 "message": f"The session was closed during the turn: "
                                                            f"{reason or 'kandev-tui was quit'}."}))
            self._closing = asyncio.ensure_future(self._close())
        await asyncio.shield(self._closing)

    async def cancel_session(self, session_id: str) -> None:
        """``session/cancel`` of another session than this one: a subagent's (its work stops; the turn goes on)."""
        if self._conn is not None:
            try:
                await self._conn.send_notification("session/cancel", {"sessionId": session_id})
            except Exception:  # noqa: BLE001 - the agent may be gone
                pass

    async def delete_session(self, session_id: str) -> None:
        """``session/delete`` (where the agent :meth:`offers` it): the agent forgets one of its sessions."""
        assert self._conn is not None, "connect() first"
        try:
            await self._ask("session/delete", {"sessionId": session_id}, self.options.init_timeout)
        except asyncio.TimeoutError:
            raise AgentError(f"the agent did not answer session/delete within {self.options.init_timeout:g} s") from None
        except AgentError:
            raise
        except Exception as exc:  # noqa: BLE001 - RequestError, a connection gone
            raise AgentError(f"the agent refused to delete it: {self._describe(exc)}") from None

    def offers(self, session_method: str) -> bool:
        """Whether the agent offers ``session/<session_method>`` (``close``, ``delete``…: its
        ``agentCapabilities.sessionCapabilities``)."""
        caps = self.agent_capabilities.get("sessionCapabilities")
        return isinstance(caps, dict) and isinstance(caps.get(session_method), dict)

    async def _close(self) -> None:
        process = self.process
        await self._terminals.end_all()
        if self._conn is not None and self.session_id and self.offers("close") and process is not None \
                and process.returncode is None:  # the agent frees the session itself (ends its turn, its tools)
            try:
                await self._ask("session/close", {"sessionId": self.session_id}, SESSION_CLOSE_WAIT)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - it is ended below all the same
                pass
        if self._withdrawing:  # the requests given up on are withdrawn before the agent's input closes
            await asyncio.wait(set(self._withdrawing), timeout=1)
        if self._conn is not None:
            try:
                await asyncio.wait_for(self._conn.close(), timeout=2)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001
                pass
        if process is not None:
            await _end_agent(process)
        if self._watcher is not None:
            self._watcher.cancel()
        if self._hub is not None:
            await self._hub.close()
        if self._log is not None:
            self._log.close()
            self._log = None


async def _exited(process: asyncio.subprocess.Process) -> int:
    """The agent's exit status once it has exited. ``Process.wait()`` also waits for its pipes to close, which a
    child it left behind may hold open for good; its exit status is known as soon as it is reaped."""
    while process.returncode is None:
        waiter = asyncio.ensure_future(process.wait())
        try:
            await asyncio.wait_for(asyncio.shield(waiter), timeout=0.2)
        except asyncio.TimeoutError:
            pass
        finally:
            if not waiter.done():
                waiter.cancel()
    return process.returncode


def _signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return f"signal {number}"


async def _end_agent(process: asyncio.subprocess.Process) -> None:
    """The agent, once its input is closed: a moment to end by itself, then SIGTERM and finally SIGKILL to its process
    group and to whatever else is left in its session (a launcher's children outlive it otherwise)."""
    if process.returncode is None:
        try:
            await asyncio.wait_for(process.wait(), timeout=1.5)
        except asyncio.TimeoutError:
            pass
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.returncode is not None and not session_members(process.pid):
            break
        signal_session(process.pid, sig)
        await _gone(process, 3.0)
    forget_group(process.pid)


async def _gone(process: asyncio.subprocess.Process, within: float) -> None:
    """Until the agent has exited and nothing is left in its session, at most ``within`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    try:
        await asyncio.wait_for(process.wait(), timeout=within)
    except asyncio.TimeoutError:
        return
    while session_members(process.pid) and loop.time() < deadline:
        await asyncio.sleep(0.05)


def headless_permission_policy(policy: str) -> PermissionHandler:
    """``reject``: pick a reject option (or cancel); ``allow-once``: pick allow_once (or cancel)."""
    wanted = {"reject": ("reject_once", "reject_always"), "allow-once": ("allow_once",)}[policy]

    async def answer(params: dict[str, Any]) -> str | None:
        for kind in wanted:
            for option in params.get("options") or []:
                if isinstance(option, dict) and option.get("kind") == kind:
                    return option.get("optionId")
        return None

    return answer
