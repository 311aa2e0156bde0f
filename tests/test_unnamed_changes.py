"""An agent that keeps its own state in the workspace (written by its process, not by a tool call): the changes card
tells the files the turn's tool calls named from the rest, and "restore all" never puts the agent's live state back
without asking (issue 65, item 6)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from kandev_tui.transcript.changes import Named, named_paths
from kandev_tui.transcript.frames import IN, LOCAL, OUT, Frame
from kandev_tui.transcript.normalize import Normalizer

from .test_checkpoints import content, repo
from .test_elicitation_app import KIT

STATE = {".agentstate/session.json": '{"id": 1}\n', ".agentstate/history.jsonl": "{}\n",
         ".agentstate/todo.json": "[]\n"}


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


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_an_agents_own_state_is_summed_up_apart_and_restore_all_leaves_it_unless_asked(tmp_path):
    from kandev_tui.acp import AgentOptions
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.screens.confirm import ConfirmScreen
    from kandev_tui.screens.review import ReviewScreen
    from kandev_tui.sources import LiveSource
    from kandev_tui.ui.textual_hooks import screen_text
    from kandev_tui.transcript import Store
    from kandev_tui.widgets.changes_card import ChangesCard
    from kandev_tui.widgets.permission import PermissionRequest

    from .app_helpers import settings_at, until

    root = repo(tmp_path / "w", {"notes.txt": "one\n"})
    steps = [{"op": "state", "files": STATE}, {"op": "write", "path": "notes.txt", "content": "one\ntwo\n"},
             {"op": "say", "text": "Noted."}]
    store = Store(tmp_path / "s.db")
    options = AgentOptions(command=KIT, workspace=root, env={**os.environ, "DIALECT": json.dumps({"steps": steps})})
    app = KandevApp(LiveSource(options, store),
                    settings_store=settings_at(tmp_path, chart_animation=False), initial_prompt="note it")
    app.animation_level = "none"
    state = {path: (root / path).read_bytes for path in STATE}

    def state_kept() -> bool:
        return all((root / path).is_file() and reader() == STATE[path].encode() for path, reader in state.items())

    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: any(w.answerable and w.has_focus for w in app.query(PermissionRequest)))
        await pilot.press("1")  # the write asks first: allowed
        await until(pilot, lambda: "✎ 4 files changed" in screen_text(app))
        text = screen_text(app)
        assert "M notes.txt  +1 −0" in text and "A .agentstate" not in text, text  # the state is not listed...
        assert "+ 3 files no tool call named: .agentstate/ (3)" in text  # ...but summed up
        app.query_one(ChangesCard).focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen))
        await until(pilot, lambda: "no tool call named it" in screen_text(app))  # the review lists all four
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = app.screen.question
        assert "Put the 1 file the turn's tool calls named back as it was before this turn?" in question, question
        assert "The other 3 (no tool call named them: .agentstate/ (3);" in question
        assert "Restore 1 (y)" in screen_text(app) and "All 4 (a)" in screen_text(app)
        await pilot.press("y")  # the named file only
        await until(pilot, lambda: content(root / "notes.txt") == b"one\n")
        assert state_kept()
        await until(pilot, lambda: app.screen.check_action("undo_restore", ()) is True)
        await pilot.press("u")
        await until(pilot, lambda: content(root / "notes.txt") == b"one\ntwo\n")
        assert state_kept()
        await until(pilot, lambda: not app.screen.check_action("undo_restore", ()))
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("a")  # asked for: all of it, the agent's state too
        await until(pilot, lambda: content(root / "notes.txt") == b"one\n" and not (root / ".agentstate").exists())
        await app.action_quit()
