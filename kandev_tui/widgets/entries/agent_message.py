from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from rich.cells import cell_len
from textual import events
from rich.style import Style
from textual.color import Color
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from kandev_tui.base.pacing import DRAW_AGAIN, DRAW_AGAIN_FLOODING, DRAW_SLICE
from kandev_tui.transcript.items import Item

from kandev_tui.widgets.entries.base import EntryWidget, grown_text, match_spans, safe_text
from kandev_tui.widgets.context import context_of
from kandev_tui.widgets.markdown_lines import Lines, MarkdownLines
from kandev_tui.widgets.selectable import selectable_line, selected_text

if TYPE_CHECKING:
    from textual.selection import Selection
    from textual.timer import Timer

BLACK, WHITE = Color(0, 0, 0), Color(255, 255, 255)
MATCH = Style(reverse=True, bold=True)


def highlighted(strip: Strip, needle: str) -> Strip:
    """The line with each match of ``needle`` drawn reversed (a match broken over two lines is not marked)."""
    text = strip.text
    spans = match_spans(text, needle)
    if not spans:
        return strip
    parts, at = [], 0
    for start, end in spans:
        cells_start, cells_end = cell_len(text[:start]), cell_len(text[:end])
        parts += [strip.crop(at, cells_start), strip.crop(cells_start, cells_end).apply_style(MATCH)]
        at = cells_end
    parts.append(strip.crop(at, strip.cell_length))
    return Strip.join(parts)


