"""The sessions beside the transcript: at 120 columns and more, with several sessions, each transcript screen has
this list on its left (``ctrl+b`` hides and shows it); enter or a click shows the session picked. Narrower, the
sessions list is a screen of its own (ctrl+s: kandev_tui/screens/sessions.py). Both draw a session's row with
:func:`row_text`."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from kandev_tui.session.row import SessionRow
from kandev_tui.widgets.entries.base import SUBAGENT_STATE_STYLE, safe_text

SIDEBAR_FROM = 120  # columns: the list stands beside the transcript from this width
ROW_LINES = 2  # each session's row

ACTIVITY_STYLE = {"waiting for you": ("?", "bold yellow"), "working": ("●", "yellow"), "starting": ("◌", "yellow"),
                  "idle": ("○", "green"), "failed": ("✖", "red"), "ended": ("■", "dim"), "stored": ("■", "dim"),
                  "replayed": ("■", "dim")}


def row_text(row: SessionRow, width: int) -> Text:
    """One session in two lines, every part made inert: its state, number, agent and what is new (first, so that
    it shows at 45 columns), then the other sessions editing its folder, its title, what it waits for or why it
    failed, its branch and its folder."""
    text = _first_line(row, max(10, width))
    second = Text("    ")
    if row.shares_with:  # their agents can edit the same files: first, where the sidebar's 34 columns still show it
        others = [str(n) for n in row.shares_with]
        second.append(f"same folder as {', '.join(others[:-1]) + ' and ' if len(others) > 1 else ''}{others[-1]}",
                      style="yellow")
        second.append("  ")
    if row.title:
        second.append(safe_text(row.title, keep_newlines=False), style="italic")
        second.append("  ")
    words_end = len(second.plain)  # up to here words, cut between two; the folder after them is cut where it ends
    where = safe_text(row.workspace, keep_newlines=False)
    if row.branch:  # before the folder, whose end is cut first (a worktree's folder is long: the branch says it)
        where = f"{safe_text(row.branch, keep_newlines=False)} · {where}"
    if row.detail and row.activity in ("failed", "waiting for you", "working"):  # (working: quiet for how long)
        where = f"{safe_text(row.detail, keep_newlines=False)}  {where}"
    second.append(where, style="dim")
    cut_between_words(second, max(10, width), words_end)
    text.append("\n")
    text.append_text(second)
    return text


def cut_between_words(text: Text, width: int, words_end: int) -> None:
    """``text`` cut to ``width`` cells with an ellipsis: between two words where the cut falls in its first
    ``words_end`` characters (a title: "fix the…", not "fix the bu…"), else where it falls (a folder's end)."""
    if text.cell_len <= width:
        return
    plain = text.plain
    if width - 1 < words_end:
        space = plain.rfind(" ", 0, width)
        if space > len(plain) - len(plain.lstrip()) + 4:  # a word before it, not only the indent
            text.truncate(space)
            text.rstrip()
            text.append("…")
            return
    text.truncate(width, overflow="ellipsis")


def _first_line(row: SessionRow, width: int) -> Text:
    """Its state, number, what is new and its agent, in ``width`` columns. Where that is too long (the sidebar's 33
    columns), the agent, which tells the sessions apart, is kept over the rest: its cost goes first, then "on
    screen" (the highlight says it), then the state's word is made its first ("waiting"; the mark and its colour say
    the state too) and "+N new" a "+N"; only then is the agent's name cut."""
    mark, style = ACTIVITY_STYLE.get(row.activity, ("·", ""))
    agent = safe_text(row.agent, keep_newlines=False)
    state, new = row.activity, f"+{row.unseen} new" if row.unseen else ""
    cost, on_screen = row.cost, "on screen" if row.current else ""
    fixed = cell_len(f"{mark} {row.number} ") + 2 + cell_len(agent)  # (measured as plain text: one Text is made)
    for step in range(4):
        if step == 1:
            cost = ""
        elif step == 2:
            on_screen = ""
        elif step == 3:
            state, new = (state.split() or [""])[0], new.removesuffix(" new")
        extra = " · ".join(e for e in (new, cost, on_screen) if e)
        if fixed + len(state) + (len(extra) + 2 if extra else 0) <= width:
            break
    text = Text.assemble((f"{mark} ", style), (f"{row.number} ", "bold"), (state, style),
                         ("  " + extra if extra else "", "dim"), "  ", (agent, "bold"))
    text.truncate(width, overflow="ellipsis")
    return text


def child_text(title: str, state: str, width: int) -> Text:
    """A subagent of a session, under its row: its title and state, inert."""
    text = Text.assemble("    ↳ ", (safe_text(title, keep_newlines=False), "italic"), " · ",
                         (state, SUBAGENT_STATE_STYLE.get(state, "")))
    text.truncate(max(10, width), overflow="ellipsis")
    return text


class SessionsSidebar(ScrollView):
    """The sessions, one row of two lines each, the one on screen highlighted.

    Not an OptionList: that list draws every row again whenever one changes (a new prompt clears all its caches),
    and a session's state or its "+N new" changes often: with 30 sessions each change cost the UI 20 ms (7 ms with
    8). Here only the rows that changed are drawn again (their lines refreshed), each kept drawn until it changes.
    """

    DEFAULT_CSS = """
    SessionsSidebar { dock: left; width: 34; height: 1fr; border: none; border-right: vkey $foreground 15%;
                      padding: 0 0 1 0; background: $surface; overflow-x: hidden; }
    SessionsSidebar > .sessions-sidebar--highlighted { color: $block-cursor-blurred-foreground;
                                                       background: $block-cursor-blurred-background; }
    SessionsSidebar > .sessions-sidebar--hover { background: $block-hover-background; }
    SessionsSidebar:focus > .sessions-sidebar--highlighted { color: $block-cursor-foreground;
                                                             background: $block-cursor-background;
                                                             text-style: $block-cursor-text-style; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"sessions-sidebar--highlighted", "sessions-sidebar--hover"}
    BINDINGS = [Binding("up", "move(-1)", "Up", show=False), Binding("down", "move(1)", "Down", show=False),
                Binding("home", "move_to(0)", show=False), Binding("end", "move_to(-1)", show=False),
                Binding("pageup", "page(-1)", show=False), Binding("pagedown", "page(1)", show=False),
                Binding("enter", "pick", "Show")]

    # (its last line is padding: the footer, docked too, lies over it, and it hid the last row's second line)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.can_focus = False  # while hidden: the focus never lands here when the prompt is disabled (the app
        # makes it focusable when it shows it)
        self.rows: list[SessionRow] = []
        self._highlighted: int | None = None
        self._hover: int | None = None  # the row under the mouse
        self._drawn: dict[int, tuple[tuple[Any, ...], list[Strip]]] = {}  # each row's lines, and what they show

    class Picked(Message):
        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    @property
    def option_count(self) -> int:
        return len(self.rows)

    @property
    def highlighted(self) -> int | None:
        return self._highlighted

    @highlighted.setter
    def highlighted(self, index: int | None) -> None:
        if index is not None:
            index = max(0, min(index, len(self.rows) - 1)) if self.rows else None
        if index == self._highlighted:
            return
        for row in (self._highlighted, index):
            if row is not None:
                self.refresh_lines(ROW_LINES * row, ROW_LINES)
        self._highlighted = index
        self._show_highlighted()

    def _show_highlighted(self) -> None:
        """The highlighted row scrolled into view (once the sidebar has its size: it may get its rows while hidden)."""
        if self._highlighted is not None and self.size.height:
            self.scroll_to_region(Region(0, ROW_LINES * self._highlighted, 1, ROW_LINES), animate=False,
                                  immediate=True)

    def show_rows(self, rows: list[SessionRow]) -> None:
        """The rows again: only those that changed are drawn again (nothing when none did); the highlight stays where
        the user moved it while the list has the focus, else it is on the session on screen."""
        if rows == self.rows:
            return
        before, self.rows = self.rows, list(rows)
        if len(before) != len(rows):
            self._drawn.clear()
            self._fit_rows()
            self.refresh()
        else:
            for index, (old, new) in enumerate(zip(before, rows)):
                if old != new:
                    self.refresh_lines(ROW_LINES * index, ROW_LINES)
        current = next((i for i, row in enumerate(rows) if row.current), None)
        if self.has_focus and self._highlighted is not None and rows:
            self.highlighted = min(self._highlighted, len(rows) - 1)
        elif current is not None:
            self.highlighted = current

    def notify_style_update(self) -> None:
        self._drawn.clear()  # (a theme, the focus: the highlight's colours)
        super().notify_style_update()

    def _fit_rows(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, ROW_LINES * len(self.rows))

    def on_resize(self) -> None:
        self._drawn.clear()
        self._fit_rows()
        self.call_after_refresh(self._show_highlighted)  # shown: where the highlight is (the session on screen)

    def on_focus(self) -> None:
        self.refresh()  # the highlight's colours follow the focus (a row's drawn lines say which they were drawn for)

    def on_blur(self) -> None:
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index, part = divmod(self.scroll_offset.y + y, ROW_LINES)
        if index >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        return self._lines_of(index, width)[part]

    def _lines_of(self, index: int, width: int) -> list[Strip]:
        """Row ``index``'s lines, drawn again only when what they show changed."""
        highlighted, hover = index == self._highlighted, index == self._hover
        shows = (self.rows[index], width, highlighted, hover, self.has_focus)
        drawn = self._drawn.get(index)
        if drawn is not None and drawn[0] == shows:
            return drawn[1]
        base = self.get_component_rich_style("sessions-sidebar--highlighted" if highlighted else
                                             "sessions-sidebar--hover") if highlighted or hover else self.rich_style
        console = self.app.console
        lines = [Strip(list(line.render(console)), line.cell_len).crop_extend(0, width, base).apply_style(base)
                 for line in row_text(self.rows[index], width - 1).split("\n")[:ROW_LINES]]
        lines += [Strip.blank(width, base)] * (ROW_LINES - len(lines))
        self._drawn[index] = (shows, lines)
        return lines

    def _row_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        index = (self.scroll_offset.y + offset.y) // ROW_LINES
        return index if 0 <= index < len(self.rows) else None

    def _set_hover(self, index: int | None) -> None:
        if index != self._hover:
            for row in (self._hover, index):
                if row is not None:
                    self.refresh_lines(ROW_LINES * row, ROW_LINES)
            self._hover = index

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._row_at(event))

    def on_leave(self) -> None:
        self._set_hover(None)

    def on_click(self, event: events.Click) -> None:
        index = self._row_at(event)
        if index is not None:
            self.highlighted = index
            self.action_pick()

    def action_move(self, step: int) -> None:
        if self.rows:
            self.highlighted = (self._highlighted if self._highlighted is not None else -step) + step

    def action_move_to(self, index: int) -> None:
        if self.rows:
            self.highlighted = index % len(self.rows)

    def action_page(self, direction: int) -> None:
        if self.rows:
            self.action_move(direction * max(1, self.scrollable_content_region.height // ROW_LINES))

    def action_pick(self) -> None:
        if self._highlighted is not None and self._highlighted < len(self.rows):
            self.post_message(self.Picked(self.rows[self._highlighted].number))
