from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Static
from textual.widgets.button import ButtonVariant

from kandev_tui.presentation.names import outline
from kandev_tui.transcript.items import Item
from kandev_tui.transcript.rich_calls import what_is_asked
from kandev_tui.transcript.tools import summarize

from kandev_tui.widgets.entries.base import EntryWidget, code_spans, safe_text
from kandev_tui.widgets.entries.calls.content import content_parts
from kandev_tui.widgets.entries.calls.diff import DARK_LOOK, Look, diff_parts, look_for, workspace_relative
from kandev_tui.widgets.context import workspace_root

def request_detail(tool_call: dict, look: Look = DARK_LOOK, root: str | None = None,
                   presentation: dict | None = None) -> list:
    """What a request asks to approve, drawn as the call itself would be: an edit's diff (compact), or the
    command (unless the title above says it already: Codex and OpenCode title the call with its command) and its
    description; for kandev's own rich-output tool, what ``presentation`` (:func:`~kandev_tui.transcript.rich_calls.presentation_asked`,
    read once by the caller) holds."""
    payload = {"content": tool_call.get("content"), "locations": tool_call.get("locations"),
               "kind": tool_call.get("kind"), "input": {"kind": tool_call.get("kind"),
                                                       "raw_input": tool_call.get("rawInput")}}
    if presentation is not None:  # kandev's own tool: what it would show
        said = outline(presentation)
        return [Text(safe_text(said, keep_newlines=False), style="dim")] if said else []
    diff = diff_parts(payload["content"], True, payload["locations"], look=look, root=root)
    if diff:
        return diff
    parts: list = []
    command = summarize(payload).get("command") if tool_call.get("kind") == "execute" else None
    titled = " ".join(str(tool_call.get("title") or "").split())
    if isinstance(command, str) and command and ("\n" in command.strip() or command.strip() != titled):
        parts.append(Text.assemble(("$ ", "dim"), (safe_text(command), "bold")))
    return parts + content_parts(payload["content"], skip_terminal=True)


KIND_VARIANT: dict[str, ButtonVariant] = {"allow_once": "success", "allow_always": "primary", "reject_once": "error", "reject_always": "error"}


def answered_mark(answer: object) -> tuple[str, str]:
    """A request's mark: "?" while it waits; once answered, what the answer was by its option's kind (allowed ✔,
    rejected ✖, withdrawn ⊘), as the call's own marks say it."""
    if not isinstance(answer, dict):
        return "? ", "bold yellow"
    if answer.get("outcome") != "selected":
        return "⊘ ", "dim"
    return ("✔ ", "green") if str(answer.get("option_kind") or "").startswith("allow") else ("✖ ", "red")


