"""The ``show_rich_output_kandev`` MCP server (``kandev-tui mcp``), over stdio.

The protocol part of MCP a tools-only server needs (``initialize``, ``ping``, ``tools/list``, ``tools/call``), over
newline-delimited JSON-RPC 2.0, answered by :class:`McpServer` with no import beyond the standard library: an agent
that starts its MCP servers in the background and does not wait for them (Codex) has the tool listed within a
tenth of a second, where the ``mcp`` SDK's server took 0.8 s to import (1.2 s on a busy machine) and the agent's
first model request went out without the tool. The validation that ``tools/call`` needs (pydantic) is imported in
a thread as the server starts. Every call goes through :func:`call_show_rich_output`, the function
``kandev-tui validate`` uses. The official ``mcp`` client is what the tests talk to it with.

Started by kandev-tui for an agent (``--report URL``, the secret in ``$KANDEV_TUI_REPORT_TOKEN``), it tells the
session of each call as it happens, before the agent has the result (:class:`Reporter`,
:mod:`kandev_tui.mcp.hub`): the session then knows a rich-output call however the agent describes it.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO, Any, Callable
from urllib.parse import urlsplit

from kandev_tui.presentation import INPUT_SCHEMA, TOOL_DESCRIPTION
from kandev_tui.presentation.guidance import PROFILES, RICH_OUTPUT_PROFILES
from kandev_tui.presentation.names import TOOL_NAME
from kandev_tui.workspace.reads import Workspace

ACCEPTED = "Rich output accepted."
# the revisions reachable through the initialize handshake, oldest first: a client's own is echoed, else the newest
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MAX_MESSAGE = 8 * 1024 * 1024  # bytes of one JSON-RPC line (the tool's arguments are bounded at 64 KiB)
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603


@dataclass(frozen=True)
class ToolOutcome:
    """What the tool returns: an error text, or a text plus an optional snapshot."""

    is_error: bool
    text: str
    structured: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The MCP ``CallToolResult`` as wire JSON."""
        out: dict[str, Any] = {"content": [{"type": "text", "text": self.text}], "isError": self.is_error}
        if self.structured is not None:
            out["structuredContent"] = self.structured
        return out


def call_show_rich_output(arguments: Any, workspace: Workspace) -> ToolOutcome:
    """Validate ``arguments`` and resolve their CSV charts (spec §5).

    Invalid input: an error outcome with one concise message, nothing read.
    Valid without CSV charts: ``Rich output accepted.``. With CSV charts: the
    snapshot as structured content and the identical compact JSON as text.
    """
    from kandev_tui.presentation import PresentationError, parse_tool_input, resolve_csv

    try:
        presentation = parse_tool_input(arguments)
        snapshot = resolve_csv(presentation, workspace)
    except PresentationError as exc:
        return ToolOutcome(True, str(exc))
    if snapshot is None:
        return ToolOutcome(False, ACCEPTED)
    text = json.dumps(snapshot, separators=(",", ":"), ensure_ascii=False)
    return ToolOutcome(False, text, snapshot)


def preload() -> None:
    """What the first ``tools/call`` needs (the contract's pydantic models), imported ahead of it."""
    from kandev_tui.presentation import parse_tool_input, resolve_csv  # noqa: F401


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data


Observer = Callable[[dict[str, Any]], None]


