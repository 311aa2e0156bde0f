"""``kandev-tui run --headless`` against the demo agent: real processes, real MCP server, real SQLite."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kandev_tui.demo import prepare_workspace
from kandev_tui.presentation import State, read_stored_call
from kandev_tui.transcript import Store, read_recording
from kandev_tui.transcript.replay import items_from_recording

ENV = {**os.environ, "KANDEV_DEMO_DELAY": "0", "PYTHONHASHSEED": "0"}
DEMO = [sys.executable, "-m", "kandev_tui.demo.agent"]


def kandev(*args: str, timeout: float = 120, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kandev_tui", *args], capture_output=True, text=True,
                          timeout=timeout, env=env or ENV)


def items_of(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("demo")
    workspace = prepare_workspace(base / "ws")
    db, record = base / "s.db", base / "rec.jsonl"
    result = kandev("run", "--headless", "--prompt", "Check the build health", "--workspace", str(workspace),
                    "--db", str(db), "--record", str(record), "--permission", "allow-once", "--", *DEMO)
    return {"result": result, "items": items_of(result.stdout), "db": db, "record": record, "workspace": workspace}


def rich(items: list[dict], call_id: str):
    item = next(i for i in items if i.get("tool_call_id") == call_id)
    p = item["payload"]
    return item, read_stored_call(p["name"], p["title"], item["status"], p["input"], p["output"])


def test_demo_turn_completes(demo_run):
    result = demo_run["result"]
    assert result.returncode == 0, result.stderr
    kinds = [i["kind"] for i in demo_run["items"]]
    assert kinds[0] == "user_message" and kinds[-1] == "turn_end"
    for kind in ("thought", "plan", "agent_message", "tool_call", "permission"):
        assert kind in kinds
    assert demo_run["items"][0]["payload"]["text"] == "Check the build health"  # guidance stripped
    assert demo_run["items"][-1]["payload"]["stop_reason"] == "end_turn"


def test_rich_output_calls_went_through_the_real_mcp_server(demo_run):
    items = demo_run["items"]
    _, inline = rich(items, "rich-1")
    assert inline.state is State.READY
    chart = inline.presentation.blocks[0]
    assert chart.labels == ["api", "auth", "billing", "web"] and [s.label for s in chart.series] == ["Passed", "Failed"]

    item, csv = rich(items, "rich-2")
    # the demo agent names its call only in the title, as Claude Code does; the server's report names it
    assert item["payload"]["name"] == "show_rich_output_kandev" and item["payload"]["rich_output"]["via"] == "http"
    assert item["payload"]["title"] == "mcp__kandev__show_rich_output_kandev"
    assert csv.state is State.READY
    line = csv.presentation.blocks[0]
    assert line.csv is None and line.labels[0] == "2026-08-10T09:12:00Z"
    assert line.series[0].values[:3] == [48.2, 46.9, 51.3] and line.series[1].values[2] is None

    _, summary = rich(items, "rich-3")
    assert [b.type for b in summary.presentation.blocks] == ["metrics", "file"]


def test_the_rejected_call_carries_the_servers_message(demo_run):
    item, rejected = rich(demo_run["items"], "rich-4")
    assert item["status"] == "error"
    assert rejected.state is State.FAILED
    assert rejected.error == "blocks[0].series[0].values: 3 values for 4 labels"


def test_permission_answer_is_recorded(demo_run):
    permission = next(i for i in demo_run["items"] if i["kind"] == "permission")
    assert permission["status"] == "answered"
    assert permission["payload"]["answer"]["option_kind"] == "allow_once"
    assert (demo_run["workspace"] / "reports" / "summary.md").exists()


def test_store_holds_the_same_items_and_the_snapshot_not_the_csv(demo_run):
    store = Store(demo_run["db"])
    session = store.sessions()[0]
    assert session["state"] == "ended" and session["title"] == "Check the build health"
    stored = [i.to_json() for i in store.items(session["id"])]
    printed = {i["key"]: i for i in demo_run["items"]}
    assert {i["key"] for i in stored} == set(printed)
    for item in stored:
        assert item == printed[item["key"]]
    dump = json.dumps(stored)
    assert "started_at,seconds" not in dump  # never raw CSV
def test_replaying_the_recording_gives_the_stored_items(demo_run):
    store = Store(demo_run["db"])
    session = store.sessions()[0]
    stored = [i.to_json() for i in store.items(session["id"])]
    assert [i.to_json() for i in items_from_recording(demo_run["record"])] == stored
    transcript = kandev("transcript", str(demo_run["record"]))
    assert transcript.returncode == 0 and items_of(transcript.stdout) == stored


def test_recording_holds_both_directions(demo_run):
    frames = list(read_recording(demo_run["record"]))
    sent = [f.msg for f in frames if f.dir == "out"]
    initialize = next(m for m in sent if m.get("method") == "initialize")["params"]
    assert initialize["protocolVersion"] == 1
    # files and terminals served (settings by default); a login in the user's terminal, in both forms; notices,
    # compactions, plans and subagents shown; no questions (elicitation): nobody is there to answer them
    assert initialize["clientCapabilities"] == {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True,
                                                "auth": {"terminal": True}, "_meta": {"terminal-auth": True},
                                                "session": {"notices": {}, "compaction": {}}, "plan": {},
                                                "subagents": {}}
    new = next(m for m in sent if m.get("method") == "session/new")["params"]
    server = new["mcpServers"][0]  # over HTTP (the demo agent says it reaches servers so), its secret kept out
    assert server["type"] == "http" and server["name"] == "kandev" and server["url"].startswith("http://127.0.0.1:")
    assert server["headers"] == [{"name": "Authorization", "value": "Bearer [kandev-tui secret]"}]
    assert any(f.dir == "local" and f.msg.get("event") == "rich_output_server" for f in frames)
    prompt = next(m for m in sent if m.get("method") == "session/prompt")["params"]
    assert prompt["prompt"][0]["text"].endswith("Check the build health")
    assert "show_rich_output_kandev" in prompt["prompt"][0]["text"]  # the guidance, on the first prompt
    assert any(f.dir == "in" and f.msg.get("method") == "session/request_permission" for f in frames)
def test_export_markdown_has_chart_tables(demo_run):
    store = Store(demo_run["db"])
    session_id = store.sessions()[0]["id"]
    result = kandev("export", session_id[:8], "--db", str(demo_run["db"]), "--format", "markdown")
    assert result.returncode == 0
    text = result.stdout
    assert "|  | Passed | Failed |" in text and "| billing | 91 | 2 |" in text
    assert "| 2026-08-12T09:11:00Z | 51.3 |  |" in text
    assert "- **Passed**: 412" in text
    assert "### You" in text and "Check the build health" in text
    listing = kandev("sessions", "--db", str(demo_run["db"]))
    assert session_id in listing.stdout and "ended" in listing.stdout
    for fmt in ("json", "jsonl"):
        assert kandev("export", session_id, "--db", str(demo_run["db"]), "--format", fmt).returncode == 0
    missing = kandev("export", "nope", "--db", str(demo_run["db"]))
    assert missing.returncode == 1 and "no session" in missing.stderr
def test_reject_policy(tmp_path):
    workspace = prepare_workspace(tmp_path / "ws")
    result = kandev("run", "--headless", "--prompt", "hi", "--workspace", str(workspace), "--db", str(tmp_path / "s.db"),
                    "--no-guidance", "--", *DEMO)
    assert result.returncode == 0, result.stderr
    items = items_of(result.stdout)
    permission = next(i for i in items if i["kind"] == "permission")
    assert permission["payload"]["answer"]["option_kind"] == "reject_once"
    edit = next(i for i in items if i["kind"] == "tool_call" and i["tool_call_id"] == "edit-1")
    assert edit["status"] == "error"
    assert not (workspace / "reports" / "summary.md").exists()
def test_the_demo_started_in_a_folder_of_the_users_says_so_before_its_files_are_found_missing(tmp_path, demo_run):
    """ctrl+n and run --preset demo start the demo in the folder asked for (the current one by default), not on a copy
    of its sample project: it says so first (its report and CSV chart were found missing there with no word why), and
    that the one file it writes is asked for; the sample's copy hears none of it."""
    folder = tmp_path / "project"
    folder.mkdir()
    result = kandev("run", "--headless", "--prompt", "hi", "--workspace", str(folder), "--db", str(tmp_path / "s.db"),
                    "--preset", "demo")
    assert result.returncode == 0, result.stderr
    said = [i["payload"]["text"] for i in items_of(result.stdout) if i["kind"] == "agent_message"]
    assert said[0].startswith("*This folder is not demo-service") and "reject it to leave this folder" in said[0]
    assert list(folder.iterdir()) == []  # the write was asked for and rejected (--permission's default)
    sample = [i["payload"]["text"] for i in demo_run["items"] if i["kind"] == "agent_message"]
    assert not any("not demo-service" in text for text in sample)
