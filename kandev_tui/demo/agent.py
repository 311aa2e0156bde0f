"""The demo agent: a real ACP agent process (``python -m kandev_tui.demo.agent``).

It plays a deterministic, scripted session offline, over the same SDK real
agents use: streamed Markdown with a code block, a thought, a plan that
progresses, ordinary tool calls (read, search, execute with output, one that
fails), a permission request, and rich output made through the MCP server it
is offered in ``session/new`` (it connects with the official ``mcp`` client,
as a real agent would: a stdio server as kandev-tui offers, or a streamable HTTP
server as Kandev offers). Codex-style and Claude-style MCP frames are both used.

Options: ``--scenario build|fleet``; ``--dialect claude`` reports every MCP call
Claude-style (Kandev keeps the arguments only of those); ``--seed-workspace``
copies the demo files into the session's working directory where missing (a
Kandev session starts in an empty repository); ``--needs-login`` starts no
session until the client logs in (three ways: the agent's own ``authenticate``,
``KANDEV_DEMO_TOKEN`` in its environment, or ``--login-in-terminal``, a login
run in the user's terminal that writes ``KANDEV_DEMO_LOGIN_FILE``).

Like the real agents, it offers modes (ask before writing, or write without
asking), a model option, and slash commands (``/chart``, ``/summary``).

``KANDEV_DEMO_DELAY`` sets the pause between streamed chunks in seconds
(default 0.02; 0 in tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any, cast

from kandev_tui.acp.sdk import skip_sdk_docstrings

skip_sdk_docstrings()  # the SDK's models built without reading their source: the agent answers sooner (sdk.py)

from acp import helpers, run_agent, schema  # noqa: E402
from acp.schema import (  # noqa: E402
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    McpCapabilities,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ToolCallUpdate,
)

from kandev_tui import __version__  # noqa: E402

DELAY = float(os.environ.get("KANDEV_DEMO_DELAY", "0.02"))
TOOL = "show_rich_output_kandev"

INTRO = """I'll check the build health of **demo-service**: read the latest report, look for HACK
comments, run the tests, and then show you the numbers as charts.

The report is written by the verification run:

```bash
pytest -q --json-report --json-report-file=reports/build.json
```

"""

# started in a folder of the user's (ctrl+n, run --preset demo) rather than on a copy of the sample project
ELSEWHERE = """*This folder is not demo-service, the sample project that `kandev-tui demo` starts me on: its build
report and build-time CSV are missing here, so two steps below show how kandev-tui says a file is not there. I write
one file, `reports/summary.md`, and ask before I do: reject it to leave this folder as it is.*

"""

FINDINGS = """### What I found

- **3 failing tests**, all in billing and auth; the billing ones come from JPY having no minor unit.
- Build times fell from **48 s to 27 s** after the cache change on Aug 13.
- Coverage is steady at **87%** of lines.

The charts below compare failures per area and show the build-time trend.

"""

CLOSING = """That's the full picture. The rejected call above is deliberate: the demo shows how kandev-tui
reports an invalid presentation, with the exact field and rule the server returned.

