"""kandev-tui's files and terminals for the agent (ACP ``fs/*`` and ``terminal/*``), through a scripted agent on the
SDK's agent side (tests/support/agents/client_agent.py): every method, the hostile paths and commands, what the transcript
shows, and that no process outlives its test (checked by a mark in the environment of every command run)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from kandev_tui.acp import AgentClient, AgentOptions, headless_permission_policy
from kandev_tui.acp.files import READ_AT_MOST
from kandev_tui.transcript import Store
from kandev_tui.transcript.frames import RecordingWriter
from kandev_tui.transcript.pipeline import Pipeline
from kandev_tui.transcript.replay import items_from_recording
from kandev_tui.transcript.tools import OUTPUT_TAIL

from ..support import AGENTS
from ..support.procs import live_pids

AGENT = [sys.executable, str(AGENTS / "client_agent.py")]


def marked_processes(mark: str) -> list[int]:
    """Pids of live processes whose environment holds ``mark``."""
    return live_pids(lambda _pid, environ: mark.encode() in environ, read="environ")


class Session:
    """One scripted agent run through AgentClient, its frames recorded and its items stored."""

    def __init__(self, tmp_path: Path, workspace: Path, **options) -> None:
        self.tmp = tmp_path
        self.workspace = workspace
        self.results_file = tmp_path / f"results-{uuid.uuid4().hex[:6]}.jsonl"
        self.mark = f"KANDEV_TEST_MARK_{uuid.uuid4().hex}"
        self.record = tmp_path / "frames.jsonl"
        self.store = Store(tmp_path / "s.db")
        self.session_id = self.store.create_session(title="client services")
        self.pipeline = Pipeline(self.store, self.session_id, recording=RecordingWriter(self.record))
        env = {**os.environ, "CLIENT_AGENT_RESULTS": str(self.results_file)}
        self.options = AgentOptions(command=AGENT, workspace=workspace, env=env, inject_guidance=False, **options)
        self.frames: list = []

    def on_frame(self, frame) -> None:
        self.frames.append(frame)
        self.pipeline.feed(frame)

    def step(self, op: str, **fields) -> dict:
        return {"op": op, **fields, **({"env": {self.mark: "1", **fields.get("env", {})}} if op == "run" else {})}

    def run(self, *turns: list[dict], during=None) -> list[dict]:
        """Run the turns (lists of steps); ``during(client)`` runs beside the first turn."""

        async def main():
            client = AgentClient(self.options, self.on_frame, headless_permission_policy("allow-once"))
            await client.start()
            try:
                for number, turn in enumerate(turns):
                    prompt = asyncio.ensure_future(client.prompt(json.dumps(turn)))
                    if during is not None and number == 0:
                        await during(client)
                    await prompt
            finally:
                await client.close()

        asyncio.run(asyncio.wait_for(main(), 120))
        return self.results()

    def results(self) -> list[dict]:
        if not self.results_file.exists():
            return []
        return [json.loads(line) for line in self.results_file.read_text().splitlines()]

    def answers(self) -> list[dict]:
        return [r for r in self.results() if "step" in r]

    def items(self):
        return self.store.items(self.session_id)

    def survivors(self) -> list[int]:
        return marked_processes(self.mark)


@pytest.fixture
def ws(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("one\ntwo\nthree\nfour\n")
    return workspace.resolve()


def error_of(answer: dict) -> tuple[int, str]:
    assert "error" in answer, answer
    return answer["error"]["code"], answer["error"]["message"]


# -- capabilities ---------------------------------------------------------------------


def test_files_and_terminals_are_offered_and_each_setting_takes_them_back(tmp_path, ws):
    (tmp_path / "a").mkdir()
    session = Session(tmp_path / "a", ws)
    session.run([session.step("read", path=str(ws / "notes.txt"))])
    assert session.results()[0]["capabilities"]["fs"] == {"readTextFile": True, "writeTextFile": True}
    assert session.results()[0]["capabilities"]["terminal"] is True
    assert session.answers()[0]["ok"] == {"content": "one\ntwo\nthree\nfour\n"}

    (tmp_path / "b").mkdir()
    off = Session(tmp_path / "b", ws, fs_read=False, fs_write=False, terminals=False)
    off.run([off.step("read", path=str(ws / "notes.txt")), off.step("write", path=str(ws / "x.txt"), content="x"),
             off.step("run", command="true")])
    assert off.results()[0]["capabilities"]["fs"] == {"readTextFile": False, "writeTextFile": False}
    assert off.results()[0]["capabilities"]["terminal"] is False
    assert [error_of(a)[0] for a in off.answers()] == [-32601, -32601, -32601]  # method not found
    assert not (ws / "x.txt").exists()


# -- reads ----------------------------------------------------------------------------


def test_reads_whole_files_and_line_ranges_inside_the_workspace_and_repos(tmp_path, ws):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "lib.py").write_text("print('hi')\n")
    (ws / "sub").mkdir()
    (ws / "sub" / "deep.txt").write_text("deep\n")
    (ws / "link.txt").symlink_to(ws / "notes.txt")  # a symlink that stays inside: fine
    session = Session(tmp_path, ws, repos={"lib": repo.resolve()})
    session.run([
        session.step("read", path=str(ws / "notes.txt"), line=2, limit=2),
        session.step("read", path=str(ws / "notes.txt"), line=4),
        session.step("read", path=str(ws / "notes.txt"), line=9, limit=1),
        session.step("read", path=str(ws / "sub" / "deep.txt")),
        session.step("read", path="sub/deep.txt"),  # relative: from the workspace root
        session.step("read", path=str(ws / "link.txt")),
        session.step("read", path=str(repo / "lib.py")),
    ])
    assert [a["ok"]["content"] for a in session.answers()] == [
        "two\nthree\n", "four\n", "", "deep\n", "deep\n", "one\ntwo\nthree\nfour\n", "print('hi')\n"]


@pytest.mark.reliability("Agent requests: files and terminals",
                         "reads outside the workspace (.., absolute, symlinks out, /proc, devices, FIFOs) and binary files",
                         cases=13,
                         held="refused with the rule named; a FIFO never waited on; nothing outside read")
def test_reads_outside_the_workspace_or_of_what_is_not_a_text_file_are_refused_with_the_rule(tmp_path, ws):
    outside = tmp_path / "secret.txt"
    outside.write_text("TOP-SECRET-CONTENT")
    (ws / "out-link").symlink_to(outside)
    (ws / "dir-link").symlink_to(tmp_path)
    os.mkfifo(ws / "pipe")
    (ws / "image.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (ws / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    session = Session(tmp_path, ws)
    paths = {
        "absolute outside": ("/etc/passwd", "outside the workspace"),
        "dot-dot": (f"{ws}/../secret.txt", "outside the workspace"),
        "relative dot-dot": ("../secret.txt", ".. segment"),
        "symlink out": (str(ws / "out-link"), "outside the workspace"),
        "through a linked directory": (str(ws / "dir-link" / "secret.txt"), "outside the workspace"),
        "proc": ("/proc/self/environ", "outside the workspace"),
        "device": ("/dev/zero", "outside the workspace"),
        "fifo": (str(ws / "pipe"), "not a regular file"),
        "binary": (str(ws / "image.bin"), "not a text file"),
        "not utf-8": (str(ws / "latin1.txt"), "not a text file"),
        "the workspace itself": (str(ws), "not a file"),
        "home": ("~/.ssh/id_rsa", "must not start with ~"),
        "url": ("file:///etc/passwd", "not a URL"),
    }
    started = time.monotonic()
    session.run([session.step("read", path=path) for path, _ in paths.values()])
    assert time.monotonic() - started < 60  # a FIFO is never waited on (a hang would time the run out)
    for (name, (_path, rule)), answer in zip(paths.items(), session.answers()):
        code, message = error_of(answer)
        assert code == -32602 and rule in message, (name, message)
    assert "TOP-SECRET" not in json.dumps(session.answers())


@pytest.mark.reliability("Agent requests: files and terminals",
                         "a missing file, inside and behind a link out", cases=3,
                         held="empty inside (Gemini creates files), refused outside")
def test_a_missing_file_inside_the_workspace_reads_as_empty_so_gemini_can_create_it(tmp_path, ws):
    """Gemini CLI reads a file through the client before writing it and fails on any error answer (the SDK hands
    its code the plain error object): a missing file reads as empty, as in Zed, and says so in ``_meta``. A missing
    file outside, or behind a link out, is still refused."""
    (ws / "out-dir").symlink_to(tmp_path)
    session = Session(tmp_path, ws)
    session.run([session.step("read", path=str(ws / "new" / "file.txt")),
                 session.step("read", path=str(ws / "out-dir" / "nothing.txt")),
                 session.step("read", path=str(tmp_path / "nothing.txt"))])
    found, linked, outside = session.answers()
    assert found["ok"] == {"content": ""}
    answer = next(f.msg for f in session.frames if f.dir == "out" and "result" in (f.msg or {})
                  and "content" in f.msg["result"])
    assert answer["result"]["_meta"] == {"kandevTui": {"missing": True}}
    assert "outside the workspace" in error_of(linked)[1] and "outside the workspace" in error_of(outside)[1]


@pytest.mark.reliability("Agent requests: files and terminals",
                         "a 50 MB file read", cases=2,
                         held="refused whole with the way to read it in parts; a part read bounded")
def test_a_50_mb_file_is_read_in_parts_never_whole(tmp_path, ws):
    big = ws / "big.log"
    line = "x" * 99 + "\n"
    with open(big, "w") as handle:
        for _ in range(500_000):
            handle.write(line)
    assert big.stat().st_size == 50_000_000
    session = Session(tmp_path, ws)
    session.run([session.step("read", path=str(big)), session.step("read", path=str(big), line=250_001, limit=3)])
    whole, part = session.answers()
    code, message = error_of(whole)
    assert code == -32602 and "50.0 MB" in message and "line and limit" in message
    assert part["ok"]["content"] == line * 3
    # nothing near the file's size went through the protocol
    assert sum(len(json.dumps(f.to_json())) for f in session.frames) < READ_AT_MOST


# -- writes ---------------------------------------------------------------------------


def test_writes_are_atomic_keep_the_mode_create_directories_and_show_as_an_edit(tmp_path, ws):
    script = ws / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o751)
    session = Session(tmp_path, ws)
    session.run([session.step("write", path=str(script), content="echo new\n", call=True),
                 session.step("write", path=str(ws / "docs" / "api" / "new.md"), content="# New\n")])
    assert [a.get("ok") for a in session.answers()] == [{}, {}]
    assert script.read_text() == "echo new\n" and stat.S_IMODE(script.stat().st_mode) == 0o751
    assert (ws / "docs" / "api" / "new.md").read_text() == "# New\n"
    assert not [p for p in ws.rglob("*") if p.name.endswith(".kandev-tmp")]  # no temporary file left
    tools = [i for i in session.items() if i.kind == "tool_call"]
    edit = next(t for t in tools if t.payload.get("title") == "Write run.sh")
    # the write's diff joined the agent's own edit call (which shows none), and stays after the call's update
    counts = edit.payload["diffs"][0]
    assert edit.status == "complete" and (counts["added"], counts["removed"]) == (1, 1)
    blocks = [b for b in edit.payload["content"] if b.get("type") == "diff"]
    assert blocks == [{"type": "diff", "path": str(script), "oldText": "echo old\n", "newText": "echo new\n"}]
    own = next(t for t in tools if t.payload.get("client") == "kandev-tui")  # no call to join: one of its own
    assert own.payload["kind"] == "edit" and own.payload["diffs"][0]["new_file"] is True
    # the replay of the recording shows exactly what the live session stored
    assert [i.to_json() for i in items_from_recording(session.record)] == [i.to_json() for i in session.items()]


@pytest.mark.reliability("Agent requests: files and terminals",
                         "writes outside the workspace (.., absolute, symlinks out, /proc), to a FIFO or a directory",
                         cases=7,
                         held="refused with the rule named and noted in the transcript; nothing outside changed")
def test_hostile_writes_are_refused_and_nothing_outside_changes(tmp_path, ws):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    (ws / "out-link").symlink_to(outside)
    (ws / "out-dir").symlink_to(tmp_path)
    os.mkfifo(ws / "pipe")
    (ws / "adir").mkdir()
    session = Session(tmp_path, ws)
    cases = {
        "absolute outside": (str(outside), "outside the workspace"),
        "dot-dot": (f"{ws}/../outside.txt", "outside the workspace"),
        "symlink out": (str(ws / "out-link"), "outside the workspace"),
        "into a linked directory": (str(ws / "out-dir" / "new.txt"), "outside the workspace"),
        "fifo": (str(ws / "pipe"), "not a regular file"),
        "a directory": (str(ws / "adir"), "not a regular file"),
        "proc": ("/proc/self/oom_score_adj", "outside the workspace"),
    }
    session.run([session.step("write", path=path, content="pwned") for path, _ in cases.values()])
    for (name, (_path, rule)), answer in zip(cases.items(), session.answers()):
        code, message = error_of(answer)
        assert code == -32602 and rule in message, (name, message)
    assert outside.read_text() == "keep" and not (tmp_path / "new.txt").exists()
    notes = [i.payload["text"] for i in session.items() if i.kind == "note"]
    assert len(notes) == len(cases) and all(n.startswith("kandev-tui refused the agent's write") for n in notes)


@pytest.mark.reliability("Agent requests: files and terminals",
                         "writes into the repository's own files: .git/config, a hook, any case, through a symlink, "
                         "nested .git, a worktree's separate git dir", cases=7,
                         held="refused with the reason noted in the transcript; the next checkpoint ran no code")
def test_writes_into_a_repositorys_own_files_are_refused(tmp_path, ws):
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / "link").symlink_to(".git")
    mark = tmp_path / "ran"
    fsmonitor = f'[core]\n\tfsmonitor = "touch {mark}; false"\n'
    cases = {
        ".git/config": (str(ws / ".git" / "config"), fsmonitor),
        "a hook": (str(ws / ".git" / "hooks" / "reference-transaction"), f"#!/bin/sh\ntouch {mark}\n"),
        "another case": (str(ws / ".GIT" / "config"), fsmonitor),
        "through a symlink": (str(ws / "link" / "hooks" / "new" / "post-checkout"), "x"),
        "a nested repository": ("sub/.git", "gitdir: /tmp\n"),
        "relative": (".git/info/attributes", "* filter=x\n"),
        "trailing dot": (".git./config", fsmonitor),
    }
    session = Session(tmp_path, ws)
    session.run([session.step("write", path=path, content=content) for path, content in cases.values()] +
                [session.step("write", path="fine.txt", content="fine")])
    for (name, _case), answer in zip(cases.items(), session.answers()):
        code, message = error_of(answer)
        assert code == -32602 and "repository's own files (.git)" in message, (name, message)
    assert session.answers()[-1].get("ok") is not None and (ws / "fine.txt").read_text() == "fine"
    assert "fsmonitor" not in (ws / ".git" / "config").read_text()
    assert not (ws / ".git" / "hooks" / "new").exists() and not (ws / ".GIT").exists()
    notes = [i.payload["text"] for i in session.items() if i.kind == "note"]
    assert len(notes) == len(cases) and all("repository's own files" in n for n in notes)
    from kandev_tui.workspace import checkpoints

    checkpoints.take(checkpoints.repository(ws), "refs/kandev-tui/t/1-start")
    assert not mark.exists()

    # a repository whose own directory is not called .git (`git init --separate-git-dir`, a worktree): the one git
    # names is refused all the same
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["git", "init", "-q", "--separate-git-dir", str(other / "store"), str(other)], check=True)
    second = Session(tmp_path / "other", other.resolve())
    second.run([second.step("write", path="store/config", content=fsmonitor)])
    code, message = error_of(second.answers()[0])
    assert code == -32602 and "repository's own files (.git)" in message


@pytest.mark.reliability("Secrets", "an agent that echoes the MCP hub's secret it was offered: on its stderr (the "
                         "agent's log) and in message chunks that cut it in two", cases=2,
                         held="the log file, the stored message and the recording's assembled text hold no secret")
def test_the_hubs_secret_an_agent_echoes_is_kept_out_of_its_log_and_its_stored_message(tmp_path, ws):
    log = tmp_path / "logs" / "agent.log"
    session = Session(tmp_path, ws, log_path=log)
    session.run([session.step("leak"), session.step("say", text=" done")])
    offered = [frame.msg for frame in session.frames if frame.msg.get("method") == "session/new"]
    assert offered, "the agent was offered no MCP server"
    written = log.read_text()
    assert "session/new offered" in written and "[kandev-tui secret]" in written
    secrets = [entry["value"] for server in offered[0]["params"]["mcpServers"] for entry in server.get("env", [])
               if entry["name"] == "KANDEV_TUI_REPORT_TOKEN"]
    assert secrets == ["[kandev-tui secret]"]  # the recording's own copy of session/new: scrubbed as it always was
    messages = [i.payload["text"] for i in session.items() if i.kind == "agent_message"]
    assert messages and "[kandev-tui secret]" in messages[-1] and "KANDEV_TUI_REPORT_TOKEN" in messages[-1]
    assert stat.S_IMODE(log.stat().st_mode) == 0o600 and stat.S_IMODE(log.parent.stat().st_mode) == 0o700
    # the secret itself, as the agent printed it, appears nowhere kandev-tui wrote
    leaked = json.loads(written.split("session/new offered ", 1)[1].splitlines()[0])
    assert all(entry["value"] == "[kandev-tui secret]" for server in leaked for entry in server.get("env", [])
               if entry["name"] == "KANDEV_TUI_REPORT_TOKEN")
    assert "[kandev-tui secret]" in "".join(messages)


@pytest.mark.reliability("Agent requests: files and terminals",
                         "a write racing a folder on its way swapped for a symlink out of the workspace (the folder "
                         "itself, one above it)", cases=2,
                         held="refused with the reason; nothing written outside")
def test_a_write_racing_a_folder_swapped_for_a_symlink_never_lands_outside(tmp_path, ws, monkeypatch):
    import shutil

    from kandev_tui.acp.files import ClientFiles

    outside = tmp_path / "outside"
    outside.mkdir()
    for folder in ("sub", "up/down"):
        (ws / folder).mkdir(parents=True)
    checked = ClientFiles._target

    def racing(self, root, relative, shown):  # the agent's own process swaps the folder at the worst moment
        target = checked(self, root, relative, shown)
        swapped = ws / relative.split("/")[0]
        if swapped.is_dir() and not swapped.is_symlink():
            shutil.rmtree(swapped)
            swapped.symlink_to(outside, target_is_directory=True)
        return target

    monkeypatch.setattr(ClientFiles, "_target", racing)
    session = Session(tmp_path, ws)
    session.run([session.step("write", path="sub/x.txt", content="pwned"),
                 session.step("write", path="up/down/y.txt", content="pwned")])
    assert sorted(str(p.relative_to(outside)) for p in outside.rglob("*")) == []
    assert len(session.answers()) == 2
    for answer in session.answers():
        code, message = error_of(answer)
        assert code == -32602 and "changed as it was written" in message, message


@pytest.mark.reliability("Agent requests: files and terminals", "a write into a --repo folder (read-only to agents, "
                         "not checkpointed)", cases=1, held="refused with the reason; the folder untouched")
def test_a_write_into_a_repo_folder_is_refused_and_reads_go_on(tmp_path, ws):
    repo = tmp_path / "lib"
    repo.mkdir()
    (repo / "lib.py").write_text("print('hi')\n")
    session = Session(tmp_path, ws, repos={"lib": repo.resolve()})
    session.run([session.step("write", path=str(repo / "lib.py"), content="pwned"),
                 session.step("write", path=str(repo / "new.py"), content="pwned"),
                 session.step("read", path=str(repo / "lib.py"))])
    for answer in session.answers()[:2]:
        code, message = error_of(answer)
        assert code == -32602 and "--repo lib, which agents may read but not write" in message
    assert session.answers()[2]["ok"]["content"] == "print('hi')\n"
    assert sorted(p.name for p in repo.iterdir()) == ["lib.py"] and (repo / "lib.py").read_text() == "print('hi')\n"


@pytest.mark.reliability("Agent requests: files and terminals",
                         "a 50 MB write", cases=1,
                         held="a clear error answer (not a hang); the session goes on")
def test_a_50_mb_write_gets_a_clear_error_not_silence(tmp_path, ws):
    session = Session(tmp_path, ws)
    session.run([session.step("write", path=str(ws / "huge.txt"), content="y" * 50_000_000),
                 session.step("write", path=str(ws / "small.txt"), content="fine")])
    code, message = error_of(session.answers()[0])
    assert code == -32600 and "50.0 MB" in message and "fs/write_text_file" in message
    assert not (ws / "huge.txt").exists() and (ws / "small.txt").read_text() == "fine"  # the session goes on


@pytest.mark.reliability("Agent requests: files and terminals",
                         "a write racing a reader (the user's editor)", cases=20,
                         held="atomic: old or new file, never half")
def test_a_write_racing_a_reader_is_never_seen_half_written(tmp_path, ws):
    target = ws / "shared.txt"
    versions = ["A" * 400_000, "B" * 400_000]
    target.write_text(versions[0])
    seen: set[str] = set()
    stop = threading.Event()

    def read_all_the_time():
        while not stop.is_set():
            text = target.read_text()
            seen.add(text[:1] + str(len(text)) + text[-1:])

    reader = threading.Thread(target=read_all_the_time)
    reader.start()
    session = Session(tmp_path, ws)
    try:
        session.run([session.step("write", path=str(target), content=versions[n % 2]) for n in range(1, 21)])
    finally:
        stop.set()
        reader.join()
    assert seen <= {"A400000A", "B400000B"} and len(seen) == 2


# -- terminals ------------------------------------------------------------------------


def test_a_command_runs_in_a_terminal_its_output_streams_into_the_call(tmp_path, ws):
    (ws / "sub").mkdir()
    session = Session(tmp_path, ws)
    command = "printf '\\033[31mred\\033[0m\\n'; printf '\\033]0;title\\007'; pwd; test -t 1 && echo tty; exit 3"
    session.run([session.step("run", command="sh", args=["-c", command], cwd=str(ws / "sub"), release=True)])
    answer = session.answers()[0]["ok"]
    assert answer["output"] == f"red\n{ws / 'sub'}\ntty\n"  # plain text for the agent: escapes removed, LF
    assert answer["exit"] == {"exitCode": 3} and answer["truncated"] is False
    call = next(i for i in session.items() if i.kind == "tool_call")
    shell = call.payload["shell"]
    assert call.status == "error" and shell["exit_code"] == 3  # the agent said failed; the exit code is kept
    assert shell["stdout"].startswith("\x1b[31mred\x1b[0m\n")  # the transcript keeps the colours …
    assert shell["command"].startswith("sh -c printf") and shell["cwd"] == str(ws / "sub")
    from kandev_tui.widgets.entries.calls import call_parts

    _, parts = call_parts(call.payload, compact=False)
    shown = "\n".join(str(getattr(p, "plain", p)) for p in parts)
    assert "red" in shown and "title" not in shown and "\x1b" not in shown  # … and drops every other escape
    assert "exit code 3" in shown and "its output was not sent" not in shown
    assert [i.to_json() for i in items_from_recording(session.record)] == [i.to_json() for i in session.items()]
    assert not session.survivors()


@pytest.mark.reliability("Agent requests: files and terminals",
                         "a command that does not exist, a cwd outside, an unknown terminal id", cases=5,
                         held="clear errors")
def test_terminal_requests_that_cannot_be_served_get_clear_errors(tmp_path, ws):
    session = Session(tmp_path, ws)
    session.run([
        session.step("run", command="no-such-command-kandev"),
        session.step("run", command="true", cwd=str(tmp_path)),
        session.step("run", command="true", cwd=str(ws / "notes.txt")),
        session.step("output", terminal="term-made-up"),
        session.step("run", command="true", release=True),
    ])
    messages = [error_of(a)[1] for a in session.answers()[:4]]
    assert "command not found" in messages[0]
    assert "outside the workspace" in messages[1] and "not a directory" in messages[2]
    assert "unknown terminal" in messages[3]
    released = session.answers()[4]["ok"]["terminal"]
    session.run([session.step("output", terminal=released)])  # a new session: its terminals are its own
    assert "unknown terminal" in error_of(session.answers()[-1])[1]


def test_the_output_limit_cuts_from_the_start_at_a_character_boundary(tmp_path, ws):
    session = Session(tmp_path, ws)
    session.run([session.step("run", command="sh", args=["-c", "printf 'é%.0s' $(seq 1 1000); echo END"],
                              limit=101)])
    answer = session.answers()[0]["ok"]
    assert answer["truncated"] is True and answer["output"].endswith("END\n")
    assert len(answer["output"].encode()) <= 101 and answer["output"].strip("é").startswith("END")
    assert "\ufffd" not in answer["output"]  # cut between characters, not inside one


@pytest.mark.reliability("Agent requests: files and terminals",
                         "environment variables meant to change kandev-tui", cases=1,
                         held="the child gets them; kandev-tui does not")
def test_the_child_gets_its_environment_and_kandev_tui_does_not(tmp_path, ws):
    session = Session(tmp_path, ws)
    before = dict(os.environ)
    env = {"KANDEV_TUI_THEME": "nord", "KANDEV_TUI_CONFIG": str(tmp_path / "evil.toml"), "PYTHONPATH": "/evil",
           "HOME": str(tmp_path)}
    session.run([session.step("run", command="sh", args=["-c", "echo $KANDEV_TUI_THEME $PYTHONPATH $HOME"], env=env)])
    assert session.answers()[0]["ok"]["output"] == f"nord /evil {tmp_path}\n"
    assert dict(os.environ) == before and not (tmp_path / "evil.toml").exists()


@pytest.mark.reliability("Agent requests: files and terminals",
                         "a command printing 200 MB", cases=1,
                         held="bounded for the agent, the item and the recording")
def test_a_command_printing_200_mb_is_bounded_everywhere(tmp_path, ws):
    session = Session(tmp_path, ws)
    session.run([session.step("run", command="sh", args=["-c", "yes 'line of output' | head -c 200000000; echo END"],
                              limit=1_000_000)])
    answer = session.answers()[0]["ok"]
    assert answer["exit"] == {"exitCode": 0}
    assert answer["truncated"] is True and answer["output"].endswith("END\n") and len(answer["output"]) <= 1_000_000
    recorded = session.record.stat().st_size
    assert recorded < 20_000_000  # the transcript got a bounded trickle of the 200 MB, not all of it
    shell = next(i for i in session.items() if i.kind == "tool_call").payload["shell"]
    assert len(shell["stdout"]) <= OUTPUT_TAIL and shell["stdout"].endswith("END\n")
    skipped = sum(f.msg.get("skipped", 0) for f in session.frames if f.dir == "local")
    assert skipped > 150_000_000  # the frames say how much they left out


@pytest.mark.reliability("Agent requests: files and terminals",
                         "a command that forks children", cases=1,
                         held="kill ends every process of its session")
def test_kill_ends_a_command_and_every_child_it_forked(tmp_path, ws):
    session = Session(tmp_path, ws)
    forks = "sleep 300 & sleep 300 & (sleep 300 &); echo started; wait"
    session.run([session.step("run", command="sh", args=["-c", forks], then="kill", pause=0.5)])
    answer = session.answers()[0]["ok"]
    assert answer["exit"]["signal"] in ("SIGTERM", "SIGKILL") and "started" in answer["output"]
    assert not session.survivors()


@pytest.mark.reliability("Agent requests: files and terminals",
                         "a command that never exits and ignores SIGTERM", cases=1,
                         held="cancel kills it (SIGKILL); no process left")
def test_cancel_ends_a_command_that_never_exits(tmp_path, ws):
    session = Session(tmp_path, ws)

    async def cancel_when_started(client):
        for _ in range(200):
            if any(f.dir == "local" and (f.msg or {}).get("data") for f in session.frames):
                break
            await asyncio.sleep(0.05)
        assert session.survivors()
        await client.cancel()

    session.run([session.step("run", command="sh", args=["-c", "trap '' TERM; echo up; while :; do sleep 1; done"])],
                during=cancel_when_started)
    answer = session.answers()[0]["ok"]
    assert answer["exit"]["signal"] == "SIGKILL"  # it ignored SIGTERM: killed
    assert not session.survivors()


@pytest.mark.reliability("Agent requests: files and terminals",
                         "commands left running at quit and at the agent's death", cases=2,
                         held="every one ended")
def test_quit_and_the_agents_exit_end_commands_left_running(tmp_path, ws):
    quitting = Session(tmp_path, ws)
    quitting.run([quitting.step("run", command="sleep", args=["300"], then="leave")])
    assert quitting.answers()[0]["ok"]["exit"] is None and not quitting.survivors()

    (tmp_path / "dies").mkdir()
    dying = Session(tmp_path / "dies", ws)

    async def wait_for_the_exit(client):
        for _ in range(200):
            if client.process is not None and client.process.returncode is not None:
                break
            await asyncio.sleep(0.05)
        for _ in range(100):
            if not dying.survivors():
                break
            await asyncio.sleep(0.05)

    dying.run([dying.step("run", command="sleep", args=["300"], then="leave"), {"op": "exit"}],
              during=wait_for_the_exit)
    assert dying.answers()[0]["ok"]["exit"] is None
    assert not dying.survivors()


def test_a_terminal_block_the_client_never_created_is_tolerated():
    """Codex sends ``terminal`` content whose ids kandev-tui never created: the call shows, said so."""
    from kandev_tui.transcript.frames import IN, Frame
    from kandev_tui.transcript.normalize import Normalizer
    from kandev_tui.widgets.entries.calls import call_parts

    normalizer = Normalizer()
    items = normalizer.feed(Frame.now(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": "s", "update": {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "ls", "kind": "execute",
                                     "status": "completed",
                                     "content": [{"type": "terminal", "terminalId": "codex-1"}]}}}))
    call = items[-1]
    assert call.kind == "tool_call" and call.status == "complete" and "shell" not in call.payload
    _, parts = call_parts(call.payload, compact=False)
    assert "terminal codex-1: its output was not sent" in " ".join(str(getattr(p, "plain", p)) for p in parts)


@pytest.fixture(autouse=True)
def _no_stray_signal_handlers():
    yield
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


async def test_in_the_app_a_commands_output_streams_into_its_call_and_escape_ends_it(tmp_path, ws):
    """The app over the scripted agent: the command's lines appear in its tool call while it runs (the call is in
    the turn's tool group: expanded with enter), and escape (cancel) ends the command, which never exits by itself."""
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.sources import LiveSource
    from kandev_tui.ui.textual_hooks import screen_text
    from kandev_tui.widgets.entries.tool_group import ToolGroup

    from ..support.app_helpers import ready, settings_at, until

    session = Session(tmp_path, ws)
    store = Store(tmp_path / "app.db")
    app = KandevApp(LiveSource(session.options, store),
                    settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    command = "for i in 1 2 3; do echo tick-$i; sleep 0.2; done; printf 'wait%s\\n' ing; sleep 300"
    steps = [session.step("run", command="sh", args=["-c", command], title="count and wait")]
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: ready(app))
        prompt = app.transcript_screen.prompt
        prompt.focus()
        prompt.insert(json.dumps(steps))
        await pilot.press("enter")
        await until(pilot, lambda: bool(app.view.query(ToolGroup)))
        group = app.view.query(ToolGroup).first()
        group.focus()
        await pilot.press("enter")  # expanded: the call's output below its title
        await until(pilot, lambda: "tick-1" in screen_text(app))
        await until(pilot, lambda: "waiting" in screen_text(app))  # (the prompt shows "wait%s")
        assert app.source.state == "running" and session.survivors()
        await pilot.press("escape")
        await until(pilot, lambda: ready(app))
        await until(pilot, lambda: "SIGKILL" in screen_text(app) or "SIGTERM" in screen_text(app))
        await app.action_quit()
    assert not session.survivors()
    call = next(i for i in store.items(store.sessions()[0]["id"]) if i.kind == "tool_call")
    assert call.payload["shell"]["stdout"].startswith("tick-1\ntick-2\ntick-3\nwaiting\n")
