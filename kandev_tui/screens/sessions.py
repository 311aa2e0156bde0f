"""The sessions list (ctrl+s): every session of the app, with its agent, workspace, title and state, the ones
waiting for the user marked, what arrived since the user last looked, and its cost when the agent reports one.
Enter shows the session picked; escape (or ctrl+s) goes back. Its rows are the app's snapshots
(:class:`~kandev_tui.app_session.SessionRow`), shown again whenever a session's state changes."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kandev_tui.session.row import SessionRow
from kandev_tui.textual_hooks import DrawsInputAtOnce
from kandev_tui.widgets.key_footer import KeyFooter
from kandev_tui.widgets.sessions_sidebar import row_text

class SessionsScreen(DrawsInputAtOnce, Screen[int | None]):
    """Lists the app's sessions; enter shows one (dismissed with its number), escape goes back."""

    DEFAULT_CSS = """
    SessionsScreen { layout: vertical; }
    SessionsScreen #sessions-title { height: auto; padding: 0 1; background: $panel; text-style: bold; }
    SessionsScreen OptionList { height: 1fr; border: none; padding: 0 1; }
    """
    BINDINGS = [Binding("escape", "back", "Back")]

    def __init__(self, rows: list[SessionRow]) -> None:
        super().__init__()
        self.rows = rows
        self.options = OptionList(id="sessions-list")
        self.heading = Static(id="sessions-title")

    def compose(self) -> ComposeResult:
        yield self.heading
        yield self.options
        yield KeyFooter()

    def on_mount(self) -> None:
        self.show_rows(self.rows)
        current = next((i for i, row in enumerate(self.rows) if row.current), 0)
        self.options.highlighted = current
        self.options.focus()

    def show_rows(self, rows: list[SessionRow]) -> None:
        """The rows again (a session's state changed), the highlight kept on the same session."""
        self.rows = rows
        highlighted = self.options.highlighted
        width = (self.size.width or self.app.size.width) - 4
        self.options.clear_options()
        self.options.add_options([Option(row_text(row, width), id=str(row.number)) for row in rows])
        if highlighted is not None and rows:
            self.options.highlighted = min(highlighted, len(rows) - 1)
        waiting = sum(1 for row in rows if row.activity == "waiting for you")
        heading = Text.assemble("Sessions", (f"  {len(rows)} open", "dim"))
        if waiting:
            heading.append(f"  · {waiting} waiting for you (ctrl+g)", style="bold yellow")
        self.heading.update(heading)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0) or None)

    def action_back(self) -> None:
        self.dismiss(None)
