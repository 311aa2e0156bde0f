"""The prompt in the user's own editor (issue 62, item 1): ctrl+g hands the terminal to ``$VISUAL``/``$EDITOR`` on a
private file holding the prompt, and what the editor leaves comes back into the prompt, not sent; an editor that
is missing or fails, or a screen that cannot hand the terminal over, is said and loses nothing. "Next waiting"
moved from ctrl+g to f4."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

import pytest

from kandev_tui.widgets.chrome.external_editor import edit

from ..support.tmux import demo_agent_run, sent_prompts


def editor_script(tmp_path: Path, body: str) -> Path:
    """An executable standing in for the user's editor: ``$1`` is the file it is given."""
    script = tmp_path / "editor.sh"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return script


@pytest.mark.system  # runs a process: the editor
def test_the_editor_gets_a_private_file_in_a_folder_of_its_own_and_what_it_leaves_comes_back(tmp_path):
    seen = tmp_path / "seen"
    script = editor_script(tmp_path, f'stat -c %a "$1" > {seen}; stat -c %a "$(dirname "$1")" >> {seen}; '
                                     f'pwd >> {seen}; cat "$1" >> {seen}; printf "rewritten\\nsecond line\\n" > "$1"\n')
    edited = edit("draft text", [str(script)], contextlib.nullcontext)
    assert edited.text == "rewritten\nsecond line" and not edited.problem  # one trailing newline dropped
    mode, folder_mode, cwd, given = seen.read_text().split("\n", 3)
    assert (mode, folder_mode) == ("600", "700") and given == "draft text"
    assert Path(cwd).name.startswith("kandev-tui-prompt-") and not Path(cwd).exists()  # removed once read
    assert Path(cwd).resolve() != Path.cwd().resolve()  # never the workspace
def test_an_editor_that_fails_or_is_missing_says_so_and_changes_nothing(tmp_path):
    failing = editor_script(tmp_path, 'echo changed > "$1"; exit 3\n')
    edited = edit("keep me", [str(failing)], contextlib.nullcontext)
    assert edited.text is None and "ended with status 3" in edited.problem
    edited = edit("keep me", [str(tmp_path / "no-such-editor")], contextlib.nullcontext)
    assert edited.text is None and "was not found: set $VISUAL or $EDITOR" in edited.problem
    assert "no editor" in edit("keep me", None, contextlib.nullcontext).problem


async def test_where_the_terminal_cannot_be_handed_over_the_prompt_keeps_its_text(tmp_path, monkeypatch):
    """Under Textual's pilot (as in a browser tab) the app cannot suspend: ctrl+g says so, the text stays."""
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.ui.textual_hooks import screen_text

    from ..support.app_helpers import ScriptedSource, settings_at, until

    monkeypatch.setenv("EDITOR", "true")

    app = KandevApp(ScriptedSource([]),
                    settings_store=settings_at(tmp_path))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:  # toasts shown, as in a terminal
        prompt = app.transcript_screen.prompt
        await until(pilot, lambda: not prompt.disabled and not prompt.read_only)
        prompt.focus()
        await pilot.press(*"half a thought")
        await pilot.press("ctrl+g")
        await until(pilot, lambda: "cannot hand over" in " ".join(screen_text(app).split()))
        assert prompt.text == "half a thought"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_in_a_real_terminal_ctrl_g_edits_the_prompt_in_the_editor_and_it_comes_back_unsent(tmp_path):
    marker = tmp_path / "editor-ran"
    script = editor_script(tmp_path, f'printf " and the rest, from the editor" >> "$1"; touch {marker}\n')
    tmux = demo_agent_run(tmp_path, VISUAL=str(script), EDITOR="false")  # VISUAL first
    try:
        tmux.keys("a first half")
        tmux.wait_for("a first half")
        tmux.keys("C-g")
        screen = tmux.wait_for("a first half and the rest, from the editor")
        assert marker.exists() and "Message the agent" in screen  # the app is back, the prompt holds the text
        assert sent_prompts(tmp_path / "s.db") == []  # not sent
        tmux.keys("Enter")
        tmux.wait_for("Allow once")  # sent by enter, as typed
        assert sent_prompts(tmp_path / "s.db") == ["a first half and the rest, from the editor"]
        assert not [p for p in Path(os.environ.get("TMPDIR", "/tmp")).glob("kandev-tui-prompt-*")
                    if p.stat().st_mtime >= marker.stat().st_mtime - 1 and stat.S_ISDIR(p.stat().st_mode)]
        tmux.quit()
    finally:
        tmux.close()
