"""The session database as users meet it: damaged past what opening it reads, a file that may not be written, and
sessions left ``running`` by a process that is gone, or still run by another one."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kandev_tui.transcript import Item, Store

from ..support import CHECKOUT
from ..support.store_faults import damage, filled

DEMO = [sys.executable, "-m", "kandev_tui.demo.agent"]


def kandev(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "KANDEV_TUI_DB"}
    return subprocess.run([sys.executable, "-m", "kandev_tui", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def one_line(result: subprocess.CompletedProcess, code: int, *words: str) -> str:
    assert result.returncode == code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.reliability("Store faults", "database damaged past its first page", cases=6,
                         held="one line naming the damage, exit 2, file untouched by commands that read")
def test_a_database_damaged_past_its_first_page_is_one_line_for_every_command(tmp_path):
    db = tmp_path / "s.db"
    ids = filled(db)
    assert damage(db, "items", "sqlite_autoindex_items_1", "items_by_kind") > 3  # the sessions' item counts too
    before = digest(db)
    for args in (["sessions"], ["sessions", "--json"], ["export", ids[0]], ["open", ids[0]],
                 ["snapshot", ids[0], "-o", str(tmp_path / "shot.txt")]):
        line = one_line(kandev(*args, "--db", str(db)), 2, "is damaged", "malformed", str(db))
        assert line.startswith(f"kandev-tui {args[0]}: ") and "left untouched" in line
    assert digest(db) == before  # commands that only read never wrote to it
    result = kandev("run", "--headless", "--prompt", "hi", "--db", str(db), "--", *DEMO)
    one_line(result, 2, "kandev-tui run: ", "is damaged", "malformed", "Move it aside")
    printed = [json.loads(line) for line in result.stdout.splitlines()]
    said = [item for item in printed if item["kind"] == "error"
            and item["payload"]["message"].startswith("This session is no longer stored")]
    assert len(said) == 1  # once
    assert any(item["kind"] == "agent_message" for item in printed)  # what came was still shown
def test_damage_that_only_the_opened_session_meets_ends_the_app_with_the_same_line(tmp_path):
    """The session list reads (its counts come from an index), the session's own items do not: the app that opens it
    ends with the line, exit 2, not a traceback or an empty screen."""
    db = tmp_path / "s.db"
    ids = filled(db)
    damage(db, "items")
    assert kandev("sessions", "--db", str(db)).returncode == 0  # the listing never reads the damaged pages
    line = one_line(kandev("snapshot", ids[0], "-o", str(tmp_path / "shot.txt"), "--db", str(db)), 2,
                    "is damaged", "malformed")
    assert line.startswith("kandev-tui snapshot: ")
    assert not (tmp_path / "shot.txt").exists()


def read_only(path: Path) -> None:
    """Make ``path`` a file nobody may write, root included where the file system can (``chattr +i``)."""
    if os.geteuid() == 0 and shutil.which("chattr"):
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0:
            return
    path.chmod(0o444)
    path.parent.chmod(0o555)


def writable_again(path: Path) -> None:
    if shutil.which("chattr"):
        subprocess.run(["chattr", "-i", str(path)], capture_output=True)
    path.parent.chmod(0o755)
    path.chmod(0o644)


@pytest.mark.reliability("Store faults", "a database that may not be written", cases=4,
                         held="read and shown; nothing written")
def test_a_read_only_database_is_listed_exported_and_drawn(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    db = folder / "s.db"
    ids = filled(db)
    read_only(db)
    try:
        before = digest(db)
        listed = kandev("sessions", "--db", str(db))
        assert listed.returncode == 0, listed.stderr
        assert all(sid in listed.stdout for sid in ids)
        exported = kandev("export", ids[0], "--db", str(db), "--format", "jsonl")
        assert exported.returncode == 0, exported.stderr
        assert len(exported.stdout.splitlines()) == 200
        shot = tmp_path / "shot.txt"
        drawn = kandev("snapshot", ids[0], "--db", str(db), "-o", str(shot))
        assert drawn.returncode == 0, drawn.stderr
        assert "line 199" in shot.read_text()  # the end (the default)
        assert digest(db) == before
        # a command that writes says why it cannot, in one line
        one_line(kandev("run", "--headless", "--prompt", "hi", "--db", str(db), "--", *DEMO), 2, "not writable")
    finally:
        writable_again(db)


OWNER = """
import sys
from kandev_tui.transcript import Store
store = Store(sys.argv[1])
print(store.create_session(title="still running", agent_command=["agent"]), flush=True)
sys.stdin.readline()  # until told
"""


def test_a_session_left_running_by_a_process_that_is_gone_reads_as_interrupted(tmp_path):
    db = tmp_path / "s.db"
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    try:
        sid = owner.stdout.readline().strip()
        (row,) = json.loads(kandev("sessions", "--json", "--db", str(db)).stdout.splitlines()[0]),
        assert row["id"] == sid and row["state"] == "running" and row["running_elsewhere"] == owner.pid
    finally:
        owner.send_signal(signal.SIGKILL)  # as a power cut or kill -9 leaves it
        owner.wait()
    row = json.loads(kandev("sessions", "--json", "--db", str(db)).stdout.splitlines()[0])
    assert row["state"] == "interrupted" and "running_elsewhere" not in row
    assert f"{sid}" in kandev("sessions", "--db", str(db)).stdout
    assert "interrupted" in kandev("sessions", "--db", str(db)).stdout


def waiting_turn(store: Store, title: str) -> str:
    """A session whose turn was cut off while a call ran and its permission request waited."""
    sid = store.create_session(title=title, agent_command=["agent"])
    call = {"tool_call_id": "edit-1", "name": "edit", "kind": "edit", "title": "Write notes.md", "status": "pending"}
    store.upsert_items(sid, [
        Item("user:1", "user_message", 1, {"text": "write the notes"}, final=True),
        Item("tool:edit-1", "tool_call", 1, call, status="pending", tool_call_id="edit-1"),
        Item("permission:2", "permission", 1, {"tool_call": {"toolCallId": "edit-1", "kind": "edit",
                                                             "title": "Write notes.md"},
                                               "options": [{"optionId": "a", "name": "Allow once", "kind": "allow_once"}]},
             status="pending", tool_call_id="edit-1"),
    ])
    return sid


async def test_a_session_whose_process_is_gone_opens_with_nothing_left_waiting(tmp_path):
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.sources import StoredSource

    from ..support.app_helpers import settings_at, settle

    db = tmp_path / "s.db"
    owner = subprocess.Popen([sys.executable, "-c", "import sys, json\nfrom kandev_tui.transcript import Store\n"
                              "from tests.system.test_store_faults import waiting_turn\n"
                              "print(waiting_turn(Store(sys.argv[1]), 'cut off'), flush=True)\nsys.stdin.readline()",
                              str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             cwd=CHECKOUT)
    sid = owner.stdout.readline().strip()
    owner.kill()
    owner.wait()
    store = Store(db, create=False)
    session = store.session(sid)
    assert session["state"] == "interrupted"
    app = KandevApp(StoredSource(store, session),
                    settings_store=settings_at(tmp_path))
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            text = "\n".join(w.searchable_text for w in app.view.query("*") if hasattr(w, "searchable_text"))
            assert "Write notes.md" in text
            shown = app.export_screenshot()
            assert "○" not in shown and "1-9 or click to answer" not in shown
    finally:
        store.close()


async def test_a_session_another_kandev_tui_runs_says_where_to_answer(tmp_path):
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.sources import StoredSource

    from ..support.app_helpers import settings_at, settle

    db = tmp_path / "s.db"
    owner = subprocess.Popen([sys.executable, "-c", "import sys, json\nfrom kandev_tui.transcript import Store\n"
                              "from tests.system.test_store_faults import waiting_turn\n"
                              "print(waiting_turn(Store(sys.argv[1]), 'live elsewhere'), flush=True)\n"
                              "sys.stdin.readline()", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, cwd=CHECKOUT)
    try:
        sid = owner.stdout.readline().strip()
        store = Store(db, create=False)
        session = store.session(sid)
        assert session["state"] == "running" and session["running_elsewhere"] == owner.pid
        app = KandevApp(StoredSource(store, session),
                        settings_store=settings_at(tmp_path))
        try:
            async with app.run_test(size=(120, 30)) as pilot:
                await settle(pilot)
                screen = app.export_screenshot()
                assert f"answer it in the kandev-tui that runs it (pid {owner.pid})" in screen.replace("&#160;", " ")
                assert app.transcript_screen.prompt.disabled
                assert f"runs in another kandev-tui (pid {owner.pid}): prompt and answer there" in str(
                    app.transcript_screen.prompt.border_subtitle or "") + screen.replace("&#160;", " ")
        finally:
            store.close()
    finally:
        owner.kill()
        owner.wait()
