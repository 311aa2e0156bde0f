from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid
from textual.widgets import Static

from kandev_tui.presentation.models import MetricsBlock as MetricsModel

from kandev_tui.widgets.entries.base import safe_text


def columns_for(width: int) -> int:
    """Panels per row: three at ≥ 100 columns, two at ≥ 60, one below."""
    return 3 if width >= 100 else 2 if width >= 60 else 1


class MetricPanel(Static):
    DEFAULT_CSS = """
    MetricPanel { height: 100%; border: round $panel-lighten-2; padding: 0 1; }  /* a row's cards as tall as its tallest */
    """


class MetricsBlock(Grid):
    """One panel per metric (label, value prominent, optional detail) in a grid that reflows with the width."""

    DEFAULT_CSS = """
    MetricsBlock { height: auto; grid-size: 3; grid-gutter: 0 1; grid-rows: auto; padding: 0 0 1 0; }
    """

    def __init__(self, block: MetricsModel) -> None:
        super().__init__()
        self.block = block

    def compose(self) -> ComposeResult:
        for metric in self.block.items:
            text = Text()
            text.append(safe_text(metric.label, keep_newlines=False) + "\n", style="dim")
            text.append(safe_text(metric.value), style="bold")
            if metric.detail:
                text.append("\n" + safe_text(metric.detail), style="italic dim")
            yield MetricPanel(text)

    def on_mount(self) -> None:
        self._reflow()

    def on_resize(self) -> None:
        self._reflow()

    def _reflow(self) -> None:
        columns = min(columns_for(self.app.size.width), len(self.block.items))
        if self.styles.grid_size_columns != columns:
            self.styles.grid_size_columns = columns
