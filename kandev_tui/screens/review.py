"""The review of what a turn changed (enter on its changes card): every changed file, and the diff of the one
chosen, drawn as edits are (unified; side by side at 100 columns and more, ``s``). ``n``/``p`` (or the list) move
between files, ``]``/``[`` between hunks; renames and binary files are named as such; escape goes back.

The texts come from the turn's two checkpoints (``git show``), read in a thread: the screen opens at once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kandev_tui.workspace.gitrun import run_git
from kandev_tui.transcript.diffs import FileDiff, file_diff
from kandev_tui.widgets.entries.base import safe_text
from kandev_tui.widgets.entries.calls.diff import Hanging, diff_lines, gutter_width, look_for, side_by_side
from kandev_tui.widgets.entries.changes_card import LETTERS, file_name, unnamed_where
from kandev_tui.widgets.chrome.key_footer import KeyFooter

MAX_TEXT_BYTES = 2 * 1024 * 1024  # a file's side read for its diff (beyond: said, not drawn)
MAX_LINES = 5000  # diff lines drawn for one file
SIDE_BY_SIDE_FROM = 100


def _show(root: str, commit: str, path: str) -> str | None:
    """The file's text at ``commit`` (None when it is not there); a side too big or not text says so."""
    try:
        done = run_git(("cat-file", "-p", f"{commit}:{path}"), Path(root), error=OSError, missing="git is not installed",
                       timeout=30)
    except OSError:
        return None
    if done.returncode != 0:
        return None
    if len(done.stdout) > MAX_TEXT_BYTES:
        return "\x00"  # too big to draw: taken for binary, said so
    return done.stdout.decode("utf-8", "replace")


def read_diff(payload: dict[str, Any], entry: dict[str, Any]) -> FileDiff:
    """One file's diff between the turn's checkpoints (run in a thread)."""
    root, before, after = payload.get("repository", ""), payload.get("before", ""), payload.get("after", "")
    path = entry["path"]
    old = None if entry.get("status") == "added" else _show(root, before, entry.get("old_path") or path)
    new = None if entry.get("status") == "deleted" else _show(root, after, path)
    if entry.get("binary"):
        return FileDiff(path, (), 0, 0, note="Binary file: not drawn.")
    if entry.get("status") == "deleted":
        return file_diff(path, old, "")
    return file_diff(path, old, new)


