"""The agent needs a login: each way it offers (its ``authMethods``), and what choosing it does.

- ``agent``: the agent logs in itself (``authenticate``), then the session is tried again;
- ``env_var``: the variables to set, typed here (secrets masked); the agent starts again with them in its
  environment (kept only for this run, never stored);
- ``terminal``: a command the app runs in this terminal, stepping aside while it runs (the agent's own command with
  the method's arguments); then the agent starts again;
- anything else: shown, with what kandev-tui cannot do with it.

``1``–``9`` choose a way (or enter on it); escape closes the screen and leaves the session waiting for a login
(``ctrl+l`` opens the screen again).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from kandev_tui.base.jsonutil import of_type
from kandev_tui.base.sanitize import visible
from kandev_tui.widgets.chrome.key_footer import KeyFooter

KINDS = ("agent", "env_var", "terminal")


def method_kind(method: dict[str, Any]) -> str:
    return of_type(method, "type", str, "agent")


def what_it_does(method: dict[str, Any], command: list[str] | None) -> str:
    kind = method_kind(method)
    if kind == "agent":
        return "the agent logs you in (it may open a browser), then the session starts"
    if kind == "env_var":
        return "type the value below and press enter: the agent starts again with it (kept for this run only)"
    if kind == "terminal":
        shown = " ".join(command or [])[:120]
        return f"runs `{shown}` in this terminal (kandev-tui steps aside), then the agent starts again"
    return f"a kind of login kandev-tui cannot do ({visible(kind, keep_newlines=False)[:40]})"


class MethodCard(Vertical):
    """One way to log in: its number, name and description, what choosing it does, and its variables' inputs."""

    DEFAULT_CSS = """
    MethodCard { height: auto; margin: 1 0 0 0; }
    MethodCard:focus-within { background: $boost; }
    MethodCard Static { padding: 0 0 0 2; }
    MethodCard .what { color: $text-muted; }
    MethodCard Input { width: 1fr; margin: 0 0 0 2; }
    """

    def __init__(self, number: int, method: dict[str, Any], command: list[str] | None) -> None:
        super().__init__()
        self.number = number
        self.method = method
        self.command = command

    def compose(self) -> ComposeResult:
        method = self.method
        name = visible(str(method.get("name") or method.get("id")), keep_newlines=False)
        description = visible(str(method.get("description") or ""), keep_newlines=False)
        yield Static(Text.assemble((f"{self.number} ", "bold"), (name, "bold"),
                                   (f"  {description}" if description else "", "")))
        yield Static(Text(what_it_does(method, self.command)), classes="what")
        if method_kind(method) == "env_var":
            for var in method.get("vars") or []:
                if isinstance(var, dict) and isinstance(var.get("name"), str):
                    label = visible(str(var.get("label") or var["name"]), keep_newlines=False)
                    optional = " (optional)" if var.get("optional") else ""
                    yield Input(placeholder=f"{var['name']}: {label}{optional}", password=var.get("secret", True) is not False,
                                name=var["name"])

    def values(self) -> dict[str, str]:
        return {field.name: field.value for field in self.query(Input) if field.name}


class LoginScreen(ModalScreen[None]):
    """See the module docstring. ``terminal_command(method_id)`` gives a terminal method's command (to show it)."""

    BINDINGS = [Binding("escape", "dismiss", "Later"), *[Binding(str(n), f"choose({n})", show=False)
                                                         for n in range(1, 10)]]
    DEFAULT_CSS = """
    LoginScreen { align: center middle; }
    LoginScreen > VerticalScroll { width: 90%; max-width: 88; height: auto; max-height: 90%; border: round $warning;
                                   background: $surface; padding: 0 1; }
    LoginScreen .reason { color: $text-muted; }
    LoginScreen .busy { color: $warning; }
    """

    class Chosen(Message):
        """The user chose a way to log in (``env``: the values typed for an env_var method)."""

        def __init__(self, method_id: str, env: dict[str, str]) -> None:
            super().__init__()
            self.method_id = method_id
            self.env = env

    def __init__(self, agent: str, reason: str, methods: list[dict[str, Any]], terminal_command: Any) -> None:
        super().__init__()
        self.agent = agent
        self.reason = reason
        self.methods = methods
        self.terminal_command = terminal_command
        self.status = Static("", classes="busy")

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.border_title = Content(f"{visible(self.agent, keep_newlines=False)[:40]} needs a login")
            yield Static(Text(visible(self.reason)), classes="reason")
            if not self.methods:
                yield Static("The agent offers no way to log in here: log in as its documentation says, then start "
                             "kandev-tui again.")
            for number, method in enumerate(self.methods[:9], start=1):
                yield MethodCard(number, method, self.terminal_command(method.get("id")))
            yield self.status
        yield KeyFooter()

    def on_mount(self) -> None:
        first = next(iter(self.query(Input)), None)
        if first is not None and len(self.methods) == 1:
            first.focus()

    def action_choose(self, number: int) -> None:
        cards = list(self.query(MethodCard))
        if not 1 <= number <= len(cards):
            return
        card = cards[number - 1]
        if method_kind(card.method) == "env_var" and not any(card.values().values()):
            inputs = list(card.query(Input))
            if inputs:
                inputs[0].focus()  # the value first: enter in the box then logs in
            return
        self._choose(card)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        card = next((a for a in event.input.ancestors if isinstance(a, MethodCard)), None)
        if card is not None:
            event.stop()
            self._choose(card)

    def _choose(self, card: MethodCard) -> None:
        if method_kind(card.method) not in KINDS:
            self.say("kandev-tui cannot do this kind of login; choose another, or log in as the agent's "
                     "documentation says and start again")
            return
        self.say(f"logging in with {visible(str(card.method.get('name') or card.method.get('id')), keep_newlines=False)}…")
        self.post_message(self.Chosen(str(card.method.get("id")), card.values()))

    def say(self, text: str) -> None:
        """A line under the methods: what is happening, or why the last try failed."""
        self.status.update(Text(visible(text)))
