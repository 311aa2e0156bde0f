"""kandev-tui's own MCP server as a session knows it (kandev_tui/mcp/hub.py): the official ``mcp`` client over
Streamable HTTP, ``kandev-tui mcp --report`` over stdio reporting to it, and what it refuses. Real sockets, real
processes."""

from __future__ import annotations

import asyncio
import http.client
import json
from pathlib import Path
from typing import Any

import pytest

from kandev_tui.mcp.hub import McpHub
from kandev_tui.presentation import TOOL_NAME

from ..support.documents import BUILD_TIMES_CSV
from ..support.documents import CHART, CSV_CHART
from ..support.frames import messages_of


def with_hub(tmp_path: Path, script) -> tuple[Any, list[dict[str, Any]]]:
    """Run ``script(hub)`` with a hub started on a fresh loop; (its answer, the frames the hub made)."""
    (tmp_path / "reports").mkdir(exist_ok=True)
    (tmp_path / "reports" / "build-times.csv").write_text(BUILD_TIMES_CSV)
    seen: list[Any] = []

    async def main():
        hub = McpHub(tmp_path, {}, seen.append)
        await hub.start()
        try:
            return await script(hub)
        finally:
            await hub.close()

    return asyncio.run(main()), messages_of(seen)


def test_the_official_client_over_streamable_http(tmp_path):
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    async def script(hub):
        entry = hub.http_entry()
        headers = {h["name"]: h["value"] for h in entry["headers"]}
        async with create_mcp_http_client(headers=headers) as client:
            async with streamable_http_client(entry["url"], http_client=client) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = await session.list_tools()
                    inline = await session.call_tool(TOOL_NAME, CHART)
                    from_csv = await session.call_tool(TOOL_NAME, CSV_CHART)
                    bad = await session.call_tool(TOOL_NAME, {"version": 1, "title": "x", "blocks": []})
                    return tools, inline, from_csv, bad

    (tools, inline, from_csv, bad), frames = with_hub(tmp_path, script)
    assert [t.name for t in tools.tools] == [TOOL_NAME]
    assert not inline.is_error and inline.content[0].text == "Rich output accepted."
    assert not from_csv.is_error and from_csv.structured_content["resolved_charts"]
    assert bad.is_error and "blocks" in bad.content[0].text
    assert frames[0] == {"event": "rich_output_server", "via": "http"}
    calls = [f for f in frames if f["event"] == "rich_output"]
    assert [(f["phase"], f["call"]) for f in calls] == [("start", "http:1"), ("end", "http:1"), ("start", "http:2"),
                                                        ("end", "http:2"), ("start", "http:3"), ("end", "http:3")]
    assert calls[0]["arguments"] == CHART and calls[1]["is_error"] is False
    assert calls[3]["structured"] == from_csv.structured_content  # the snapshot, as the agent got it
    assert calls[5]["is_error"] is True and calls[5]["text"] == bad.content[0].text


def _request(port: int, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None,
             connection: http.client.HTTPConnection | None = None) -> tuple[int, bytes, dict[str, str]]:
    conn = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body, headers or {})
    answer = conn.getresponse()
    data = answer.read()
    return answer.status, data, dict(answer.getheaders())


