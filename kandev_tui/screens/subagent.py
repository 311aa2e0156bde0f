"""A subagent full screen: its own transcript (what it was told, what it says as Markdown, each of its tool calls
with its state, in order), followed live while it works. ``o`` on its row in the parent's transcript opens it;
escape goes back to the parent, where it was left; ``x`` cancels its work where it says it can be cancelled."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from kandev_tui.transcript.items import AGENT
from kandev_tui.transcript.items import Item
from kandev_tui.widgets.entries.agent_message import AgentMessage
from kandev_tui.widgets.entries.base import safe_text
from kandev_tui.widgets.chrome.key_footer import KeyFooter
from kandev_tui.widgets.entries.base import SUBAGENT_STATE_STYLE
from kandev_tui.widgets.entries.subagent import MARKS, ask_to_cancel, can_cancel, subagent_name


def _call_row(call: dict[str, Any]) -> Text:
    mark, style = MARKS.get(str(call.get("status")), ("○", ""))
    row = Text(f"{mark} ", style=style)
    row.append(safe_text(call.get("title") or call.get("id") or "a call", keep_newlines=False)[:300])
    if call.get("kind"):
        row.append(f" · {safe_text(call['kind'], keep_newlines=False)[:40]}", style="dim")
    return row


class SubagentScreen(Screen[None]):
    """See the module docstring. It shows the subagent item ``key`` of a session's transcript, and is told each
    new version of it (:meth:`show`)."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back"),
                Binding("x", "cancel_subagent", "Cancel subagent"),
                Binding("ctrl+end", "latest", "Latest", show=False)]
    DEFAULT_CSS = """
    SubagentScreen > #subagent-title { height: auto; max-height: 3; background: $panel; padding: 0 1; }
    SubagentScreen > VerticalScroll { height: 1fr; }
    SubagentScreen .told { margin: 1 0 0 0; padding: 0 1; color: $text-muted; }
    SubagentScreen .call { padding: 0 1; }
    SubagentScreen .empty { padding: 1 1; color: $text-muted; }
    """

    def __init__(self, item: Item, owner: Any = None) -> None:
        super().__init__()
        self.key = item.key
        self.owner = owner  # what shows the parent's transcript (the app routes new versions by it)
        self.item = item
        self._title = Static(id="subagent-title")
        self._scroll = VerticalScroll()
        self._parts: dict[int, Widget] = {}  # part number → its widget, in order

    def compose(self) -> ComposeResult:
        yield self._title
        yield self._scroll
        yield KeyFooter()

    def on_mount(self) -> None:
        self.show(self.item)

    def show(self, item: Item) -> None:
        """A new version of the subagent: the title and state again, its parts updated, new ones added below (and
        followed, when the view was at its end)."""
        self.item = item
        payload = item.payload
        state = str(payload.get("state") or "running")
        calls = len(payload.get("tools") or [])
        title = Text.assemble(("↳ " + subagent_name(item), "bold"), " · ",
                              (state, SUBAGENT_STATE_STYLE.get(state, "")),
                              f" · {calls} call{'s' if calls != 1 else ''}" if calls else "")
        if payload.get("parent_title"):
            title.append(f" (under {safe_text(payload['parent_title'], keep_newlines=False)[:60]})", style="dim")
        if payload.get("description"):
            title.append("\n" + safe_text(payload["description"], keep_newlines=False)[:300], style="dim")
        self._title.update(title)
        if not self._scroll.is_attached:
            return
        at_end = self._scroll.scroll_y >= self._scroll.max_scroll_y
        parts = _parts(payload)
        numbers = {part["n"] for part in parts}
        for number in [n for n in self._parts if n not in numbers]:  # the oldest, dropped as it worked on
            self._parts.pop(number).remove()
        tools = {call["id"]: call for call in payload.get("tools") or []}
        new: list[Widget] = []
        for part in parts:
            widget = self._parts.get(part["n"])
            if "text" in part:
                message = Item(f"{self.key}:{part['n']}", AGENT, item.turn, {"text": part["text"]},
                               final=item.final)
                if widget is None:
                    widget = AgentMessage(message)
                else:
                    widget.update_item(message)  # type: ignore[attr-defined]
            elif "told" in part:
                said = Text("→ ", style="bold")
                said.append(safe_text(part["told"])[-4000:])
                if widget is None:
                    widget = Static(said, classes="told")
                else:
                    widget.update(said)  # type: ignore[attr-defined]
            else:
                row = _call_row(tools.get(part.get("call"), {"id": part.get("call")}))
                if widget is None:
                    widget = Static(row, classes="call")
                else:
                    widget.update(row)  # type: ignore[attr-defined]
            if part["n"] not in self._parts:
                self._parts[part["n"]] = widget
                new.append(widget)
        empty = self._scroll.query(".empty")
        if not parts and not empty:
            self._scroll.mount(Static("(nothing yet)", classes="empty"))
        elif parts and empty:
            empty.remove()
        if new:
            self._scroll.mount_all(new)
        if at_end:
            self._scroll.call_after_refresh(self._scroll.scroll_end, animate=False)

    def action_latest(self) -> None:
        self._scroll.scroll_end(animate=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_subagent":
            return can_cancel(self.item)
        return True

    def action_cancel_subagent(self) -> None:
        ask_to_cancel(self, self.item)


def _parts(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The child's transcript in order: its ``parts``, or, for a subagent stored before they were kept, its calls
    and then its words."""
    if isinstance(payload.get("parts"), list):
        return [p for p in payload["parts"] if isinstance(p, dict) and isinstance(p.get("n"), int)]
    parts: list[dict[str, Any]] = [{"n": n, "call": call.get("id")} for n, call in enumerate(payload.get("tools") or [])]
    if payload.get("text"):
        parts.append({"n": len(parts), "text": payload["text"]})
    return parts
