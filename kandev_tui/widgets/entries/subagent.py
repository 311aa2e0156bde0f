"""A subagent (a child session the agent runs) inside the parent's transcript: one row with its title and state,
that expands to what it does: its tool calls with their states, and the latest of what it says. It is drawn inside
the tool call that spawned it (:class:`SpawningCall`), or on its own when the agent does not say which call did."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.message_pump import MessagePump

from textual.app import ComposeResult

from kandev_tui.transcript.items import SUBAGENT, Item

from kandev_tui.widgets.entries.base import CollapsibleEntry, EntryWidget, mount_into, safe_text
from kandev_tui.widgets.entries.tool_call import ToolCallView, call_title

MARKS = {"completed": ("✔", "green"), "complete": ("✔", "green"), "failed": ("✖", "red"), "error": ("✖", "red"),
         "in_progress": ("◐", "yellow"), "pending": ("○", "")}
TAIL = 1500  # characters of what the child says, shown (its latest)


def subagent_name(item: Item) -> str:
    payload = item.payload
    return safe_text(payload.get("title") or payload.get("description") or "a subagent", keep_newlines=False)[:120]


def subagent_title(item: Item) -> str:
    payload = item.payload
    title = subagent_name(item)
    calls = len(payload.get("tools") or [])
    said = f"↳ {title} · {payload.get('state', 'running')}"
    if calls:
        said += f" · {calls} call{'s' if calls > 1 else ''}"
    if payload.get("parent_title"):
        said += f" (under {safe_text(payload['parent_title'], keep_newlines=False)[:60]})"
    return said


class SubagentCard(CollapsibleEntry):
    """See the module docstring. ``o`` (on its row) shows it full screen (:mod:`kandev_tui.screens.subagent`), and
    ``x`` cancels its work where it says it can be cancelled."""

    BINDINGS = [Binding("o", "open_subagent", "Open subagent"), Binding("x", "cancel_subagent", "Cancel subagent")]

    class OpenWanted(Message):
        """The user asked to see the subagent of item ``key`` full screen."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    class CancelWanted(Message):
        """The user asked to cancel the subagent of session ``session_id``."""

        def __init__(self, session_id: str) -> None:
            super().__init__()
            self.session_id = session_id

    DEFAULT_CSS = """
    SubagentCard .body { padding: 0 1 0 3; }
    """

    def update_item(self, item: Item) -> None:
        self.item = item
        payload = item.payload
        title = subagent_title(item)
        if self.can_cancel:
            title += " · x cancels"
        body = Text()
        if payload.get("description") and payload.get("title"):
            body.append(safe_text(payload["description"], keep_newlines=False)[:500] + "\n", style="dim")
        for call in payload.get("tools") or []:
            mark, style = MARKS.get(call.get("status"), ("○", ""))
            body.append(f"{mark} ", style=style)
            body.append(safe_text(call.get("title") or call.get("id") or "a call", keep_newlines=False)[:200] + "\n")
        words = safe_text(payload.get("text") or "")
        if words:
            body.append(("…" if len(words) > TAIL else "") + words[-TAIL:], style="italic")
        body.rstrip()
        self.show(title, body if body.plain else Text("(nothing yet)", style="dim"))

    @property
    def can_cancel(self) -> bool:
        return self.item is not None and can_cancel(self.item)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_subagent":
            return self.can_cancel
        return True

    def action_open_subagent(self) -> None:
        if self.item is not None:
            self.post_message(self.OpenWanted(self.item.key))

    def action_cancel_subagent(self) -> None:
        if self.item is not None:
            ask_to_cancel(self, self.item)


def can_cancel(item: Item) -> bool:
    """Whether the subagent says it can be cancelled (its ``cancel`` capability) and is at work."""
    payload = item.payload
    return bool(payload.get("can_cancel")) and payload.get("state") in ("running", "waiting for you")


def ask_to_cancel(sender: MessagePump, item: Item) -> None:
    """``x``: the app is asked to cancel the subagent's work (``session/cancel`` of its session), and says so."""
    if can_cancel(item):
        sender.post_message(SubagentCard.CancelWanted(item.payload["session_id"]))
        sender.app.notify(f"Asked to cancel {item.payload.get('title') or 'the subagent'}.", timeout=3,
                          markup=False)


class SpawningCall(EntryWidget):
    """A tool call and the subagents it spawned (a *call* entry, :mod:`kandev_tui.session.layout`): the call in full,
    as an expanded tool group shows it, and under it each child's live row, in the order they came."""

    DEFAULT_CSS = """
    SpawningCall { height: auto; margin: 1 0 0 0; }
    SpawningCall > ToolCallView { margin: 0; }
    SpawningCall > SubagentCard { margin: 0 0 0 3; }
    """

    item: Item  # the call (never None here)

    def __init__(self, items: list[Item]) -> None:
        super().__init__(classes="entry")
        self.item = items[0]
        self.call = ToolCallView(items[0])
        self.children_cards = {item.key: SubagentCard(item) for item in items[1:]}
        self._composed = False  # the children made before compose are yielded by it; those after, mounted

    def compose(self) -> ComposeResult:
        self._composed = True
        yield self.call
        yield from self.children_cards.values()

    def update_item(self, item: Item) -> None:
        if item.kind != SUBAGENT:
            self.item = item
            self.call.update_item(item)
        elif (card := self.children_cards.get(item.key)) is not None:
            card.update_item(item)
        else:  # another child of the same call
            card = self.children_cards[item.key] = SubagentCard(item)
            if self._composed:
                mount_into(self, card)

    @property
    def searchable_text(self) -> str:
        return "\n".join([call_title(self.item.payload), *(card.searchable_text for card in self.children_cards.values())])