def test_what_the_hub_refuses_and_what_it_takes(tmp_path):
    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                             "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}).encode()

    async def script(hub):
        def talk():
            good = {"Authorization": f"Bearer {hub.token}", "Content-Type": "application/json"}
            out = {
                "no secret": _request(hub.port, "POST", "/mcp", initialize)[0],
                "wrong secret": _request(hub.port, "POST", "/mcp", initialize,
                                         {"Authorization": "Bearer " + "x" * len(hub.token)})[0],
                "other origin": _request(hub.port, "POST", "/mcp", initialize,
                                         {**good, "Origin": "https://evil.example"})[0],
                "get": _request(hub.port, "GET", "/mcp", b"", good)[:1],
                "elsewhere": _request(hub.port, "POST", "/", initialize, good)[0],
                "not json": _request(hub.port, "POST", "/mcp", b"{nope", good)[:2],
                "notification": _request(hub.port, "POST", "/mcp",
                                         b'{"jsonrpc":"2.0","method":"notifications/initialized"}', good)[0],
                "too big": _request(hub.port, "POST", "/mcp", b"", {**good, "Content-Length": str(64 << 20)})[0],
                "report without secret": _request(hub.port, "POST", "/report", b'{"kind":"hello","server":"1"}')[0],
                "bad report": _request(hub.port, "POST", "/report", b'{"kind":"nonsense"}', good)[0],
            }
            kept = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=30)  # two requests on one connection
            out["kept alive"] = [_request(hub.port, "POST", "/mcp", initialize, good, kept)[0] for _ in range(2)]
            kept.putrequest("POST", "/mcp")  # a chunked body
            for name, value in {**good, "Transfer-Encoding": "chunked"}.items():
                kept.putheader(name, value)
            kept.endheaders()
            kept.send(b"%x\r\n%s\r\n0\r\n\r\n" % (len(initialize), initialize))
            answer = kept.getresponse()
            out["chunked"] = (answer.status, json.loads(answer.read())["result"]["serverInfo"]["name"])
            return out

        return await asyncio.to_thread(talk)

    said, frames = with_hub(tmp_path, script)
    assert said["no secret"] == said["wrong secret"] == said["report without secret"] == 401
    assert said["other origin"] == 403 and said["get"] == (405,) and said["elsewhere"] == 404
    assert said["not json"][0] == 400 and json.loads(said["not json"][1])["error"]["code"] == -32700
    assert said["notification"] == 202 and said["too big"] == 413 and said["bad report"] == 400
    assert said["kept alive"] == [200, 200] and said["chunked"] == (200, "kandev-tui")
    assert frames == [{"event": "rich_output_server", "via": "http"}]  # the refused ones made nothing


def test_a_call_through_a_server_another_session_offered_goes_to_the_session_whose_turn_runs(tmp_path):
    """An agent that starts one MCP server for all its sessions (the first session's address and secret): a call
    that comes to a hub whose session is idle goes to the one session of this process with a turn running; a
    call while this hub's own session runs stays here."""
    idle_frames: list[Any] = []
    busy_frames: list[Any] = []
    busy = {"idle": False, "busy": True}

    async def main():
        idle = McpHub(tmp_path, {}, idle_frames.append, busy=lambda: busy["idle"])
        running = McpHub(tmp_path, {}, busy_frames.append, busy=lambda: busy["busy"])
        await idle.start()
        await running.start()
        try:
            headers = {"Authorization": f"Bearer {idle.token}", "Content-Type": "application/json"}

            def report(event):
                return _request(idle.port, "POST", "/report", json.dumps(event).encode(), headers)[0]

            assert await asyncio.to_thread(report, {"kind": "hello", "server": "7"}) == 204
            assert await asyncio.to_thread(report, {"kind": "start", "server": "7", "call": 1,
                                                    "arguments": CHART}) == 204
            busy["idle"] = True  # the idle session's own turn begins: the call's end still goes where it began
            assert await asyncio.to_thread(report, {"kind": "end", "server": "7", "call": 1, "is_error": False,
                                                    "text": "ok"}) == 204
            assert await asyncio.to_thread(report, {"kind": "start", "server": "7", "call": 2,
                                                    "arguments": CHART}) == 204  # now its own
        finally:
            await idle.close()
            await running.close()

    asyncio.run(main())
    routed = [f for f in messages_of(busy_frames) if f["event"] == "rich_output"]
    assert [(f["phase"], f["call"]) for f in routed] == [("start", "7:1"), ("end", "7:1")]
    assert messages_of(busy_frames)[0] == {"event": "rich_output_server", "via": "stdio"}
    own = [f for f in messages_of(idle_frames) if f["event"] == "rich_output"]
    assert [(f["phase"], f["call"]) for f in own] == [("start", "7:2")]


@pytest.mark.reliability("MCP hub", "a report sent with one agent's hub secret while another agent's session runs a "
                         "turn", cases=1, held="kept in the session of the hub it came through; none in the other's")
