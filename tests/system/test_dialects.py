"""The dialect kit (``tests/support/agents/dialect_agent.py``): one turn played in many agents' dialects, through
``kandev-tui run --headless``, with the real MCP server, real terminals, real files and a real store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..support import AGENTS

AGENT = [sys.executable, str(AGENTS / "dialect_agent.py")]


class Played:
    def __init__(self, done: subprocess.CompletedProcess, recording: Path, workspace: Path) -> None:
        self.code = done.returncode
        self.stderr = done.stderr
        latest: dict[str, dict[str, Any]] = {}  # the headless lines: each item as it ends, again when it changes
        for line in done.stdout.splitlines():
            if line.startswith("{"):
                item = json.loads(line)
                latest[item["key"]] = item
        self.items = list(latest.values())
        self.recording = recording
        self.workspace = workspace

    def calls(self) -> list[dict[str, Any]]:
        return [item for item in self.items if item["kind"] == "tool_call"]

    def call(self, tool_call_id: str) -> dict[str, Any]:
        return next(item for item in self.calls() if item["tool_call_id"] == tool_call_id)


def play(tmp_path: Path, dialect: dict[str, Any], *, prompt: str = "go", files: dict[str, str] | None = None,
         extra: tuple[str, ...] = ()) -> Played:
    """One headless turn of the dialect agent playing ``dialect``."""
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    for name, text in (files or {}).items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    recording = tmp_path / f"rec-{len(list(tmp_path.glob('rec-*')))}.jsonl"
    env = {**os.environ, "DIALECT": json.dumps(dialect)}
    done = subprocess.run([sys.executable, "-m", "kandev_tui", "run", "--headless", "--prompt", prompt,
                           "--workspace", str(workspace), "--db", str(tmp_path / "s.db"), "--record", str(recording),
                           "--permission", "allow-once", *extra, "--", *AGENT],
                          capture_output=True, text=True, timeout=120, env=env)
    return Played(done, recording, workspace)


NOTES = "".join(f"line {n}\n" for n in range(1, 21))


def diff_of(item: dict[str, Any]) -> dict[str, Any]:
    return item["payload"]["diffs"][0]
def test_a_file_the_agent_also_wrote_itself_shows_its_real_change(tmp_path):
    """OpenCode writes a file itself as well as through the client: the diff is made against the file as it was
    before the call, so it shows the change, not "no change"; a new file is new."""
    played = play(tmp_path, {"steps": [
        {"op": "write", "id": "e1", "path": "notes.txt", "content": NOTES.replace("line 5\n", "line five\n"),
         "self_write": True},
        {"op": "write", "id": "e2", "path": "probe/new.txt", "content": "hello new\n", "self_write": True}]},
        files={"notes.txt": NOTES})
    assert played.code == 0, played.stderr
    assert (diff_of(played.call("e1"))["added"], diff_of(played.call("e1"))["removed"]) == (1, 1)
    created = diff_of(played.call("e2"))
    assert created["new_file"] and created["added"] == 1
def test_a_new_file_written_before_its_call_is_reported_is_never_an_empty_diff(tmp_path):
    """An agent that writes a new file itself and then reports the call, its diff new (no old text): kandev-tui
    reads the file as the call is first seen, after the write, and that read made the diff "+0 −0 no change" (one
    run in three) while the turn's changes card said +3. The agent's new file stands."""
    played = play(tmp_path, {"steps": [
        {"op": "write", "id": "e1", "path": "made/new.txt", "content": "one\ntwo\nthree\n", "report": "written_first"}]})
    assert played.code == 0, played.stderr
    diff = diff_of(played.call("e1"))
    assert diff["new_file"] and (diff["added"], diff["removed"]) == (3, 0), diff
def test_a_write_reported_before_the_file_was_read_is_compared_with_the_file_on_disk(tmp_path):
    played = play(tmp_path, {"steps": [
        {"op": "write", "id": "e1", "path": "notes.txt", "content": NOTES.replace("line 9\n", "line nine\n"),
         "report": "before_read"}]}, files={"notes.txt": NOTES})
    assert played.code == 0, played.stderr
    diff = diff_of(played.call("e1"))
    assert not diff["new_file"] and (diff["added"], diff["removed"]) == (1, 1)
def test_a_new_file_sent_with_an_empty_old_text_is_a_new_file_and_an_empty_file_stays_one(tmp_path):
    """Gemini CLI and OpenCode send a new file's old text as "", not null: its diff said "@@ -1,0 +1,2 @@" where
    another agent's says "(new file)". kandev-tui looked at the file before the call (it was not there): new. A file
    that was there, empty, stays an edit of an empty file."""
    played = play(tmp_path, {"steps": [
        {"op": "write", "id": "e1", "path": "made/new.txt", "content": "one\ntwo\n", "report": "empty_old"},
        {"op": "write", "id": "e2", "path": "empty.txt", "content": "three\n", "report": "empty_old"}]},
        files={"empty.txt": ""})
    assert played.code == 0, played.stderr
    made, emptied = diff_of(played.call("e1")), diff_of(played.call("e2"))
    assert made["new_file"] and (made["added"], made["removed"]) == (2, 0)
    assert not emptied["new_file"] and (emptied["added"], emptied["removed"]) == (1, 0)
    assert (played.workspace / "made" / "new.txt").read_text() == "one\ntwo\n"
def test_a_diff_fragment_is_numbered_from_its_place_in_the_file(tmp_path):
    from kandev_tui.transcript.diffs import diff_blocks, file_diff, first_lines

    played = play(tmp_path, {"steps": [
        {"op": "write", "id": "e1", "path": "notes.txt", "report": "fragment", "line": 14, "find": "line 15",
         "replace": "line fifteen"}]}, files={"notes.txt": NOTES})
    assert played.code == 0, played.stderr
    payload = played.call("e1")["payload"]
    blocks = diff_blocks(payload["content"])
    [line] = first_lines(blocks, payload.get("locations"))
    assert line == 14
    changed = [d for h in file_diff(blocks[0]["path"], blocks[0]["oldText"], blocks[0]["newText"],
                                    first_line=line).hunks for d in h.lines if d.sign == "-"]
    assert [(d.old, d.text) for d in changed] == [(15, "line 15")]
    assert (played.workspace / "notes.txt").read_text() == NOTES.replace("line 15", "line fifteen")


# -- rich output: known from kandev-tui's own MCP server, however the agent describes the call -------------------

NAMES_IN = ["title", "meta", "none", "code", "unreported"]
ARGUMENTS_IN = ["rawInput", "none", "content"]
ORDERS = ["frames_first", "call_first"]
COMBINATIONS = [(name, arguments, order) for name in NAMES_IN for arguments in ARGUMENTS_IN for order in ORDERS]


def chart_for(index: int) -> dict[str, Any]:
    title = f"Chart {index}"
    return {"version": 1, "title": title, "description": f"The build's stage times, case {index}",
            "blocks": [{"type": "chart", "chart_type": "bar", "title": f"Stages {index}", "summary": "Tests are slow.",
                        "labels": ["lint", "test", "pack"], "series": [{"label": "s", "values": [3, 40 + index, 7]}]}]}


@pytest.fixture(scope="module", params=["stdio", "http"])
def every_dialect(request, tmp_path_factory):
    """One turn that makes a rich-output call in every combination of where the agent puts the tool's name and
    arguments and whether it announces the call before making it, each with arguments of its own; over stdio or
    HTTP."""
    tmp = tmp_path_factory.mktemp(f"dialects-{request.param}")
    steps = [{"op": "chart", "call": f"c{index}", "name_in": name, "arguments_in": arguments, "order": order,
              "arguments": chart_for(index)} for index, (name, arguments, order) in enumerate(COMBINATIONS)]
    played = play(tmp, {"http": request.param == "http", "steps": steps})
    assert played.code == 0, played.stderr
    return played


def cards(items: list[dict[str, Any]]) -> list[tuple[dict[str, Any], Any]]:
    from kandev_tui.presentation import read_tool_call

    out = []
    for item in items:
        if item["kind"] == "tool_call":
            read = read_tool_call(item["payload"], item["status"])
            if read.is_rich_output:
                out.append((item, read))
    return out


@pytest.mark.parametrize("index,combination", list(enumerate(COMBINATIONS)), ids=["-".join(c) for c in COMBINATIONS])
def test_every_rich_output_call_is_one_card_drawn_from_what_the_server_saw(every_dialect, index, combination):
    from kandev_tui.presentation import State

    name_in, _arguments_in, _order = combination
    mine = [(item, read) for item, read in cards(every_dialect.items)
            if read.state is State.READY and read.presentation.title == f"Chart {index}"]
    assert len(mine) == 1, [(i["tool_call_id"], r.state) for i, r in cards(every_dialect.items)]
    item, read = mine[0]
    assert read.presentation.blocks[0].series[0].values == [3, 40 + index, 7]
    assert item["payload"]["rich_output"]["via"] == ("http" if "http" in str(every_dialect.recording.parent)
                                                    else "stdio")
    agent_call = [i for i in every_dialect.calls() if i["tool_call_id"] == f"c{index}"]
    if name_in == "code":  # the code-running call stays what it is, and the chart stands beside it
        assert len(agent_call) == 1 and agent_call[0]["payload"].get("rich_output") is None
        assert item["tool_call_id"].startswith("kandev-tui-rich-output-")
    elif name_in == "unreported":
        assert not agent_call and item["tool_call_id"].startswith("kandev-tui-rich-output-")
    else:  # the agent's own call is the card
        assert item["tool_call_id"] == f"c{index}"
        assert not [i for i in agent_call if i is not item]
def test_frames_sent_after_the_call_keep_the_agents_order(tmp_path):
    """An agent that sends a turn's frames in a burst once its MCP call has been answered (OpenCode under load):
    the server's report comes first, yet the card is where the agent put its call: after the message before it and
    the command before it, before the message after it."""
    steps = [{"op": "say", "text": "Measuring."}, {"op": "command", "line": "echo measured", "id": "cmd"},
             {"op": "chart", "call": "late", "name_in": "title"}, {"op": "say", "text": "Charted."}]
    played = play(tmp_path, {"http": True, "buffered": True, "steps": steps})
    assert played.code == 0, played.stderr
    order = [item["key"] for item in played.items if item["kind"] in ("agent_message", "tool_call")]
    assert order == ["message:2", "tool:cmd", "tool:late", "message:3"]
    assert played.call("late")["payload"]["rich_output"]["phase"] == "end"
    assert not [i for i in played.calls() if i["tool_call_id"].startswith("kandev-tui-rich-output-")]


def test_the_live_session_and_its_replay_and_store_agree(every_dialect):
    from kandev_tui.transcript import Store
    from kandev_tui.transcript.replay import items_from_recording

    live = {i["key"]: (i["status"], i["payload"]) for i in every_dialect.items if i["kind"] == "tool_call"}
    replayed = {i.key: (i.status, i.payload) for i in items_from_recording(every_dialect.recording)
                if i.kind == "tool_call"}
    assert json.dumps(live, sort_keys=True) == json.dumps(replayed, sort_keys=True)
    store = Store(every_dialect.recording.parent / "s.db")
    try:
        session = store.sessions()[0]
        stored = {i.key: (i.status, i.payload) for i in store.packed_items(session["id"]) if i.kind == "tool_call"}
    finally:
        store.close()
    assert json.dumps(stored, sort_keys=True) == json.dumps(live, sort_keys=True)


def test_the_secret_is_in_no_recording_log_or_item(every_dialect):
    frames = every_dialect.recording.read_text()
    assert "[kandev-tui secret]" in frames  # it was offered (and kept out of the recording)
    logs = "".join(p.read_text(errors="replace") for p in (every_dialect.recording.parent / "logs").glob("*"))
    text = frames + logs + json.dumps(every_dialect.items) + every_dialect.stderr
    import re

    assert not re.search(r"Bearer (?!\[kandev-tui secret\])", text)
    assert "KANDEV_TUI_REPORT_TOKEN\",\"value\":\"[kandev-tui secret]\"" in frames or "http" in str(
        every_dialect.recording.parent)


# -- commands: their output and exit, however the agent reports them ----------------------------------------------

EXITS = ["exit_code", "exitCode", "exit_status", "meta", "nested_meta", "string", "trailer", "json_text", "terminal",
         "both", "summary", "listed", "terminal_trailer", "none"]
LINE = "printf '\\033[32mgreen\\033[0m ok\\n'; echo 'to stderr' >&2; exit {code}"


@pytest.fixture(scope="module")
def commands(tmp_path_factory):
    """One turn with each way of reporting a command, each run twice: failing (exit 3) and succeeding."""
    steps = [{"op": "command", "line": LINE.format(code=code), "exit_in": exit_in, "id": f"{exit_in}-{code}"}
             for exit_in in EXITS for code in (3, 0)]
    steps += [{"op": "command", "line": LINE.format(code=3), "exit_in": "summary", "id": "asked-first",
               "announce": "request"},
              {"op": "command", "line": "sleep 0", "exit_in": "signal", "id": "signal-x"},
              {"op": "command", "line": "true", "exit_in": "negative", "id": "negative-x"}]
    played = play(tmp_path_factory.mktemp("commands"), {"steps": steps})
    assert played.code == 0, played.stderr
    return played


def test_a_call_announced_only_by_its_permission_request_is_what_the_request_said(commands):
    """No tool_call frame: the permission request is all the agent says of the call before an update ends it
    (Qwen Code). The call is the command the request named, and it failed."""
    call = commands.call("asked-first")
    assert call["payload"]["kind"] == "execute" and call["payload"]["title"] == LINE.format(code=3)
    assert call["status"] == "error" and call["payload"]["shell"]["exit_code"] == 3


def drawn(item: dict[str, Any]) -> str:
    """The call as the transcript draws it (expanded), as plain text."""
    from rich.console import Console, Group

    from kandev_tui.widgets.entries.calls import call_parts

    _view, parts = call_parts(item["payload"], compact=False)
    console = Console(width=100, record=True, color_system=None, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(Group(*parts))
    return console.export_text()


@pytest.mark.parametrize("exit_in", EXITS)
def test_a_failing_command_fails_and_its_output_is_shown_once_in_colour(commands, exit_in):
    failing, passing = commands.call(f"{exit_in}-3"), commands.call(f"{exit_in}-0")
    if exit_in == "none":  # no exit code anywhere: the agent's status stands, and none is made up
        assert failing["payload"]["shell"].get("exit_code") is None and failing["status"] == "complete"
    else:
        assert failing["payload"]["shell"]["exit_code"] == 3 and failing["status"] == "error"
        assert passing["payload"]["shell"]["exit_code"] == 0 and passing["status"] == "complete"
    assert "\x1b[32mgreen\x1b[0m ok" in failing["payload"]["shell"]["stdout"]  # its colours kept, to be drawn
    text = drawn(failing)
    assert text.count("green ok") == 1, text  # once: not again from the content or the JSON it came in
    assert "␛" not in text and "\\u001b" not in text and '"exit_code"' not in text, text
    assert ("exit code 3" in text) is (exit_in != "none"), text
    if exit_in in ("trailer", "listed", "terminal_trailer"):  # the agent's marker line says it: not shown as output
        assert "completed with" not in text and "[Exit code" not in text and "Exit Code" not in text, text


def test_a_command_ended_by_a_signal_or_a_negative_code_fails_and_says_so(commands):
    for call_id, name in (("signal-x", "SIGTERM"), ("negative-x", "SIGKILL")):
        call = commands.call(call_id)
        assert call["status"] == "error" and call["payload"]["shell"]["signal"] == name
        assert f"ended by signal {name}" in drawn(call)


def test_a_whole_shell_line_in_a_client_terminal_runs_through_sh(commands):
    """terminal/create with the whole line as ``command`` and no ``args``: run as Zed runs it, through sh -c (a
    pipe, a redirection, an exit status), not as the name of a program."""
    call = commands.call("terminal-3")
    assert "command not found" not in json.dumps(call["payload"])
    assert "to stderr" in call["payload"]["shell"]["stdout"]  # the redirection ran in a shell
@pytest.mark.parametrize("ids", ["kit", "bare"])
def test_requests_with_string_ids_are_answered_under_their_own_ids(tmp_path, ids):
    """JSON-RPC lets an agent give its requests string ids ("kit-3"), or strings that read as the numbers the client
    gives its own ("1", while kandev-tui's initialize is 0 and its session/new 1): each permission, file write and
    terminal request is answered under the id it came with, and the turn ends as it does with numbered ones."""
    played = play(tmp_path, {"string_ids": ids, "steps": [
        {"op": "write", "id": "e1", "path": "notes.txt", "content": NOTES.replace("line 3\n", "line three\n")},
        {"op": "command", "line": "echo made here; exit 2", "exit_in": "terminal", "id": "t1"},
        {"op": "command", "line": "echo asked", "exit_in": "exit_code", "id": "a1", "announce": "request"},
        {"op": "say", "text": "all answered"}]}, files={"notes.txt": NOTES})
    assert played.code == 0, played.stderr
    assert (played.workspace / "notes.txt").read_text() == NOTES.replace("line 3\n", "line three\n")
    ran = played.call("t1")["payload"]["shell"]
    assert "made here" in ran["stdout"] and ran["exit_code"] == 2
    asked = [item for item in played.items if item["kind"] == "permission"]
    assert len(asked) == 2 and all(item["payload"]["answer"]["option_id"] == "allow" for item in asked)
    assert any(item["kind"] == "agent_message" and item["payload"]["text"] == "all answered" for item in played.items)
    frames = [json.loads(line)["msg"] for line in played.recording.read_text().splitlines()]
    asked_ids = {f["id"] for f in frames if "method" in f and "id" in f and isinstance(f["id"], str)}
    answered = {f["id"] for f in frames if "method" not in f and "id" in f and isinstance(f["id"], str)}
    assert len(asked_ids) >= 5 and asked_ids == answered  # two permissions, a write, a terminal's create and wait…


# -- logins --------------------------------------------------------------------------------------------------------

TERMINAL_AUTH = {"id": "cli-login", "name": "Log in with the CLI", "description": "Opens a browser",
                 "_meta": {"terminal-auth": {"command": "/usr/bin/env", "args": ["dialect-login", "--device"],
                                             "label": "CLI login", "env": {"LOGIN_MODE": "device"}}}}


def dialect_app(tmp_path: Path, dialect: dict[str, Any], monkeypatch, initial_prompt: str | None = None):
    from kandev_tui.acp import AgentOptions
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.sources import LiveSource
    from kandev_tui.transcript import Store

    from ..support.app_helpers import settings_at

    monkeypatch.setenv("DIALECT", json.dumps(dialect))
    (tmp_path / "ws").mkdir(exist_ok=True)
    store = Store(tmp_path / "s.db")
    options = AgentOptions(command=AGENT, workspace=tmp_path / "ws", log_path=tmp_path / "agent.log")
    app = KandevApp(LiveSource(options, store),
                    settings_store=settings_at(tmp_path, chart_animation=False), initial_prompt=initial_prompt)
    app.animation_level = "none"
    return app
@pytest.mark.parametrize("opt_in", [False, True])
async def test_a_login_marked_only_in_meta_terminal_auth_is_run_in_the_terminal(tmp_path, monkeypatch, opt_in):
    """Zed's older form: the method has no type, only ``_meta["terminal-auth"]`` with its own command; it is a
    login in the terminal (that command, its args and env), not the agent's authenticate. One agent offers it only
    to clients that opt in with ``clientCapabilities._meta["terminal-auth"]`` in initialize: kandev-tui does."""
    from kandev_tui.screens.login import LoginScreen

    from ..support.app_helpers import until

    dialect = {"auth": [TERMINAL_AUTH], "auth_needed": True, **({"auth_opt_in": "terminal-auth"} if opt_in else {})}
    app = dialect_app(tmp_path, dialect, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LoginScreen))
        assert [m["id"] for m in app.screen.methods] == ["cli-login"]
        command, env = app.source.terminal_login("cli-login")
        assert command == ["/usr/bin/env", "dialect-login", "--device"] and env["LOGIN_MODE"] == "device"
        await app.action_quit()
@pytest.mark.parametrize("how", ["auth_crash", "auth_fail"])
async def test_a_login_that_fails_or_whose_agent_dies_ends_with_the_agents_reason(tmp_path, monkeypatch, how):
    """authenticate answered with an error, or the agent dying while answering it (a child of its still holding
    its output open): the login ends at once, back at the login screen with the reason, not "logging in" for
    minutes."""
    from kandev_tui.screens.login import LoginScreen

    from ..support.app_helpers import until

    method = {"id": "agent-login", "name": "Log in", "description": "The agent logs you in"}
    app = dialect_app(tmp_path, {"auth": [method], "auth_needed": True, how: True}, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LoginScreen))
        login = app.screen
        await pilot.press("1")
        await until(pilot, lambda: "choose a way again" in str(login.status.render()))
        said = str(login.status.render())
        if how == "auth_fail":
            assert "the login service is down" in said
        else:
            assert "exited with code 7 during the login" in said and "no keyring" in said
        assert app.source.state == "login"
        await app.action_quit()
async def test_a_first_prompt_for_an_agent_that_needs_a_login_goes_once_logged_in(tmp_path, monkeypatch):
    """``run --prompt TEXT`` with an agent that asks for a login first: TEXT waits for it, and goes once the session
    is open (it was dropped: the session was not idle when the agent first answered)."""
    from kandev_tui.screens.login import LoginScreen

    from ..support.app_helpers import until

    method = {"id": "agent-login", "name": "Log in", "description": "The agent logs you in"}
    app = dialect_app(tmp_path, {"auth": [method], "auth_needed": True, "steps": [{"op": "say", "text": "Got it."}]},
                      monkeypatch, initial_prompt="the task")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LoginScreen))
        await pilot.press("1")
        await until(pilot, lambda: items_of(app, "agent_message") and app.source.state == "idle")
        assert [i.payload["text"] for i in items_of(app, "user_message")] == ["the task"]
        await app.action_quit()


def test_headless_says_which_command_a_terminal_auth_login_runs(tmp_path):
    played = play(tmp_path, {"auth": [TERMINAL_AUTH], "auth_needed": True})
    assert played.code == 1
    assert "  cli-login: Log in with the CLI (Opens a browser): run /usr/bin/env dialect-login --device in a " \
           "terminal (or log in with kandev-tui run)" in played.stderr.splitlines()


# -- permissions and messages --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def messages(tmp_path_factory):
    """An agent that echoes the prompt (in pieces), sends a user message of its own, asks about a command with only
    its id, and ends its message with a usage-only chunk."""
    steps = [{"op": "say", "text": "Running it."}, {"op": "command", "line": "echo hi", "id": "c1"},
             {"op": "ask", "id_only": True}, {"op": "usage"}, {"op": "user", "text": "(queued) and then stop"},
             {"op": "say", "text": "Done."}, {"op": "usage"}]
    played = play(tmp_path_factory.mktemp("messages"), {"echo": True, "steps": steps}, prompt="list the files")
    assert played.code == 0, played.stderr
    return played


def test_an_echoed_prompt_is_not_shown_again_nor_its_guidance(messages):
    users = [item["payload"]["text"] for item in messages.items if item["kind"] == "user_message"]
    assert users == ["list the files", "(queued) and then stop"]  # the echo merged; the agent's own message kept
    assert not any("show_rich_output_kandev" in json.dumps(item["payload"]) for item in messages.items
                   if item["kind"] in ("user_message", "agent_message"))


def test_a_request_with_only_the_calls_id_names_what_it_asks(messages):
    request = next(item for item in messages.items if item["kind"] == "permission")["payload"]["tool_call"]
    assert request["toolCallId"] == "c1" and request["title"] == "echo hi" and request["kind"] == "execute"
    assert request["rawInput"] == {"command": "echo hi"}


def test_a_usage_only_chunk_makes_no_empty_item(messages):
    texts = [item["payload"]["text"] for item in messages.items if item["kind"] in ("agent_message", "user_message")]
    assert "" not in texts and [t for t in texts if t in ("Running it.", "Done.")] == ["Running it.", "Done."]


# -- type-ahead ----------------------------------------------------------------------------------------------------

def items_of(app, kind: str) -> list:
    return [item for item in app.view.model.items.values() if item.kind == kind]
async def test_what_is_typed_and_sent_while_the_agent_starts_is_sent_once_it_is_ready(tmp_path, monkeypatch):
    """Keys typed while a slow agent starts are kept, and a message sent then waits for the agent, a second one
    joining it; nothing is sent before the agent is ready, and then it is, once."""
    from ..support.app_helpers import until

    gate = tmp_path / "ready"
    app = dialect_app(tmp_path, {"start_gate": str(gate), "steps": [{"op": "say", "text": "Got it."}]}, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = app.transcript_screen.prompt
        await until(pilot, lambda: app.source.state == "starting" and not prompt.disabled)
        await pilot.press(*"first", "enter")
        await pilot.press(*"second", "enter")
        await pilot.press(*"draft")  # typed, not sent
        assert "sent once it is ready" in str(prompt.border_subtitle)
        assert not items_of(app, "user_message")
        gate.write_text("")
        await until(pilot, lambda: items_of(app, "agent_message") and app.source.state == "idle")
        assert [i.payload["text"] for i in items_of(app, "user_message")] == ["first\n\nsecond"]
        assert prompt.text == "draft"
        await app.action_quit()
async def test_the_status_line_says_starting_from_the_first_frame_it_draws(tmp_path, monkeypatch):
    """`make demo`'s first frame said "ready", then "starting": the line's own default was drawn before the
    source's state came. Every line it draws until the agent answers says "starting"."""
    from kandev_tui.widgets.chrome.status_line import StatusLine

    from ..support.app_helpers import until

    drawn: list[str] = []
    render = StatusLine.render
    monkeypatch.setattr(StatusLine, "render", lambda self: drawn.append(self.state) or render(self))
    gate = tmp_path / "ready"
    app = dialect_app(tmp_path, {"start_gate": str(gate), "steps": [{"op": "say", "text": "Got it."}]}, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.source.state == "starting" and drawn)
        gate.write_text("")
        await until(pilot, lambda: app.source.state == "idle" and drawn[-1] == "idle")
        await app.action_quit()
    assert drawn[0] == "starting" and "idle" not in drawn[:drawn.index("idle")], drawn
async def test_a_message_sent_while_the_agent_starts_with_a_first_prompt_follows_that_prompts_turn(tmp_path, monkeypatch):
    """``run --prompt``, and the user sends a message of their own while the agent starts: the first prompt's turn
    runs, the message waits in the queue meanwhile, and is sent when that turn ends. Both reach the agent, in that
    order, and nothing is refused (the two went out at once, and one was lost with "a turn is already running")."""
    from ..support.app_helpers import until

    gate = tmp_path / "ready"
    app = dialect_app(tmp_path, {"start_gate": str(gate), "steps": [{"op": "say", "text": "Got it."}]},
                      monkeypatch, initial_prompt="the task")
    notices: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        app.notify = lambda message, **kw: notices.append(str(message))  # type: ignore[method-assign]
        prompt = app.transcript_screen.prompt
        await until(pilot, lambda: app.source.state == "starting" and not prompt.disabled)
        await pilot.press(*"mine too", "enter")
        gate.write_text("")
        await until(pilot, lambda: len(items_of(app, "turn_end")) == 2 and app.source.state == "idle")
        said = [i.payload["text"] for i in items_of(app, "user_message")]
        assert said == ["the task", "mine too"], said
        assert notices == [] and app.current.prompts.queue == []
        await app.action_quit()
async def test_a_request_that_comes_while_the_user_types_in_the_prompt_leaves_them_the_keys(tmp_path, monkeypatch):
    """The user types into the prompt while the turn runs (to queue it), and a permission request comes: it is
    answerable, but the keys stay with the prompt, where "1" is the user's text and answers nothing. The request
    mounted after its state change took the keys all the same."""
    from kandev_tui.widgets.entries.permission import PermissionRequest

    from ..support.app_helpers import until

    gate = tmp_path / "go on"
    steps = [{"op": "say", "text": "Working."}, {"op": "wait", "path": str(gate)},
             {"op": "command", "line": "echo hi", "id": "c1"}, {"op": "ask", "id_only": True}]
    app = dialect_app(tmp_path, {"steps": steps}, monkeypatch, initial_prompt="go")
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = app.transcript_screen.prompt
        await until(pilot, lambda: app.source.state == "running" and prompt.has_focus)
        await pilot.press(*"also")
        gate.write_text("")
        await until(pilot, lambda: any(w.answerable for w in app.view.query(PermissionRequest)))
        await pilot.pause()  # (the frame that shows it, and what it asked for after)
        await pilot.press("1")
        assert prompt.has_focus and prompt.text == "also1"
        assert app.source.state == "waiting"
        await app.action_quit()
async def test_a_request_that_comes_while_the_user_reads_above_is_brought_into_view_with_the_keys(tmp_path,
                                                                                              monkeypatch):
    """The user has scrolled up to read the agent's long answer when a permission request comes: it takes the keys
    (1-9 answer it) and is brought into view: it stayed below, out of sight, while 1 allowed it."""
    from kandev_tui.widgets.entries.permission import PermissionRequest

    from ..support.app_helpers import until

    gate = tmp_path / "go on"
    long = "\n\n".join(f"Paragraph {n} of the answer, with enough words to fill its line." for n in range(80))
    steps = [{"op": "say", "text": long}, {"op": "wait", "path": str(gate)},
             {"op": "command", "line": "echo hi", "id": "c1"}, {"op": "ask", "id_only": True}]
    app = dialect_app(tmp_path, {"steps": steps}, monkeypatch, initial_prompt="go")
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.view
        await until(pilot, lambda: view.max_scroll_y > 60)
        view.set_following(False)  # the user scrolls up to read
        view.scroll_home(animate=False, immediate=True)
        await until(pilot, lambda: view.scroll_y == 0 and not view.following)
        gate.write_text("")
        await until(pilot, lambda: any(w.has_focus for w in view.query(PermissionRequest)))
        request = view.query_one(PermissionRequest)
        await until(pilot, lambda: view.can_view_entire(request))
        await pilot.press("1")
        await until(pilot, lambda: app.source.state == "idle")
        await app.action_quit()


async def test_the_agent_starts_while_the_protocol_sdk_is_imported(tmp_path, monkeypatch):
    """The agent's process is spawned first, and the ACP SDK (0.4-1 s to import) is imported while it starts (an
    interpreter, node): the SDK was imported first, and only then the agent spawned, so a session took both times
    one after the other (the demo: 0.77 s to initialize, 0.42 s now). Here the import waits until the agent has
    started: it never had, before."""
    import shlex
    import time

    from kandev_tui.acp import AgentOptions
    from kandev_tui.acp import client as client_module
    from kandev_tui.acp.client import AgentClient
    from kandev_tui.acp.sdk import import_sdk

    started = tmp_path / "started"
    seen: list[bool] = []

    def importing():  # (on the import's own thread)
        deadline = time.monotonic() + 10
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        seen.append(started.exists())
        return import_sdk()

    monkeypatch.setattr(client_module, "import_sdk", importing)
    monkeypatch.setenv("DIALECT", json.dumps({"steps": []}))
    (tmp_path / "ws").mkdir()
    command = ["sh", "-c", f"touch {shlex.quote(str(started))} && exec {shlex.join(AGENT)}"]
    client = AgentClient(AgentOptions(command=command, workspace=tmp_path / "ws"), lambda frame: None)
    try:
        await client.connect()
    finally:
        await client.close()
    assert seen == [True]


def test_the_sdks_models_are_built_without_reading_their_source(tmp_path):
    """The ACP SDK's models take their fields' descriptions from the docstrings in its source, which pydantic parses
    as each model is built: 0.2 s of the SDK's 0.5 s import, for descriptions kandev-tui never reads. The client's
    import skips them for the SDK's models only (kandev_tui/acp/sdk.py). This fails when pydantic's private function
    it wraps is gone (the import is then slower again): a fresh interpreter, as every agent's start is."""
    import subprocess

    probe = """
import json
from kandev_tui.acp.sdk import import_sdk, skip_sdk_docstrings
import_sdk()
import acp.schema
from pydantic import BaseModel, ConfigDict

class Ours(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)
    size: int = 0
    \"\"\"How big it is.\"\"\"

fields = acp.schema.InitializeRequest.model_fields
print(json.dumps({"installed": skip_sdk_docstrings(), "sdk": fields["protocol_version"].description,
                  "ours": Ours.model_fields["size"].description,
                  "valid": acp.schema.InitializeRequest.model_validate({"protocolVersion": 1}).protocol_version}))
"""
    (tmp_path / "probe.py").write_text(probe)  # a file: pydantic reads a model's docstrings from its source
    out = subprocess.run([sys.executable, str(tmp_path / "probe.py")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"installed": True, "sdk": None, "ours": "How big it is.", "valid": 1}


async def test_the_workspaces_repository_is_found_while_the_agent_starts(tmp_path, monkeypatch):
    """Where the turns' checkpoints go (git's answer, and old checkpoints removed) is found while the agent starts,
    not when the first prompt is about to go: it waited for it (5-60 ms with eight agents starting at once)."""
    from kandev_tui.workspace import checkpoints

    from ..support.app_helpers import until

    asked: list[str] = []
    repository = checkpoints.repository
    monkeypatch.setattr(checkpoints, "repository", lambda workspace: (asked.append(str(workspace)),
                                                                      repository(workspace))[1])
    gate = tmp_path / "ready"
    app = dialect_app(tmp_path, {"start_gate": str(gate), "steps": [{"op": "say", "text": "Got it."}]}, monkeypatch,
                      initial_prompt="go")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.source.state == "starting" and asked)  # the agent has not answered yet
        assert asked == [str(tmp_path / "ws")]
        gate.write_text("")
        await until(pilot, lambda: items_of(app, "agent_message") and app.source.state == "idle")
        assert len(asked) == 1  # found once: the turn used it
        await app.action_quit()


async def test_a_message_held_for_an_agent_that_never_starts_is_given_back(tmp_path, monkeypatch):
    """The agent dies before it is ready: the message that waited for it is back in the prompt box."""
    from ..support.app_helpers import until

    gate = tmp_path / "die"
    app = dialect_app(tmp_path, {}, monkeypatch)
    app.source.options.command = [sys.executable, "-c", (
        "import os, sys, time\nsys.stdin.readline()\n"
        f"while not os.path.exists({str(gate)!r}):\n    time.sleep(0.05)\nsys.exit(3)")]
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = app.transcript_screen.prompt
        await until(pilot, lambda: app.source.state == "starting" and not prompt.disabled)
        await pilot.press(*"keep me", "enter")
        assert prompt.text == ""
        gate.write_text("")
        await until(pilot, lambda: app.source.state == "error")
        await until(pilot, lambda: prompt.text == "keep me")
        await app.action_quit()


async def test_a_first_prompt_for_an_agent_that_never_starts_is_given_back(tmp_path, monkeypatch):
    """``run --prompt TEXT`` with an agent that dies before it is ready: TEXT is back in the prompt box, and a notice
    says it was not sent (it was dropped without a word)."""
    from ..support.app_helpers import until

    app = dialect_app(tmp_path, {}, monkeypatch, initial_prompt="the task")
    app.source.options.command = [sys.executable, "-c", "import sys; sys.stdin.readline(); sys.exit(3)"]
    notices: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        app.notify = lambda message, **kw: notices.append(str(message))  # type: ignore[method-assign]
        prompt = app.transcript_screen.prompt
        await until(pilot, lambda: app.source.state == "error")
        await until(pilot, lambda: prompt.text == "the task")
        assert any("not sent" in notice for notice in notices), notices
        await app.action_quit()


# -- rich output: bad input ----------------------------------------------------------------------------------------

def rich_reads(played) -> dict[str, Any]:
    from kandev_tui.presentation import read_tool_call

    return {item["tool_call_id"]: read_tool_call(item["payload"], item["status"]) for item in played.calls()}
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_two_calls_with_the_same_arguments_pair_in_order(tmp_path, transport):
    same = chart_for(7)
    steps = [{"op": "chart", "call": "first", "name_in": "none", "arguments_in": "none", "arguments": same},
             {"op": "chart", "call": "second", "name_in": "none", "arguments_in": "none", "arguments": same}]
    played = play(tmp_path, {"http": transport == "http", "steps": steps})
    assert played.code == 0, played.stderr
    reports = [played.call(c)["payload"]["rich_output"]["call"] for c in ("first", "second")]
    assert [r.rsplit(":", 1)[1] for r in reports] == ["1", "2"]  # each its own report, the earlier with the earlier
    assert len([i for i in played.calls() if i["tool_call_id"].startswith("kandev-tui-rich-output-")]) == 0
    assert all(read.is_rich_output for read in rich_reads(played).values())
def test_a_call_that_never_reached_the_server_stays_a_generic_call(tmp_path):
    """The agent names the tool and fails the call without making it: with the server reached in this session
    (it knows every call that came), that call is no card."""
    steps = [{"op": "chart", "call": "real", "name_in": "title"},
             {"op": "chart", "call": "never", "name_in": "title", "reach": False, "arguments": chart_for(2)}]
    played = play(tmp_path, {"http": True, "steps": steps})
    assert played.code == 0, played.stderr
    reads = rich_reads(played)
    assert reads["real"].is_rich_output and not reads["never"].is_rich_output
    assert played.call("never")["status"] == "error" and "rich_output" not in played.call("never")["payload"]
def test_a_side_channel_that_dies_mid_session_leaves_the_frames_to_be_read_as_before(tmp_path):
    """The agent starts its stdio server again with a secret kandev-tui did not give (its reports are refused):
    the server still answers the agent, and the call is read from the agent's frames, a card all the same."""
    steps = [{"op": "chart", "call": "reported", "name_in": "title"},
             {"op": "restart_mcp", "token": "not-the-secret"},
             {"op": "chart", "call": "unreported", "name_in": "title", "arguments": chart_for(3)}]
    played = play(tmp_path, {"steps": steps})
    assert played.code == 0, played.stderr
    reads = rich_reads(played)
    assert "rich_output" in played.call("reported")["payload"]
    assert "rich_output" not in played.call("unreported")["payload"] and played.call("unreported")["status"] == \
        "complete"
    assert reads["reported"].is_rich_output and reads["unreported"].is_rich_output
    assert reads["unreported"].presentation.title == "Chart 3"
@pytest.mark.parametrize("name_in, asks", [
    ("title", "asks to show rich output: Build times"),  # mcp__kandev__show_rich_output_kandev
    ("meta", "asks to show rich output: Build times"),  # "show_rich_output_kandev (kandev MCP Server): {json}"
    ("none", "asks to use: Seconds per stage of the last build"),  # nothing names the tool: the call's own title
    # the request alone says it all: the raw arguments for a title, the tool's name beside them (in _meta, nested,
    # or in the raw input as a tool and its arguments)
    ("request_meta", "asks to show rich output: Build times"),
    ("request_raw", "asks to show rich output: Build times")])
async def test_a_request_with_only_the_calls_id_to_show_rich_output_says_what_it_shows(tmp_path, name_in, asks):
    """The kit's request carries only the call's id (the client knows the call): kandev-tui's own rich-output tool,
    however the agent names it, is asked for by its presentation's title and blocks."""
    from kandev_tui.transcript import Item
    from kandev_tui.widgets.entries.permission import PermissionRequest

    from ..support.agents.dialect_agent import CHART
    from ..support.app_helpers import settle, stored_app

    asked_with = {}
    if name_in.startswith("request_"):
        asked_with = {"title": json.dumps(CHART), "kind": "read"}
        asked_with.update({"_meta": {"someAgent": {"toolName": "mcp__kandev__show_rich_output_kandev"}},
                           "rawInput": CHART} if name_in == "request_meta" else
                          {"rawInput": {"tool": "kandev/show_rich_output_kandev", "arguments": CHART}})
    played = play(tmp_path, {"steps": [{"op": "chart", "name_in": "unreported" if asked_with else name_in,
                                        "arguments_in": "rawInput", "order": "frames_first", "call": "c1"},
                                       {"op": "ask", "id_only": True, "tool_call": asked_with}]})
    asked = next(item for item in played.items if item["kind"] == "permission")
    payload = {k: v for k, v in asked["payload"].items() if k != "answer"}
    (tmp_path / "app").mkdir()
    app = stored_app(tmp_path / "app", [Item(asked["key"], "permission", 1, payload, status="pending")])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        request = app.view.query_one(PermissionRequest)
        drawn = [w.render_line(y).text.strip() for w in request.query("Static") if w.display and w.size.area
                 for y in range(w.size.height)]
    assert drawn[0] == f"? The agent {asks}"
    if name_in != "none":
        assert drawn[1].startswith(("line chart", "bar chart")), drawn
def test_a_banner_before_the_agent_speaks_and_stray_lines_mid_turn_are_one_item_each_and_the_turn_goes_on(tmp_path):
    """A launcher's banner on stdout before ``initialize`` is answered, and a library's warnings in the middle of a
    message: each run of lines is one error item (counted, its lines kept), the session starts, and the message
    around the warnings is one message."""
    banner = ["Starting the agent v1.2 …", "(debug) listening on 127.0.0.1:9229"]
    warnings = ["warn: deprecated API", "warn: deprecated API again", "warn: and again"]
    played = play(tmp_path, {"banner": banner, "steps": [{"op": "say", "text": "before "},
                                                         {"op": "stdout", "lines": warnings},
                                                         {"op": "say", "text": "after"}]})
    assert played.code == 0, played.stderr
    runs = [item["payload"] for item in played.items if item["kind"] == "error"]
    assert [(run["lines"], run["first"]) for run in runs] == [(2, banner), (3, warnings)]
    assert all(run["message"].endswith("; it is kept in the recording.") for run in runs)
    assert [item["payload"]["text"] for item in played.items if item["kind"] == "agent_message"] == ["before after"]
    raw = [json.loads(line).get("raw") for line in played.recording.read_text().splitlines()]
    assert [line for line in raw if line] == banner + warnings  # whole, in the recording
@pytest.mark.reliability("Agent faults", "an agent silent mid-turn (its model API out of reach)", cases=1,
                         held="the status line and its row in the list say how long it has been quiet; its next "
                              "word ends it")
async def test_the_status_line_says_when_a_running_turn_has_been_quiet_and_stops_once_the_agent_speaks(tmp_path,
                                                                                                      monkeypatch):
    """OpenCode, its model API out of reach, retried for minutes and said nothing: the status line said "working"
    throughout. Once a running turn has gone QUIET_AFTER seconds without a word from the agent, the line says for how
    long, counting on, and so does its row in the sessions list; the agent's next word ends it."""
    from kandev_tui.sources import StoredSource
    from kandev_tui.transcript import Store
    from kandev_tui.base import pacing

    from ..support.app_helpers import until

    monkeypatch.setattr(pacing, "QUIET_AFTER", 1)
    gate = tmp_path / "go on"
    steps = [{"op": "say", "text": "Working."}, {"op": "wait", "path": str(gate)}, {"op": "say", "text": "Back."}]
    app = dialect_app(tmp_path, {"steps": steps}, monkeypatch, initial_prompt="go")
    db = Store(tmp_path / "other.db")  # a stored session beside it
    row = db.session(db.create_session(title="Before", agent_command=["x"], workspace="", state="ended"))
    app.open_session(StoredSource(db, row))
    async with app.run_test(size=(120, 30)) as pilot:  # two sessions: the sidebar stands beside the transcript
        line = app.transcript_screen.status
        sidebar = app.transcript_screen.sidebar

        def said() -> str:
            return line.render_line(0).text

        def listed() -> str:
            return "\n".join(sidebar.render_line(y).text for y in range(sidebar.size.height))

        await until(pilot, lambda: " · quiet 1s" in said() or " · quiet 2s" in said())
        first = line.quiet
        await until(pilot, lambda: line.quiet > first)  # counting on, a second at a time
        assert said().startswith("● working · quiet ")
        await until(pilot, lambda: "quiet " in listed())  # its row in the list says it too
        gate.write_text("")
        # no turn runs: nothing counts (the line says so once the state has reached the UI)
        await until(pilot, lambda: app.source.state == "idle" and "quiet" not in said() and line.quiet == 0)
        await until(pilot, lambda: "quiet" not in listed())
        await app.action_quit()
async def test_a_headless_turn_says_on_stderr_each_time_its_agent_has_been_quiet_long(tmp_path, monkeypatch):
    """A CI job whose agent retries a model API it cannot reach printed nothing at all until its job's time ran out.
    Headless, a line on stderr says each QUIET_AFTER the agent has said nothing; the turn goes on, its items on stdout
    as ever, and it ends as it would have."""
    import asyncio
    import io
    import re

    from kandev_tui.base import pacing
    from kandev_tui.acp import AgentOptions
    from kandev_tui.sources.runner import run_turn
    from kandev_tui.transcript import Store

    monkeypatch.setattr(pacing, "QUIET_AFTER", 0.5)
    gate = tmp_path / "go on"
    steps = [{"op": "say", "text": "Working."}, {"op": "wait", "path": str(gate)}, {"op": "say", "text": "Back."}]
    env = {**os.environ, "DIALECT": json.dumps({"steps": steps})}
    (tmp_path / "w").mkdir()
    out, err = io.StringIO(), io.StringIO()
    turn = asyncio.create_task(run_turn(AgentOptions(command=AGENT, workspace=tmp_path / "w", env=env), "go",
                                        Store(tmp_path / "h.db"), out=out, err=err))
    for _ in range(600):  # (a minute at most)
        if err.getvalue().count("no word from the agent") >= 2:
            break
        await asyncio.sleep(0.1)
    notes = [line for line in err.getvalue().splitlines() if "no word from the agent" in line]
    assert len(notes) >= 2 and all(re.fullmatch(r"kandev-tui: no word from the agent for \d+s \(the turn goes on; "
                                                 r"ctrl\+c ends it\)", note) for note in notes)
    gate.write_text("")
    code, reason, _ = await turn
    assert code == 0, reason
    said = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [i["payload"]["text"] for i in said if i["kind"] == "agent_message"] == ["Working.Back."]  # one message
