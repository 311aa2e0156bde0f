"""What kandev-tui itself saw and did for the agent (local frames): its MCP server's rich-output calls, notes and
errors, the turn's changes, files it wrote and terminals it ran."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from kandev_tui.base.jsonutil import of_type

from ..items import NOTE, TURN_END
from ..clientside import diff_paths
from ..diffs import diff_summary
from ..items import COMPLETE, Item
from ..tools import keep_written, new_call

if TYPE_CHECKING:
    from .calls import ToolCalls
    from .shared import Shared


class LocalEvents:
    """Local frames: what kandev-tui's MCP server, its writes and its terminals did for the agent. ``finish_turn``
    ends the turn (a note or error that ends it)."""

    def __init__(self, shared: Shared, calls: ToolCalls, finish_turn: Callable[[], list[Item]]) -> None:
        self.s = shared
        self.calls = calls
        self._finish_turn = finish_turn

    def event(self, event: dict[str, Any]) -> list[Item]:
        kind = event.get("event")
        if kind == "rich_output_server":
            self.s.rich.reached = True
            return []
        if kind == "rich_output":
            if not self.s.turn_open:  # no call of this session's (its server answers a call only within a turn)
                return []  # but another session's, through a server an agent shares between its sessions
            return [self.calls.item(call) for call in self.s.rich.reported(event, list(self.s.tools.values()), self.s.turn)]
        if kind in ("note", "error"):
            # a note: something kandev-tui did or learnt that is worth a quiet line (a login asked for, done; the
            # session closed during a turn); either may end the turn (its unfinished calls cancelled)
            changed = self.s.close_text() if kind == "error" or event.get("ends_turn") else []
            if kind == "note":
                changed.append(Item(self.s.next("note"), NOTE, self.s.turn, {"text": str(event.get("message", ""))},
                                    final=True))
            else:
                changed.append(self.s.error(str(event.get("message", "error")), exit_code=event.get("exit_code"),
                                           stderr=event.get("stderr"), detail=event.get("detail")))
            if event.get("ends_turn") and self.s.turn_open:
                self.s.turn_changes.untrack()  # cut short by kandev-tui closing: no card (its changes are not computed)
                stop = of_type(event, "stop_reason", str, "error")
                changed.extend(self._finish_turn())
                changed.append(Item(self.s.next("turn_end"), TURN_END, self.s.turn, {"stop_reason": stop}, final=True))
            return changed
        if kind == "changes":
            return self.s.turn_changes.event(event, self.s.turn)
        if kind == "file_written":
            return self.file_written(event)
        if kind == "file_before":
            call_id = self.s.client.before(event)
            call = self.s.tools.get(call_id) if call_id is not None else None
            return [self.calls.item(call)] if call is not None and not call.get("new") and self.calls.place(call) else []
        if kind == "terminal":
            changed = []
            for tool_call_id in self.s.client.terminal_event(event):
                call = self.s.tools.get(tool_call_id)
                if call is not None:
                    self.calls.show_terminals(call)
                    changed.append(self.calls.item(call))
            return changed
        return []

    def file_written(self, event: dict[str, Any]) -> list[Item]:
        """A file kandev-tui wrote for the agent: its diff joins the edit call it follows, or is a call of its own."""
        found = self.s.client.written(event)
        if found is None:
            return []
        block, asked_in = found
        path = block["path"]
        # the call running when the agent asked for the write; else (it asked before reporting one) the one now
        call = self.s.tools.get(asked_in) if asked_in is not None else None
        if call is None:
            call = self.s.client.follows(list(self.s.tools.values()), path)
        before = None
        if call is not None:
            before = self.s.client.before_of(call["tool_call_id"], path) or \
                self.s.client.before_of(call["tool_call_id"], str(event.get("real_path")))
        if before is not None and (not before["exists"] or "text" in before):
            # the file as it was before the call, not as the write found it (an agent that wrote it itself as well)
            block = {**block, "oldText": before.get("text") if before["exists"] else None}
        if call is not None:
            if path in diff_paths(call.get("content")):
                return []  # the agent's own call shows this file's diff already
            call["written"] = [*(call.get("written") or []), block]
            keep_written(call)
            call["diffs"] = diff_summary(call.get("content"))
            return [self.calls.item(call)]
        if self.s.client.shown_by_agent(path):
            return []  # the agent asked with this file's diff, its call not reported yet (Gemini): the call will show it
        self.s.counter += 1
        call = new_call(f"kandev-tui-write-{self.s.counter}", self.s.turn)
        call.update(name="edit", kind="edit", title=f"Write {path}", status=COMPLETE, content=[block],
                    locations=[{"path": path}], input={"kind": "edit", "raw_input": {"path": path}},
                    diffs=diff_summary([block]), client="kandev-tui")
        return self.s.close_text() + [self.calls.item(call)]