def test_a_report_never_reaches_another_agents_session(tmp_path):
    """The routing above is for one agent's own sessions: a secret one agent was given (and may show anyone) must not
    put a card into another agent's transcript, even while that one is the only session with a turn running."""
    mine: list[Any] = []
    theirs: list[Any] = []

    async def main():
        hostile = McpHub(tmp_path, {}, mine.append, busy=lambda: False, agent=("hostile-agent",))
        other = McpHub(tmp_path, {}, theirs.append, busy=lambda: True, agent=("claude-agent-acp",))
        await hostile.start()
        await other.start()
        try:
            headers = {"Authorization": f"Bearer {hostile.token}", "Content-Type": "application/json"}
            for event in ({"kind": "hello", "server": "1"}, {"kind": "start", "server": "1", "call": 1,
                                                             "arguments": CHART}):
                said = await asyncio.to_thread(_request, hostile.port, "POST", "/report", json.dumps(event).encode(),
                                               headers)
                assert said[0] == 204
            wrong = {"Authorization": f"Bearer {hostile.token}", "Content-Type": "application/json"}
            assert (await asyncio.to_thread(_request, other.port, "POST", "/report", b'{"kind":"hello","server":"2"}',
                                            wrong))[0] == 401  # its secret opens its own hub only
        finally:
            await hostile.close()
            await other.close()

    asyncio.run(main())
    assert messages_of(theirs) == []
    assert [f["call"] for f in messages_of(mine) if f["event"] == "rich_output"] == ["1:1"]


def established_to(port: int) -> int:
    """The connections the server on ``port`` holds open now (the kernel's table: its end of each)."""
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(1 for row in rows if row.split()[1].endswith(f":{port:04X}") and row.split()[3] == "01")


@pytest.mark.reliability("MCP hub", "a local user without the secret: an 8 MiB body announced and never sent, a foreign "
                         "origin, 40 connections left silent, a negative chunk size", cases=4,
                         held="401/403 from the head alone with Connection: close; silent strangers closed after "
                         "HEAD_TIME and never more than MAX_CONNECTIONS; the agent's own request answered; no traceback")
def test_the_hub_cannot_be_exhausted_by_a_local_user_without_its_secret(tmp_path, monkeypatch):
    import socket
    import time

    from kandev_tui.mcp import hub as mcp_hub

    monkeypatch.setattr(mcp_hub, "HEAD_TIME", 1.0)
    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                             "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}).encode()
    errors: list[Any] = []

    def head_only(port: int, head: str) -> bytes:
        """What the hub answers to a head whose body never comes (it must not wait for it)."""
        with socket.create_connection(("127.0.0.1", port), timeout=20) as conn:
            conn.sendall(head.encode())
            return conn.recv(4096)

    async def script(hub):
        asyncio.get_running_loop().set_exception_handler(lambda _loop, context: errors.append(context))

        def attack():
            port = hub.port
            out = {"no secret": head_only(port, f"POST /mcp HTTP/1.1\r\nContent-Length: {8 << 20}\r\n\r\n"),
                   "foreign origin": head_only(port, f"POST /mcp HTTP/1.1\r\nAuthorization: Bearer {hub.token}\r\n"
                                                     f"Origin: https://evil.example\r\nContent-Length: 999\r\n\r\n"),
                   "negative chunk": head_only(port, f"POST /mcp HTTP/1.1\r\nAuthorization: Bearer {hub.token}\r\n"
                                                     "Transfer-Encoding: chunked\r\n\r\n-5\r\nxx\r\n")}
            silent = [socket.create_connection(("127.0.0.1", port), timeout=20) for _ in range(40)]
            good = {"Authorization": f"Bearer {hub.token}", "Content-Type": "application/json"}
            out["served meanwhile"] = _request(port, "POST", "/mcp", initialize, good)[0]
            out["open at the hub"] = established_to(port)
            deadline = time.monotonic() + 30
            closed = 0
            for conn in silent:  # each is closed by the hub: recv reads the end
                conn.settimeout(max(0.1, deadline - time.monotonic()))
                try:
                    closed += conn.recv(1) == b""
                except (TimeoutError, OSError):
                    pass
                conn.close()
            out["silent closed"] = closed
            return out

        return await asyncio.to_thread(attack)

    said, _ = with_hub(tmp_path, script)
    assert said["no secret"].startswith(b"HTTP/1.1 401") and b"Connection: close" in said["no secret"]
    assert said["foreign origin"].startswith(b"HTTP/1.1 403")
    assert said["negative chunk"].startswith(b"HTTP/1.1 400")
    assert said["served meanwhile"] == 200 and said["silent closed"] == 40
    assert said["open at the hub"] <= mcp_hub.MAX_CONNECTIONS
    assert errors == []  # nothing escaped to the loop's exception handler (a traceback in a log)
