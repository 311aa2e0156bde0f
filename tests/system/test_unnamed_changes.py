"""An agent that keeps its own state in the workspace (written by its process, not by a tool call): the changes card
tells the files the turn's tool calls named from the rest, and "restore all" never puts the agent's live state back
without asking (issue 65, item 6)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from ..support.kit import KIT
from ..support.git import content, repo

STATE = {".agentstate/session.json": '{"id": 1}\n', ".agentstate/history.jsonl": "{}\n",
         ".agentstate/todo.json": "[]\n"}


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_an_agents_own_state_is_summed_up_apart_and_restore_all_leaves_it_unless_asked(tmp_path):
    from kandev_tui.acp import AgentOptions
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.screens.confirm import ConfirmScreen
    from kandev_tui.screens.review import ReviewScreen
    from kandev_tui.sources import LiveSource
    from kandev_tui.transcript import Store
    from kandev_tui.ui.textual_hooks import screen_text
    from kandev_tui.widgets.entries.changes_card import ChangesCard
    from kandev_tui.widgets.entries.permission import PermissionRequest

    from ..support.app_helpers import settings_at, until

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
