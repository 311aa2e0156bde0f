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
  whose content embeds ``{"type": "terminal", "terminalId"}``, whether the call arrives before or after the output,
  and of a command call that ran in one without embedding it (kandev-tui saw its command exit: :meth:`ClientSide.ran_in`).
- ``{"event": "file_before", "tool_call_id", "path", "real_path", "exists", "text"?}``, just before the first frame
  of an edit call (or of a permission request for one) that names a file: the file as it was before the edit. An
  edit's diff is made against it: a write the agent reports with no old text (before reading the file) is compared
  with the file on disk; a fragment of old and new text is placed at its line in the file; a file the agent wrote
  itself as well as through the client (OpenCode) shows its real change, not "no change".
"""

from __future__ import annotations

from typing import Any

from kandev_tui.base.jsonutil import of_type

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


PATH_KEYS = ("path", "file_path", "filePath", "filepath", "absolute_path")


def edit_paths(call: dict[str, Any], is_edit: bool) -> list[str]:
    """The files an agent's call (a ``tool_call``/``tool_call_update`` or a permission request's ``toolCall``) is
    about to change: its ``diff`` blocks' paths and, for an edit (``is_edit``), its locations and its input's path."""
    found = [block["path"] for block in call.get("content") or [] if isinstance(block, dict)
             and block.get("type") == "diff" and isinstance(block.get("path"), str)] \
        if isinstance(call.get("content"), list) else []
    if is_edit:
        locations = of_type(call, "locations", list, [])
        found += [loc["path"] for loc in locations if isinstance(loc, dict) and isinstance(loc.get("path"), str)]
        raw = call.get("rawInput")
        if isinstance(raw, dict):
            found += [raw[key] for key in PATH_KEYS if isinstance(raw.get(key), str)]
    return [path for index, path in enumerate(found) if path.strip() and path not in found[:index]]


def diff_paths(content: Any) -> set[str]:
    if not isinstance(content, list):
        return set()
    return {block["path"] for block in content if isinstance(block, dict) and block.get("type") == "diff"
            and isinstance(block.get("path"), str)}


class ClientSide:
    """The state the normaliser keeps of kandev-tui's own work for the agent."""

    def __init__(self) -> None:
        # agent request id → (path, new text, the call it is for as the agent asked), until answered
        self._writes: dict[Any, tuple[str, str, str | None]] = {}
        self._terminals: dict[str, dict[str, Any]] = {}  # terminal id → its shell (command, cwd, stdout, exit)
        self._calls: dict[str, list[str]] = {}  # terminal id → the calls that embed it
        # when each call and terminal was first seen (one count for both): a command that ran in a terminal opened
        # while a call was open, which the call does not embed, is that call's (see ran_in)
        self._seen: dict[str, int] = {}
        self._opened: dict[str, int] = {}
        self._asked: set[str] = set()  # paths whose diff the agent showed in a permission request this turn
        self._before: dict[tuple[str, str], dict[str, Any]] = {}  # (call id, path or real path) → the file before

    def asked(self, tool_call: dict[str, Any]) -> None:
        """A permission request's call: the diffs it shows (Gemini asks with its edit's diff, then has the client
        write the file, and only then reports the call)."""
        self._asked |= diff_paths(tool_call.get("content"))

    def turn_ended(self) -> None:
        self._asked.clear()
        self._before.clear()

    # -- files as they were before an edit ----------------------------------------

    def before(self, event: dict[str, Any]) -> str | None:
        """Keep a ``file_before`` event; the id of the call it is for."""
        call_id, path = event.get("tool_call_id"), event.get("path")
        if not isinstance(call_id, str) or not isinstance(path, str) or not isinstance(event.get("exists"), bool):
            return None
        state = {"exists": event["exists"], **({"text": event["text"]} if isinstance(event.get("text"), str) else {})}
        for key in {path, event.get("real_path")}:
            if isinstance(key, str):
                self._before.setdefault((call_id, key), state)  # the first: the file before any of the call's changes
        return call_id

    def before_of(self, call_id: str, path: str) -> dict[str, Any] | None:
        return self._before.get((call_id, path))

    def placed(self, call_id: str, content: Any) -> list[Any] | None:
        """``content`` with its diffs made against the files as they were (a new list), or None if none changed: an
        old text the agent left out (null) is the file's text; a fragment of it is placed at its line
        (``_meta.kandevTui.line``); an empty old text for a file that was not there is none (a new file)."""
        if not isinstance(content, list) or not self._before:
            return None
        changed = False
        out = []
        for block in content:
            path = block.get("path") if isinstance(block, dict) and block.get("type") == "diff" else None
            state = self._before.get((call_id, path)) if isinstance(path, str) else None
            text = state.get("text") if state is not None and state["exists"] else None
            old = block.get("oldText") if isinstance(block, dict) else None
            if text is not None and old is None and text == block.get("newText"):
                pass  # the file was read after the agent had written it (it writes, then reports): not "no change"
                # but what the agent says, a new file (an ACP diff with no old text)
            elif text is not None and old is None:
                block = {**block, "oldText": text}
                changed = True
            elif state is not None and not state["exists"] and old == "":  # a new file, sent as "" (Gemini CLI,
                block = {**block, "oldText": None}  # OpenCode): there was none, so it is new, not an empty one
                changed = True
            elif text is not None and isinstance(old, str) and old and old != text:
                where = text.find(old)
                line = text.count("\n", 0, where) + 1 if where > 0 else 1
                meta = of_type(block, "_meta", dict, {})
                ours = of_type(meta, "kandevTui", dict, {})
                if line > 1 and ours.get("line") != line:
                    block = {**block, "_meta": {**meta, "kandevTui": {**ours, "line": line}}}
                    changed = True
            out.append(block)
        return out if changed else None

    def shown_by_agent(self, path: str) -> bool:
        return path in self._asked

    # -- writes ------------------------------------------------------------------

    def write_requested(self, request_id: Any, params: Any, calls: list[dict[str, Any]]) -> None:
        """The agent asks kandev-tui to write a file: the call it is for is the one :meth:`follows` finds among
        ``calls`` now, in the agent's own order (the write may be said done after the agent went on to its next
        call, on a busy machine)."""
        if isinstance(params, dict) and isinstance(params.get("path"), str) and isinstance(params.get("content"), str):
            call = self.follows(calls, params["path"])
            self._writes[request_id] = (params["path"], params["content"], call["tool_call_id"] if call else None)

    def answered(self, request_id: Any) -> None:
        self._writes.pop(request_id, None)

    def written(self, event: dict[str, Any]) -> tuple[dict[str, Any], str | None] | None:
        """The ``diff`` block of a write the client did and the id of the call it was asked for in (if one was
        running), or None if its request is not known."""
        path = event.get("path")
        for request_id, (wanted, content, call_id) in self._writes.items():
            if wanted == path:
                del self._writes[request_id]
                old = of_type(event, "old", str, None)
                block: dict[str, Any] = {"type": "diff", "path": path, "oldText": None if event.get("new_file") else
                                         (old if old is not None else ""), "newText": content}
                if isinstance(event.get("note"), str):
                    block["_meta"] = {"kandevTui": {"note": event["note"]}}
                return block, call_id
        return None

    @staticmethod
    def follows(calls: list[dict[str, Any]], path: str) -> dict[str, Any] | None:
        """The edit call a write belongs to: the newest unfinished one that names the path, else the newest
        unfinished edit, else the newest finished one that names the path (an agent may report its call done
        before kandev-tui has said the write is done: OpenCode does, on a busy machine)."""
        edits = [c for c in calls if not c.get("parent_id") and c.get("kind") == "edit" and not c.get("mcp")]
        unfinished = [c for c in edits if c.get("status") not in TERMINAL]
        for call in unfinished[::-1]:  # (mypy 2.4 reads what reversed() gives as Any)
            if path in _named_paths(call):
                return call
        if unfinished:
            return unfinished[-1]
        return next((call for call in reversed(edits) if path in _named_paths(call)), None)

    # -- terminals ---------------------------------------------------------------

    def terminal_event(self, event: dict[str, Any]) -> list[str]:
        """Apply one terminal event; the ids of the calls that show that terminal."""
        terminal_id = event.get("terminal")
        if not isinstance(terminal_id, str):
            return []
        if terminal_id not in self._opened:
            self._opened[terminal_id] = len(self._seen) + len(self._opened)
        shell = dict(self._terminals.get(terminal_id) or {})
        for key in ("command", "cwd"):
            if isinstance(event.get(key), str):
                shell[key] = event[key]
        data = event.get("data")
        skipped = whole(event.get("skipped"))
        if isinstance(data, str) or skipped:
            text = of_type(shell, "stdout", str, "")
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

    def ran_in(self, call: dict[str, Any]) -> list[str]:
        """The terminal a finished command call ran in without embedding it (an agent that runs its command in
        kandev-tui's terminal, then reports the call with only a text trailer, ``[Exit code: 3]``): one opened while
        the call was open, embedded by no call, whose command is the call's (or the only such one); none else."""
        if call.get("kind") != "execute" or call.get("status") not in TERMINAL or terminal_ids(call.get("content")):
            return []
        since = self._seen.get(call["tool_call_id"], -1)
        free = [tid for tid, at in self._opened.items() if at > since and not self._calls.get(tid)]
        said = " ".join(str(call.get("title") or "").split())
        raw = (call.get("input") or {}).get("raw_input")
        asked = " ".join(raw["command"].split()) if isinstance(raw, dict) and isinstance(raw.get("command"), str) \
            else said
        same = [tid for tid in free if " ".join(str(self._terminals[tid].get("command", "")).split()) in (asked, said)]
        return same[:1] if same else free if len(free) == 1 else []

    def show_terminals(self, call: dict[str, Any]) -> None:
        """Give ``call`` the output of the terminals its content embeds, or the one it ran in (:meth:`ran_in`) (a new
        dict: items never change)."""
        self._seen.setdefault(call["tool_call_id"], len(self._seen) + len(self._opened))
        ids = terminal_ids(call.get("content")) or self.ran_in(call)
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


def _named_paths(call: dict[str, Any]) -> list[Any]:
    """The paths an edit call names: its locations, and its arguments' usual path keys."""
    locations = of_type(call, "locations", list, [])
    raw = (call.get("input") or {}).get("raw_input")
    named = [loc.get("path") for loc in locations if isinstance(loc, dict)]
    if isinstance(raw, dict):
        named += [raw.get(key) for key in ("filePath", "file_path", "path", "absolute_path")]
    return named
