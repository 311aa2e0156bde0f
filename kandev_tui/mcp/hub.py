"""kandev-tui's own MCP server, as the session that offers it sees it: every rich-output call as it happened.

One :class:`McpHub` per agent, on the agent's loop: a small HTTP/1.1 server on 127.0.0.1 (a free port) that answers

- ``POST /mcp``: MCP over Streamable HTTP (JSON answers, no server-sent stream), for agents whose
  ``mcpCapabilities.http`` says they can reach a server so;
- ``POST /report``: the side channel of ``kandev-tui mcp`` started over stdio for the other agents: each event of
  its calls (:class:`kandev_tui.mcp.server.Reporter`), answered once the session holds it.

Each request must carry the session's secret (``Authorization: Bearer …``; 401 without it) and, from a browser, a
loopback ``Origin`` (403 otherwise). The secret reaches the agent in the ``session/new`` entry only; the client
keeps it out of every recording, log and screen (:meth:`McpHub.scrub`).

What the hub learns becomes ``local`` frames, in order with the agent's own (the server waits for the session to
hold a call's end before the agent has its result): ``{"event": "rich_output_server", "via"}`` when a server of
ours is reached, then ``{"event": "rich_output", "phase": "start"|"end", "call", "arguments" | outcome}``. The
normaliser attaches each call to the agent's tool call (:mod:`kandev_tui.transcript.rich_calls`), so the card is
drawn from what the server saw, whatever the agent's frames say; a replay reads the same frames.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
import threading
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from kandev_tui.base.jsonutil import of_type
from kandev_tui.base.sanitize import REDACTED, forget_secret, register_secret
from kandev_tui.base.presets import python_child
from kandev_tui.transcript.frames import LOCAL, Frame

SERVER_NAME = "kandev"  # the name the server is offered under (agents namespace its tool with it)
TOKEN_ENV = "KANDEV_TUI_REPORT_TOKEN"
MAX_BODY = 8 * 1024 * 1024
MAX_HEAD = 64 * 1024
IDLE = 600.0  # seconds a kept-alive connection may sit idle, once it has shown the secret
HEAD_TIME = 10.0  # seconds a connection's first request head may take: one that has not shown the secret waits no more
MAX_CONNECTIONS = 32  # at once; over it, the oldest that has not shown the secret yet is closed (else the new one)
_REASONS = {200: "OK", 202: "Accepted", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
            403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 413: "Payload Too Large",
            415: "Unsupported Media Type", 500: "Internal Server Error"}


class HttpError(Exception):
    def __init__(self, status: int, text: str) -> None:
        super().__init__(text)
        self.status = status


class McpHub:
    """The loopback server of one agent (see the module docstring). ``emit`` takes each frame it makes; it is
    called on the loop the hub was started on."""

    def __init__(self, workspace: Path, repos: dict[str, Path], emit: Callable[[Frame], object],
                 profile: str = "task", busy: Callable[[], bool] = lambda: True, agent: tuple[str, ...] = ()) -> None:
        self.workspace_path = workspace
        # the sessions a call of this hub's may go to (see _route): the same agent command in the same workspace
        self.family = (agent, str(Path(workspace).resolve()))
        self.repos = repos
        self.profile = profile
        self._emit = emit
        self.token = secrets.token_urlsafe(32)
        register_secret(self.token)  # scrubbed from every text put together from pieces (kandev_tui/base/sanitize.py)
        self._server: asyncio.base_events.Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._mcp: Any = None  # the McpServer answering over HTTP (made on first use)
        self._connections: set[asyncio.Task[None]] = set()
        self._strangers: dict[asyncio.Task[None], None] = {}  # connections yet to show the secret, oldest first
        self.port = 0
        self._servers_seen: set[str] = set()
        self._busy = busy  # whether its session has a turn running (see _route)
        self._routed: dict[str, McpHub] = {}  # a call's report id → the hub of the session it was given to

    # -- what the agent is offered --------------------------------------------------------------------------------

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def http_entry(self) -> dict[str, Any]:
        """The ``session/new`` entry of an agent that reaches MCP servers over HTTP."""
        return {"type": "http", "name": SERVER_NAME, "url": f"{self.base}/mcp",
                "headers": [{"name": "Authorization", "value": f"Bearer {self.token}"}]}

    def stdio_entry(self) -> dict[str, Any]:
        """The ``session/new`` entry that starts ``kandev-tui mcp`` over stdio, reporting to this hub."""
        python, *args = python_child("-m", "kandev_tui", "mcp", "--workspace", str(self.workspace_path), "--profile",
                                     self.profile, "--report", f"{self.base}/report")
        for name, path in self.repos.items():
            args += ["--repo", f"{name}={path}"]
        return {"name": SERVER_NAME, "command": python, "args": args,
                "env": [{"name": TOKEN_ENV, "value": self.token}]}

    def scrub(self, text: str) -> str:
        """``text`` without the secret (what is recorded, logged or shown)."""
        return text.replace(self.token, REDACTED) if self.token in text else text

    # -- lifecycle -------------------------------------------------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0, limit=MAX_HEAD)
        self.port = self._server.sockets[0].getsockname()[1]
        with _HUBS_LOCK:
            _HUBS.append(self)

    async def close(self) -> None:
        forget_secret(self.token)
        with _HUBS_LOCK:
            if self in _HUBS:
                _HUBS.remove(self)
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.gather(*self._connections, return_exceptions=True)

    # -- HTTP ------------------------------------------------------------------------------------------------------

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One connection: its requests, each checked (path, origin, secret) as soon as its head is read, before any
        body; a connection that has not shown the secret gets :data:`HEAD_TIME` for its head, and none of its
        requests' faults ever escapes as a traceback."""
        task = asyncio.current_task()
        if task is None or not self._admit(task):
            await _respond(writer, 503, {"Connection": "close"}, _text("too many connections"))
            writer.close()
            return
        trusted = False
        try:
            while True:
                try:
                    head = await asyncio.wait_for(_read_head(reader, writer), timeout=IDLE if trusted else HEAD_TIME)
                    if head is None:
                        return
                    method, target, headers, keep = head
                    self._check(target, headers)
                    trusted = True
                    self._strangers.pop(task, None)
                    body = await asyncio.wait_for(_read_body(reader, headers), timeout=IDLE)
                except (asyncio.TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                except HttpError as exc:
                    await _respond(writer, exc.status, {"Connection": "close"}, _text(str(exc)))
                    return
                try:
                    status, extra, payload = await self._answer(method, target, body)
                except HttpError as exc:
                    status, extra, payload = exc.status, {}, _text(str(exc))
                except Exception as exc:  # noqa: BLE001 - one request never takes the hub down
                    status, extra, payload = 500, {}, _text(f"internal error: {type(exc).__name__}")
                if not keep:
                    extra = {**extra, "Connection": "close"}
                await _respond(writer, status, extra, payload)
                if not keep:
                    return
        except (asyncio.CancelledError, Exception):  # noqa: BLE001 - the hub closing, or a peer's fault: it ends here
            return
        finally:
            self._connections.discard(task)
            self._strangers.pop(task, None)
            writer.close()

    def _admit(self, task: asyncio.Task[None]) -> bool:
        """Whether a new connection may be served: under :data:`MAX_CONNECTIONS`, or once the oldest that has not
        shown the secret yet is closed to make room (an agent's own connections are never closed for a stranger's)."""
        if len(self._connections) >= MAX_CONNECTIONS:
            if not self._strangers:
                return False
            oldest = next(iter(self._strangers))
            self._strangers.pop(oldest)
            self._connections.discard(oldest)
            oldest.cancel()
        self._connections.add(task)
        self._strangers[task] = None
        return True

    def _check(self, target: str, headers: dict[str, str]) -> None:
        """A request's path, origin and secret, from its head alone: :class:`HttpError` (404, 403, 401)."""
        if urlsplit(target).path not in ("/mcp", "/report"):
            raise HttpError(404, "not found")
        origin = headers.get("origin")
        if origin and urlsplit(origin).hostname not in ("127.0.0.1", "localhost", "::1"):
            raise HttpError(403, "a request from another origin")
        offered = headers.get("authorization", "")
        scheme, _, given = offered.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), self.token.encode()):
            raise HttpError(401, "this server needs the secret the session offered it with")

    async def _answer(self, method: str, target: str,
                      body: bytes) -> tuple[int, dict[str, str], tuple[str, bytes] | None]:
        """A checked request's answer (:meth:`_check`)."""
        path = urlsplit(target).path
        if method != "POST":
            return 405, {"Allow": "POST"}, _text("only POST")
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            if path == "/mcp":
                return 400, {}, _json({"jsonrpc": "2.0", "id": None,
                                       "error": {"code": -32700, "message": "Parse error: not JSON"}})
            raise HttpError(400, "not JSON") from None
        if path == "/report":
            self._reported(message)
            return 204, {}, None
        answer = await self._mcp_message(message)
        if answer is None:
            return 202, {}, None
        return 200, {}, _json(answer)

    # -- MCP over HTTP ----------------------------------------------------------------------------------------------

    async def _mcp_message(self, message: Any) -> dict[str, Any] | None:
        from kandev_tui.mcp.server import McpServer
        from kandev_tui.workspace.reads import Workspace

        if self._mcp is None:
            self._mcp = McpServer(Workspace(self.workspace_path, self.repos), self.profile, observer=self._observed)
        # in a thread: a CSV read never holds up the agent's loop, and the server's events come back to it
        return await asyncio.to_thread(self._mcp.handle, message)

    def _observed(self, event: dict[str, Any]) -> None:
        """An event of the HTTP server's (in a thread): held by the session before the thread goes on."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        done = threading.Event()

        def deliver() -> None:
            try:
                self._reported({**event, "server": "http"})
            finally:
                done.set()

        loop.call_soon_threadsafe(deliver)
        done.wait(10)

    # -- the events ---------------------------------------------------------------------------------------------------

    def _reported(self, event: Any) -> None:
        """One event of a server of ours, as a local frame (bad ones are dropped: they come with the secret, from
        our own code, so a bad one is a bug, not an attack worth an error item)."""
        if not isinstance(event, dict):
            raise HttpError(400, "an event is a JSON object")
        kind, server = event.get("kind"), str(event.get("server", ""))[:80]
        via = "http" if server == "http" else "stdio"
        if kind == "hello":
            if server not in self._servers_seen:
                self._servers_seen.add(server)
                self._emit(Frame.now(LOCAL, {"event": "rich_output_server", "via": via}))
            return
        if kind not in ("start", "end") or not isinstance(event.get("call"), int):
            raise HttpError(400, "not an event of kandev-tui mcp")
        frame: dict[str, Any] = {"event": "rich_output", "phase": kind, "call": f"{server}:{event['call']}",
                                 "via": via}
        if server not in self._servers_seen:  # a call before its hello (a server that restarted): reached all the same
            self._servers_seen.add(server)
            self._emit(Frame.now(LOCAL, {"event": "rich_output_server", "via": via}))
        if kind == "start":
            frame["arguments"] = of_type(event, "arguments", dict, {})
        else:
            frame["is_error"] = event.get("is_error") is True
            frame["text"] = str(event.get("text", ""))
            if isinstance(event.get("structured"), dict):
                frame["structured"] = event["structured"]
        self._route(frame)

    def _route(self, frame: dict[str, Any]) -> None:
        """Give a call's event to its session. An agent may start one MCP server for several of its sessions (the
        first one's, with its address and secret): a call that comes while this hub's session has no turn running
        is another session's, and goes to the one session of the same agent command in the same workspace whose turn
        runs (with none or several, it stays here, where the normaliser leaves a call that comes outside a turn
        alone). Never to another agent's session: a secret one agent was given opens no other agent's
        transcript."""
        target = self._routed.get(frame["call"])
        if target is None:
            target = self
            if not self._busy():
                with _HUBS_LOCK:
                    running = [hub for hub in _HUBS if hub is not self and hub.family == self.family and hub._busy()]
                if len(running) == 1:
                    target = running[0]
            self._routed[frame["call"]] = target
        if frame["phase"] == "end":
            self._routed.pop(frame["call"], None)
        if target is self:
            self._emit(Frame.now(LOCAL, frame))
        else:
            target.deliver(frame, self)

    def deliver(self, frame: dict[str, Any], source: McpHub) -> None:
        """A call's event routed here from another session's hub (any thread): emitted on this hub's loop, a
        server of ours reached first."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def emit() -> None:
            if f"routed:{id(source)}" not in self._servers_seen:
                self._servers_seen.add(f"routed:{id(source)}")
                self._emit(Frame.now(LOCAL, {"event": "rich_output_server", "via": frame["via"]}))
            self._emit(Frame.now(LOCAL, frame))

        loop.call_soon_threadsafe(emit)


