"""The agent's slash commands, offered as the prompt's text starts with ``/``: filtered as you type, with each
command's description and what it takes after its name (its input hint)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from kandev_tui.sanitize import visible
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

    def offer(self, commands: list[Command], prefix: str = "/") -> None:
        """Show ``commands`` (none: hide), each name after ``prefix`` (``@`` for the workspace's files)."""
        self.commands = commands[:SHOWN_AT_MOST * 4]
        self.clear_options()
        width = max(20, self.size.width or 60)
        for command in self.commands:
            line = Text.assemble((prefix + visible(command.name, keep_newlines=False), "bold"))
            if command.hint:
                line.append(" " + visible(command.hint, keep_newlines=False), style="italic")
            if command.description:
                line.append("  " + visible(command.description, keep_newlines=False), style="dim")
            line.truncate(width - 2, overflow="ellipsis")
            self.add_option(Option(line))
        self.display = bool(self.commands)
        if self.commands:
            self.highlighted = 0

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