class McpServer:
    """One MCP server for a workspace and a profile, without a transport: :meth:`handle` takes one JSON-RPC message
    (a dict, as parsed) and gives its answer (None for a notification). Thread-safe: calls may be answered in
    threads while other requests are answered at once.

    ``observer``, when given, is told (in the thread that answers) of ``initialize`` (``{"kind": "hello"}``) and of
    each call of the tool: ``{"kind": "start", "call": N, "arguments"}`` before it is validated and
    ``{"kind": "end", "call": N, "is_error", "text", "structured"}`` before its result is answered. It returns
    once the event is held, and never raises."""

    def __init__(self, workspace: Workspace, profile: str = "task", observer: Observer | None = None) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
        self.workspace = workspace
        self.profile = profile
        self.client_info: dict[str, Any] = {}
        self.protocol_version = PROTOCOL_VERSIONS[-1]
        self._observer = observer
        self._calls = 0
        self._count = threading.Lock()

    def _observe(self, event: dict[str, Any]) -> None:
        if self._observer is None:
            return
        try:
            self._observer(event)
        except Exception:  # noqa: BLE001 - the session's knowing never costs the agent its call
            pass

    def tools(self) -> list[dict[str, Any]]:
        if self.profile not in RICH_OUTPUT_PROFILES:
            return []
        return [{"name": TOOL_NAME, "title": "Show rich output", "description": TOOL_DESCRIPTION,
                 "inputSchema": INPUT_SCHEMA,
                 "annotations": {"title": "Show rich output", "readOnlyHint": True, "destructiveHint": False,
                                 "idempotentHint": True, "openWorldHint": False}}]

    def handle(self, message: Any) -> dict[str, Any] | None:
        """The answer to one message: a result or an error for a request, None for a notification."""
        if not isinstance(message, dict):
            return _error(None, INVALID_REQUEST, "Invalid request: a JSON-RPC message is an object"
                          + (" (batches are not part of MCP)" if isinstance(message, list) else ""))
        request_id = message.get("id")
        method = message.get("method")
        if "id" in message and not (request_id is None or isinstance(request_id, (str, int)))\
                or isinstance(request_id, bool):
            return _error(None, INVALID_REQUEST, "Invalid request: id must be a string or a number")
        if not isinstance(method, str):
            if "id" in message and ("result" in message or "error" in message):
                return None  # an answer to a request of ours: the server sends none
            return _error(request_id, INVALID_REQUEST, "Invalid request: no method")
        if "id" not in message:
            return None  # a notification (initialized, cancelled…): nothing to answer
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            return _error(request_id, INVALID_PARAMS, "Invalid params: params must be an object")
        try:
            result = self._answer(method, params or {})
        except RpcError as exc:
            return _error(request_id, exc.code, str(exc), exc.data)
        except Exception as exc:  # noqa: BLE001 - one request never takes the server down
            return _error(request_id, INTERNAL_ERROR, f"Internal error: {type(exc).__name__}")
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            requested = params.get("protocolVersion")
            self.protocol_version = requested if requested in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1]
            if isinstance(params.get("clientInfo"), dict):
                self.client_info = params["clientInfo"]
            self._observe({"kind": "hello"})
            from kandev_tui import __version__

            return {"protocolVersion": self.protocol_version, "capabilities": {"tools": {"listChanged": False}},
                    "serverInfo": {"name": "kandev-tui", "version": __version__}}
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": self.tools()}
        if method == "tools/call":
            return self.call(params)
        raise RpcError(METHOD_NOT_FOUND, "Method not found", method[:200])

    def call(self, params: dict[str, Any]) -> dict[str, Any]:
        """``tools/call``: the tool's result (an unknown tool and invalid arguments are tool errors, as MCP says)."""
        name = params.get("name")
        arguments = params.get("arguments", {})
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: name must be a string")
        if arguments is not None and not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: arguments must be an object")
        if name not in {tool["name"] for tool in self.tools()}:
            return ToolOutcome(True, f"Unknown tool {name[:80]!r} (profile {self.profile}).").to_json()
        with self._count:
            self._calls += 1
            number = self._calls
        self._observe({"kind": "start", "call": number, "arguments": arguments or {}})
        try:
            outcome = call_show_rich_output(arguments or {}, self.workspace)
        except Exception as exc:  # noqa: BLE001 - never let one call take the server down
            outcome = ToolOutcome(True, f"internal error while presenting: {type(exc).__name__}")
        self._observe({"kind": "end", "call": number, "is_error": outcome.is_error, "text": outcome.text,
                       "structured": outcome.structured})
        return outcome.to_json()


