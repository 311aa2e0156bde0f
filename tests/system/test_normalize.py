"""The normaliser on every wire shape of ``shared/fixtures/acp`` (as the project's own fixtures)."""

from __future__ import annotations

from kandev_tui.transcript.replay import items_from_frames

from ..support.frames import frames_of, tool


def test_claude_background_bash():
    call = tool(items_from_frames(frames_of("claude-background-bash.json")), "tc-5")
    assert call.payload["input"]["raw_input"] == {"command": "npm run watch", "run_in_background": True}
