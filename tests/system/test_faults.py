"""Agents that misbehave: each ends with a clear error item, nothing received is lost, no traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kandev_tui.transcript import Store, read_recording
from kandev_tui.transcript.replay import items_from_frames

from ..support import AGENTS

AGENT = [sys.executable, str(AGENTS / "fault_agent.py")]


def run(tmp_path: Path, mode: str, *extra: str, timeout: float = 60):
    record = tmp_path / "rec.jsonl"
    result = subprocess.run(
        [sys.executable, "-m", "kandev_tui", "run", "--headless", "--prompt", "go", "--workspace", str(tmp_path),
         "--db", str(tmp_path / "s.db"), "--record", str(record), *extra, "--", *AGENT, mode],
        capture_output=True, text=True, timeout=timeout)
    items = [json.loads(line) for line in result.stdout.splitlines()]
    return result, items, record


def assert_clean(result):
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    assert len(result.stderr.strip().splitlines()) == 1  # one line: the reason


@pytest.mark.reliability("Agent faults", "agent crashes mid-turn", cases=1,
                         held="exit code and stderr tail shown; items kept")
def test_agent_exits_mid_turn(tmp_path):
    result, items, record = run(tmp_path, "exit-mid-turn")
    assert result.returncode == 1
    assert_clean(result)
    assert "exited with code 3 during the turn" in result.stderr
    error = next(i for i in items if i["kind"] == "error")
    assert error["payload"]["exit_code"] == 3
    assert error["payload"]["stderr"] == ["fatal: the model connection dropped"]
    message = next(i for i in items if i["kind"] == "agent_message")
    assert message["payload"]["text"] == "Starting work…"  # nothing received is lost
    assert items[-1]["kind"] == "turn_end" and items[-1]["payload"]["stop_reason"] == "error"


@pytest.mark.reliability("Agent faults", "garbage on stdout", cases=1,
                         held="kept as raw frames; the turn goes on")
def test_agent_prints_non_json_lines(tmp_path):
    result, items, record = run(tmp_path, "garbage")
    assert result.returncode == 0
    errors = [i for i in items if i["kind"] == "error"]  # the two lines in a row: one item
    assert [e["payload"]["first"] for e in errors] == [["Debugger listening on ws://127.0.0.1:9229", "{not json"]]
    assert errors[0]["payload"]["lines"] == 2 and errors[0]["payload"]["preview"] == "Debugger listening on ws://127.0.0.1:9229"
    assert next(i for i in items if i["kind"] == "agent_message")["payload"]["text"] == "before after"
    raw = [f.raw for f in read_recording(record) if f.raw is not None]
    assert raw == ["Debugger listening on ws://127.0.0.1:9229", "{not json"]


@pytest.mark.reliability("Agent faults", "agent never answers initialize", cases=1,
                         held="timeout with a clear error")
def test_agent_never_answers_initialize(tmp_path):
    started = time.monotonic()
    result, items, _ = run(tmp_path, "no-init", "--init-timeout", "2")
    assert time.monotonic() - started < 30
    assert result.returncode == 1
    assert_clean(result)
    assert "did not answer initialize within 2 s; --init-timeout SECONDS waits longer" in result.stderr  # what to do
    assert items[0]["kind"] == "error"


@pytest.mark.reliability("Agent faults", "one 10 MB line", cases=1,
                         held="bounded: an error item, memory capped")
def test_agent_sends_a_10_mb_line(tmp_path):
    result, items, record = run(tmp_path, "huge-line")
    assert result.returncode == 0
    error = next(i for i in items if i["kind"] == "error")
    assert error["payload"]["bytes"] > 10 * 1024 * 1024
    texts = [i["payload"]["text"] for i in items if i["kind"] == "agent_message"]
    assert texts == ["small done"]
    assert record.stat().st_size < 1024 * 1024  # a bounded prefix is kept, not 10 MB


@pytest.mark.reliability("Agent faults", "agent command not found", cases=1,
                         held="clear error, exit code")
def test_agent_command_not_found(tmp_path):
    result = subprocess.run([sys.executable, "-m", "kandev_tui", "run", "--headless", "--prompt", "x", "--db",
                             str(tmp_path / "s.db"), "--", "no-such-agent-binary"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert_clean(result)
    assert "Could not start the agent (no-such-agent-binary): command not found (is no-such-agent-binary installed, " \
           "and on PATH?)" in result.stderr


async def test_an_agent_whose_workspace_went_away_says_so_not_command_not_found(tmp_path):
    """The folder removed between the check and the start (a worktree closed meanwhile): the program is there, and
    the reason says the folder (it said "command not found")."""
    from kandev_tui.acp import AgentError, AgentOptions
    from kandev_tui.acp.client import AgentClient

    gone = tmp_path / "gone"
    client = AgentClient(AgentOptions(command=[sys.executable, "-c", "pass"], workspace=gone), lambda frame: None)
    try:
        await client.connect()
        raise AssertionError("the agent started in a folder that is not there")
    except AgentError as exc:
        assert str(exc) == f"Could not start the agent ({sys.executable} -c pass): its workspace {gone} is not there"


@pytest.mark.reliability("Store faults", "SIGKILL of kandev-tui mid-stream", cases=1,
                         held="every committed item kept")
def test_sigkill_mid_stream_keeps_every_committed_update(tmp_path):
    db, record = tmp_path / "s.db", tmp_path / "rec.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kandev_tui", "run", "--headless", "--prompt", "go", "--workspace", str(tmp_path),
         "--db", str(db), "--record", str(record), "--", *AGENT, "slow-stream", "4000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until a good part of the stream is in
        if record.exists() and record.stat().st_size > 60_000:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    store = Store(db)
    session = store.sessions()[0]
    stored = store.items(session["id"])
    message = next(i for i in stored if i.kind == "agent_message")
    words = message.payload["text"].split()
    assert len(words) > 100 and words == [f"w{n}" for n in range(len(words))]
    # the recording up to the kill normalises to the same items, with at least what was committed
    replayed = {i.key: i for i in items_from_frames(read_recording(record))}
    assert set(replayed) >= {i.key for i in stored}
    assert replayed[message.key].payload["text"].startswith(message.payload["text"])


def test_a_line_that_is_not_json_says_where_it_is_kept_only_when_it_is(tmp_path):
    recorded_dir, plain_dir = tmp_path / "rec", tmp_path / "plain"
    recorded_dir.mkdir(), plain_dir.mkdir()
    _result, items, _record = run(recorded_dir, "garbage")
    assert all("kept in the recording" in e["payload"]["message"] for e in items if e["kind"] == "error")
    result = subprocess.run(
        [sys.executable, "-m", "kandev_tui", "run", "--headless", "--prompt", "go", "--workspace", str(plain_dir),
         "--db", str(plain_dir / "s.db"), "--", *AGENT, "garbage"], capture_output=True, text=True, timeout=60)
    errors = [json.loads(line) for line in result.stdout.splitlines() if '"error"' in line]
    assert errors and not any("recording" in e["payload"]["message"] for e in errors)


def test_an_agent_that_dies_in_initialize_says_its_last_stderr_line(tmp_path):
    """python -m of a module that does not exist: the one-line reason carries Python's own words."""
    result = subprocess.run(
        [sys.executable, "-m", "kandev_tui", "run", "--headless", "--prompt", "go", "--workspace", str(tmp_path),
         "--db", str(tmp_path / "s.db"), "--", sys.executable, "-m", "no_such_module_here"],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert_clean(result)
    assert "initialize" in result.stderr and "No module named no_such_module_here" in result.stderr


def _run_command(tmp_path: Path, *command: str, init_timeout: str = "3"):
    (tmp_path / "ws").mkdir(exist_ok=True)
    result = subprocess.run(
        [sys.executable, "-m", "kandev_tui", "run", "--headless", "--prompt", "go", "--workspace", str(tmp_path / "ws"),
         "--db", str(tmp_path / "s.db"), "--init-timeout", init_timeout, "--", *command],
        capture_output=True, text=True, timeout=60)
    return result, [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.reliability("Agent faults", "a command that is not an ACP agent", cases=2,
                         held="one line says it does not speak ACP; its output is one item, not one per line")
def test_a_command_that_is_not_an_acp_agent_is_said_to_be_one_and_its_lines_make_one_item(tmp_path):
    """``ls`` writes its lines and ends; ``yes`` writes without end and never answers. Each is said not to speak ACP
    in one line, with no traceback (``yes`` left its output pipe full when it was ended: its transport was collected
    after the loop had closed), and its lines are one error item that counts them and shows the first."""
    (tmp_path / "ws").mkdir()
    for name in ("b.txt", "a.txt", "c.txt"):
        (tmp_path / "ws" / name).write_text("x")
    result, items = _run_command(tmp_path, "ls")
    assert result.returncode == 1
    assert_clean(result)
    assert "ls wrote only lines that are not JSON-RPC (the first: \"a.txt\"), and ended without answering initialize: it does not speak ACP" in result.stderr
    lines = [i for i in items if i["kind"] == "error" and "lines" in i["payload"]]
    assert len(lines) == 1 and lines[0]["payload"]["lines"] == 3 and lines[0]["payload"]["preview"] == "a.txt"
    assert lines[0]["payload"]["first"] == ["a.txt", "b.txt", "c.txt"]

    result, items = _run_command(tmp_path, "yes", init_timeout="2")
    assert result.returncode == 1
    assert_clean(result)
    assert "yes wrote only lines that are not JSON-RPC (the first: \"y\") in 2 s, and no answer to initialize: is it an ACP agent" in result.stderr
    lines = [i for i in items if i["kind"] == "error" and "lines" in i["payload"]]
    # what it wrote until the failure was said, and what was read after it until the agent's output was closed
    assert 1 <= len(lines) <= 2 and lines[0]["payload"]["lines"] > 1000 and lines[0]["payload"]["preview"] == "y"
    assert Store(tmp_path / "s.db").sessions()[0]["items"] < 10
