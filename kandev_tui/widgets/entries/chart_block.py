"""A chart block: title, summary, the plot, a legend filter, an inspection cursor and a data view.

The plot is deferred: until the transcript says the block is near the viewport it
shows a placeholder of exactly the plot's height. It then plots once (animating
in once per run unless animation is off) and stays plotted; only its own resize or
a theme change draws it again, and every drawing goes through the memoised
:func:`kandev_tui.ui.charts.plot`.
"""

from __future__ import annotations

from typing import Callable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from kandev_tui.ui.charts import LEGEND_MARKS, ChartData, full_value, inspection, plot

from kandev_tui.widgets.entries.base import mount_into, safe_text
from kandev_tui.widgets.context import NO_PLOTTER, ChartsTell, context_of

ANIMATION_FRAMES = 8
ANIMATION_SECONDS = 0.5
SERIES_CSS = ("series-0", "series-1", "series-2", "series-3")


def plot_height(width: int) -> int:
    return 12 if width >= 60 else 10


class LegendEntry(Static):
    """One series in the legend: a toggle by click, Space or Enter."""

    can_focus = True
    BINDINGS = [Binding("space,enter", "toggle", "Show/hide series", show=False)]

    class Toggle(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int, label: str, color: str | None, mark: str = "■") -> None:
        super().__init__()
        self.index = index
        self.label = label
        self.color = color
        self.mark = mark  # without colour, the series' own marker (the cells its bars or line are drawn with)
        self.shown = True

    def draw(self, shown: bool, interactive: bool) -> None:
        self.shown = shown
        marker = Text("■ " if self.color else f"{self.mark} ", style=self.color or "")
        label = Text(f"{self.index + 1} {self.label}" if interactive else self.label,
                     style="" if shown else "dim strike")
        if not shown:
            marker.stylize("dim")
        self.update(marker + label)

    def action_toggle(self) -> None:  # type: ignore[override]  # this entry's series (DOMNode's takes an attribute)
        self.post_message(self.Toggle(self.index))

    def on_click(self) -> None:
        self.post_message(self.Toggle(self.index))


class PlotArea(Widget):
    """The plot's lines (or its placeholder) at a fixed height; reports the x position under the mouse.

    New content only repaints (no layout pass) unless the height changes, so plotting
    or moving the cursor never re-arranges the transcript.
    """

    DEFAULT_CSS = "PlotArea { height: 12; }"

    class Hover(Message):
        def __init__(self, x: int) -> None:
            super().__init__()
            self.x = x

    def __init__(self, drawn: Callable[[], None]) -> None:
        """``drawn()``: called each time Textual draws the area (it is on screen)."""
        super().__init__()
        self._content: Text = Text("")
        self._drawn = drawn

    def show(self, content: Text, height: int) -> None:
        self._content = content
        if self.styles.height is None or self.styles.height.value != height:
            self.styles.height = height  # a layout pass only when the height really changes
        self.refresh()

    def render(self) -> Text:
        self._drawn()
        return self._content

    def on_mouse_move(self, event) -> None:
        self.post_message(self.Hover(event.x))


