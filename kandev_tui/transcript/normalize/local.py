"""What kandev-tui itself saw and did for the agent (local frames): its MCP server's rich-output calls, notes and
errors, the turn's changes, files it wrote and terminals it ran."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kandev_tui.base.jsonutil import of_type

from .. import items as K
from ..clientside import diff_paths
from ..diffs import diff_summary
from ..items import COMPLETE, FAILED, Item
from ..tools import keep_written, new_call

if TYPE_CHECKING:
    from ._parts import NormalizerParts
else:
    NormalizerParts = object  # a plain mixin at run time: see _parts


class LocalEvents(NormalizerParts):
    """Local events (a part of :class:`Normalizer`)."""

    def _call_of_ours(self, tool_call_id: str) -> dict[str, Any]:
        return new_call(tool_call_id, self.turn)

    def _local(self, event: dict[str, Any]) -> list[Item]:
        kind = event.get("event")
        if kind == "rich_output_server":
            self._rich.reached = True
            return []
        if kind == "rich_output":
            if not self.turn_open:  # no call of this session's (its server answers a call only within a turn)
                return []  # but another session's, through a server an agent shares between its sessions
            return [self._tool_item(call) for call in self._rich.reported(event, list(self._tools.values()), self.turn)]
        if kind in ("note", "error"):
            # a note: something kandev-tui did or learnt that is worth a quiet line (a login asked for, done; the
            # session closed during a turn); either may end the turn (its unfinished calls cancelled)
            changed = self._close_text() if kind == "error" or event.get("ends_turn") else []
            if kind == "note":
                changed.append(Item(self._next("note"), K.NOTE, self.turn, {"text": str(event.get("message", ""))},
                                    final=True))
            else:
                changed.append(self._error(str(event.get("message", "error")), exit_code=event.get("exit_code"),
                                           stderr=event.get("stderr"), detail=event.get("detail")))
            if event.get("ends_turn") and self.turn_open:
                self._turn_changes.untrack()  # cut short by kandev-tui closing: no card (its changes are not computed)
                stop = of_type(event, "stop_reason", str, "error")
                changed.extend(self._finish_turn())
                changed.append(Item(self._next("turn_end"), K.TURN_END, self.turn, {"stop_reason": stop}, final=True))
            return changed
        if kind == "changes":
            return self._turn_changes.event(event, self.turn)
        if kind == "file_written":
            return self._file_written(event)
        if kind == "file_before":
            call_id = self._client.before(event)
            call = self._tools.get(call_id) if call_id is not None else None
            return [self._tool_item(call)] if call is not None and not call.get("new") and self._place(call) else []
        if kind == "terminal":
            changed = []
            for tool_call_id in self._client.terminal_event(event):
                call = self._tools.get(tool_call_id)
                if call is not None:
                    self._show_terminals(call)
                    changed.append(self._tool_item(call))
            return changed
        return []

    def _place(self, call: dict[str, Any]) -> bool:
        """The call's diffs made against the files as they were before it (:meth:`ClientSide.placed`); True if they
        changed."""
        placed = self._client.placed(call["tool_call_id"], call.get("content"))
        if placed is None:
            return False
        call["content"] = placed
        call["diffs"] = diff_summary(placed)
        return True

    def _show_terminals(self, call: dict[str, Any]) -> None:
        """The output of the client terminals a call embeds becomes its command output."""
        self._client.show_terminals(call)
        shell = call.get("shell")
        if (call.get("status") == COMPLETE and isinstance(shell, dict)
                and (shell.get("exit_code") not in (None, 0) or shell.get("signal") not in (None, ""))):
            call["status"] = FAILED

    def _file_written(self, event: dict[str, Any]) -> list[Item]:
        """A file kandev-tui wrote for the agent: its diff joins the edit call it follows, or is a call of its own."""
        found = self._client.written(event)
        if found is None:
            return []
        block, asked_in = found
        path = block["path"]
        # the call running when the agent asked for the write; else (it asked before reporting one) the one now
        call = self._tools.get(asked_in) if asked_in is not None else None
        if call is None:
            call = self._client.follows(list(self._tools.values()), path)
        before = None
        if call is not None:
            before = self._client.before_of(call["tool_call_id"], path) or \
                self._client.before_of(call["tool_call_id"], str(event.get("real_path")))
        if before is not None and (not before["exists"] or "text" in before):
            # the file as it was before the call, not as the write found it (an agent that wrote it itself as well)
            block = {**block, "oldText": before.get("text") if before["exists"] else None}
        if call is not None:
            if path in diff_paths(call.get("content")):
                return []  # the agent's own call shows this file's diff already
            call["written"] = [*(call.get("written") or []), block]
            keep_written(call)
            call["diffs"] = diff_summary(call.get("content"))
            return [self._tool_item(call)]
        if self._client.shown_by_agent(path):
            return []  # the agent asked with this file's diff, its call not reported yet (Gemini): the call will show it
        self._counter += 1
        call = new_call(f"kandev-tui-write-{self._counter}", self.turn)
        call.update(name="edit", kind="edit", title=f"Write {path}", status=COMPLETE, content=[block],
                    locations=[{"path": path}], input={"kind": "edit", "raw_input": {"path": path}},
                    diffs=diff_summary([block]), client="kandev-tui")
        return self._close_text() + [self._tool_item(call)]
