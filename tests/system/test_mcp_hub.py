"""kandev-tui's own MCP server as a session knows it (kandev_tui/mcp/hub.py): the official ``mcp`` client over
Streamable HTTP, ``kandev-tui mcp --report`` over stdio reporting to it, and what it refuses. Real sockets, real
processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

import pytest

from kandev_tui.mcp.hub import McpHub
from kandev_tui.presentation import TOOL_NAME

from ..support.documents import BUILD_TIMES_CSV
from ..support.documents import CHART, CSV_CHART
from ..support.frames import messages_of


def test_the_stdio_server_reports_each_call_before_the_agent_has_its_result(tmp_path):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def script(hub):
        entry = hub.stdio_entry()
        env = {**os.environ, **{e["name"]: e["value"] for e in entry["env"]}}
        seen_at_result = []
        async with stdio_client(StdioServerParameters(command=entry["command"], args=entry["args"], env=env)) as (
                read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool(TOOL_NAME, CSV_CHART)
                seen_at_result.append(len(hub_frames))
        return result, seen_at_result

    hub_frames: list[Any] = []
    (tmp_path / "reports").mkdir(exist_ok=True)
    (tmp_path / "reports" / "build-times.csv").write_text(BUILD_TIMES_CSV)

    async def main():
        hub = McpHub(tmp_path, {}, hub_frames.append)
        await hub.start()
        try:
            return await script(hub)
        finally:
            await hub.close()

    result, seen_at_result = asyncio.run(main())
    frames = messages_of(hub_frames)
    assert not result.is_error
    assert frames[0] == {"event": "rich_output_server", "via": "stdio"}
    assert [f["phase"] for f in frames[1:]] == ["start", "end"]
    assert seen_at_result == [3]  # the end was held before the client had the result
    assert frames[2]["structured"] == result.structured_content
    assert frames[1]["call"].endswith(":1") and frames[1]["call"] == frames[2]["call"]


@pytest.mark.parametrize("report,token,said", [
    ("http://example.com:80/report", "s", "loopback"),
    ("http://127.0.0.1:9/report", "", "KANDEV_TUI_REPORT_TOKEN"),
])
def test_a_bad_report_address_is_one_line_and_exit_2(tmp_path, report, token, said):
    env = {k: v for k, v in os.environ.items() if k != "KANDEV_TUI_REPORT_TOKEN"}
    if token:
        env["KANDEV_TUI_REPORT_TOKEN"] = token
    done = subprocess.run([sys.executable, "-m", "kandev_tui", "mcp", "--workspace", str(tmp_path), "--report", report],
                          capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and said in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_a_server_whose_session_is_gone_still_answers(tmp_path):
    """The side channel dies (the session's port closed): the server answers the agent all the same."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def main():
        args = ["-m", "kandev_tui", "mcp", "--workspace", str(tmp_path), "--report", "http://127.0.0.1:9/report"]
        env = {**os.environ, "KANDEV_TUI_REPORT_TOKEN": "secret"}
        async with stdio_client(StdioServerParameters(command=sys.executable, args=args, env=env)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool(TOOL_NAME, CHART)

    result = asyncio.run(main())
    assert not result.is_error and result.content[0].text == "Rich output accepted."