Ask me anything else and I'll answer with one more chart.
"""

FAILURES_CHART = {
    "version": 1,
    "title": "Test results by area",
    "description": "Latest verification run of demo-service",
    "blocks": [
        {
            "type": "chart", "chart_type": "bar", "title": "Tests by area",
            "summary": "Billing holds two of the three failures.",
            "labels": ["api", "auth", "billing", "web"],
            "series": [
                {"label": "Passed", "values": [128, 64, 91, 129]},
                {"label": "Failed", "values": [0, 1, 2, 0]},
            ],
        }
    ],
}

TREND_CHART = {
    "version": 1,
    "title": "Build time trend",
    "blocks": [
        {
            "type": "chart", "chart_type": "line", "title": "Build time per run",
            "summary": "Build time fell by 44% after the cache change on Aug 13.",
            "csv": {"path": "reports/build-times.csv", "x_column": "started_at",
                    "series": [{"column": "seconds", "label": "Total (s)"}, {"column": "cached_seconds", "label": "Cached (s)"}]},
        }
    ],
}

SUMMARY = {
    "version": 1,
    "title": "Build summary",
    "blocks": [
        {"type": "metrics", "items": [
            {"label": "Passed", "value": "412"},
            {"label": "Failed", "value": "3", "detail": "billing ×2, auth ×1"},
            {"label": "Skipped", "value": "7"},
            {"label": "Duration", "value": "26.9 s", "detail": "down from 48.2 s"},
            {"label": "Line coverage", "value": "87.4%"},
            {"label": "Branch coverage", "value": "79.2%"},
        ]},
        {"type": "file", "path": "reports/build.json", "title": "Raw report",
         "caption": "Written by the verification run", "mime_type": "application/json"},
    ],
}

REJECTED = {  # three values for four labels: the server says exactly that
    "version": 1,
    "title": "Flaky tests",
    "blocks": [
        {"type": "chart", "chart_type": "bar", "title": "Flaky runs", "summary": "Retries per area.",
         "labels": ["api", "auth", "billing", "web"], "series": [{"label": "Retries", "values": [1, 4, 2]}]}
    ],
}


class McpLink:
    """One long-lived MCP client session, owned by its own task (anyio scopes need that)."""

    def __init__(self, server: Any) -> None:
        self._server = server
        self._calls: asyncio.Queue[tuple[str, dict[str, Any], asyncio.Future[Any]] | None] = asyncio.Queue()
        self._task = asyncio.ensure_future(self._run())

    @contextlib.asynccontextmanager
    async def _transport(self) -> Any:
        server = self._server
        if getattr(server, "url", None):  # streamable HTTP (Kandev's own server)
            from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

            headers = {h.name: h.value for h in getattr(server, "headers", None) or []}
            async with create_mcp_http_client(headers=headers or None) as client:
                async with streamable_http_client(server.url, http_client=client) as streams:
                    yield streams
            return
        from mcp.client.stdio import StdioServerParameters, stdio_client

        async with stdio_client(StdioServerParameters(
            command=server.command,
            args=list(server.args),
            env={**os.environ, **{e.name: e.value for e in (server.env or [])}},
        )) as streams:
            yield streams

    async def _run(self) -> None:
        # the MCP client takes 0.3-1 s to import: in a thread, so that the session's answer (sent from this loop
        # right after session/new made this link) does not wait for it
        transport = "streamable_http" if getattr(self._server, "url", None) else "stdio"
        for module in ("mcp.client.session", f"mcp.client.{transport}"):
            await asyncio.to_thread(importlib.import_module, module)
        from mcp.client.session import ClientSession

        pending: asyncio.Future[Any] | None = None
        try:
            async with self._transport() as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    while (request := await self._calls.get()) is not None:
                        name, arguments, pending = request
                        try:
                            result = await session.call_tool(name, arguments)
                            pending.set_result(result.model_dump(mode="json", by_alias=True, exclude_none=True))
                        except Exception as exc:  # noqa: BLE001
                            pending.set_exception(exc)
                        pending = None
        except Exception as exc:  # noqa: BLE001
            if pending is not None and not pending.done():
                pending.set_exception(exc)
            while not self._calls.empty():
                request = self._calls.get_nowait()
                if request is not None and not request[2].done():
                    request[2].set_exception(RuntimeError(f"MCP server unavailable: {exc}"))

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self._calls.put((name, arguments, future))
        return await asyncio.wait_for(future, timeout=60)

    async def close(self) -> None:
        await self._calls.put(None)
        try:
            await asyncio.wait_for(self._task, timeout=10)
        except (asyncio.TimeoutError, Exception):  # noqa: BLE001
            self._task.cancel()


class DemoAgent:
    """A plain class the SDK routes to by method name (deliberately not an ``acp.Agent`` subclass)."""

    def __init__(self, scenario: str = "build", *, dialect: str = "mixed", seed_workspace: bool = False,
                 needs_login: bool = False) -> None:
        self.scenario = scenario
        self.dialect = dialect
        self.seed_workspace = seed_workspace
        self.needs_login = needs_login
        self._logged_in = False
        self._conn: Any = None
        self._sessions: dict[str, dict[str, Any]] = {}
        self._cancelled: set[str] = set()
        self._ids = 0
        self._asks = False  # the client answers questions (elicitation)

    def on_connect(self, conn: Any) -> None:
        self._conn = conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None,
                         **_: Any) -> InitializeResponse:
        self._asks = getattr(client_capabilities, "elicitation", None) is not None  # it can answer questions
        response = InitializeResponse(
            protocol_version=1,
            agent_capabilities=AgentCapabilities(load_session=False, mcp_capabilities=McpCapabilities(http=True, sse=False)),
            agent_info=Implementation(name="kandev-demo-agent", title="kandev-tui demo agent", version=__version__),
        )
        if self.needs_login:
            terminal = getattr(getattr(client_capabilities, "auth", None), "terminal", False)
            methods = [{"id": "demo-login", "name": "Demo login", "description": "The demo agent logs you in at once"},
                       {"id": "demo-token", "type": "env_var", "name": "Demo token",
                        "description": "Any text will do", "vars": [{"name": "KANDEV_DEMO_TOKEN", "label": "demo token"}]}]
            if terminal:  # offered only to clients that can hand the terminal over, as the real agents do
                methods.append({"id": "demo-terminal", "type": "terminal", "name": "Log in in the terminal",
                                "description": "Answer one question", "args": ["--login-in-terminal"]})
            response = InitializeResponse.model_validate({**response.model_dump(by_alias=True, exclude_none=True),
                                                          "authMethods": methods})
        return response

    async def authenticate(self, method_id: str, **_: Any) -> None:
        from acp.exceptions import RequestError

        if method_id != "demo-login":
            raise RequestError.invalid_params({"details": f"the demo agent cannot log in with {method_id}"})
        self._logged_in = True

    def _may_start(self) -> bool:
        login_file = os.environ.get("KANDEV_DEMO_LOGIN_FILE")
        return (not self.needs_login or self._logged_in or bool(os.environ.get("KANDEV_DEMO_TOKEN"))
                or bool(login_file and Path(login_file).is_file()))

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any) -> NewSessionResponse:
        if not self._may_start():
            from acp.exceptions import RequestError

            raise RequestError.auth_required()
        self._ids += 1
        session_id = f"demo-{self._ids}"
        kandev = next((s for s in mcp_servers or [] if getattr(s, "name", None) == "kandev"
                       and (getattr(s, "command", None) or getattr(s, "url", None))), None)
        if self.seed_workspace:
            seed(Path(cwd))
        self._sessions[session_id] = {"cwd": Path(cwd), "mcp": McpLink(kandev) if kandev else None, "turns": 0,
                                      "mode": "ask", "model": "demo-standard"}
        asyncio.get_running_loop().call_later(0.01, lambda: asyncio.ensure_future(self._offer_commands(session_id)))
        return NewSessionResponse.model_validate({"sessionId": session_id, "modes": {
            "currentModeId": "ask", "availableModes": [{"id": mode, **info} for mode, info in MODES.items()]},
            "configOptions": self._options(self._sessions[session_id])})

    def _options(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"id": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": state["mode"],
                 "options": [{"value": mode, **info} for mode, info in MODES.items()]},
                {"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": state["model"],
                 "options": [{"value": model, **info} for model, info in MODELS.items()]}]

    async def _offer_commands(self, session_id: str) -> None:
        await self._conn.session_update(session_id=session_id, update=schema.AvailableCommandsUpdate.model_validate({
            "sessionUpdate": "available_commands_update", "availableCommands": COMMANDS}))

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> None:
        from acp.exceptions import RequestError

        state = self._sessions.get(session_id)
        if state is None or mode_id not in MODES:
            raise RequestError.invalid_params({"details": f"the demo agent has no mode {mode_id}"})
        state["mode"] = mode_id

    async def set_config_option(self, config_id: str, session_id: str, value: Any, **_: Any) -> Any:
        from acp.exceptions import RequestError

        state = self._sessions.get(session_id)
        allowed = {"mode": MODES, "model": MODELS}.get(config_id)
        if state is None or allowed is None or value not in allowed:
            raise RequestError.invalid_params({"details": f"the demo agent has no {config_id} {value}"})
        state[config_id] = value
        return schema.SetSessionConfigOptionResponse.model_validate({"configOptions": self._options(state)})

    async def cancel(self, session_id: str, **_: Any) -> None:
        self._cancelled.add(session_id)

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> PromptResponse:
        state = self._sessions.get(session_id)
        if state is None:
            from acp.exceptions import RequestError

            raise RequestError.invalid_params({"sessionId": "unknown session"})
        self._cancelled.discard(session_id)
        state["turns"] += 1
        text = "".join(getattr(block, "text", "") for block in prompt)
        first = self._fleet_turn if self.scenario == "fleet" else self._first_turn
        script = first if state["turns"] == 1 and _command(text) is None else self._later_turn
        try:
            await script(session_id, state, text)
        except _Cancelled:
            return PromptResponse(stop_reason="cancelled")
        return PromptResponse(stop_reason="end_turn")

    # -- small building blocks ---------------------------------------------------

    async def _send(self, session_id: str, update: Any) -> None:
        if session_id in self._cancelled:
            raise _Cancelled
        await self._conn.session_update(session_id=session_id, update=update)

    async def _stream(self, session_id: str, text: str, thought: bool = False) -> None:
        words = text.split(" ")
        for index in range(0, len(words), 3):
            chunk = " ".join(words[index:index + 3]) + (" " if index + 3 < len(words) else "")
            make = helpers.update_agent_thought_text if thought else helpers.update_agent_message_text
            await self._send(session_id, make(chunk))
            if DELAY:
                await asyncio.sleep(DELAY)

    async def _pause(self, factor: float = 5) -> None:
        if DELAY:
            await asyncio.sleep(DELAY * factor)

    async def _plan(self, session_id: str, done: int) -> None:
        steps = ["Read the latest build report", "Search for HACK comments", "Run the test suite", "Summarise with charts"]
        entries = [helpers.plan_entry(step, priority="high" if i == 2 else "medium",
                                      status="completed" if i < done else "in_progress" if i == done else "pending")
                   for i, step in enumerate(steps)]
        await self._send(session_id, helpers.update_plan(entries))

    async def _tool(self, session_id: str, call_id: str, title: str, kind: schema.ToolKind, raw_input: dict[str, Any],
                    raw_output: Any, status: schema.ToolCallStatus = "completed", locations: list[str] | None = None) -> None:
        locs = [schema.ToolCallLocation(path=p) for p in locations or []]
        await self._send(session_id, helpers.start_tool_call(call_id, title, kind=kind, status="pending",
                                                             raw_input=raw_input, locations=locs or None))
        await self._pause()
        await self._send(session_id, helpers.update_tool_call(call_id, status="in_progress"))
        await self._pause(10)
        content = None
        if isinstance(raw_output, str):
            content = [helpers.tool_content(helpers.text_block(raw_output))]
        await self._send(session_id, helpers.update_tool_call(call_id, status=status, raw_output=raw_output, content=content))

    async def _present(self, session_id: str, state: dict[str, Any], call_id: str, arguments: dict[str, Any],
                       dialect: str) -> None:
        """Call show_rich_output_kandev on the MCP server we were given, reporting it like a real agent."""
        if self.dialect == "claude":
            dialect = "claude"
        if dialect == "codex":  # execute + marker + {server, tool, arguments}; terminal frame {error, result}
            start = helpers.start_tool_call(call_id, f"mcp.kandev.{TOOL}", kind="execute", status="in_progress",
                                            raw_input={"server": "kandev", "tool": TOOL, "arguments": arguments})
            start.field_meta = {"is_mcp_tool_call": True}
        else:  # claude: kind other, the tool name only in the title, output as text blocks
            start = helpers.start_tool_call(call_id, f"mcp__kandev__{TOOL}", kind="other", status="pending",
                                            raw_input=arguments)
        await self._send(session_id, start)
        link: McpLink | None = state["mcp"]
        if link is None:
            await self._send(session_id, helpers.update_tool_call(
                call_id, status="failed", raw_output={"error": "no kandev MCP server was offered in session/new"}))
            return
        try:
            result = await link.call(TOOL, arguments)
        except Exception as exc:  # noqa: BLE001
            result = {"content": [{"type": "text", "text": f"MCP call failed: {exc}"}], "isError": True}
        failed = bool(result.get("isError"))
        if dialect == "codex":
            output: Any = {"error": None, "result": result}
        else:
            output = result.get("content", [])
        await self._send(session_id, helpers.update_tool_call(call_id, status="failed" if failed else "completed",
                                                              raw_output=output))

    # -- the scripts -------------------------------------------------------------------

    async def _first_turn(self, session_id: str, state: dict[str, Any], text: str) -> None:
        cwd: Path = state["cwd"]
        await self._stream(session_id, "The user wants a build health check. I should read the report first, "
                                        "then confirm with a test run before charting anything.", thought=True)
        await self._plan(session_id, 0)
        if not (cwd / "reports" / "build-times.csv").is_file():
            await self._stream(session_id, ELSEWHERE)
        await self._stream(session_id, INTRO)
        report = (cwd / "reports" / "build.json")
        report_text = report.read_text() if report.is_file() else "reports/build.json: no such file"
        await self._tool(session_id, "read-1", "Read reports/build.json", "read", {"path": "reports/build.json"},
                         report_text, locations=["reports/build.json"])
        await self._plan(session_id, 1)
        hits = []
        for path in sorted((cwd / "src").glob("*.py")) if (cwd / "src").is_dir() else []:
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if "HACK" in line:
                    hits.append(f"src/{path.name}:{number}: {line.strip()}")
        await self._tool(session_id, "search-1", "Search for HACK", "search", {"query": "HACK", "path": "src"},
                         "\n".join(hits) or "no matches")
        await self._plan(session_id, 2)
        await self._tool(session_id, "exec-1", "pytest -q", "execute", {"command": "pytest -q", "cwd": str(cwd)},
                         {"stdout": "412 passed, 3 failed, 7 skipped in 26.90s\n", "stderr": "", "exit_code": 1},
                         status="failed")  # pytest exits 1 when a test fails
        await self._tool(session_id, "exec-2", "make lint", "execute", {"command": "make lint"},
                         {"stdout": "", "stderr": "make: *** No rule to make target 'lint'.  Stop.\n", "exit_code": 2},
                         status="failed")
        await self._ask_to_write(session_id, cwd)
        await self._plan(session_id, 3)
        await self._stream(session_id, FINDINGS)
        await self._present(session_id, state, "rich-1", FAILURES_CHART, "codex")
        await self._stream(session_id, "Build times come straight from `reports/build-times.csv`, so the chart "
                                        "stays exact even if the file changes later:\n\n")
        await self._present(session_id, state, "rich-2", TREND_CHART, "claude")
        await self._stream(session_id, "And the headline numbers, with the raw report one keypress away:\n\n")
        await self._present(session_id, state, "rich-3", SUMMARY, "codex")
        await self._present(session_id, state, "rich-4", REJECTED, "codex")
        await self._plan(session_id, 4)
        await self._stream(session_id, CLOSING)

    async def _fleet_call(self, session_id: str, step: tuple[str, str, dict[str, Any], Any, str], codex: bool) -> None:
        """One operations MCP tool call, reported Codex-style or Claude-style with its bundled result."""
        call_id, tool, arguments, result, said = step
        status = cast(schema.ToolCallStatus, said)  # fleet.STEPS says one of them
        if codex:
            start = helpers.start_tool_call(call_id, f"mcp.fleet.{tool}", kind="execute", status="in_progress",
                                            raw_input={"server": "fleet", "tool": tool, "arguments": arguments})
            start.field_meta = {"is_mcp_tool_call": True}
        else:
            start = helpers.start_tool_call(call_id, f"mcp__fleet__{tool}", kind="other", status="pending",
                                            raw_input=arguments)
        await self._send(session_id, start)
        await self._pause(10)
        text = result if isinstance(result, str) else json.dumps(result)
        mcp_result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": status == "failed"}
        if isinstance(result, dict):
            mcp_result["structuredContent"] = result
        if codex:
            output: Any = {"error": text, "result": None} if status == "failed" else {"error": None, "result": mcp_result}
        else:
            output = mcp_result["content"]
        await self._send(session_id, helpers.update_tool_call(call_id, status=status, raw_output=output))

    async def _fleet_turn(self, session_id: str, state: dict[str, Any], text: str) -> None:
        from . import fleet

        await self._stream(session_id, "An operations question: start wide (snapshot, health), then narrow to the "
                                        "degraded service before touching anything.", thought=True)
        await self._stream(session_id, fleet.INTRO)
        for index, step in enumerate(fleet.STEPS):
            if step[0] == "f-metrics":
                await self._stream(session_id, fleet.MIDDLE)
            await self._fleet_call(session_id, step, codex=index % 2 == 1)
        await self._ask_to_execute(session_id, fleet.PERMISSION_STEP)
        await self._stream(session_id, fleet.CLOSING)

    async def _ask_to_execute(self, session_id: str, step: tuple[str, str, dict[str, Any]]) -> None:
        call_id, tool, arguments = step
        await self._send(session_id, helpers.start_tool_call(call_id, f"mcp__fleet__{tool}", kind="execute",
                                                             status="pending", raw_input=arguments))
        options = [PermissionOption(option_id="allow", name="Allow once", kind="allow_once"),
                   PermissionOption(option_id="reject", name="Reject", kind="reject_once")]
        response = await self._conn.request_permission(
            session_id=session_id, options=options,
            tool_call=ToolCallUpdate(tool_call_id=call_id, title=f"{tool}: {arguments['command']} on {arguments['target']}",
                                     kind="execute"))
        if getattr(response.outcome, "option_id", None) == "allow":
            await self._send(session_id, helpers.update_tool_call(
                call_id, status="completed", raw_output=[{"type": "text", "text": "execution queued as exec-4812; "
                                                          "db-replica started, replication lag 0 s"}]))
        else:
            await self._send(session_id, helpers.update_tool_call(
                call_id, status="failed", raw_output={"error": "Permission denied by the user"}))
        if session_id in self._cancelled:
            raise _Cancelled

    async def _ask_to_write(self, session_id: str, cwd: Path, call_id: str = "edit-1") -> bool:
        """The summary written, asked first in the Ask mode; whether it was."""
        if self._sessions[session_id].get("mode") == "write":  # the user's mode: write without asking
            await self._write_summary(session_id, cwd, call_id)
            return True
        summary = "# Build summary\n\n3 failing tests.\n"
        old = (cwd / "reports" / "summary.md").read_text() if (cwd / "reports" / "summary.md").is_file() else None
        diff: list[schema.ContentToolCallContent | schema.FileEditToolCallContent | schema.TerminalToolCallContent] = [
            helpers.tool_diff_content("reports/summary.md", summary, old)]  # the change, as real agents send it
        await self._send(session_id, helpers.start_tool_call(
            call_id, "Write reports/summary.md", kind="edit", status="pending", content=diff,
            raw_input={"path": "reports/summary.md", "content": summary}))
        options = [
            PermissionOption(option_id="allow", name="Allow once", kind="allow_once"),
            PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
        ]
        response = await self._conn.request_permission(
            session_id=session_id, options=options,
            tool_call=ToolCallUpdate(tool_call_id=call_id, title="Write reports/summary.md", kind="edit", content=diff))
        outcome = getattr(response.outcome, "option_id", None)
        if outcome == "allow":
            (cwd / "reports").mkdir(exist_ok=True)
            (cwd / "reports" / "summary.md").write_text(summary)
            await self._send(session_id, helpers.update_tool_call(call_id, status="completed", raw_output="Wrote reports/summary.md"))
        else:
            await self._send(session_id, helpers.update_tool_call(
                call_id, status="failed", raw_output={"error": "Permission denied by the user"}))
        if session_id in self._cancelled:
            raise _Cancelled
        return outcome == "allow"

    async def _later_turn(self, session_id: str, state: dict[str, Any], text: str) -> None:
        name, rest = _command(text) or ("", text)  # a slash command it offers: the words after it, not itself
        if name == "summary":
            return await self._summary_again(session_id, state)
        if name == "release":
            return await self._release(session_id)
        command = name == "chart"
        text = rest
        words = [w.strip(".,!?;:\"'()") for w in text.split()]
        words = [w[:40] for w in words if w][:8] or ["(empty)"]
        quoted = " ".join(text.split())[:200]
        if command:
            await self._stream(session_id, f"/chart: the words “{quoted}”, charted by kandev-tui from a tool call, "
                                            "like any real result.\n\n")
        else:
            await self._stream(session_id, f"You asked: “{quoted}”.\n\nI'm the scripted demo agent, so I can't "
                                            "really do that — but here is a chart of the words in your message, "
                                            "drawn by kandev-tui from a tool call, like any real result.\n\n")
        chart = {"version": 1, "title": "Your message", "blocks": [{
            "type": "chart", "chart_type": "bar", "title": "Letters per word",
            "summary": f"{len(words)} word{'s' if len(words) != 1 else ''}, in the order you wrote them.",
            "labels": [f"{i + 1}. {w}"[:120] for i, w in enumerate(words)],
            "series": [{"label": "Letters", "values": [len(w) for w in words]}]}]}
        state.setdefault("extra", 0)
        state["extra"] += 1
        await self._present(session_id, state, f"rich-extra-{state['extra']}", chart, "codex")
        await self._stream(session_id, "Anything else?")

    async def _summary_again(self, session_id: str, state: dict[str, Any]) -> None:
        """``/summary``: the build summary written again (asked first, in the Ask mode)."""
        await self._stream(session_id, "Writing the build summary to `reports/summary.md` again.\n\n")
        allowed = await self._ask_to_write(session_id, state["cwd"], f"edit-{state['turns']}")
        await self._stream(session_id, "Done: `reports/summary.md` holds the build summary." if allowed else
                           "Left as it was: nothing written.")

    async def _release(self, session_id: str) -> None:
        """``/release``: a question for the user, as a form (ACP elicitation), and what was answered."""
        if not self._asks:
            return await self._stream(session_id, "This client cannot answer an agent's questions (it offers no "
                                                  "`elicitation`), so I cannot ask which release to cut.")
        form = schema.ElicitationFormSessionMode.model_validate({"sessionId": session_id, "requestedSchema": RELEASE})
        response = await self._conn.create_elicitation(message="Which release should I cut?", mode=form)
        action = getattr(response, "action", "cancel")
        content = getattr(response, "content", None) or {}
        if action == "accept":
            said = {key: getattr(value, "root", value) for key, value in dict(content).items()}
            told = ", and tell the team" if said.get("notify") else ""
            await self._stream(session_id, f"I would cut **{said.get('name')}** on the {said.get('channel', 'beta')} "
                                            f"channel{told}. (I am the demo agent: nothing was cut.)")
        else:
            await self._stream(session_id, "No release, then." if action == "decline" else "The question was "
                                                                                         "cancelled: no release.")

    async def close(self) -> None:
        for state in self._sessions.values():
            if state["mcp"] is not None:
                await state["mcp"].close()


    async def _write_summary(self, session_id: str, cwd: Path, call_id: str = "edit-1") -> None:
        summary = "# Build summary\n\n3 failing tests.\n"
        old = (cwd / "reports" / "summary.md").read_text() if (cwd / "reports" / "summary.md").is_file() else None
        diff: list[schema.ContentToolCallContent | schema.FileEditToolCallContent | schema.TerminalToolCallContent] = [
            helpers.tool_diff_content("reports/summary.md", summary, old)]
        await self._send(session_id, helpers.start_tool_call(call_id, "Write reports/summary.md", kind="edit",
                                                             status="in_progress", content=diff))
        (cwd / "reports").mkdir(exist_ok=True)
        (cwd / "reports" / "summary.md").write_text(summary)
        await self._send(session_id, helpers.update_tool_call(call_id, status="completed",
                                                              raw_output="Wrote reports/summary.md"))


def _command(text: str) -> tuple[str, str] | None:
    """The slash command (``chart``, ``summary``, ``release``) the user's prompt is, and the words after it, when it is
    one (its last paragraph: a client may put text of its own before the user's, as kandev-tui's guidance)."""
    last = text.strip().rsplit("\n\n", 1)[-1].strip()
    first = last.split()[:1]
    names = {f"/{command['name']}" for command in COMMANDS}
    return (first[0][1:], last[len(first[0]):]) if first and first[0] in names else None


MODES = {"ask": {"name": "Ask", "description": "Ask before writing files"},
         "write": {"name": "Write", "description": "Write files without asking"}}
MODELS = {"demo-standard": {"name": "Standard", "description": "The demo's usual answers"},
          "demo-thorough": {"name": "Thorough", "description": "The same answers, more slowly"}}
COMMANDS: list[dict[str, Any]] = [
    {"name": "chart", "description": "Chart the words of a message", "input": {"hint": "some words"}},
    {"name": "summary", "description": "Write the build summary again", "input": None},
    {"name": "release", "description": "Ask you which release to cut (a form)", "input": None}]
RELEASE = {"type": "object", "required": ["name"], "properties": {  # /release's question
    "name": {"type": "string", "title": "Release name", "minLength": 3, "description": "e.g. v1.4.0"},
    "channel": {"type": "string", "title": "Channel", "oneOf": [{"const": "beta", "title": "Beta"},
                                                                {"const": "stable", "title": "Stable"}]},
    "notify": {"type": "boolean", "title": "Tell the team", "default": False}}}


def login_in_terminal() -> int:
    """The demo's ``terminal`` login: one question in the user's terminal, then ``KANDEV_DEMO_LOGIN_FILE``."""
    target = os.environ.get("KANDEV_DEMO_LOGIN_FILE")
    if not target:  # where the login is kept (a test's folder): asking would only say no after a yes
        print("Not logged in: set KANDEV_DEMO_LOGIN_FILE to the file where the demo keeps its login.")
        return 1
    answer = input("Demo login: type yes to log in: ").strip().lower()
    if answer != "yes":
        print("Not logged in.")
        return 1
    Path(target).write_text("logged in\n")
    print("Logged in.")
    return 0


class _Cancelled(Exception):
    pass


def seed(cwd: Path) -> None:
    """Copy the demo workspace's files into ``cwd`` where they are missing (never overwrite)."""
    source = Path(__file__).parent / "workspace"
    for path in sorted(source.rglob("*")):
        target = cwd / path.relative_to(source)
        if path.is_file() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())


