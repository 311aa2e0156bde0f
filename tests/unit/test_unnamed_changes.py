"""An agent that keeps its own state in the workspace (written by its process, not by a tool call): the changes card
tells the files the turn's tool calls named from the rest, and "restore all" never puts the agent's live state back
without asking (issue 65, item 6)."""

from __future__ import annotations

from kandev_tui.transcript.changes import Named, named_paths
from kandev_tui.transcript.frames import IN, LOCAL, OUT, Frame
from kandev_tui.transcript.normalize import Normalizer


def test_a_file_is_named_by_an_absolute_path_under_the_repository_or_any_path_ending_with_it():
    named = Named({"/work/repo/src/a.py", "./notes.txt", "/private/work/repo/lib/b.py", "/elsewhere/c.py"},
                  "/work/repo")
    assert "src/a.py" in named and "notes.txt" in named
    assert "lib/b.py" in named  # under a link to the repository: its path ends with the file's
    assert "c.py" in named  # (what a path says is all there is to go on: the file it ends with)
    assert "src/b.py" not in named and "a.py" not in named and "" not in named and None not in named
    assert "docs/notes.txt" in Named({"docs/notes.txt"}, "") and "docs/notes.txt" in Named({"notes.txt"}, "")
    assert "docs/other.txt" not in Named({"docs/notes.txt", "notes.txt"}, "")


def test_the_paths_a_turns_calls_name_are_their_diffs_locations_inputs_and_the_writes_done_for_them():
    calls = [{"content": [{"type": "diff", "path": "/r/a.py"}, {"type": "content", "path": "/r/not-a-diff"}],
              "locations": [{"path": "/r/b.py"}, {"line": 3}], "input": {"raw_input": {"file_path": "/r/c.py"}}},
             {"written": [{"type": "diff", "path": "/r/d.py"}], "input": {"raw_input": {"filePath": 3}}},
             {"content": "not a list", "locations": None, "input": None}]
    assert named_paths(calls) == {"/r/a.py", "/r/b.py", "/r/c.py", "/r/d.py"}


def test_the_card_marks_each_file_no_tool_call_of_its_turn_named():
    normalizer = Normalizer()
    feed = normalizer.feed
    feed(Frame.now(LOCAL, {"event": "changes", "turn_ref": 1, "state": "tracking"}))
    feed(Frame.now(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                         "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}}))
    feed(Frame.now(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": "tool_call", "toolCallId": "e1", "title": "Edit", "kind": "edit", "status": "completed",
        "locations": [{"path": "/w/repo/notes.txt"}]}}}))
    feed(Frame.now(IN, {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}))
    files = [{"path": "notes.txt", "status": "modified", "added": 1, "removed": 0},
             {"path": ".agentstate/session.json", "status": "added", "added": 1, "removed": 0},
             {"path": "NEW.md", "old_path": "notes.txt", "status": "renamed", "added": 0, "removed": 0}]
    (card,) = feed(Frame.now(LOCAL, {"event": "changes", "turn_ref": 1, "state": "ready", "files": files, "count": 3,
                                     "added": 2, "removed": 0, "repository": "/w/repo", "before": "a", "after": "b"}))
    marked = {f["path"]: f.get("unnamed", False) for f in card.payload["files"]}
    assert marked == {"notes.txt": False, ".agentstate/session.json": True, "NEW.md": False}  # a rename: either name