class AgentMessage(EntryWidget):
    """The agent's Markdown, streamed: one widget that keeps its lines (:mod:`kandev_tui.widgets.markdown_lines`).

    It draws through Textual's line API: measuring it and painting the lines on screen read kept lines, so a
    message of thousands of lines costs a frame only what is visible of it, and a growing one only its last block.
    Only http(s) links are links.
    """

    DEFAULT_CSS = """
    AgentMessage { height: auto; margin: 1 0; padding: 0 1; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry")
        self.item = item
        self._document = MarkdownLines(safe_text(item.payload.get("text", "")), final=item.final)
        self._drawn: tuple[tuple[int, str], Lines] | None = None  # ((width, theme), the document's lines)
        self._drawing: Timer | None = None  # the next slice of blocks not drawn yet
        self._told_parsing = False  # what the transcript was last told of the backlog (see parsing)

    def on_click(self, event: events.Click) -> None:
        """A click on a link opens it: in the system's browser, or, under ``kandev-tui serve``, in a new tab of the
        browser the app is shown in (Textual's ``open_url``). Only http(s) links carry a target here."""
        link = event.style.link
        if link and link.startswith(("http://", "https://")):
            event.stop()
            self.app.open_url(link)

    def update_item(self, item: Item) -> None:
        held, self.item = self.item, item
        grown = grown_text(held, item)
        if grown is not None:  # the text only grew since the version held: what came is made safe and added
            changed = self._document.append(safe_text(grown))
            if item.final:
                changed = self._document.finish() or changed
        else:
            changed = self._document.update(safe_text(item.payload.get("text", "")), final=item.final)
        if changed:
            self._drawn = None
            self.refresh(layout=True)
        self._tell_parsing()

    def _tell_parsing(self) -> None:
        """The transcript is told when the backlog comes and when it is gone (it counts the entries still settling)."""
        parsing = self.parsing
        if parsing != self._told_parsing and self.is_mounted:
            self._told_parsing = parsing
            context_of(self).settling(self, parsing)

    def on_mount(self) -> None:
        self._told_parsing = self.parsing  # (what EntryWidget's on_mount tells)

    def _strips(self, width: int, budget: float | None = 0.0, wanted: Iterable[int] = ()) -> Lines:
        """Every line at ``width``, kept until the text, the width or the theme changes (read per visible line).
        A frame draws only the last block of a streaming message (``budget`` 0): the blocks split off before it are
        drawn a slice at a time between frames (:meth:`draw_more`), those in view first; while the session floods
        (its output comes as fast as it is read), only those in view: the others wait for the flood to pause, so
        that drawing what nobody sees does not slow the reading of what comes."""
        key = (width, self.app.theme)
        if self._drawn is not None and self._drawn[0] == key and (budget == 0 or not self._drawn[1].pending):
            return self._drawn[1]
        app = self.app
        theme = app.current_theme
        _, background = self.background_colors  # code on a shade of it, as Textual's own Markdown draws code
        shade = background.blend(BLACK if theme.dark else WHITE, 0.1 if theme.dark else 0.3)
        self._document.set_theme(theme.name, theme.dark, theme, shade.hex)
        flooding = budget != 0 and context_of(self).flooding()
        strips = self._document.strips(app.console, app.console_options.update(width=width, highlight=False),
                                       budget, wanted, not flooding)
        self._drawn = (key, strips)
        if strips.pending and self._drawing is None:
            # (text not shown yet is split and shown at the usual pace, flood or not)
            pause = DRAW_AGAIN_FLOODING if flooding and not self._document.backlog else DRAW_AGAIN
            self._drawing = self.set_timer(pause, self.draw_more)
        return strips

    def draw_more(self) -> None:
        """A slice more of the blocks not drawn yet, those in view first; again after a pause until none is left."""
        self._drawing = None
        width = self._width()
        if width <= 0:
            return
        before, backlog = self._strips(width), self._document.backlog
        drawn = self._strips(width, DRAW_SLICE, self._rows_in_view())
        context_of(self).working()  # (no full garbage collection while this goes on: kandev_tui/base/gcpolicy.py)
        self._tell_parsing()
        if len(drawn) != len(before):
            self.refresh(layout=True)
        elif drawn.pending != before.pending or self._document.backlog != backlog:
            self.refresh()  # (else nothing was drawn: a flood holds back what is not in view)

    def _rows_in_view(self) -> range:
        parent = self.parent
        if not isinstance(parent, Widget):
            return range(0)
        if getattr(parent, "following", False) and self._drawn is not None:
            # a view that follows is at its end, or on its way there: the rows in view are the message's last, not
            # those scroll_y says before the frame that scrolls (under load, a flood's draw came first and drew the
            # top of the message, which nobody was going to see)
            total = len(self._drawn[1])
            return range(max(0, total - parent.size.height), total)
        top = int(parent.scroll_y) - self.virtual_region.y - self.styles.gutter.top
        return range(max(0, top), max(0, top + parent.size.height))

    def _width(self) -> int:
        parent = self.parent
        if not self.is_attached or not isinstance(parent, Widget):
            return 0
        return parent.scrollable_content_region.width - self.styles.gutter.width

    def predraw(self) -> None:
        """Draw the lines at the width the transcript gives its entries, ahead of the frame that measures them (the
        transcript calls this for each new or grown message, a few per event-loop turn, so that a frame of a flood
        does not draw a screen of Markdown at once)."""
        width = self._width()
        if width > 0:
            self._strips(width, DRAW_SLICE, self._rows_in_view())
            self._tell_parsing()

    @property
    def drawing_rest(self) -> bool:
        """Blocks not drawn yet (they stand as blank lines of about their height) are being drawn a slice at a time."""
        return self._drawing is not None

    @property
    def backlog(self) -> int:
        """Characters that came and are not shown yet (split into blocks a slice at a time: :meth:`draw_more`)."""
        return self._document.backlog

    @property
    def parsing(self) -> bool:
        return self.backlog > 0

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._strips(width)) if width > 0 else 0

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        strips = self._strips(width)
        style = self.rich_style
        if y >= len(strips):
            return Strip.blank(width, style)
        strip = selectable_line(self, strips[y], y)
        if self.hit_needle:
            strip = highlighted(strip, self.hit_needle)
        return strip.apply_style(style)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text selected with the mouse, as the lines draw it (:mod:`.selectable`)."""
        width = self.content_region.width
        return selected_text(selection, self._strips(width, None)) if width > 0 else None

    def hit_row(self, needle: str) -> int | None:
        from kandev_tui.widgets.search_marks import row_of

        width = self.content_region.width
        return row_of([strip.text for strip in self._strips(width, None)], needle) if width > 0 else None

    def render(self) -> MarkdownLines:  # what Textual would draw whole (not used while render_line is)
        return self._document

    @property
    def searchable_text(self) -> str:
        return self._document.text