class ChartBlock(Widget):
    """One chart of a presentation (see the module docstring)."""

    can_focus = True
    BINDINGS = [
        *[Binding(str(n), f"toggle_series({n - 1})", show=False) for n in range(1, 5)],
        Binding("left", "cursor(-1)", "Inspect ←", show=False),
        Binding("right", "cursor(1)", "Inspect →", show=False),
        Binding("home", "cursor_to(0)", show=False),
        Binding("end", "cursor_to(-1)", show=False),
        Binding("d", "data_view", "Data view"),
        Binding("escape", "clear_cursor", show=False),
    ]

    DEFAULT_CSS = """
    ChartBlock { height: auto; padding: 0 0 1 0; }
    ChartBlock:focus { background: $boost; }
    ChartBlock > .title { text-style: bold; }
    ChartBlock > .summary { color: $text-muted; }
    ChartBlock > Horizontal { height: auto; }
    ChartBlock LegendEntry { width: auto; margin: 0 2 0 0; }
    ChartBlock LegendEntry:focus { background: $accent 30%; }
    ChartBlock > .inspect { color: $text; height: auto; }
    ChartBlock > .data { display: none; height: auto; }
    ChartBlock.data-view > .data { display: block; }
    ChartBlock.data-view > PlotArea { display: none; }
    """

    visible_series: reactive[tuple[bool, ...]] = reactive(tuple, always_update=True, init=False)
    cursor: reactive[int | None] = reactive(None, init=False)

    class Plotted(Message):
        """The block drew its full geometry for the first time."""

        def __init__(self, block: "ChartBlock") -> None:
            super().__init__()
            self.block = block

    def __init__(self, data: ChartData, title: str, summary: str) -> None:
        super().__init__()
        self.data = data
        self.title = safe_text(title, keep_newlines=False)
        self.summary = safe_text(summary)
        self.plotted = False
        self.frame = 0.0
        self._timer: Timer | None = None
        self._plot = PlotArea(drawn=self._drawn_on_screen)
        self._plotter: ChartsTell = NO_PLOTTER  # the view's, told what this chart is (set when mounted)
        self._inspect = Static(classes="inspect")
        self._table = Static(classes="data")
        self._legend = Horizontal()
        self.set_reactive(ChartBlock.visible_series, tuple(True for _ in data.series_labels))

    # -- composition ------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(Text(self.title), classes="title")
        yield Static(Text(self.summary), classes="summary")
        yield self._plot
        yield self._legend
        yield self._inspect
        yield self._table

    def on_mount(self) -> None:
        self._plotter = context_of(self).charts
        self._plotter.mounted(self)
        colors = self._color_names()
        interactive = len(self.data.series_labels) > 1
        marks = LEGEND_MARKS["bar" if self.data.chart_type == "bar" else "line"]
        entries = [LegendEntry(i, safe_text(label, keep_newlines=False), colors[i] if colors else None, marks[i % 4])
                   for i, label in enumerate(self.data.series_labels)]
        for entry in entries:
            entry.can_focus = interactive
        if not mount_into(self._legend, *entries):
            return  # removed while mounting (the transcript's window moved)
        for entry in entries:
            entry.draw(True, interactive)
        self._draw()

    def on_unmount(self) -> None:
        self._plotter.gone(self)

    def _drawn_on_screen(self) -> None:
        """Textual drew the plot's area: on screen, so plotted soon if it is not (the plotter decides when)."""
        if not self.plotted:
            self._plotter.drawn(self)

    # -- colours & size -------------------------------------------------------

    def _colors(self) -> tuple[tuple[int, int, int], ...] | None:
        return context_of(self).series_colors()

    def _color_names(self) -> list[str] | None:
        colors = self._colors()
        return [f"rgb({r},{g},{b})" for r, g, b in colors] if colors else None

    @property
    def plot_width(self) -> int:
        return max(20, (self.size.width or self.app.size.width - 8))

    # -- plotting -------------------------------------------------------------

    def ensure_plotted(self) -> None:
        """Plot now (once): called when the block comes near the viewport."""
        if self.plotted:
            return
        self.plotted = True
        if context_of(self).should_animate(self.data.key):
            self.frame = 1.0 / ANIMATION_FRAMES
            self._timer = self.set_interval(ANIMATION_SECONDS / ANIMATION_FRAMES, self._next_frame)
        else:
            self.frame = 1.0
        self._draw()
        self.post_message(self.Plotted(self))

    def _next_frame(self) -> None:
        self.frame = min(1.0, self.frame + 1.0 / ANIMATION_FRAMES)
        if self.frame >= 1.0 and self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._draw()

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        width = self.plot_width
        height = plot_height(width)
        if not self.plotted:
            self._plot.show(Text(""), height)  # a placeholder of the plot's exact height
            return
        if not any(self.visible_series):
            hint = "All series are hidden: press 1-4 (or click the legend) to show one."
            lines = [Text("")] * (height // 2) + [Text(hint, style="dim italic")]
            lines += [Text("")] * (height - len(lines))
            self._plot.show(Text("\n").join(lines), height)
        else:
            lines = list(plot(self.data, width, height, self._colors(), self.visible_series, round(self.frame, 3)))
            if self.cursor is not None:
                lines = self._with_cursor(lines, width)
            self._plot.show(Text("\n").join(lines), height)
        self._draw_inspection()

    def _with_cursor(self, lines: list[Text], width: int) -> list[Text]:
        column = self._cursor_column(width, lines)
        if column is None:
            return lines
        bottom = next((row for row, line in enumerate(lines) if "└" in line.plain), len(lines) - 2)
        out = []
        for row, line in enumerate(lines):  # inside the frame: not its edges, nor the labels (one row or two)
            line = line.copy()
            if 0 < row < bottom and column < len(line):
                line.stylize("reverse", column, column + 1)
            out.append(line)
        return out

    def _plot_span(self, lines: list[Text] | None = None) -> tuple[int, int]:
        """The first and last column inside the plot frame."""
        sample = (lines or [Text("")])[0].plain
        left = sample.find("┌") + 1 if "┌" in sample else 4
        right = sample.rfind("┐") - 1 if "┐" in sample else max(left + 1, self.plot_width - 2)
        return left, max(left + 1, right)

    def _cursor_column(self, width: int, lines: list[Text]) -> int | None:
        if self.cursor is None:
            return None
        n = len(self.data.labels)
        left, right = self._plot_span(lines)
        if self.data.chart_type == "bar":
            return int(left + (self.cursor + 0.5) * (right - left) / n)
        return int(left + (self.cursor * (right - left) / max(1, n - 1) if n > 1 else (right - left) / 2))

    def _draw_inspection(self) -> None:
        if self.cursor is None:
            hint = "←/→ inspect · d data" + (" · 1-4 series" if len(self.data.series_labels) > 1 else "")
            self._inspect.update(Text(hint if self.has_focus else "", style="dim"))
            return
        label, values = inspection(self.data, self.cursor, self.visible_series)
        text = Text.assemble(("▸ ", "bold"), (safe_text(label, keep_newlines=False), "bold"))
        for _, series_label, value in values:
            text.append("  ·  ")
            text.append(safe_text(series_label, keep_newlines=False) + " ", style="dim")
            text.append(value, style="bold")
        self._inspect.update(text)

    def _draw_table(self) -> None:
        table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
        table.add_column("")
        for label in self.data.series_labels:  # Text, never str: Rich reads strings in tables as markup
            table.add_column(Text(safe_text(label, keep_newlines=False)), justify="right")
        for index, label in enumerate(self.data.labels):
            row = [Text(safe_text(label, keep_newlines=False))]
            for values in self.data.values:
                value = values[index]
                row.append(Text("" if value is None else full_value(value)))
            table.add_row(*row)
        self._last_table = table
        self._table.update(table)

    # -- reactions ------------------------------------------------------------------

    def watch_visible_series(self, visible: tuple[bool, ...]) -> None:
        interactive = len(self.data.series_labels) > 1
        for entry in self._legend.query(LegendEntry):
            entry.draw(visible[entry.index], interactive)
        self._draw()

    def watch_cursor(self, _cursor: int | None) -> None:
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def on_focus(self) -> None:
        self._draw_inspection()

    def on_blur(self) -> None:
        self._draw_inspection()

    def refresh_theme(self) -> None:
        colors = self._color_names()
        interactive = len(self.data.series_labels) > 1
        for entry in self._legend.query(LegendEntry):
            entry.color = colors[entry.index] if colors else None
            entry.draw(self.visible_series[entry.index], interactive)
        self._draw()

    def on_legend_entry_toggle(self, event: LegendEntry.Toggle) -> None:
        event.stop()
        self.action_toggle_series(event.index)

    def on_plot_area_hover(self, event: PlotArea.Hover) -> None:
        if not self.plotted:
            return
        n = len(self.data.labels)
        left, right = self._plot_span()
        if event.x < left or event.x > right:
            return
        fraction = (event.x - left) / max(1, right - left)
        index = int(fraction * n) if self.data.chart_type == "bar" else round(fraction * (n - 1))
        self.cursor = max(0, min(n - 1, index))

    # -- actions ----------------------------------------------------------------------

    def action_toggle_series(self, index: int) -> None:
        if len(self.data.series_labels) < 2 or index >= len(self.data.series_labels):
            return
        visible = list(self.visible_series)
        visible[index] = not visible[index]
        self.visible_series = tuple(visible)

    def action_cursor(self, delta: int) -> None:
        n = len(self.data.labels)
        self.cursor = 0 if self.cursor is None else max(0, min(n - 1, self.cursor + delta))

    def action_cursor_to(self, index: int) -> None:
        self.cursor = index % len(self.data.labels)

    def action_clear_cursor(self) -> None:
        self.cursor = None

    def action_data_view(self) -> None:
        showing = not self.has_class("data-view")
        self.set_class(showing, "data-view")
        if showing:
            self._draw_table()
