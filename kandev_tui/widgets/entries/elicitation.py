"""An agent's question (ACP elicitation) in the transcript: a form to fill in, review and send, or a link to open
with the user's consent. Like a permission request it takes the focus while it waits, and it is answered by keys
(tab between fields, enter on a button) or the mouse: accept, decline or cancel.

A form whose only choice is one list of options (beside optional free-text fields such as an "other" answer: Claude's
AskUserQuestion with one question) is answered in one or two keys, as a permission request is: a digit, or enter on
an option, sends it; the review is for forms with more to fill in, and for an answer typed in a free-text field."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, RadioButton, RadioSet, Select, SelectionList, Static

from kandev_tui.transcript import elicitation as E
from kandev_tui.transcript.items import Item

from kandev_tui.widgets.entries.base import EntryWidget, safe_text

# an answered question's mark, by how it ended ("?" is for one still waiting)
ANSWERED_MARK = {E.ACCEPTED: ("✔ ", "green"), E.COMPLETED: ("✔ ", "green"), E.DECLINED: ("✖ ", "red"),
                 E.CANCELLED: ("⊘ ", "dim"), E.WITHDRAWN: ("⊘ ", "dim")}

RADIO_AT_MOST = 12  # more options than this: a drop-down list (an enum of 500 values stays usable)
SAID = {E.ACCEPTED: "sent", E.DECLINED: "declined", E.CANCELLED: "cancelled", E.WITHDRAWN: "withdrawn by the agent",
        E.COMPLETED: "done"}
HINTS = {"email": "name@example.com", "uri": "https://…", "date": "YYYY-MM-DD", "date-time": "YYYY-MM-DDThh:mm:ssZ"}


def can_open_browser() -> bool:
    """Whether a browser can open from here: a desktop session, or $BROWSER. Over SSH or on a console, Python's
    webbrowser would run a text browser in this very terminal, under the app."""
    return bool(os.environ.get("BROWSER") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                or sys.platform == "darwin")


async def open_link(app: App, url: str) -> None:
    """The link the user agreed to open: a new tab of the browser the app is served in, else the desktop's
    browser; where none opens (SSH, a console), the link is copied to the clipboard (OSC 52) and the notice says so."""
    if app.is_web:
        app.open_url(url, new_tab=True)
        return
    import webbrowser

    opened = can_open_browser() and await asyncio.to_thread(webbrowser.open, url)
    app.copy_to_clipboard(url)
    if opened:
        app.notify("Opened in your browser (the link is in the clipboard too).", timeout=4)
    else:
        app.notify("No browser opens from here: the link is copied to your clipboard.", severity="warning",
                   timeout=8)


def _plain(text: str, limit: int = 400) -> Text:
    return Text(safe_text(text, keep_newlines=False)[:limit])


class ElicitationCard(EntryWidget):
    """See the module docstring. ``Answered`` carries the response the client sends (``{"action": ...}``)."""

    can_focus = True
    BINDINGS = [Binding("escape", "cancel_request", "Cancel the question", show=False),
                *[Binding(str(n), f"choose({n})", f"Answer {n}", show=False) for n in range(1, 10)]]

    DEFAULT_CSS = """
    ElicitationCard { height: auto; margin: 1 0 0 0; padding: 0 1; border: round $warning; }
    ElicitationCard:focus-within { border: round $accent; }
    ElicitationCard.answered { border: round $panel-lighten-2; }
    ElicitationCard Vertical { height: auto; }
    ElicitationCard .field { height: auto; margin: 1 0 0 0; }
    ElicitationCard .label { text-style: bold; }
    ElicitationCard .description { color: $text-muted; }
    ElicitationCard .error { color: $error; }
    ElicitationCard Input { width: 100%; background: $boost; }
    ElicitationCard RadioSet { width: 100%; border: none; padding: 0; height: auto; }
    ElicitationCard SelectionList { height: auto; max-height: 12; border: none; padding: 0; }
    ElicitationCard Select { width: 100%; }
    ElicitationCard Horizontal { height: auto; margin: 1 0 0 0; }
    ElicitationCard Horizontal.stacked { layout: vertical; }
    ElicitationCard Button { margin: 0 1 0 0; min-width: 8; }
    ElicitationCard Horizontal.stacked Button { width: 100%; margin: 0; }
    ElicitationCard .review { margin: 1 0 0 0; }
    """

    class Answered(Message):
        """The user's answer to the question ``key``: the response for the agent."""

        def __init__(self, key: str, response: dict[str, Any]) -> None:
            super().__init__()
            self.key = key
            self.response = response

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry")
        self.key = item.key
        self._item = item
        self.answerable = False
        self.elsewhere = ""
        self.fields, problem = E.parse_form(item.payload.get("schema")) if item.payload.get("mode") == "form" \
            else ([], "")
        self._title = Static()
        self._form = Vertical(classes="form")
        self._review = Static(classes="review")
        self._buttons = Horizontal(classes="buttons")
        self._confirm = Horizontal(classes="confirm")
        self._answer = Static(classes="answer")
        self._errors: dict[str, Static] = {}
        self._values: dict[str, Any] = {}
        self._text = ""

    # -- composition -------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield self._title
        payload = self._item.payload
        live = self._item.status == E.PENDING and not payload.get("problem")
        if live and payload.get("mode") == "form":
            with self._form:
                for index, field in enumerate(self.fields):
                    yield from self._field(index, field)
            yield self._review
            with self._confirm:
                yield Button("Send", id="send", variant="success", compact=True)
                yield Button("Edit", id="edit", compact=True)
        if live:
            with self._buttons:
                if payload.get("mode") == "url":
                    yield Button(Text(f"Open {payload.get('host', '')}"), id="open", variant="primary", compact=True)
                else:
                    yield Button("Review", id="review", variant="primary", compact=True)
                yield Button("Decline", id="decline", variant="error", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
        yield self._answer

    def _field(self, index: int, field: E.Field) -> ComposeResult:
        label = Text(safe_text(field.title, keep_newlines=False)[:200], style="bold")
        if field.required:
            label.append(" *", style="bold red")
        with Vertical(classes="field"):
            if field.kind != E.BOOLEAN:
                yield Static(label, classes="label")
            if field.description:
                yield Static(_plain(field.description, 1000), classes="description")
            start = E.initial(field)
            name = f"field-{index}"
            if field.kind in (E.TEXT, E.NUMBER, E.INTEGER):
                hint = HINTS.get(field.format or "", {E.NUMBER: "a number", E.INTEGER: "a whole number"}.get(field.kind, ""))
                yield Input(value=start, placeholder=hint, id=name, compact=True)
            elif field.kind == E.BOOLEAN:
                yield Checkbox(label, value=start, id=name, compact=True)
            elif field.kind == E.CHOICE and len(field.options) <= RADIO_AT_MOST:
                with RadioSet(id=name, compact=True):
                    for value, title in field.options:
                        yield RadioButton(_plain(title, 300), value=value == start, compact=True)
            elif field.kind == E.CHOICE:
                options = [(_plain(title, 200), value) for value, title in field.options]
                # Select.NULL is "nothing chosen" (Select.BLANK is a class flag, and a value Select refuses); a default
                # that is none of the choices chooses nothing rather than raising
                chosen = start if any(start == value for _, value in options) else Select.NULL
                yield Select(options, value=chosen, id=name, compact=True, allow_blank=True, prompt="Choose…")
            else:
                yield SelectionList[str](*[(_plain(title, 300), value, value in start) for value, title in field.options],
                                         id=name, compact=True)
            error = Static(classes="error")
            error.display = False
            self._errors[field.name] = error
            yield error

    def on_mount(self) -> None:
        self._review.display = self._confirm.display = False
        self.update_item(self._item)

    def on_resize(self, event: Any) -> None:
        for row in (self._buttons, self._confirm):
            labels = [len(str(button.label)) + 5 for button in row.query(Button)]
            row.set_class(sum(labels) > self.content_region.width, "stacked")

    # -- state -----------------------------------------------------------------------------------------------

    @property
    def pending(self) -> bool:
        return self._item.status == E.PENDING and not self._item.payload.get("problem")

    def _who(self) -> str:
        payload = self._item.payload
        agent = safe_text(payload.get("agent") or "The agent", keep_newlines=False)[:80]
        by = payload.get("asked_by")
        return f"{agent} ({safe_text(by, keep_newlines=False)[:80]})" if by else agent

    def update_item(self, item: Item) -> None:
        self._item = item
        payload = item.payload
        message = safe_text(payload.get("message") or "", keep_newlines=True)[:4000]
        mark = ANSWERED_MARK.get(item.status or "", ("? ", "bold yellow"))  # a question while it waits
        title = Text.assemble(mark, (self._who(), "bold"),
                              (" asks you to open a link" if payload.get("mode") == "url" else " asks", ""))
        if message:
            title.append(":\n" + message)
        if payload.get("mode") == "url":
            host = payload.get("host") or ""
            title.append("\n")
            if host:
                title.append("Opens ", style="dim").append(host, style="bold")
            shown, note = E.url_shown(payload.get("url") or "")  # a refused one: as sent, for the user to see
            title.append("\n" + safe_text(shown or payload.get("url") or "", keep_newlines=False)[:300], style="dim")
            if note:
                title.append("\n⚠ " + safe_text(note, keep_newlines=False), style="bold yellow")
        self._title.update(title)
        self._text = f"Question: {message}"
        if item.status == E.PENDING and not payload.get("problem"):
            self._answer.update(Text(self._hint(), style="dim"))
            return
        self.add_class("answered")
        self.answerable = False
        for part in (self._form, self._review, self._confirm, self._buttons):
            part.display = False
        self._answer.update(self._outcome(item))

    @property
    def one_choice(self) -> E.Field | None:
        """The form's one single-choice field when choosing it is all there is to do (every other field an optional
        free-text one, such as an "other" answer): a digit or enter on an option then sends it."""
        choices = [f for f in self.fields if f.kind == E.CHOICE and len(f.options) <= RADIO_AT_MOST]
        others = [f for f in self.fields if f not in choices]
        if len(choices) != 1 or any(f.required or f.kind != E.TEXT for f in others):
            return None
        return choices[0]

    def _typed_elsewhere(self) -> bool:
        """Something typed in a free-text field beside the choice: the answer goes through the review."""
        return any(isinstance(w, Input) and w.value.strip() for w in self.query(Input))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose":
            field = self.one_choice
            return bool(self.answerable and field is not None and self._form.display and not self._typed_elsewhere()
                        and isinstance(parameters[0], int) and parameters[0] <= len(field.options))
        return True

    def action_choose(self, number: int) -> None:
        """A digit: option ``number`` of the form's one choice, chosen and sent."""
        field = self.one_choice
        if field is not None and 1 <= number <= len(field.options):
            self._send_choice(field, field.options[number - 1][0])

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        """Enter (or space, or a click) on an option of the one choice: sent, when nothing was typed beside it. A
        change made while the set was not focused (its default, set as it mounted) is not the user's."""
        field = self.one_choice
        if field is None or not self.answerable or not event.radio_set.has_focus or self._typed_elsewhere():
            return
        index = event.radio_set.pressed_index
        if 0 <= index < len(field.options):
            self._send_choice(field, field.options[index][0])

    def _send_choice(self, field: E.Field, value: str) -> None:
        self._values = {field.name: value}
        self._send({"action": "accept", "content": E.answer_content(self.fields, self._values)})

    def _hint(self) -> str:
        if self.answerable:
            if self.one_choice is not None:
                return "1-9 or enter on an option answers · tab: the other fields, review · escape cancels"
            return "tab between fields · enter on a button · escape cancels" if self.fields else \
                "enter on a button · escape cancels"
        if self.elsewhere:
            return f"(read-only here: answer it in {self.elsewhere})"
        return "(read-only: nobody can answer this question now)"

    def _outcome(self, item: Item) -> Text:
        payload = item.payload
        if payload.get("problem") and item.status in (E.PENDING, E.DECLINED):
            return Text.assemble(("↳ declined: ", "dim"), (safe_text(payload["problem"], keep_newlines=False), ""))
        said = SAID.get(item.status or "", item.status or "")
        if payload.get("mode") == "url" and item.status == E.ACCEPTED:
            said = "opened: the agent goes on once it is done there"
        text = Text.assemble(("↳ ", "dim"), (said, "bold"))
        content = (payload.get("answer") or {}).get("content")
        if item.status in (E.ACCEPTED, E.COMPLETED) and isinstance(content, dict):
            fields = {f.name: f for f in E.parse_form(payload.get("schema"))[0]}
            for name, value in content.items():
                field = fields.get(name)
                label = field.title if field is not None else str(name)
                shown = E.shown(field, value) if field is not None else str(value)
                text.append("\n  " + safe_text(label, keep_newlines=False)[:80] + ": ", style="dim")
                text.append(safe_text(shown, keep_newlines=False)[:300])
        return text

    def set_answerable(self, answerable: bool, elsewhere: str = "") -> None:
        self.answerable = answerable and self.pending
        self.elsewhere = elsewhere
        for widget in self.query("Input, Checkbox, RadioSet, Select, SelectionList, Button"):
            widget.disabled = not self.answerable
        if self.pending:
            self._answer.update(Text(self._hint(), style="dim"))

    def refresh_theme(self) -> None:
        pass

    def on_focus(self) -> None:
        """Focused itself (a new question, f4): the first field (or button) takes the focus instead, so that
        typing answers at once."""
        first = next((w for w in self.query("Input, Checkbox, RadioSet, Select, SelectionList, Button")
                      if w.display and w.focusable), None)
        if first is not None:
            first.focus()

    # -- answering --------------------------------------------------------------------------------------------

    def _raw(self, index: int, field: E.Field) -> Any:
        widget: Widget = self.query_one(f"#field-{index}")
        if isinstance(widget, Input):
            return widget.value
        if isinstance(widget, Checkbox):
            return widget.value
        if isinstance(widget, RadioSet):
            pressed = widget.pressed_index
            return field.options[pressed][0] if pressed >= 0 else None
        if isinstance(widget, Select):
            return None if widget.is_blank() else widget.value
        if isinstance(widget, SelectionList):
            return list(widget.selected)
        return None

    def _checked(self) -> bool:
        """Every field checked, each error said under its field; True when all are fine."""
        ok = True
        self._values = {}
        for index, field in enumerate(self.fields):
            value, problem = E.check(field, self._raw(index, field))
            error = self._errors[field.name]
            error.update(Text(problem))
            error.display = bool(problem)
            if problem:
                if ok:
                    self.query_one(f"#field-{index}").focus()
                ok = False
            else:
                self._values[field.name] = value
        return ok

    def _show_review(self, reviewing: bool) -> None:
        self._form.display = self._buttons.display = not reviewing
        self._review.display = self._confirm.display = reviewing
        if reviewing:
            text = Text("Send this answer?", style="bold")
            for field in self.fields:
                text.append("\n  " + safe_text(field.title, keep_newlines=False)[:80] + ": ", style="dim")
                text.append(safe_text(E.shown(field, self._values.get(field.name)), keep_newlines=False)[:300])
            self._review.update(text)
            self.query_one("#send", Button).focus()
        else:
            self.focus()

    def _send(self, response: dict[str, Any]) -> None:
        if self.answerable:
            self.answerable = False
            self.post_message(self.Answered(self.key, response))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if not self.answerable:
            return
        button = event.button.id
        if button == "review" and self._checked():
            self._show_review(True)
        elif button == "edit":
            self._show_review(False)
        elif button == "send":
            self._send({"action": "accept", "content": E.answer_content(self.fields, self._values)})
        elif button == "open":
            self._send({"action": "accept"})
            rebuilt = E.url_shown(self._item.payload.get("url") or "")[0]  # the URL shown, never the raw string
            if rebuilt:
                self.run_worker(open_link(self.app, rebuilt), name="open-link")
        elif button == "decline":
            self._send({"action": "decline"})
        elif button == "cancel":
            self._send({"action": "cancel"})

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """enter in a field goes on to the next one (after the last: the review)."""
        event.stop()
        self.screen.focus_next()

    def action_cancel_request(self) -> None:
        self._send({"action": "cancel"})

    @property
    def searchable_text(self) -> str:
        return self._text
