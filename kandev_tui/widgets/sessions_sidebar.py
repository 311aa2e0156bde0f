"""The sessions beside the transcript: at 120 columns and more, with several sessions, each transcript screen has
this list on its left (``ctrl+b`` hides and shows it); enter or a click shows the session picked. Narrower, the
sessions list is a screen of its own (ctrl+s: kandev_tui/screens/sessions.py). Both draw a session's row with
:func:`row_text`."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from kandev_tui.session.row import SessionRow
from kandev_tui.widgets.base import SUBAGENT_STATE_STYLE, safe_text

SIDEBAR_FROM = 120  # columns: the list stands beside the transcript from this width

ACTIVITY_STYLE = {"waiting for you": ("?", "bold yellow"), "working": ("●", "yellow"), "starting": ("◌", "yellow"),
                  "idle": ("○", "green"), "failed": ("✖", "red"), "ended": ("■", "dim"), "stored": ("■", "dim"),
                  "replayed": ("■", "dim")}


def row_text(row: SessionRow, width: int) -> Text:
    """One session in two lines, every part made inert: its state, number, agent and what is new (first, so that
    it shows at 45 columns), then the other sessions editing its folder, its title, what it waits for or why it
    failed, its branch and its folder."""
    mark, style = ACTIVITY_STYLE.get(row.activity, ("·", ""))
    text = Text.assemble((f"{mark} ", style), (f"{row.number} ", "bold"), (row.activity, style))
    extra = [f"+{row.unseen} new" if row.unseen else "", row.cost, "on screen" if row.current else ""]
    if any(extra):
        text.append("  " + " · ".join(e for e in extra if e), style="dim")
    text.append("  ")
    text.append(safe_text(row.agent, keep_newlines=False), style="bold")
    text.truncate(max(10, width), overflow="ellipsis")
    second = Text("    ")
    if row.shares_with:  # their agents can edit the same files: first, where the sidebar's 34 columns still show it
        others = [str(n) for n in row.shares_with]
        second.append(f"same folder as {', '.join(others[:-1]) + ' and ' if len(others) > 1 else ''}{others[-1]}",
                      style="yellow")
        second.append("  ")
    if row.title:
        second.append(safe_text(row.title, keep_newlines=False), style="italic")
        second.append("  ")
    where = safe_text(row.workspace, keep_newlines=False)
    if row.branch:  # before the folder, whose end is cut first (a worktree's folder is long: the branch says it)
        where = f"{safe_text(row.branch, keep_newlines=False)} · {where}"
    if row.detail and row.activity in ("failed", "waiting for you"):
        where = f"{safe_text(row.detail, keep_newlines=False)}  {where}"
    second.append(where, style="dim")
    second.truncate(max(10, width), overflow="ellipsis")
    text.append("\n")
    text.append_text(second)
    return text

def child_text(title: str, state: str, width: int) -> Text:
    """A subagent of a session, under its row: its title and state, inert."""
    text = Text.assemble("    ↳ ", (safe_text(title, keep_newlines=False), "italic"), " · ",
                         (state, SUBAGENT_STATE_STYLE.get(state, "")))
    text.truncate(max(10, width), overflow="ellipsis")
    return text


class SessionsSidebar(OptionList):
    """The sessions, one row each, the one on screen highlighted."""

    DEFAULT_CSS = """
    SessionsSidebar { dock: left; width: 34; height: 1fr; border: none; border-right: vkey $foreground 15%;
                      padding: 0; background: $surface; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.can_focus = False  # while hidden: the focus never lands here when the prompt is disabled (the app
        # makes it focusable when it shows it)

    class Picked(Message):
        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    _rows: list[SessionRow] | None = None

    def show_rows(self, rows: list[SessionRow]) -> None:
        """The rows again (nothing is redrawn when none changed); the highlight stays where the user moved it while
        the list has the focus, else it is on the session on screen."""
        if rows == self._rows:
            return
        self._rows = rows
        highlighted = self.highlighted
        width = self.styles.width.value if self.styles.width is not None else 34
        self.clear_options()
        self.add_options([Option(row_text(row, int(width) - 2), id=str(row.number)) for row in rows])
        current = next((i for i, row in enumerate(rows) if row.current), None)
        if self.has_focus and highlighted is not None and rows:
            self.highlighted = min(highlighted, len(rows) - 1)
        elif current is not None:
            self.highlighted = current

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.Picked(int(event.option.id)))
