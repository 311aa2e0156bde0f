from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from kandev_tui.transcript.items import Item

from kandev_tui.widgets.entries.base import EntryWidget, mount_into, safe_text
from kandev_tui.widgets.entries.tool_call import ToolCallView, key_argument, status_mark


def header_call(items: list[Item]) -> Item | None:
    """The call a closed group's line names the argument of (a command, a path): the running one, else the one
    call it holds, else the last that failed; finished, a call keeps the command it ran."""
    running = [i for i in items if i.status in ("pending", "in_progress")]
    failed = [i for i in items if i.status == "error"]
    chosen = running or (items if len(items) == 1 else []) or failed
    return chosen[-1] if chosen else None


def named(item: Item | None) -> set[str]:
    """What the line already says of ``item`` (its kind, its name): an argument that only repeats it is left out."""
    payload = item.payload if item is not None else {}
    return {str(payload.get(key) or "").strip().lower() for key in ("kind", "name")}


class ToolGroup(EntryWidget):
    """A run's ordinary tool calls, collapsed into one line that expands to each call."""

    can_focus = True
    BINDINGS = [Binding("enter,space", "toggle", "Expand/collapse")]

    DEFAULT_CSS = """
    ToolGroup { height: auto; margin: 1 0 0 0; }
    ToolGroup.line, ToolGroup > .header { padding: 0 1; color: $text-muted; }
    ToolGroup.line:focus, ToolGroup:focus > .header { background: $boost; color: $text; }
    ToolGroup > Vertical { height: auto; display: none; }
    ToolGroup.expanded > Vertical { display: block; }
    """

    class Toggled(Message):
        def __init__(self, group: "ToolGroup", expanded: bool) -> None:
            super().__init__()
            self.group = group
            self.expanded = expanded

    def __init__(self, key: str) -> None:
        super().__init__(classes="entry line")
        self.key = key
        self.items: dict[str, Item] = {}
        self.summary = ""
        self.expanded = False
        self._header = Static(classes="header")
        self._header_text = Text()  # what the header shows (set again only when it changes)
        self._calls = Vertical()

    def compose(self) -> ComposeResult:
        # A group that was never expanded (nearly all of a long session's) is one widget that draws its header line
        # itself; the first expand mounts the header and the calls' container as children
        return []

    def render(self) -> Text:
        return self._header_text

    def set_summary(self, summary: str) -> None:
        self.summary = summary
        self._draw_header()

    def update_item(self, item: Item) -> None:
        self.items[item.key] = item
        self._draw_header()
        if self.expanded and self.is_mounted:
            self._sync_calls()

    def _draw_header(self) -> None:
        summary = safe_text(self.summary, keep_newlines=False)  # tool labels can come from an agent's titles
        text = Text.assemble(("▾ " if self.expanded else "▸ ", "bold"), (summary, ""), "  ")
        for item in self.items.values():
            mark, style = status_mark(item.status)
            text.append(mark, style=style)
        shown = None if self.expanded else header_call(list(self.items.values()))
        argument = key_argument(shown.payload) if shown is not None else ""
        if argument and argument.strip().lower() not in named(shown):
            text.append("  " + argument[:60], style="dim italic")
        if text != self._header_text:  # an update lays the transcript out again from this entry down: only when
            self._header_text = text  # the line changes (each batch refreshes the summaries of the last groups)
            if self.BLANK:  # a container: its header child shows the line
                self._header.update(text)
            else:
                self.refresh(layout=True)

    def _sync_calls(self) -> None:
        shown = {view.item.key: view for view in self._calls.query(ToolCallView)}
        for key, item in self.items.items():
            if key in shown:
                shown[key].update_item(item)
            else:
                mount_into(self._calls, ToolCallView(item))

    def call_view(self, key: str) -> ToolCallView | None:
        """The mounted view of the call ``key`` (once the group has been expanded)."""
        return next((view for view in self._calls.query(ToolCallView) if view.item.key == key), None)

    def action_toggle(self) -> None:  # type: ignore[override]  # the group open or shut (DOMNode's takes an attribute)
        self.expanded = not self.expanded
        self.set_class(self.expanded, "expanded")
        if self.expanded:
            if not self.BLANK:  # from a line to a container: the header and the calls as children
                self._header.update(self._header_text)
                self.remove_class("line")
                self.BLANK = True  # type: ignore[misc]  # this one's: no content or border of its own now: painted as blanks under its children
                mount_into(self, self._header, self._calls)
            self._sync_calls()
        self._draw_header()
        self.post_message(self.Toggled(self, self.expanded))

    def on_click(self, event) -> None:
        if event.widget is self._header or event.widget is self:
            self.action_toggle()

    @property
    def searchable_text(self) -> str:
        return self.summary + " " + " ".join(str(i.payload.get("title") or "") for i in self.items.values())
