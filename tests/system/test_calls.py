"""What tool calls show: diffs, command output with its colours, content blocks, locations; the normaliser's
command output (Codex's terminal meta, bounded tails); the real agents' recorded sessions in the app."""

from __future__ import annotations

from ..support.app_helpers import stored_app, tool_item
from ..support.app_helpers import open_the_group


async def test_a_call_no_view_knows_says_its_output_once(tmp_path):
    """Claude's failed edit (recorded in tmux): its error came as ``rawOutput`` and again as a fenced text block of
    its content, and the card showed it twice. A call whose only output is its content's text showed that text as
    its output and again as content. Each is said once; other text of the content stays. Its location inside the
    workspace is relative to it, as its diff's header would be."""
    from kandev_tui.ui.textual_hooks import screen_text

    (tmp_path / "ws").mkdir()
    error = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
    failed_edit = tool_item("e1", name="edit", kind="edit", status="error", title="Edit app.py", output=error,
                            raw_input={"file_path": f"{tmp_path}/ws/app.py", "old_string": "a", "new_string": "b"},
                            content=[{"type": "content", "content": {"type": "text", "text": f"```\n{error}\n```"}}],
                            locations=[{"path": f"{tmp_path}/ws/app.py"}])
    content_only = tool_item("o1", name="probe", kind="other", status="error", title="Probe the port",
                             content=[{"type": "content", "content": {"type": "text", "text": "connection refused"}}])
    told_more = tool_item("o2", name="probe", kind="other", title="Probe again", output="port 80 open",
                          content=[{"type": "content", "content": {"type": "text", "text": "and a note beside it"}}])
    app = stored_app(tmp_path, [failed_edit, content_only, told_more], edits_inline=True,
                     workspace=str(tmp_path / "ws"))
    async with app.run_test(size=(120, 60)) as pilot:
        await open_the_group(pilot, app, calls=2)
        text = screen_text(app)
        assert text.count("File has not been read yet") == 1 and "at app.py" in text  # inside the workspace
        assert text.count("connection refused") == 1
        assert text.count("port 80 open") == 1 and "and a note beside it" in text
