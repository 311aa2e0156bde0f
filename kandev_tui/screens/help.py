from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from kandev_tui.ui.textual_hooks import DrawsInputAtOnce


KEYS = [
    ("Everywhere", [("ctrl+q", "quit (or ctrl+c twice, when no text is selected)"),
                    ("drag, then ctrl+c", "copy the text selected (a message's, a call's output, the prompt's)"),
                    ("F1", "this help (F1 again closes it)"), ("F2", "settings"),
                    ("ctrl+p", "command palette"), ("tab / shift+tab", "move between the prompt and transcript items"),
                    ("typing", "goes to the prompt, wherever the focus is (but the keys below)"),
                    ("ctrl+f", "search the whole session (enter or F3: next hit, escape: close)"),
                    ("escape", "cancel the running turn"),
                    ("ctrl+o", "the agent's modes, models and options"), ("ctrl+l", "log in, when the agent waits for it")]),
    ("Several sessions", [("ctrl+s", "the sessions list (escape: back; at 120 columns beside the transcript: focus it)"),
                          ("f4", "the request here you typed past, else the session waiting longest for you (it was "
                                 "ctrl+g, which is the editor now, as in the agents' own terminal UIs)"),
                          ("ctrl+w twice", "close this session"),
                          ("ctrl+b", "hide or show the sessions beside the transcript"),
                          ("ctrl+n", "a new session: preset, folder, git worktree, first prompt"),
                          ("enter (in the list)", "open a session (a stored one read-only)"),
                          ("c (in the list)", "continue a stored session with its agent"),
                          ("d (in the list)", "delete a stored session (confirmed first)"),
                          ("/ (in the list)", "search every stored session's words; enter on a hit opens its "
                                              "session there (escape closes the search)")]),
    ("Prompt", [("enter", "send (during a turn: queued, sent when it ends)"),
                ("↑ (empty prompt)", "the last queued message back, to edit or delete; else the messages sent "
                                     "before (↓: the next)"),
                ("ctrl+r", "send the next queued message now (the running turn is cancelled)"),
                ("ctrl+t", "take the next queued message out (back in the prompt)"),
                ("ctrl+j / alt+enter", "new line"),
                ("ctrl+g", "edit the prompt in $VISUAL or $EDITOR (as in Claude Code, Codex, Gemini CLI); it comes "
                           "back here, not sent"),
                ("/", "the agent's slash commands (tab or enter completes)"),
                ("@", "send a workspace file with the message (the files offered as you type; tab or enter "
                      "completes)")]),
    ("Transcript", [("pageup / pagedown", "scroll"), ("ctrl+home / ctrl+end", "first / latest output"),
                    ("enter / space", "expand a tool group or file preview"), ("m", "more / less of a tool's output")]),
    ("Login screen", [("1-9", "choose a way to log in (a variable's value is typed in its box, then enter)"),
                      ("escape", "later")]),
    ("Permission request", [("1-9", "choose an option"), ("f4", "the keys back to it, after typing in the prompt"),
                            ("←/→ + enter", "choose with the buttons")]),
    ("Agent's question (form)", [("1-9, or enter on an option", "a question of one list of options: choose and send "
                                                              "(as a permission request)"),
                                 ("tab / shift+tab", "the next / previous field"),
                                 ("enter (on a button)", "review, send or decline"),
                                 ("escape", "cancel the question (not the turn)")]),
    ("Edit card", [("m", "the whole diff, or its first lines"), ("s", "old and new side by side (100 columns or more)"),
                   ("o", "open the file at its first change")]),
    ("Changes card, review", [("enter", "review the turn's changes, file by file"),
                              ("n / p", "next / previous file"), ("] / [", "next / previous hunk"),
                              ("s", "side by side (100 columns or more)"),
                              ("r / R", "restore the file / the files the turn's tool calls named, as before it "
                                        "(asked first; a: all, the agent's own state too)"),
                              ("u", "undo the restore"), ("escape", "back")]),
    ("Chart (focused)", [("1-4", "show or hide a series"), ("←/→ home end", "inspect values"),
                         ("d", "data view (table)"), ("escape", "hide the cursor")]),
    ("File preview", [("enter", "preview"), ("o", "open in the viewer (/ search, escape back)")]),
    ("Subagent", [("enter", "its calls and the latest it said"), ("o", "full screen, followed live (escape back)"),
                  ("x", "cancel its work, where it can be cancelled")]),
]


def keys_markdown() -> str:
    """F1's list as the README's table (one row per key; tests/unit/test_app.py holds the README to it): one list of
    keys for both."""
    def cell(text: str) -> str:  # a "|" in a cell would end it
        return text.replace("|", "\\|")

    rows = ["| where | key | what it does |", "|---|---|---|"]
    for section, keys in KEYS:
        for number, (key, what) in enumerate(keys):
            rows.append(f"| {section if number == 0 else ''} | `{cell(key)}` | {cell(what)} |")
    return "\n".join(rows)


BOLD = Style(bold=True)
LONGEST_KEY = max(len(word) for _section, keys in KEYS for key, _what in keys for word in key.split())


class KeyTable:
    """Every key in one table, a section per place, so the key column lines up from top to bottom; its lines laid out
    once per width (Textual draws a widget's content twice when it first shows it: to measure it, then to paint it).

    The key column is as wide as the widest key where it can be, and never narrower than the longest key name: a
    long key wraps at its spaces ("tab /", "shift+tab"), never inside a name. The columns are laid out here, not by
    a rich Table: the same lines in a fifth of the time, which the first F1 waited for."""

    def __init__(self) -> None:
        self.lines: dict[int, list[list[Segment]]] = {}

    def __rich_console__(self, console, options):
        width = options.max_width
        if width not in self.lines:
            self.lines[width] = self.lay_out(console, width)
        newline = Segment.line()
        for line in self.lines[width]:
            yield from line
            yield newline

    @staticmethod
    def lay_out(console, width: int) -> list[list[Segment]]:
        widest = max(len(key) for _section, keys in KEYS for key, _what in keys)
        key_width = max(LONGEST_KEY, min(widest, (width - 3) * 2 // 5))
        what_width = max(1, width - key_width - 4)  # a space each side of each column
        title = Text.from_markup("[b]kandev-tui keys[/b]  (escape or F1 to close)")
        lines = [list(line.render(console)) for line in title.wrap(console, width)] + [[]]

        def wrapped(text: str, at: int) -> list[str]:
            return [line.plain for line in Text(text).wrap(console, at)]

        def row(keys: list[str], what: list[str]) -> None:
            for n in range(max(len(keys), len(what))):
                key = keys[n] if n < len(keys) else ""
                said = what[n] if n < len(what) else ""
                lines.append([Segment(" "), Segment(key.ljust(key_width), BOLD),
                              Segment("  " + said.ljust(what_width) + " ")])

        for number, (section, keys) in enumerate(KEYS):
            if number:
                row([""], [])
            row(wrapped(section, key_width), [])
            for key, what in keys:
                row(wrapped(key, key_width), wrapped(what, what_width))
        return lines


class HelpScreen(DrawsInputAtOnce, Screen[None]):
    """Every key, grouped by where it works."""

    BLANK = True  # nothing of its own to draw around the keys

    BINDINGS = [Binding("escape,q", "dismiss", "Close", priority=True)]  # F1 too: the app's binding toggles
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 90%; max-width: 80; height: 90%; border: round $accent; background: $surface; padding: 0 1;
                                  scrollbar-gutter: stable; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(KeyTable())  # one widget, laid out once per width