def _error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _lines(stream: IO[bytes]) -> Any:
    """Each line of ``stream`` (without its end), or None for one longer than :data:`MAX_MESSAGE` (read past)."""
    while True:
        line = stream.readline(MAX_MESSAGE + 1)
        if not line:
            return
        if len(line) > MAX_MESSAGE and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = stream.readline(MAX_MESSAGE)
            yield None
            continue
        yield line.rstrip(b"\r\n")


class Reporter:
    """The side channel of a server kandev-tui started: each event POSTed to the session's loopback address
    (:mod:`kandev_tui.mcp.hub`) with its secret, one at a time, and answered once the session holds it. The first
    failure ends the reporting: the calls go on, and the session reads the agent's frames as it would without."""

    def __init__(self, url: str, token: str, timeout: float = 10.0) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost", "::1") or not parts.port:
            raise ValueError(f"--report takes a loopback http://127.0.0.1:PORT/… address, not {url[:120]!r}")
        self._host, self._port, self._path = parts.hostname, parts.port, parts.path or "/"
        self._token = token
        self._timeout = timeout
        self._lock = threading.Lock()
        self._connection: Any = None
        self._server = str(os.getpid())
        self.dead = False

    def __call__(self, event: dict[str, Any]) -> None:
        import http.client

        body = json.dumps({**event, "server": self._server}, separators=(",", ":")).encode("ascii")
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {self._token}"}
        with self._lock:
            for attempt in (1, 2):  # a kept-alive connection the session closed meanwhile: once more, anew
                if self.dead:
                    return
                try:
                    if self._connection is None:
                        self._connection = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
                    self._connection.request("POST", self._path, body, headers)
                    answer = self._connection.getresponse()
                    answer.read()
                    if answer.status != 204:
                        self.dead = True
                    return
                except (OSError, http.client.HTTPException):
                    self._connection = None
                    if attempt == 2:
                        self.dead = True


def serve(workspace: Workspace, profile: str = "task", stdin: IO[bytes] | None = None,
          stdout: IO[bytes] | None = None, report: Observer | None = None) -> int:
    """Run the server on stdin/stdout until the client closes its end. The protocol has fd 1 to itself: whatever
    else writes to standard output (a library's stray print) goes to standard error instead. ``report``: the
    observer of :class:`McpServer` (a :class:`Reporter`)."""
    server = McpServer(workspace, profile, observer=report)
    if stdin is None:
        stdin = sys.stdin.buffer
    if stdout is None:
        stdout = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    # Joined before serve returns: a thread still importing as the interpreter shuts down can abort it (SIGABRT,
    # seen in CI when the client closed stdin within a moment of starting the server).
    loader = threading.Thread(target=preload, name="kandev-tui mcp preload", daemon=True)
    loader.start()
    lock = threading.Lock()
    broken = threading.Event()

    def send(answer: dict[str, Any] | None) -> None:
        if answer is None or broken.is_set():
            return
        data = json.dumps(answer, separators=(",", ":")).encode("ascii") + b"\n"  # \u escapes: any text is valid
        with lock:
            try:
                stdout.write(data)
                stdout.flush()
            except (BrokenPipeError, OSError):  # the client is gone
                broken.set()

    def answer(message: dict[str, Any]) -> None:
        send(server.handle(message))

    with ThreadPoolExecutor(max_workers=4, thread_name_prefix="kandev-tui mcp call") as calls:
        try:
            for line in _lines(stdin):
                if broken.is_set():
                    break
                if line is None:
                    send(_error(None, PARSE_ERROR, f"Parse error: a message over {MAX_MESSAGE} bytes"))
                    continue
                if not line.strip():
                    continue
                try:
                    message = json.loads(line)
                except ValueError:
                    send(_error(None, PARSE_ERROR, "Parse error: not JSON"))
                    continue
                if isinstance(message, dict) and message.get("method") == "tools/call" and "id" in message:
                    calls.submit(answer, message)  # a CSV read never holds up a ping
                else:
                    send(server.handle(message))
        except KeyboardInterrupt:
            loader.join()
            return 130
    loader.join()
    return 0
