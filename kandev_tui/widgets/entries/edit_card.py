"""An edit shown inline as a compact card of its own, in the transcript's order: the first lines of its diff
(``m``: all of it), ``o`` opens the file at its first changed line. Code changes are what people watch agents
for; the ``edits_inline`` setting folds edits back into the tool group."""

from __future__ import annotations

from textual.binding import Binding

from kandev_tui.transcript.diffs import diff_blocks, first_lines

from kandev_tui.widgets.entries.calls.diff import file_diffs, workspace_relative
from kandev_tui.widgets.context import workspace_root
from kandev_tui.widgets.entries.file_preview import FilePreview
from kandev_tui.widgets.entries.tool_call import ToolCallView


class EditCard(ToolCallView):
    """The call drawn as every call is (:mod:`kandev_tui.widgets.entries.calls`), framed as a card."""

    BINDINGS = [Binding("o", "open", "Open file"), Binding("s", "side_by_side", "Side by side")]
    SIDE_BY_SIDE_FROM = 100  # columns from which old and new fit side by side
    DEFAULT_CSS = """
    EditCard { border: round $panel-lighten-2; padding: 0 1; margin: 0; }
    EditCard:focus { border: round $accent; background: $boost; }
    """

    def action_side_by_side(self) -> None:
        """Old and new side by side, and back; only where the width allows (else a bell)."""
        if not self.side_by_side and self.size.width < self.SIDE_BY_SIDE_FROM:
            self.app.bell()
            self.notify(f"Side by side needs {self.SIDE_BY_SIDE_FROM} columns.", timeout=2)
            return
        self.side_by_side = not self.side_by_side
        self.redraw()

    def action_open(self) -> None:
        payload = self.item.payload
        blocks = diff_blocks(payload.get("content"))
        if not blocks:
            self.app.bell()
            return
        diffs = file_diffs(payload.get("content"), payload.get("locations"), wait=False)  # None: still computing
        line = diffs[0].first_changed_line if diffs else first_lines(blocks, payload.get("locations"))[0]
        path = blocks[0]["path"]
        self.post_message(FilePreview.OpenFile(workspace_relative(path, workspace_root(self)), None, path, line=line))
