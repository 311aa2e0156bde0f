"""The agent's slash commands, offered as the prompt's text starts with ``/``: filtered as you type, with each
command's description and what it takes after its name (its input hint)."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from kandev_tui.base.sanitize import visible
from kandev_tui.session.controls import Command

SHOWN_AT_MOST = 8


class CommandMenu(OptionList):
    """Shown over the prompt while it offers commands; the prompt moves its highlight and takes its choice (the
    menu never takes focus: typing goes on in the prompt)."""

    can_focus = False
    DEFAULT_CSS = """
    CommandMenu { height: auto; max-height: 10; border: round $accent 60%; background: $surface; padding: 0;
                  margin: 0 1; display: none; }
    """

    _prefix = "/"
    _laid_out_at = 0  # the width the lines were cut to

    def offer(self, commands: list[Command], prefix: str = "/") -> None:
        """Show ``commands`` (none: hide), each name after ``prefix`` (``@`` for the workspace's files)."""
        self.commands = commands[:SHOWN_AT_MOST * 4]
        self._prefix = prefix
        self._lay_out(0)
        self.display = bool(self.commands)

    def _text_width(self) -> int:
        """The width a line has: the menu's own once shown; hidden (no size yet), what the prompt's width leaves it
        (its margin and border, and the scroll bar when it holds more than it shows). A line is one row, cut to it."""
        if self.size.width:
            return self.scrollable_content_region.width
        across = self.parent.size.width if isinstance(self.parent, Widget) else self.app.size.width
        return across - 4 - (self.styles.scrollbar_size_vertical if len(self.commands) > SHOWN_AT_MOST else 0)

    def _lay_out(self, highlighted: int) -> None:
        width = self._laid_out_at = max(20, self._text_width())
        self.clear_options()
        for command in self.commands:
            line = Text.assemble((self._prefix + visible(command.name, keep_newlines=False), "bold"))
            if command.hint:
                line.append(" " + visible(command.hint, keep_newlines=False), style="italic")
            if command.description:
                line.append("  " + visible(command.description, keep_newlines=False), style="dim")
            if line.cell_len > width:  # cut to one row, its ellipsis after a word, not after a gap
                line.truncate(width - 1)
                line.rstrip()
                line.append("…", style="dim")
            self.add_option(Option(line))
        if self.commands:
            self.highlighted = highlighted

    def on_resize(self) -> None:
        """Shown at last (or the terminal resized): the lines cut again to the width the menu has."""
        if self.open and self._text_width() != self._laid_out_at:
            self._lay_out(self.highlighted or 0)

    @property
    def open(self) -> bool:
        return bool(self.display and getattr(self, "commands", None))

    def move(self, step: int) -> None:
        if self.open:
            self.highlighted = ((self.highlighted or 0) + step) % len(self.commands)

    def chosen(self) -> Command | None:
        if not self.open or self.highlighted is None:
            return None
        return self.commands[self.highlighted]

    def close(self) -> None:
        self.commands = []
        self.display = False