def test_usage_errors(tmp_path):
    assert kandev("run", "--headless", "--prompt", "x").returncode == 2  # no agent command
    assert kandev("run", "--headless", "--", "agent").returncode == 2  # no prompt
    bad_db = tmp_path / "bad.db"
    bad_db.write_bytes(b"garbage" * 100)
    result = kandev("run", "--headless", "--prompt", "x", "--db", str(bad_db), "--", *DEMO)
    assert result.returncode == 2 and "not a kandev-tui database" in result.stderr and "Traceback" not in result.stderr


def test_later_prompts_get_a_scripted_reply_with_a_chart(tmp_path, monkeypatch):
    """Two turns over one ACP session, through the client API (what the app uses)."""
    import asyncio

    from kandev_tui.acp import AgentClient, AgentOptions, headless_permission_policy
    from kandev_tui.transcript.pipeline import Pipeline

    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    workspace = prepare_workspace(tmp_path / "ws")
    store = Store(tmp_path / "s.db")
    session_id = store.create_session(title="two turns")
    pipeline = Pipeline(store, session_id)

    async def main():
        client = AgentClient(AgentOptions(command=DEMO, workspace=workspace, log_path=tmp_path / "agent.log"),
                             pipeline.feed, headless_permission_policy("reject"))
        await client.start()
        try:
            return [await client.prompt("first"), await client.prompt("Plot my words please")]
        finally:
            await client.close()

    assert asyncio.run(main()) == ["end_turn", "end_turn"]
    items = store.items(session_id)
    second = [i for i in items if i.turn == 2]
    assert second[0].kind == "user_message" and second[0].payload["text"] == "Plot my words please"
    chart_call = next(i for i in second if i.kind == "tool_call")
    stored = read_stored_call(chart_call.payload["name"], chart_call.payload["title"], chart_call.status,
                              chart_call.payload["input"], chart_call.payload["output"])
    assert stored.state is State.READY
    chart = stored.presentation.blocks[0]
    assert chart.labels == ["1. Plot", "2. my", "3. words", "4. please"] and chart.series[0].values == [4, 2, 5, 6]
