"""The prompt in the user's own editor (issue 62, item 1): ctrl+g hands the terminal to ``$VISUAL``/``$EDITOR`` on a
private file holding the prompt, and what the editor leaves comes back into the prompt, not sent; an editor that
is missing or fails, or a screen that cannot hand the terminal over, is said and loses nothing. "Next waiting"
moved from ctrl+g to f4."""

from __future__ import annotations

from pathlib import Path

from kandev_tui.widgets.chrome.external_editor import editor_command


def test_the_editor_is_visual_else_editor_else_one_on_the_path(monkeypatch):
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "vim"}) == ["code", "--wait"]
    assert editor_command({"VISUAL": " ", "EDITOR": "'my editor' -n"}) == ["my editor", "-n"]
    assert editor_command({"EDITOR": "vim 'unbalanced"}) == ["vim 'unbalanced"]  # said by the run, not a crash
    fallback = editor_command({})
    assert fallback is None or Path(fallback[0]).name in ("nano", "vi")
    monkeypatch.setenv("PATH", "/nonexistent")
    assert editor_command({}) is None