async def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m kandev_tui.demo.agent",
                                     description="kandev-tui's scripted demo agent (ACP over stdio).")
    parser.add_argument("--scenario", choices=("build", "fleet"), default="build")
    parser.add_argument("--dialect", choices=("mixed", "claude"), default="mixed",
                        help="how MCP calls are reported: both Codex and Claude styles, or Claude style only")
    parser.add_argument("--seed-workspace", action="store_true",
                        help="copy the demo files into the session directory where missing")
    parser.add_argument("--needs-login", action="store_true", help="start no session until the client logs in")
    parser.add_argument("--login-in-terminal", action="store_true",
                        help="the terminal login: ask one question, then write KANDEV_DEMO_LOGIN_FILE")
    args = parser.parse_args()
    agent = DemoAgent(args.scenario, dialect=args.dialect, seed_workspace=args.seed_workspace,
                      needs_login=args.needs_login)
    try:
        await run_agent(agent)  # type: ignore[arg-type]  # it answers what it offers; acp's Protocol lists every method
    finally:
        await agent.close()


if __name__ == "__main__":
    if "--login-in-terminal" in sys.argv[1:]:  # a plain program in the user's terminal: ctrl+c ends it (no event loop)
        try:
            sys.exit(login_in_terminal())
        except (KeyboardInterrupt, EOFError):
            print("\nNot logged in.")
            sys.exit(130)
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(130)