def test_user_mcp_servers_are_offered_after_ours(tmp_path):
    import json as _json

    from kandev_tui.acp import AgentOptions, mcp_servers_for, parse_mcp_config

    servers = parse_mcp_config({"mcpServers": [
        {"name": "docs", "command": "docs-mcp", "args": ["--ro"], "env": {"TOKEN": "x"}},
        {"name": "kandev", "command": "impostor"},
        {"type": "http", "name": "remote", "url": "http://127.0.0.1:9/mcp", "headers": {"A": "b"}}]})
    options = AgentOptions(command=["a"], workspace=tmp_path, extra_mcp_servers=servers)
    offered = mcp_servers_for(options, {})
    assert [s["name"] for s in offered] == ["kandev", "docs"]  # ours first; first entry per name; no http support
    assert offered[1] == {"name": "docs", "command": "docs-mcp", "args": ["--ro"], "env": [{"name": "TOKEN", "value": "x"}]}
    with_http = mcp_servers_for(options, {"mcpCapabilities": {"http": True}})
    assert with_http[-1] == {"type": "http", "name": "remote", "url": "http://127.0.0.1:9/mcp", "headers": [{"name": "A", "value": "b"}]}
    bad = tmp_path / "bad.json"
    bad.write_text(_json.dumps([{"name": "x"}]))
    result = kandev("run", "--headless", "--prompt", "hi", "--mcp-config", str(bad), "--db", str(tmp_path / "s.db"), "--", *DEMO)
    assert result.returncode == 2 and "a stdio server needs a command" in result.stderr


def test_a_reader_that_goes_away_ends_nothing_and_shows_no_traceback(tmp_path):
    """``kandev-tui run --headless … | head -1``: the pipe closes after the first line. The turn still runs to its end
    and is stored whole; nothing is printed after, no traceback; the exit status is the turn's."""
    workspace = prepare_workspace(tmp_path / "ws")
    db = tmp_path / "s.db"
    process = subprocess.Popen([sys.executable, "-m", "kandev_tui", "run", "--headless", "--prompt", "Check the build",
                                "--workspace", str(workspace), "--db", str(db), "--permission", "allow-once",
                                "--", *DEMO], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    first = process.stdout.readline()
    process.stdout.close()  # as head -1 does
    stderr = process.stderr.read()
    assert process.wait(timeout=120) == 0, stderr
    assert json.loads(first)["kind"] == "user_message"
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr
    store = Store(db)
    try:
        (session,) = store.sessions()
        kinds = [item.kind for item in store.items(session["id"])]
    finally:
        store.close()
    assert session["state"] == "ended" and kinds.count("turn_end") == 1
