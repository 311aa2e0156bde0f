"""The SQLite session store: upserts, schema versions, refusals, concurrency, crashes."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys

import pytest

from kandev_tui.transcript import Item, Store


def test_upsert_updates_in_place_and_keeps_sequence(tmp_path):
    store = Store(tmp_path / "s.db")
    sid = store.create_session(title="t", agent_command=["agent"], workspace="/w")
    store.upsert_items(sid, [Item("m:1", "agent_message", 1, {"text": "He"}), Item("u:2", "user_message", 1, {"text": "x"})])
    store.upsert_items(sid, [Item("m:1", "agent_message", 1, {"text": "Hello"})])
    items = store.items(sid)
    assert [(i.key, i.payload["text"]) for i in items] == [("m:1", "Hello"), ("u:2", "x")]
    assert store.item_count(sid) == 2
    assert store.item_payload(sid, "m:1") == {"text": "Hello"}
    assert store.sessions()[0]["items"] == 2
    assert store.session(sid[:6])["id"] == sid


WRITER = """
import sys
from kandev_tui.transcript import Item, Store
store = Store(sys.argv[1])
sid = store.create_session(title=sys.argv[2])
for n in range(int(sys.argv[3])):
    store.upsert_items(sid, [Item(f"k:{n}", "agent_message", 1, {"text": "x" * 50, "n": n})])
print(sid)
"""


@pytest.mark.reliability("Store faults", "two kandev-tui processes on one database", cases=2,
                         held="no corruption, both sessions complete")
def test_two_processes_on_one_database(tmp_path):
    path = tmp_path / "s.db"
    Store(path).close()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"w{i}", "300"], stdout=subprocess.PIPE, text=True)
             for i in range(2)]
    ids = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    store = Store(path)
    for sid in ids:
        items = store.items(sid)
        assert [i.payload["n"] for i in items] == list(range(300))
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.reliability("Store faults", "SIGKILL during writes", cases=1,
                         held="nothing committed lost")
def test_sigkill_during_writes_loses_nothing_committed(tmp_path):
    path = tmp_path / "s.db"
    proc = subprocess.Popen([sys.executable, "-c", WRITER.replace("print(sid)", "") .replace(
        "store.upsert_items(sid, [", "print(n, flush=True); store.upsert_items(sid, [", 1), str(path), "victim", "100000"],
        stdout=subprocess.PIPE, text=True)
    # wait until it has written a good number of batches, then kill it mid-write
    seen = -1
    while seen < 500:
        seen = int(proc.stdout.readline())
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    store = Store(path)
    session = store.sessions()[0]
    items = store.items(session["id"])
    # every batch whose write had begun before the last line we read was committed (or the next one)
    assert len(items) >= seen
    assert [i.payload["n"] for i in items] == list(range(len(items)))
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_default_path_from_environment(tmp_path, monkeypatch):
    from kandev_tui.transcript.store import default_db_path

    monkeypatch.setenv("KANDEV_TUI_DB", str(tmp_path / "x.db"))
    assert default_db_path() == tmp_path / "x.db"


def test_packed_items_read_back_as_the_items_themselves(tmp_path):
    """Opening a session keeps each payload compressed (PackedItem): what it reads back is what was stored."""
    from kandev_tui.transcript.items import PackedItem

    from ..support.hostile_corpus import CORPUS

    store = Store(tmp_path / "s.db")
    session = store.create_session(title="t", agent_command=["a"], workspace="", state="ended")
    items = [Item(f"m{i}", "agent_message", 1, {"text": text}) for i, text in enumerate(CORPUS.values())]
    items.append(Item("t1", "tool_call", 1, {"name": "read", "input": {"path": "a.py"}, "output": "x = 1\n" * 40},
                      status="complete", tool_call_id="t1"))
    store.upsert_items(session, items)
    packed = store.packed_items(session)
    assert all(isinstance(item, PackedItem) for item in packed)
    assert packed == store.items(session)
    assert [(i.key, i.kind, i.turn, i.status, i.tool_call_id, i.final) for i in packed] == [
        (i.key, i.kind, i.turn, i.status, i.tool_call_id, i.final) for i in store.items(session)]
    big = packed[-1]
    assert len(big._packed) < len(str(big.payload))  # compressed, not a parsed tree


def test_markdown_export_keeps_a_failed_calls_error_text():
    from kandev_tui.transcript.export import session_markdown

    session = {"id": "s1", "title": "t", "created": 0, "agent_command": ["a"], "workspace": ""}
    shell_failed = Item("tool:a", "tool_call", 1, {"title": "Run make", "kind": "execute", "output": None,
                                                     "shell": {"stdout": "building", "stderr": "make: *** [all] Error 2",
                                                               "exit_code": 2}}, status="error", final=True)
    content_failed = Item("tool:b", "tool_call", 1, {"title": "Edit x.py", "kind": "edit", "output": None, "content": [
        {"type": "content", "content": {"type": "text", "text": "<tool_use_error>String not found</tool_use_error>"}}]},
        status="error", final=True)
    text = session_markdown(session, [shell_failed, content_failed])
    assert "make: *** [all] Error 2" in text and "[exit code 2]" in text and "building" in text
    assert "String not found" in text
    assert "- started: 1970-01-01 00:00 UTC\n\n" in text  # the head's list, then a blank line, then the body
    changed = Item("changes:1", "changes", 1, {"state": "ready", "count": 1, "added": 2, "removed": 0,
                                               "files": [{"path": "a.py", "status": "modified", "added": 2}]}, final=True)
    assert "**1 file changed** +2 −0" in session_markdown(session, [changed])
    helper = Item("subagent:1", "subagent", 1, {"title": "Explore", "state": "done", "tools": [{"title": "Read"}]},
                  final=True)
    assert "- Subagent **Explore** (done, 1 call)" in session_markdown(session, [helper])


@pytest.mark.parametrize("recording, said", [
    ("claude-real.jsonl", ["- Permission asked to edit **Write probe/notes.txt**: Allow",
                           "- Permission asked to edit **Edit probe/notes.txt**: Allow",
                           "- Permission asked to show rich output **Probe results**: Allow"]),
    ("gemini-real.jsonl", ["- Permission asked to edit **Writing to probe/new.txt**: Allow",
                           "- Permission asked to edit **notes.txt: beta => BETA**: Allow",
                           "- Permission asked to run **printf '\\033[32mgreen\\033[0m ok\\n'; wc -l notes.txt**: Allow",
                           "- Permission asked to show rich output **Probe results**: Allow"]),
])
def test_a_markdown_export_says_each_permission_as_the_app_asked_it(recording, said):
    """The export said "Permission asked for **mcp__kandev__show_rich_output_kandev**": the tool's name, where the
    app's request says "asks to show rich output: Probe results". It says what the app says."""
    from kandev_tui.transcript.export import session_markdown
    from kandev_tui.transcript.frames import read_recording
    from kandev_tui.transcript.replay import items_from_frames

    from ..support.app_helpers import FIXTURES

    items = items_from_frames(read_recording(FIXTURES / "recordings" / recording))
    text = session_markdown({"id": "s1", "title": "t", "created": 0, "agent_command": ["a"], "workspace": ""}, items)
    assert [line for line in text.splitlines() if line.startswith("- Permission")] == said
