"""Rich-output blocks in the real app: charts, metric groups, file previews; and the work counters."""

from __future__ import annotations

from kandev_tui.widgets.entries.file_preview import CLIPPED


async def test_clipped_notice(tmp_path):
    from kandev_tui.widgets.entries.file_preview import load_preview
    from kandev_tui.workspace.reads import Workspace

    (tmp_path / "big.txt").write_text("y" * 2500)
    state, text, clipped = load_preview(Workspace(tmp_path), "big.txt", None)
    assert state == "ok" and len(text) == 2000 and clipped
    assert CLIPPED == "Preview clipped."
    (tmp_path / "small.txt").write_text("y" * 2000)
    assert load_preview(Workspace(tmp_path), "small.txt", None)[2] is False
