"""Checkpoints and the changes card, on real git repositories (git from Debian): what a turn changed, through the
agent's tool and through a shell command, counted; the user's index, HEAD and stash untouched; and the bad input
(a merge in progress, a detached HEAD, a submodule, a 200 MB file, 10,000 files, a file become a folder, paths with
newlines and escapes, a workspace that stops being a repository, no git, a read-only .git)."""

from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def test_a_turn_another_session_overlapped_says_so_and_never_of_changes_it_does_not_have():
    from kandev_tui.transcript.items import Item
    from kandev_tui.widgets.entries.changes_card import changes_text

    changed = changes_text(Item("changes:1", "changes", 1, {"state": "ready", "count": 1, "added": 1, "removed": 0,
                                                            "overlapped": True, "files": [
                                                                {"path": "a.py", "status": "added", "added": 1}]}))
    assert changed.plain.endswith("meanwhile: some of these changes may be its.")
    none = changes_text(Item("changes:2", "changes", 2, {"state": "none", "overlapped": True})).plain
    assert none == ("No files changed in this turn.\n⚠ Another session's turn ran in this repository meanwhile: "
                    "between them, nothing changed.")


def test_the_card_is_placed_before_the_turn_end_and_a_turn_cut_short_has_none():
    from kandev_tui.transcript.frames import IN, LOCAL, OUT, Frame
    from kandev_tui.transcript.normalize import Normalizer

    normalizer = Normalizer()

    def prompt(n: int) -> None:
        normalizer.feed(Frame.now(LOCAL, {"event": "changes", "turn_ref": n, "state": "tracking"}))
        normalizer.feed(Frame.now(OUT, {"jsonrpc": "2.0", "id": n, "method": "session/prompt",
                                        "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}}))

    prompt(1)
    ended = normalizer.feed(Frame.now(IN, {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}))
    assert [i.kind for i in ended][-2:] == ["changes", "turn_end"] and ended[-2].payload == {"state": "pending"}
    (ready,) = normalizer.feed(Frame.now(LOCAL, {"event": "changes", "turn_ref": 1, "state": "none", "files": []}))
    assert ready.key == ended[-2].key and ready.final and ready.payload["count"] == 0
    prompt(2)  # closed during the turn: no card, and what comes after for it is ignored
    cut = normalizer.feed(Frame.now(LOCAL, {"event": "note", "ends_turn": True, "stop_reason": "interrupted",
                                            "message": "The session was closed during the turn."}))
    assert [i.kind for i in cut] == ["note", "turn_end"]
    assert normalizer.feed(Frame.now(LOCAL, {"event": "changes", "turn_ref": 2, "state": "none"})) == []
