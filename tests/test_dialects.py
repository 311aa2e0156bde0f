"""The dialect kit (``tests/agents/dialect_agent.py``): one turn played in many agents' dialects, through
``kandev-tui run --headless``, with the real MCP server, real terminals, real files and a real store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

AGENT = [sys.executable, str(Path(__file__).resolve().parent / "agents" / "dialect_agent.py")]


class Played:
    def __init__(self, done: subprocess.CompletedProcess, recording: Path, workspace: Path) -> None:
        self.code = done.returncode
        self.stderr = done.stderr
        self.items = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
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


def test_a_write_reported_before_the_file_was_read_is_compared_with_the_file_on_disk(tmp_path):
    played = play(tmp_path, {"steps": [
        {"op": "write", "id": "e1", "path": "notes.txt", "content": NOTES.replace("line 9\n", "line nine\n"),
         "report": "before_read"}]}, files={"notes.txt": NOTES})
    assert played.code == 0, played.stderr
    diff = diff_of(played.call("e1"))
    assert not diff["new_file"] and (diff["added"], diff["removed"]) == (1, 1)


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