class PermissionRequest(EntryWidget):
    """A permission request answered inline, by keyboard (1-9, arrows, Enter) or mouse."""

    can_focus = True
    BINDINGS = [Binding(str(n), f"choose({n})", show=False) for n in range(1, 10)]

    DEFAULT_CSS = """
    PermissionRequest { height: auto; margin: 1 0 0 0; padding: 0 1; border: round $warning; }
    PermissionRequest:focus-within { border: round $accent; }
    PermissionRequest.answered { border: round $panel-lighten-2; }
    PermissionRequest Horizontal { height: auto; }
    PermissionRequest Button { margin: 0 1 0 0; min-width: 8; }
    PermissionRequest Button:disabled { opacity: 0.7; }  /* as Textual fades a disabled widget that can focus */
    PermissionRequest Horizontal.stacked { layout: vertical; }
    PermissionRequest Horizontal.stacked Button { width: 100%; margin: 0; text-align: left; content-align: left middle; }
    PermissionRequest .detail { margin: 0 0 1 0; }
    """

    class Answered(Message):
        """The user chose an option (``option_id``) for the request ``key``."""

        def __init__(self, key: str, option_id: str) -> None:
            super().__init__()
            self.key = key
            self.option_id = option_id

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry")
        self.key = item.key
        self._title = Static()
        self._detail = Static(classes="detail")  # what is being approved: the change, or the command
        self._buttons = Horizontal()
        self._answer = Static(classes="answer")
        self._options: list[dict] = []
        self._text = ""
        self.answerable = False
        self.elsewhere = ""  # where the request can be answered when not here (another kandev-tui runs the session)
        self._item = item

    def compose(self) -> ComposeResult:
        yield self._title
        yield self._detail
        with self._buttons:
            for index, option in enumerate(self._options_of(self._item)[:9], start=1):
                name = safe_text(option.get("name") or option.get("optionId") or "?", keep_newlines=False)
                button = Button(Content.assemble(f"{index} ", *code_spans(name)), variant=KIND_VARIANT.get(str(option.get("kind")), "default"), compact=True)
                button.option_id = option.get("optionId")  # type: ignore[attr-defined]
                button.disabled = not self.answerable
                # for the mouse: keys answer with the digits, and tab goes on to the prompt (a focused button took
                # the typing meant for the prompt, and its enter answered the request)
                button.can_focus = False
                yield button
        yield self._answer

    def on_mount(self) -> None:
        self.update_item(self._item)

    def on_resize(self, event) -> None:
        """The options side by side while they fit, else one per line, each label wrapping: at 45 columns no
        option is pushed off the screen."""
        labels = [len(str(button.label)) + 5 for button in self._buttons.query(Button)]
        self._buttons.set_class(sum(labels) > self.content_region.width, "stacked")

    @property
    def pending(self) -> bool:
        return self._item.status == "pending" and not self._item.payload.get("answer")

    @staticmethod
    def _options_of(item: Item) -> list[dict]:
        return [o for o in item.payload.get("options", []) if isinstance(o, dict)]

    def update_item(self, item: Item) -> None:
        self._item = item
        tool = item.payload.get("tool_call") or {}
        verb, asked, presentation = what_is_asked(tool)  # kandev's own rich output: named by its presentation's title
        title = safe_text(asked, keep_newlines=False)[:120 if presentation is not None else None]
        if title.startswith("/") and not any(c.isspace() for c in title):  # a path for a title (OpenCode's edits):
            title = workspace_relative(title, workspace_root(self))  # inside the workspace, as its diff names it
        self._text = f"Permission: {title}"
        who = "The agent"
        if item.payload.get("asked_by"):  # one of its subagents
            who = f"Its subagent {safe_text(str(item.payload['asked_by']), keep_newlines=False)[:80]}"
        mark = answered_mark(item.payload.get("answer"))
        self._title.update(Text.assemble(mark, (f"{who} asks to {verb}: ", ""), (title, "bold")))
        detail = request_detail(tool, look_for(self.app.current_theme), workspace_root(self), presentation)
        self._detail.display = bool(detail) and not item.payload.get("answer")
        if detail:
            self._detail.update(Group(*detail))
        self._options = self._options_of(item)
        answer = item.payload.get("answer")
        if answer:
            self.answerable = False
            self.add_class("answered")
            self._buttons.display = False
            chosen = answer.get("name") or ("cancelled" if answer.get("outcome") == "cancelled" else answer.get("option_id"))
            said = code_spans(safe_text(str(chosen), keep_newlines=False), "bold", "italic")
            self._answer.update(Text.assemble(("↳ ", "dim"), *said))
            return
        self._show_hint()

    def _show_hint(self, focused: bool | None = None) -> None:
        """How to answer: the digits while the request has the keys; while the user types elsewhere (in the prompt:
        their digits go there), the key that gives it the keys back first. ``focused``: said by a focus event, which
        comes here before Textual's own handler sets ``has_focus``."""
        if self._item.payload.get("answer"):
            return
        if self.answerable:
            has_keys = self.has_focus if focused is None else focused
            hint = "1-9 or click to answer" if has_keys else "f4 then 1-9, or click, to answer"
        elif self.elsewhere:
            hint = f"(read-only here: answer it in {self.elsewhere})"
        else:
            hint = "(read-only: nobody can answer this request now)"
        self._answer.update(Text(hint, style="dim"))

    def on_focus(self) -> None:
        self._show_hint(focused=True)

    def on_blur(self) -> None:
        self._show_hint(focused=False)

    def refresh_theme(self) -> None:
        self.update_item(self._item)  # the diff's shades are the theme's

    def set_answerable(self, answerable: bool, elsewhere: str = "") -> None:
        self.answerable = answerable and not self._item.payload.get("answer")
        self.elsewhere = elsewhere
        for button in self._buttons.query(Button):
            button.disabled = not self.answerable
        self.update_item(self._item)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        option_id = getattr(event.button, "option_id", None)
        if option_id and self.answerable:
            self.post_message(self.Answered(self.key, option_id))

    def action_choose(self, number: int) -> None:
        if self.answerable and 0 < number <= len(self._options):
            option_id = self._options[number - 1].get("optionId")
            if isinstance(option_id, str):
                self.post_message(self.Answered(self.key, option_id))

    @property
    def searchable_text(self) -> str:
        return self._text