class ReviewScreen(Screen[None]):
    """See the module docstring."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("n", "file(1)", "File"),
                Binding("p", "file(-1)", "Previous file", show=False),
                Binding("right_square_bracket", "hunk(1)", "Hunk"),
                Binding("left_square_bracket", "hunk(-1)", "Previous hunk", show=False),
                Binding("s", "side_by_side", "Side by side"), Binding("r", "restore(False)", "Restore"),
                Binding("R", "restore(True)", "Restore all files"), Binding("u", "undo_restore", "Undo restore")]
    DEFAULT_CSS = """
    ReviewScreen > #review-title { height: auto; background: $panel; padding: 0 1; }
    ReviewScreen > OptionList, ReviewScreen > OptionList:focus { height: auto; max-height: 35%; border: none;
                                                                 padding: 0; }
    ReviewScreen > VerticalScroll { height: 1fr; border-top: solid $panel-lighten-2; }
    ReviewScreen #review-diff { height: auto; padding: 0 1; }
    ReviewScreen .hunk { margin: 1 0 0 0; }
    """

    def __init__(self, payload: dict[str, Any], owner: Any = None) -> None:
        super().__init__()
        self.payload = payload
        self.owner = owner  # the AppSession whose transcript the card is in (a restore is said there)
        self.undo: tuple[str, list[str] | None, str, bool] | None = None  # the last restore: (its checkpoint
        # before, paths, what it was called, whether that is several files)
        self.restored: set[str] = set()  # the paths put back as they were ("*": every file), marked in the list
        files = list(payload.get("files") or [])  # the files the turn's tool calls named first, then the rest
        self.files: list[dict[str, Any]] = [f for f in files if not f.get("unnamed")] + [
            f for f in files if f.get("unnamed")]
        self.side = False
        self._title = Static(id="review-title")
        self.files_list = OptionList(*[Option(self._file_row(e), id=str(i)) for i, e in enumerate(self.files)])
        self._scroll = VerticalScroll()
        self.diff_view = Vertical(id="review-diff")
        self._diff: FileDiff | None = None
        self._entry: dict[str, Any] | None = None
        self._hunks: list[Static] = []  # a widget per hunk, to move between them

    @staticmethod
    def _file_row(entry: dict[str, Any], restored: bool = False) -> Text:
        letter, style = LETTERS.get(entry.get("status", ""), ("?", ""))
        row = Text.assemble((f"{letter} ", f"bold {style}"), file_name(entry))
        row.append("  binary" if entry.get("binary") else f"  +{entry.get('added', 0)} −{entry.get('removed', 0)}",
                   style="dim")
        if entry.get("unnamed"):
            row.append("  no tool call named it", style="dim italic")
        if restored:
            row.append("  ↺ restored", style="bold yellow")
        return row

    def _mark_restored(self) -> None:
        """Each file put back marked in the list (and the mark gone once the restore is undone)."""
        for number, entry in enumerate(self.files):
            paths = {entry.get("path"), entry.get("old_path")} - {None}
            marked = "*" in self.restored or bool(paths & self.restored)
            self.files_list.replace_option_prompt(str(number), self._file_row(entry, marked))

    def compose(self) -> ComposeResult:
        yield self._title
        yield self.files_list
        with self._scroll:
            yield self.diff_view
        yield KeyFooter()

    def on_mount(self) -> None:
        payload = self.payload
        count = payload.get("count", len(self.files))
        title = Text.assemble((f"{count} file{'s' if count != 1 else ''} changed", "bold"), " ",
                              (f"+{payload.get('added', 0)}", "green"), " ", (f"−{payload.get('removed', 0)}", "red"))
        if count > len(self.files):
            title.append(f"  (the first {len(self.files)} listed)", style="dim")
        if payload.get("overlapped"):
            title.append("\n⚠ Another session's turn ran in this repository meanwhile.", style="yellow")
        self._title.update(title)
        if self.files:
            self.files_list.highlighted = 0
            self.files_list.focus()
        else:
            self._put([Static(Text("No file to show.", style="dim"))])

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id is not None:
            self._put([Static(Text("Reading the diff…", style="dim"))])
            self._read(self.files[int(event.option.id)])

    @work(thread=True, exclusive=True, group="review-diff")
    def _read(self, entry: dict[str, Any]) -> None:
        diff = read_diff(self.payload, entry)
        self.app.call_from_thread(self._shown, entry, diff)

    def _shown(self, entry: dict[str, Any], diff: FileDiff) -> None:
        at = self.files_list.highlighted
        if self.files and at is not None and self.files[at] is not entry:  # a read for a file no longer chosen (its
            return  # thread finished after the next one's: n right after a restore showed the old file again)
        self._diff = diff
        self._entry = entry
        self._draw()
        self._scroll.scroll_home(animate=False)

    def _put(self, widgets: list[Static]) -> None:
        self.diff_view.remove_children()
        self.diff_view.mount_all(widgets)

    def _draw(self) -> None:
        diff, entry = self._diff, self._entry
        if diff is None or entry is None:
            return
        look = look_for(self.app.current_theme)
        head = Text.assemble((file_name(entry), "bold"))
        if entry.get("old_path"):
            head.append(f"  (renamed from {safe_text(entry['old_path'], keep_newlines=False)})", style="cyan")
        if diff.new_file:
            head.append("  (new file)", style="dim")
        elif diff.deleted:
            head.append("  (deleted)", style="dim")
        chunks: list[list[Any]] = []
        if self.side and self.size.width >= SIDE_BY_SIDE_FROM:
            parts, more = side_by_side(diff, MAX_LINES, look)
            chunks = [[part] for part in parts]
        else:
            parts, more = diff_lines(diff, MAX_LINES, look)
            gutter = gutter_width(diff)
            for line in parts:  # a hunk from its "@@" header on
                header = line.plain.startswith("@@ ")
                if header or not chunks:
                    chunks.append([])
                chunks[-1].append(line if header else Hanging(line, gutter))  # a long line wraps beside its gutter
        if not diff.hunks and (entry.get("old_path") or not diff.note):
            said = "Renamed; its text is unchanged." if entry.get("old_path") else \
                "No change in its text (its mode or type changed)."
            chunks = [[Text(said, style="dim")]]
        self._hunks = [Static(Group(*chunk), classes="hunk") for chunk in chunks]
        tail = [Static(Text(f"… {more} more lines", style="dim"))] if more else []
        self._put([Static(head), *self._hunks, *tail])

    def action_file(self, step: int) -> None:
        if not self.files:
            return
        at = self.files_list.highlighted or 0
        self.files_list.highlighted = max(0, min(len(self.files) - 1, at + step))

    def action_hunk(self, step: int) -> None:
        """The view scrolled to the next (or previous) hunk."""
        now = self._scroll.scroll_y
        tops = [(hunk.virtual_region.y, hunk) for hunk in self._hunks]
        ahead = [h for y, h in tops if (y > now + 0.5 if step > 0 else y < now - 0.5)]
        if ahead:
            self._scroll.scroll_to_widget(ahead[0] if step > 0 else ahead[-1], animate=False, top=True)

    def action_side_by_side(self) -> None:
        if self.size.width < SIDE_BY_SIDE_FROM:
            self.notify(f"Side by side needs {SIDE_BY_SIDE_FROM} columns or more.", timeout=3)
            return
        self.side = not self.side
        self._draw()


    # -- going back -------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "undo_restore":
            return self.undo is not None
        if action == "restore":
            return bool(self.files) and bool(self.payload.get("before"))
        return True

    def action_restore(self, everything: bool) -> None:
        """``r``: the file shown, as it was before the turn; ``R``: every file of the workspace, or, when some no tool
        call of the turn named (an agent's own state, in use now, among them), the files the tool calls named unless
        the user chooses all. Confirmed first; the state before is recorded, so that ``u`` undoes it."""
        from kandev_tui.screens.confirm import ConfirmScreen

        if self._entry is None and not everything:
            return
        if everything:
            self._restore_all()
            return
        entry = self._entry or {}
        what = f"“{file_name(entry)}”"
        warning = (" No tool call of this turn named it: it may be the agent's own state, which it is using now."
                   if entry.get("unnamed") else "")
        question = (f"Put {what} back as it was before this turn?{warning} What is there now is recorded first: u "
                    "undoes it. The agent's memory does not go back.")

        def answered(yes: bool | str | None) -> None:
            if yes is True:
                paths = [p for p in (entry.get("path"), entry.get("old_path")) if p]
                self._restore(self.payload["before"], paths, "before this turn", what, False)

        self.app.push_screen(ConfirmScreen(question, "Restore"), answered)

    def _restore_all(self) -> None:
        """``R``: every file back, or, when the turn changed files both that its tool calls named and that none did,
        the named ones (``y``) or all (``a``): an agent's own state, in use now, goes back only when asked."""
        from kandev_tui.screens.confirm import ConfirmScreen

        unnamed = [entry for entry in self.files if entry.get("unnamed")]
        named = [entry for entry in self.files if not entry.get("unnamed")]
        every = "every file of the workspace"
        after = " What is there now is recorded first: u undoes it. The agent's memory does not go back."
        listed = len(self.files) == self.payload.get("count", len(self.files))  # a capped list: not every file known
        paths: list[str] | None = None
        also = None
        if not unnamed or not named or not listed:
            question = f"Put {every} back as it was before this turn?" + (
                f" No tool call of this turn named {'some' if named else 'any'} of these files: the agent's own state, "
                "which it is using now, goes back too." if unnamed else "")
            yes, what, many = "Restore", every, True
        else:
            what = f"the {len(named)} file{'s' if len(named) != 1 else ''} the turn's tool calls named"
            question = (f"Put {what} back as {'they were' if len(named) != 1 else 'it was'} before this turn? The other "
                        f"{len(unnamed)} (no tool call named {'them' if len(unnamed) != 1 else 'it'}: "
                        f"{unnamed_where(unnamed)}; the agent's own state, which it is using now, or a command's "
                        "output) stay as they are; a puts them back too.")
            yes, many, also = f"Restore {len(named)}", len(named) != 1, f"All {len(self.files)}"
            paths = [p for entry in named for p in (entry.get("path"), entry.get("old_path")) if p]

        def answered(answer: bool | str | None) -> None:
            if answer is True:
                self._restore(self.payload["before"], paths, "before this turn", what, many)
            elif answer == "also":
                self._restore(self.payload["before"], None, "before this turn", every, True)

        self.app.push_screen(ConfirmScreen(question + after, yes, also=also), answered)

    def action_undo_restore(self) -> None:
        if self.undo is not None:
            before, paths, what, many = self.undo
            self._restore(before, paths, "", what, many)

    @work(thread=True, exclusive=True, group="review-restore")
    def _restore(self, source: str, paths: list[str] | None, said: str, what: str, many: bool) -> None:
        """Put ``paths`` (None: every file) as they are in ``source``: a turn's state before it (``said``: "before
        this turn"), or the state a restore recorded (``said`` "": the restore undone). ``what``: the files as the
        question named them (``many``: several)."""
        from pathlib import Path

        from kandev_tui.workspace import checkpoints
        from kandev_tui.workspace.turn_changes import running_in

        root = Path(self.payload.get("repository") or ".")
        if running_in(root):
            self.app.call_from_thread(self.notify, "A turn is running in this repository: restore once it ends.",
                                      severity="warning", timeout=5)
            return
        ref = f"{checkpoints.REF_ROOT}/{self.payload.get('session') or 'review'}/restore-{time.time_ns()}"
        try:
            before = checkpoints.restore(root, source, paths, ref)
        except checkpoints.Unavailable as exc:
            self.app.call_from_thread(self.notify, f"Nothing restored: {exc}.", severity="error", timeout=8)
            return
        self.app.call_from_thread(self._restored, before.commit, paths, said, what, many)

    def _restored(self, before: str, paths: list[str] | None, said: str, what: str, many: bool) -> None:
        """Said once done: which files (as the question named them: a rename as ``old → new``), in the number they
        are; a restore can be undone (``u``), an undo is the end of it."""
        one = not many
        if said:  # a restore: recorded, u undoes it
            self.undo = (before, paths, what, many)
            self.restored = self.restored | (set(paths) if paths else {"*"})
            text = (f"{what[:1].upper()}{what[1:]} put back as {'it was' if one else 'they were'} {said}. The agent's "
                    f"memory did not go back: it may still think {'it' if one else 'they'} changed.")
            self.notify(text + " u undoes it.", timeout=8)
        else:  # the restore undone: as the turn left them again
            self.undo = None
            self.restored = self.restored - (set(paths) if paths else self.restored)
            text = f"The restore is undone: {what} {'is' if one else 'are'} as the turn left {'it' if one else 'them'}."
            self.notify(text, timeout=8)
        self.refresh_bindings()
        self._mark_restored()
        if self.owner is not None:
            self.app.run_worker(self.owner.model.note(text), group="restore-note")
        at = self.files_list.highlighted
        if self.files and at is not None:  # the file chosen now, which a key may have changed since the restore began
            self._read(self.files[at])
