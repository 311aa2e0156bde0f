"""A new session (ctrl+n): which agent preset, in which workspace folder (the session on screen's by default), whether
in a new git worktree (on a new branch, named or suggested), and an optional first prompt.

Once the worktree box is ticked, the empty branch field names the branch Start would make, and a folder outside git
is said at once (both looked up off the UI's thread). Start (enter in a field, or the button) checks it all off the
UI's thread: the folder exists, the preset's program is found, and, for a worktree, the folder is in a git repository
with a commit and the branch is new and valid; the worktree is made then. What is wrong is said under the fields, and
the dialog stays open with everything typed. Dismissed with a :class:`NewSession`, or None (escape).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from kandev_tui.sources.launch import command_problem
from kandev_tui.base.presets import Preset, cached_adapter
from kandev_tui.base.sanitize import visible
from kandev_tui.base.userpaths import not_a_directory
from kandev_tui.widgets.chrome.key_footer import KeyFooter
from kandev_tui.workspace.worktree import Worktree, WorktreeError, close, create, repository_root, suggest_branch


@dataclass(frozen=True)
class NewSession:
    """What the dialog asked for: the app opens it."""

    preset: Preset
    workspace: Path  # where the agent runs (inside the worktree, when there is one)
    worktree: Worktree | None
    prompt: str | None


LABELS = {"preset": "Agent preset", "workspace": "Workspace folder", "prompt": "First prompt (optional)"}


class _Field(Input):
    """A field of the dialog, whose enter starts the session (the footer says so while one has the focus)."""

    BINDINGS = [Binding("enter", "submit", "Start")]


class NewSessionScreen(ModalScreen["NewSession | None"]):
    """See the module docstring."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel"), Binding("tab", "app.focus_next", "Next field")]
    DEFAULT_CSS = """
    NewSessionScreen { align: center middle; }
    NewSessionScreen > VerticalScroll { width: 100%; max-width: 80; height: auto; max-height: 100%;
                                        border: round $accent; background: $surface; padding: 0 1; }
    NewSessionScreen Label { margin-top: 1; color: $text-muted; }
    NewSessionScreen Input, NewSessionScreen Select { width: 100%; }
    NewSessionScreen Checkbox { margin-top: 1; }
    NewSessionScreen #branch { display: none; margin-top: 1; }
    NewSessionScreen.-worktree #branch { display: block; }
    NewSessionScreen #new-session-error { color: $error; height: auto; margin-top: 1; }
    NewSessionScreen Horizontal { height: auto; margin-top: 1; align-horizontal: right; }
    NewSessionScreen Button { margin-left: 1; min-width: 10; }
    /* the field with the focus is marked by its label, in the accent and with a pointer, not only by a shade
       (compact fields have no border, and a mark drawn over a field hid its first character) */
    NewSessionScreen Label.-focused { color: $accent; text-style: bold; }
    NewSessionScreen Input:focus { background: $accent 20%; }
    """

    def __init__(self, presets: dict[str, Preset], workspace: Path, preset: str | None = None) -> None:
        super().__init__()
        self.presets = presets
        self.default_workspace = workspace
        self.default_preset = preset if preset in presets else next(iter(presets), None)
        self._filled = str(workspace)  # what the folder field was last given (not typed)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("[b]New session[/b]")
            yield Label(LABELS["preset"], id="preset-label")
            yield Select([(self._preset_label(p), name) for name, p in self.presets.items()], id="preset",
                         value=self.default_preset if self.default_preset else Select.BLANK, allow_blank=False,
                         compact=True)
            yield Label(LABELS["workspace"], id="workspace-label")
            yield _Field(str(self.default_workspace), id="workspace", compact=True)
            yield Checkbox("In a new git worktree and branch", id="worktree", compact=True)
            yield _Field(placeholder="branch (empty: kandev/PRESET-N)", id="branch", compact=True)
            yield Label(LABELS["prompt"], id="prompt-label")
            yield _Field(placeholder="sent once the agent is ready", id="prompt", compact=True,
                         select_on_focus=False)  # (typed on another field, the first characters land here)
            yield Static("", id="new-session-error", markup=False)
            with Horizontal():
                yield Button("Cancel", id="cancel", compact=True)
                yield Button("Start", id="start", variant="primary", compact=True)
        yield KeyFooter()  # over the list's or the transcript's: this dialog's keys, not those of the screen below

    @staticmethod
    def _preset_label(preset: Preset) -> str:
        adapter = cached_adapter(preset.command[0])  # from kandev-tui's cache: its version says which
        program = Path(preset.command[0]).name + (f" {adapter[1]}" if adapter else "")
        command = " ".join([program, *preset.command[1:]])  # python, not its whole path
        return visible(f"{preset.name}  ({command})", keep_newlines=False)[:70]

    def on_mount(self) -> None:
        self.query_one("#preset").focus()  # the first field, as a dialog opens (typing goes to the prompt: on_key)
        self._workspace_of(self.default_preset)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The label of the field with the focus marked (▸, in the accent); the others plain."""
        focused = getattr(event.widget, "id", None)
        for label in self.query(Label):
            field = (label.id or "").removesuffix("-label")
            if field:
                marked = field == focused
                label.set_class(marked, "-focused")
                label.update(("▸ " if marked else "") + LABELS[field])

    def on_key(self, event: events.Key) -> None:
        """A character typed while the preset, the checkbox or a button has the focus is the start of a prompt,
        not a key dropped: it goes to the prompt field, which takes the focus (space and enter keep their work)."""
        if not isinstance(self.focused, (Select, Checkbox, Button)) or not event.is_printable:
            return
        if event.character is None or event.character == " ":
            return
        event.stop()
        event.prevent_default()
        prompt = self.query_one("#prompt", Input)
        prompt.focus()
        prompt.insert_text_at_cursor(event.character)

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._workspace_of(event.value if isinstance(event.value, str) else None)
        self._hint_branch()

    def _workspace_of(self, name: str | None) -> None:
        """The folder field follows the preset chosen: its own ``workspace`` where it has one, else the default; not
        once the user has typed in it."""
        field = self.query_one("#workspace", Input)
        if field.value.strip() != self._filled:
            return
        preset = self.presets.get(name) if name else None
        self._filled = str(Path(preset.workspace).expanduser()) if preset is not None and preset.workspace else \
            str(self.default_workspace)
        field.value = self._filled

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        self.set_class(event.value, "-worktree")
        self._hint_branch()
        if not event.value:  # no worktree: nothing to say about one (a look on its way is dropped)
            self._hints += 1
            self._show_branch_hint(self._hints, "branch", "")

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "workspace":
            self._hint_branch()

    def _hint_branch(self) -> None:
        """The branch an empty field gives (the first free kandev/PRESET-N of the folder's repository), or why the
        folder takes no worktree, under the box once it is ticked: looked up off the UI's thread (git)."""
        if not self.query_one("#worktree", Checkbox).value:
            return
        name = self.query_one("#preset", Select).value
        folder = self._folder()
        self._hints += 1
        # the app held: the dialog may be closed (detached from the app) before git answers
        self.run_worker(partial(self._branch_hint, self.app, self._hints, name if isinstance(name, str) else "session",
                                folder), thread=True, group="branch-hint")

    _hints = 0  # hints asked for: only the last one asked is shown (a folder typed a key at a time)

    def _folder(self) -> Path:
        """The folder asked for: the field's (``~`` expanded, relative to the default), else the default."""
        where = Path(self.query_one("#workspace", Input).value.strip() or self.default_workspace).expanduser()
        return where if where.is_absolute() else self.default_workspace / where

    def _branch_hint(self, app: Any, asked: int, name: str, where: Path) -> None:
        hint, problem = "branch", ""
        if where.is_dir():  # (a folder being typed is no folder yet: Start says so, if it still is not)
            try:
                hint = f"branch (empty: {suggest_branch(repository_root(where), name)})"
            except WorktreeError as exc:
                problem = str(exc)
        app.call_from_thread(self._show_branch_hint, asked, hint, problem)

    _hint_said = False  # the line of problems holds the hint's (the next hint clears it; Start's own words stay)

    def _show_branch_hint(self, asked: int, hint: str, problem: str) -> None:
        """The hint in the empty branch field; why the folder takes no worktree where problems are said (the field is
        too narrow for it), as Start would say it."""
        if not self.is_attached or asked != self._hints:
            return
        self.query_one("#branch", Input).placeholder = visible(hint, keep_newlines=False)
        if problem or self._hint_said:
            self.query_one("#new-session-error", Static).update(Content(visible(problem, keep_newlines=False)))
            self._hint_said = bool(problem)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.start()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "start":
            self.start()
        else:
            self.dismiss(None)

    def say(self, problem: str) -> None:
        if not self.is_attached:  # closed meanwhile
            return
        self.query_one("#new-session-error", Static).update(Content(visible(problem, keep_newlines=False)))
        self._hint_said = False
        self.query_one("#start", Button).disabled = False

    def start(self) -> None:
        name = self.query_one("#preset", Select).value
        if not isinstance(name, str) or name not in self.presets:
            self.say("Choose an agent preset.")
            return
        folder = self._folder()
        branch = self.query_one("#branch", Input).value.strip() if self.query_one("#worktree", Checkbox).value \
            else None
        prompt = self.query_one("#prompt", Input).value.strip() or None
        self.query_one("#start", Button).disabled = True
        self.query_one("#new-session-error", Static).update("Starting…")
        self._hint_said = False
        # the app's worker, not the dialog's: closing the dialog does not leave a worktree half made (see _done)
        app = self.app  # held: the dialog may be closed (detached from the app) before the check ends
        app.run_worker(partial(self._check, app, self.presets[name], folder, branch, prompt), thread=True,
                       name="new-session", group="new-session")

    def _check(self, app: Any, preset: Preset, where: Path, branch: str | None, prompt: str | None) -> None:
        """Off the UI's thread: git and the file system may be slow."""
        worktree = None
        problem = not_a_directory(where)
        if problem:
            problem = f"{where}: {problem}"
        else:
            problem = command_problem(list(preset.command), preset.env)
            if problem:
                problem = f"The preset {preset.name} cannot start: {problem}"
        if problem is None and branch is not None:
            try:
                branch = branch or suggest_branch(repository_root(where), preset.name)
                worktree = create(where, branch)
            except WorktreeError as exc:
                problem = str(exc)
        if problem:
            app.call_from_thread(self.say, problem)
            return
        chosen = NewSession(preset, worktree.workspace if worktree else where.resolve(), worktree, prompt)
        if not app.call_from_thread(self._done, chosen) and worktree is not None:
            close(worktree)  # the dialog was closed meanwhile: the worktree made for nothing goes (it is clean)

    def _done(self, chosen: NewSession) -> bool:
        """The session asked for, given to the app; False when the dialog was closed meanwhile (escape)."""
        if not self.is_attached or not self.is_current:
            return False
        self.dismiss(chosen)
        return True
