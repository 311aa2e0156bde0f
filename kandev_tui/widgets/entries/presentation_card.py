"""A rich-output call in the transcript: one card that stands alone, whatever its state."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from kandev_tui.ui.charts import ChartData
from kandev_tui.presentation import State, StoredPresentation
from kandev_tui.session.parsed import presentation_of
from kandev_tui.transcript.items import Item

from kandev_tui.widgets.entries.base import EntryWidget, mount_into, safe_text
from kandev_tui.widgets.context import context_of
from kandev_tui.widgets.entries.chart_block import ChartBlock
from kandev_tui.widgets.entries.file_preview import FilePreview
from kandev_tui.widgets.entries.metrics_block import MetricsBlock

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
UNAVAILABLE = "This presentation is unavailable."


def chart_data(key: str, block) -> ChartData:
    """The chart as the adapter draws it; every label passes through the one sanitising path."""
    return ChartData(
        key=key,
        chart_type=block.chart_type,
        labels=tuple(safe_text(label, keep_newlines=False) for label in block.labels),
        series_labels=tuple(safe_text(s.label, keep_newlines=False) for s in block.series),
        values=tuple(tuple(s.values) for s in block.series),
    )


class PresentationCard(EntryWidget):
    """Pending/running: one compact "visual output" row with a spinner and none of the agent's
    data; failed: the tool's error; cancelled: a compact row; unavailable: the notice in its
    frame; ready: title, description and every block."""

    DEFAULT_CSS = """
    PresentationCard { height: auto; margin: 1 0 0 0; }
    PresentationCard > .row { padding: 0 1; color: $text-muted; }
    PresentationCard > .row.failed { color: $text; border-left: thick $error; }
    PresentationCard > Vertical { height: auto; border: round $accent 60%; padding: 0 1; }
    PresentationCard > Vertical > .heading { text-style: bold; }
    PresentationCard > Vertical > .description { color: $text-muted; margin: 0 0 1 0; }
    PresentationCard > Vertical > .unavailable { color: $text-muted; text-style: italic; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry presentation")
        self.key = item.key
        self._item = item
        self.result: StoredPresentation | None = None
        self._spin = 0
        self._timer: Timer | None = None
        self._row = Static(classes="row")
        self._frame: Vertical | None = None
        self._text = ""

    def compose(self) -> ComposeResult:
        yield self._row

    def on_mount(self) -> None:
        self._apply()

    def update_item(self, item: Item) -> None:
        self._item = item
        if self.is_mounted:
            self._apply()

    def _parse(self) -> StoredPresentation:
        self.result = presentation_of(self._item)  # once per item version (kandev_tui/session/parsed.py)
        return self.result

    def _apply(self) -> None:
        result = self._parse()
        state = result.state
        if state in (State.PENDING, State.RUNNING):
            self._show_row()
            if self._timer is None and context_of(self).animations_enabled():
                self._timer = self.set_interval(0.1, self._tick)
            self._draw_spinner()
            return
        self._stop_spinner()
        if state is State.FAILED:
            self._show_row("failed")
            self._row.update(Text.assemble(("✖ Visual output failed: ", "bold red"), safe_text(result.error or "")))
            self._text = f"Visual output failed: {result.error}"
            return
        if state is State.CANCELLED:
            self._show_row()
            self._row.update(Text("⊘ Visual output cancelled", style="dim"))
            self._text = "Visual output cancelled"
            return
        self._row.display = False
        if self._frame is not None:
            self._frame.remove()
            self._frame = None
        if state is not State.READY or result.presentation is None:
            self._frame = Vertical(Static(Text(UNAVAILABLE), classes="unavailable"))
            mount_into(self, self._frame)
            self._text = UNAVAILABLE
            return
        presentation = result.presentation
        widgets: list[Widget] = [Static(Text("◆ " + safe_text(presentation.title, keep_newlines=False)), classes="heading")]
        if presentation.description:
            widgets.append(Static(Text(safe_text(presentation.description)), classes="description"))
        texts = [presentation.title, presentation.description or ""]
        for index, block in enumerate(presentation.blocks):
            if block.type == "chart":
                widgets.append(ChartBlock(chart_data(f"{self.key}#{index}", block), block.title, block.summary))
                texts += [block.title, block.summary, *block.labels, *(s.label for s in block.series)]
            elif block.type == "metrics":
                widgets.append(MetricsBlock(block))
                texts += [f"{m.label} {m.value} {m.detail or ''}" for m in block.items]
            else:
                widgets.append(FilePreview(block))
                texts += [block.path, block.title or "", block.caption or ""]
        self._text = " ".join(texts)
        self._frame = Vertical(*widgets)
        mount_into(self, self._frame)

    def _show_row(self, extra: str = "") -> None:
        self._row.display = True
        self._row.set_class(extra == "failed", "failed")
        if self._frame is not None:
            self._frame.remove()
            self._frame = None

    def _tick(self) -> None:
        self._spin = (self._spin + 1) % len(SPINNER)
        self._draw_spinner()

    def _draw_spinner(self) -> None:
        state = self.result.state if self.result else State.PENDING
        mark = SPINNER[self._spin] if self._timer is not None else "…"
        verb = "preparing" if state is State.PENDING else "rendering"
        self._row.update(Text.assemble((f"{mark} ", "bold"), ("Visual output ", "bold"), (verb, "dim")))
        self._text = "Visual output"

    def _stop_spinner(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    @property
    def charts(self) -> list[ChartBlock]:
        return list(self.query(ChartBlock))

    @property
    def searchable_text(self) -> str:
        return self._text
