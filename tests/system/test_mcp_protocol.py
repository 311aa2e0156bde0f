"""The official ``mcp`` client against ``kandev-tui mcp`` over stdio (real processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from kandev_tui.presentation import INPUT_SCHEMA, TOOL_NAME
from kandev_tui.presentation.guidance import CSV_CHART_EXAMPLE, INLINE_CHART_EXAMPLE

from ..support.documents import BUILD_TIMES_CSV


def _server_params(workspace: Path, *extra: str):
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "kandev_tui", "mcp", "--workspace", str(workspace), *extra],
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )


def run_session(workspace: Path, script, *extra: str):
    """Start the server, initialise a client session and run ``script(session)``."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    async def main():
        async with stdio_client(_server_params(workspace, *extra)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await script(session)

    return anyio.run(main)


def text_of(result) -> str:
    return "".join(block.text for block in result.content)


@pytest.mark.parametrize("profile", ["task", "office"])
def test_tool_listed_in_task_and_office(tmp_path, profile):
    async def script(session):
        return (await session.list_tools()).tools

    tools = run_session(tmp_path, script, "--profile", profile)
    assert [tool.name for tool in tools] == [TOOL_NAME]
    tool = tools[0]
    assert tool.input_schema == INPUT_SCHEMA
    assert tool.input_schema["additionalProperties"] is False
    assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
    assert "ASCII" in tool.description and "axes" in tool.description
    examples = tool.input_schema["examples"]
    assert any("csv" in b for e in examples for b in e["blocks"])
    assert any("labels" in b for e in examples for b in e["blocks"])


@pytest.mark.parametrize("profile", ["config", "external"])
def test_no_tool_in_config_and_external(tmp_path, profile):
    async def script(session):
        tools = (await session.list_tools()).tools
        result = await session.call_tool(TOOL_NAME, INLINE_CHART_EXAMPLE)
        return tools, result

    tools, result = run_session(tmp_path, script, "--profile", profile)
    assert tools == []
    assert result.is_error and "Unknown tool" in text_of(result)


def test_calls_over_one_session(workspace_dir):
    """Inline, CSV, invalid, escape attempts and a FIFO, all against one live server."""
    (workspace_dir / "outside.csv").write_text(BUILD_TIMES_CSV)
    inner = workspace_dir / "ws"
    inner.mkdir()
    (inner / "reports").mkdir()
    (inner / "reports" / "build-times.csv").write_text(BUILD_TIMES_CSV)
    (inner / "link.csv").symlink_to(workspace_dir / "outside.csv")
    os.mkfifo(inner / "x.csv")

    def csv_call(path: str) -> dict:
        doc = json.loads(json.dumps(CSV_CHART_EXAMPLE))
        doc["blocks"][1]["csv"]["path"] = path
        return doc

    async def script(session):
        out = {}
        out["inline"] = await session.call_tool(TOOL_NAME, INLINE_CHART_EXAMPLE)
        out["csv"] = await session.call_tool(TOOL_NAME, CSV_CHART_EXAMPLE)
        out["invalid"] = await session.call_tool(TOOL_NAME, {"version": 1, "title": "", "blocks": []})
        out["no_args"] = await session.call_tool(TOOL_NAME, None)
        out["link"] = await session.call_tool(TOOL_NAME, csv_call("link.csv"))
        out["fifo"] = await session.call_tool(TOOL_NAME, csv_call("x.csv"))
        out["home"] = await session.call_tool(TOOL_NAME, csv_call("~/.bash_history.csv"))
        out["after"] = await session.call_tool(TOOL_NAME, INLINE_CHART_EXAMPLE)
        return out

    out = run_session(inner, script)
    assert not out["inline"].is_error and text_of(out["inline"]) == "Rich output accepted."
    assert out["inline"].structured_content is None

    csv = out["csv"]
    assert not csv.is_error
    assert csv.structured_content == json.loads(text_of(csv))
    assert text_of(csv) == json.dumps(csv.structured_content, separators=(",", ":"), ensure_ascii=False)
    assert csv.structured_content["resolved_charts"][0]["series"] == [{"label": "Seconds", "values": [18.2, None]}]

    assert out["invalid"].is_error and text_of(out["invalid"]) == "title: must be 1-120 characters (and 1 more problem)"
    assert out["no_args"].is_error
    assert text_of(out["link"]) == "could not read CSV source link.csv: the path leads outside the workspace"
    assert text_of(out["fifo"]) == "could not read CSV source x.csv: not a regular file"
    assert out["home"].is_error and "must not start with ~" in text_of(out["home"])
    assert not out["after"].is_error


@pytest.mark.reliability("Files", "MCP server: workspace deleted mid-session", cases=1,
                         held="a tool error, the server lives")
def test_workspace_gone_is_an_error_not_a_crash(tmp_path):
    workspace = tmp_path / "ws"
    (workspace / "reports").mkdir(parents=True)
    (workspace / "reports" / "build-times.csv").write_text(BUILD_TIMES_CSV)

    async def script(session):
        first = await session.call_tool(TOOL_NAME, CSV_CHART_EXAMPLE)
        import shutil

        shutil.rmtree(workspace)
        gone = await session.call_tool(TOOL_NAME, CSV_CHART_EXAMPLE)
        inline = await session.call_tool(TOOL_NAME, INLINE_CHART_EXAMPLE)
        return first, gone, inline

    first, gone, inline = run_session(workspace, script)
    assert not first.is_error
    assert gone.is_error
    assert text_of(gone) == "could not read CSV source reports/build-times.csv: the workspace is no longer available"
    assert not inline.is_error


def _rpc(proc, message: dict | str) -> None:
    line = message if isinstance(message, str) else json.dumps(message)
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


def _await_reply(proc, replies: dict, request_id: int) -> None:
    while request_id not in replies:
        line = proc.stdout.readline()
        assert line, f"server exited: {proc.stderr.read()}"
        message = json.loads(line)
        if "id" in message:
            replies[message["id"]] = message


@pytest.mark.reliability("Agent faults", "MCP server: garbage JSON-RPC", cases=1,
                         held="errors returned, the server lives")
def test_bad_json_rpc_never_kills_the_server(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "kandev_tui", "mcp", "--workspace", str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        _rpc(proc, "this is not json")
        _rpc(proc, '{"jsonrpc": "2.0", "id": 1, "method": ')
        _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "no/such/method"})
        _rpc(proc, {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
        replies: dict = {}
        _await_reply(proc, replies, 3)
        assert "result" in replies[3]
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _rpc(proc, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": TOOL_NAME, "arguments": "nope"}})
        _await_reply(proc, replies, 4)
        assert "error" in replies[2]  # an unknown method is an error, not a crash
        assert proc.poll() is None
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    assert proc.returncode == 0, proc.stderr.read()


def test_the_tool_is_listed_before_anything_heavy_is_imported(tmp_path):
    """An agent that starts its MCP servers in the background (Codex) lists the tools at once: initialize and
    tools/list are answered with the standard library alone (the ``mcp`` SDK and pydantic took 0.8 s to import, and
    the agent's first request went out without the tool). benchmarks/mcp_start.py measures the time."""
    probe = (
        "import json, sys\n"
        "from kandev_tui.mcp.server import McpServer\n"
        "from kandev_tui.workspace.reads import Workspace\n"
        "server = McpServer(Workspace(sys.argv[1]))\n"
        "server.handle({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {'protocolVersion': '2025-06-18'}})\n"
        "tools = server.handle({'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'})['result']['tools']\n"
        "print(json.dumps({'tools': [t['name'] for t in tools], 'heavy': sorted(m for m in ('mcp', 'pydantic', 'anyio')"
        " if m in sys.modules)}))\n")
    result = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"tools": [TOOL_NAME], "heavy": []}


def test_what_is_not_mcp_is_answered_as_json_rpc_says(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "kandev_tui", "mcp", "--workspace", str(tmp_path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _rpc(proc, "this is not json")
        replies = [json.loads(proc.stdout.readline())]
        _rpc(proc, "x" * (9 * 1024 * 1024))  # one line past the bound: read past, said, the server lives
        replies.append(json.loads(proc.stdout.readline()))
        _rpc(proc, json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]))
        replies.append(json.loads(proc.stdout.readline()))
        assert [(r["id"], r["error"]["code"]) for r in replies] == [(None, -32700), (None, -32700), (None, -32600)]
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})  # no answer to a notification
        _rpc(proc, {"jsonrpc": "2.0", "id": "p", "method": "ping"})
        assert json.loads(proc.stdout.readline()) == {"jsonrpc": "2.0", "id": "p", "result": {}}
        _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"arguments": {}}})
        _rpc(proc, {"jsonrpc": "2.0", "id": 3, "method": "resources/list"})
        _rpc(proc, {"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": "1999-01-01"}})
        replies = {}
        _await_reply(proc, replies, 4)
        _await_reply(proc, replies, 3)
        _await_reply(proc, replies, 2)
        assert replies[2]["error"]["code"] == -32602 and replies[3]["error"]["code"] == -32601
        assert replies[4]["result"]["protocolVersion"] == "2025-11-25"  # a version it does not know: the newest
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr.read()



def test_serve_returns_with_no_import_still_running(tmp_path):
    """The client closing stdin at once ends serve only after the background import: a thread still importing as
    the interpreter shuts down can abort it (SIGABRT, exit -6, seen in CI)."""
    code = (
        "import io, threading\n"
        "from kandev_tui.mcp.server import serve\n"
        "from kandev_tui.workspace.reads import Workspace\n"
        f"rc = serve(Workspace({str(tmp_path)!r}), stdin=io.BytesIO(b''), stdout=io.BytesIO())\n"
        "print(rc, sorted(t.name for t in threading.enumerate() if t is not threading.main_thread()))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "0 []"
