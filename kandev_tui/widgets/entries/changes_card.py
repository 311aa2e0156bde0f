"""What a turn changed, after its last message: "N files changed +a −d" and the files with their counts (those the
agent's commands changed too, and those of an agent that reports no diff), from the workspace's checkpoints. Files
no tool call of the turn named are summed up on a line of their own (an agent's own state in the workspace filled
the card), unless no tool call named any of them. Its
states: pending while it is computed, none, unavailable (the reason, said once a session). It says when another
session's turn ran in the same repository meanwhile. Enter (or a click) on it opens the review of its diffs."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message

from kandev_tui.transcript.items import Item

from kandev_tui.widgets.entries.base import TextEntry, safe_text

SHOWN_FILES = 8  # files listed on the card (the review has them all)
LETTERS = {"added": ("A", "green"), "modified": ("M", "yellow"), "deleted": ("D", "red"), "renamed": ("R", "cyan"),
           "copied": ("C", "cyan"), "type changed": ("T", "magenta")}


def file_name(entry: dict) -> str:
    """A changed file as the card and the review name it: a rename as ``old → new``; inert."""
    path = safe_text(entry.get("path", ""), keep_newlines=False)
    if entry.get("old_path"):
        return f"{safe_text(entry['old_path'], keep_newlines=False)} → {path}"
    return path


def unnamed_where(unnamed: list[dict]) -> str:
    """``.agentstate/ (5), run.log``: the first three folders (or files) of the repository's root the files are in."""
    folders: dict[str, int] = {}
    for entry in unnamed:
        path = str(entry.get("path", ""))
        folder = path.split("/", 1)[0] + "/" if "/" in path else path
        folders[folder] = folders.get(folder, 0) + 1
    where = ", ".join(safe_text(name, keep_newlines=False) + (f" ({n})" if n > 1 else "")
                      for name, n in list(folders.items())[:3])
    return where + (f", +{len(folders) - 3} more" if len(folders) > 3 else "")


def changes_text(item: Item, shown: int = SHOWN_FILES) -> Text:
    payload = item.payload
    state = payload.get("state")
    if state == "pending":
        return Text("⟳ Looking at what this turn changed…", style="dim")
    if state == "unavailable":
        return Text(f"Changes not tracked: {safe_text(payload.get('reason', ''), keep_newlines=False)}", style="dim")
    if state == "none":
        text = Text("No files changed in this turn.", style="dim")
    else:
        total = count = payload.get("count", 0)
        files = payload.get("files") or []
        unnamed = [entry for entry in files if entry.get("unnamed")]
        apart = bool(unnamed) and len(unnamed) < len(files)  # the tool calls' files listed, the rest summed up
        if apart:
            files = [entry for entry in files if not entry.get("unnamed")]
            count -= len(unnamed)
        text = Text.assemble(("✎ ", "bold"), (f"{total} file{'s' if total != 1 else ''} changed", "bold"), " ",
                             (f"+{payload.get('added', 0)}", "green"), " ", (f"−{payload.get('removed', 0)}", "red"),
                             ("  enter: review", "dim"))
        for entry in files[:shown]:
            letter, style = LETTERS.get(entry.get("status", ""), ("?", ""))
            text.append(f"\n  {letter} ", style=f"bold {style}")
            text.append(file_name(entry))
            text.append(" (binary)" if entry.get("binary") else f"  +{entry.get('added', 0)} −{entry.get('removed', 0)}",
                        style="dim")
        if count > min(len(files), shown):
            text.append(f"\n  … and {count - min(len(files), shown)} more", style="dim")
        if apart:
            text.append(f"\n  + {len(unnamed)} file{'s' if len(unnamed) != 1 else ''} no tool call named: "
                        f"{unnamed_where(unnamed)} (the agent's own state, or a command's output)", style="dim")
        elif unnamed:
            text.append("\n  No tool call of this turn named these files.", style="dim")
    if payload.get("overlapped"):  # the repository is compared as a whole: the other turn's changes count too
        text.append("\n⚠ Another session's turn ran in this repository meanwhile: " + (
            "between them, nothing changed." if state == "none" else "some of these changes may be its."),
            style="yellow")
    if payload.get("skipped"):
        skipped = payload["skipped"]
        from kandev_tui.workspace.checkpoints import MAX_FILE_BYTES, MAX_TAKE_BYTES

        text.append(f"\n{skipped} file{'s' if skipped != 1 else ''} not compared (over {MAX_FILE_BYTES >> 20} MB, or "
                    f"past the {MAX_TAKE_BYTES >> 20} MB a turn's checkpoint takes).", style="dim")
    return text


class ChangesCard(TextEntry):
    """See the module docstring."""

    can_focus = True
    BINDINGS = [Binding("enter", "review", "Review changes")]
    DEFAULT_CSS = """
    ChangesCard { height: auto; margin: 1 0 0 0; padding: 0 1; border-left: thick $secondary; }
    ChangesCard.quiet { border-left: none; }
    ChangesCard:focus { background: $boost; }
    """

    class ReviewWanted(Message):
        """The user asked to review the changes of item ``key``."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def update_item(self, item: Item) -> None:
        self.item = item
        self.show(changes_text(item))
        self.set_class(item.payload.get("state") != "ready", "quiet")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "review":
            return self.item is not None and self.item.payload.get("state") == "ready"
        return True

    def action_review(self) -> None:
        if self.item is not None and self.item.payload.get("state") == "ready":
            self.post_message(self.ReviewWanted(self.item.key))

    def on_click(self, event: events.Click) -> None:
        self.action_review()