_HUBS: list[McpHub] = []  # the hubs of this process's sessions, for calls an agent's shared server brings
_HUBS_LOCK = threading.Lock()


async def _read_head(reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter) -> tuple[str, str, dict[str, str], bool] | None:
    """One request's head: (method, target, headers (lower-case names), keep the connection). None at the end."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial.strip():
            return None
        raise
    except asyncio.LimitOverrunError:
        raise HttpError(413, "the request's head is too long") from None
    lines = head.decode("latin-1").split("\r\n")
    try:
        method, target, version = lines[0].split(" ", 2)
    except ValueError:
        raise HttpError(400, "not an HTTP request") from None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise HttpError(400, "a header without a colon")
        headers[name.strip().lower()] = value.strip()
    connection = headers.get("connection", "").lower()
    keep = "close" not in connection if version == "HTTP/1.1" else "keep-alive" in connection
    if headers.get("expect", "").lower() == "100-continue":
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    return method.upper(), target, headers, keep


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    """A checked request's body (chunked, or as long as its Content-Length), :data:`MAX_BODY` at most."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return await _read_chunked(reader)
    try:
        length = int(headers.get("content-length", "0"))
    except ValueError:
        raise HttpError(400, "a bad Content-Length") from None
    if length < 0 or length > MAX_BODY:
        raise HttpError(413, f"a body over {MAX_BODY >> 20} MiB")
    return await reader.readexactly(length) if length else b""


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    body = bytearray()
    while True:
        size_line = await reader.readuntil(b"\r\n")
        try:
            size = int(size_line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise HttpError(400, "a bad chunk size") from None
        if size < 0:
            raise HttpError(400, "a bad chunk size")
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                pass
            return bytes(body)
        if len(body) + size > MAX_BODY:
            raise HttpError(413, f"a body over {MAX_BODY >> 20} MiB")
        body += await reader.readexactly(size)
        await reader.readexactly(2)


def _text(text: str) -> tuple[str, bytes]:
    return "text/plain; charset=utf-8", (text + "\n").encode()


def _json(value: Any) -> tuple[str, bytes]:
    return "application/json", json.dumps(value, separators=(",", ":")).encode("ascii")


async def _respond(writer: asyncio.StreamWriter, status: int, headers: dict[str, str],
                   payload: tuple[str, bytes] | None) -> None:
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
    body = b""
    if payload is not None:
        lines.append(f"Content-Type: {payload[0]}")
        body = payload[1]
    lines.append(f"Content-Length: {len(body)}")
    lines += [f"{name}: {value}" for name, value in headers.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
    await writer.drain()
