"""What kandev-tui did for the agent, as the transcript shows it: files it wrote, commands it ran.

The ACP client serves ``fs/write_text_file`` and ``terminal/*`` (:mod:`kandev_tui.acp.files`,
:mod:`kandev_tui.acp.terminals`) and says what it did in ``local`` frames, so a replay shows the same as the live
session:

- ``{"event": "file_written", "path", "old", "new_file", "note"}`` after a write: with the new text from the agent's
  request frame (seen before), the write becomes an ACP ``diff`` block. It joins the unfinished edit call it follows
  (OpenCode writes the file its ``write``/``edit`` call is about), unless the agent shows that file's diff itself (in
  the call, or in the permission request it asked before writing: Gemini); with no such call it is a call of its
  own, of kind ``edit``.
- ``{"event": "terminal", "terminal", ...}``: the command line and directory, output (``data``, with ``skipped``
  bytes the client did not keep), and the exit (``exit_code``, ``signal``). They make the ``shell`` of every call
  whose content embeds ``{"type": "terminal", "terminalId"}``, whether the call arrives before or after the output.
"""

from __future__ import annotations

from typing import Any

from .items import IN_PROGRESS, PENDING, TERMINAL
from .tools import OUTPUT_TAIL, whole

SKIPPED_LINE = "\n[… {size} of output not kept …]\n"


def _size(count: int) -> str:
    return f"{count / 1e6:.1f} MB" if count >= 1_000_000 else f"{count:,} bytes"


def terminal_ids(content: Any) -> list[str]:
    """The ids of the ``terminal`` blocks of a call's content."""
    if not isinstance(content, list):
        return []
    return [block["terminalId"] for block in content if isinstance(block, dict) and block.get("type") == "terminal"
            and isinstance(block.get("terminalId"), str)]


def diff_paths(content: Any) -> set[str]:
    if not isinstance(content, list):
        return set()
    return {block["path"] for block in content if isinstance(block, dict) and block.get("type") == "diff"
            and isinstance(block.get("path"), str)}


class ClientSide:
    """The state the normaliser keeps of kandev-tui's own work for the agent."""

    def __init__(self) -> None:
        self._writes: dict[Any, tuple[str, str]] = {}  # agent request id → (path, new text), until answered
        self._terminals: dict[str, dict[str, Any]] = {}  # terminal id → its shell (command, cwd, stdout, exit)
        self._calls: dict[str, list[str]] = {}  # terminal id → the calls that embed it
        self._asked: set[str] = set()  # paths whose diff the agent showed in a permission request this turn

    def asked(self, tool_call: dict[str, Any]) -> None:
        """A permission request's call: the diffs it shows (Gemini asks with its edit's diff, then has the client
        write the file, and only then reports the call)."""
        self._asked |= diff_paths(tool_call.get("content"))

    def turn_ended(self) -> None:
        self._asked.clear()

    def shown_by_agent(self, path: str) -> bool:
        return path in self._asked

    # -- writes ------------------------------------------------------------------

    def write_requested(self, request_id: Any, params: Any) -> None:
        if isinstance(params, dict) and isinstance(params.get("path"), str) and isinstance(params.get("content"), str):
            self._writes[request_id] = (params["path"], params["content"])

    def answered(self, request_id: Any) -> None:
        self._writes.pop(request_id, None)

    def written(self, event: dict[str, Any]) -> dict[str, Any] | None:
        """The ``diff`` block of a write the client did (None if its request is not known)."""
        path = event.get("path")
        for request_id, (wanted, content) in self._writes.items():
            if wanted == path:
                del self._writes[request_id]
                old = event.get("old") if isinstance(event.get("old"), str) else None
                block: dict[str, Any] = {"type": "diff", "path": path, "oldText": None if event.get("new_file") else
                                         (old if old is not None else ""), "newText": content}
                if isinstance(event.get("note"), str):
                    block["_meta"] = {"kandevTui": {"note": event["note"]}}
                return block
        return None

    @staticmethod
    def follows(calls: list[dict[str, Any]], path: str) -> dict[str, Any] | None:
        """The unfinished edit call a write belongs to: the newest that names the path, else the newest edit."""
        unfinished = [c for c in calls if c.get("status") not in TERMINAL and not c.get("parent_id")
                      and c.get("kind") == "edit" and not c.get("mcp")]
        for call in reversed(unfinished):
            locations = call.get("locations") if isinstance(call.get("locations"), list) else []
            raw = (call.get("input") or {}).get("raw_input")
            named = [loc.get("path") for loc in locations if isinstance(loc, dict)]
            if isinstance(raw, dict):
                named += [raw.get(key) for key in ("filePath", "file_path", "path", "absolute_path")]
            if path in named:
                return call
        return unfinished[-1] if unfinished else None

    # -- terminals ---------------------------------------------------------------

    def terminal_event(self, event: dict[str, Any]) -> list[str]:
        """Apply one terminal event; the ids of the calls that show that terminal."""
        terminal_id = event.get("terminal")
        if not isinstance(terminal_id, str):
            return []
        shell = dict(self._terminals.get(terminal_id) or {})
        for key in ("command", "cwd"):
            if isinstance(event.get(key), str):
                shell[key] = event[key]
        data = event.get("data")
        skipped = whole(event.get("skipped"))
        if isinstance(data, str) or skipped:
            text = shell.get("stdout") if isinstance(shell.get("stdout"), str) else ""
            if skipped:
                text += SKIPPED_LINE.format(size=_size(skipped))
            text += data if isinstance(data, str) else ""
            if len(text) > OUTPUT_TAIL:  # the last OUTPUT_TAIL characters, from a line start, the lines cut counted
                start = text.find("\n", len(text) - OUTPUT_TAIL)
                start = len(text) - OUTPUT_TAIL if start < 0 else start + 1
                shell["cut_lines"] = whole(shell.get("cut_lines")) + text.count("\n", 0, start)
                text = text[start:]
            shell["stdout"] = text
        if "exit_code" in event or "signal" in event:
            code = event.get("exit_code")
            shell["exit_code"] = code if isinstance(code, int) and not isinstance(code, bool) else None
            if isinstance(event.get("signal"), str) and event["signal"]:
                shell["signal"] = event["signal"]
        self._terminals[terminal_id] = shell
        return list(self._calls.get(terminal_id, []))

    def show_terminals(self, call: dict[str, Any]) -> None:
        """Give ``call`` the output of the terminals its content embeds (a new dict: items never change)."""
        ids = terminal_ids(call.get("content"))
        if not ids:
            return
        shell = dict(call["shell"]) if isinstance(call.get("shell"), dict) else {}
        for terminal_id in ids:
            calls = self._calls.setdefault(terminal_id, [])
            if call["tool_call_id"] not in calls:
                calls.append(call["tool_call_id"])
            shell.update(self._terminals.get(terminal_id) or {})
        if shell:
            call["shell"] = shell
            if call.get("status") == PENDING:
                call["status"] = IN_PROGRESS
