"""Files named with ``@`` in a prompt: sent as the agent takes them (embedded, linked, as an image), refused outside
the workspace as the agent's own reads are, shown in the user's message; with the dialect kit's agent in the app."""

from __future__ import annotations

import pytest

from kandev_tui.acp.files import ClientFiles
from kandev_tui.acp.mentions import mention_blocks, mentioned


def test_mentions_are_paths_after_an_at_and_an_email_is_none():
    assert mentioned("see @src/app.py, and @my\\ notes.md; mail a@b.com @src/app.py") == ["src/app.py", "my notes.md"]
    assert mentioned("@") == [] and mentioned("x@y") == []


def test_each_file_goes_as_the_agent_takes_it(workspace):
    files = ClientFiles(workspace)
    text = "look at @src/app.py and @shot.png"
    blocks, notes = mention_blocks(text, files, {"embeddedContext": True, "image": True})
    assert [b["type"] for b in blocks] == ["resource", "image"] and notes == []
    assert blocks[0]["resource"]["text"] == "print('hi')\n" and blocks[0]["resource"]["uri"].endswith("/src/app.py")
    assert blocks[1]["mimeType"] == "image/png" and blocks[1]["data"]
    blocks, notes = mention_blocks(text, files, {})
    assert [(b["type"], b["name"]) for b in blocks] == [("resource_link", "src/app.py"), ("resource_link", "shot.png")]
    assert notes == ["The agent takes no images: @shot.png was sent as a link to the file."]


@pytest.mark.parametrize("path", ["../secret.txt", "/etc/passwd", "nothing-here.py", "src"])
def test_a_mention_outside_the_workspace_or_of_no_file_is_not_sent_and_said(workspace, path):
    blocks, notes = mention_blocks(f"read @{path}", ClientFiles(workspace), {"embeddedContext": True})
    assert blocks == [] and len(notes) == 1 and notes[0].startswith(f"@{path} was not sent:")
