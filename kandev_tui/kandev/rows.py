"""Kandev message rows → kandev-tui transcript items (the one adapter; headless).

A Kandev session is a list of message rows ``{id, turn_id, author_type, type,
content, metadata, created_at, updated_at}`` that change in place. Each row
becomes at most one item keyed ``kandev:<row id>``, so an updated row replaces
its item. Tool rows become the provider-neutral tool payload the renderers
already read (``{name, input: {kind, raw_input}, output, status, title, kind}``);
a ``tool_call`` row keeps Kandev's ``normalized.generic`` ``{name, input,
output}`` as it is, which is exactly what the rich-output contract reads back
(§6), so a Kandev-stored ``show_rich_output_kandev`` call renders natively and
is re-validated like any other. Unknown row types become a compact note; no row
raises.
"""

from __future__ import annotations

import re
from typing import Any

from kandev_tui.transcript.items import (AGENT, CANCELLED, COMPLETE, FAILED, IN_PROGRESS, NOTE, PENDING, PERMISSION,
                                         PLAN, TERMINAL, THOUGHT, TOOL, USER)
from kandev_tui.transcript.items import Item

from .shell_output import FETCHED

STATUS = {
    "pending": PENDING, "in_progress": IN_PROGRESS, "running": IN_PROGRESS,
    "complete": COMPLETE, "completed": COMPLETE, "success": COMPLETE,
    "error": FAILED, "failed": FAILED,
    "cancelled": CANCELLED, "canceled": CANCELLED, "rejected": FAILED,
}
TOOL_KINDS = {"tool_read": "read", "tool_execute": "execute", "tool_edit": "edit", "tool_search": "search",
              "tool_call": "other"}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def row_id(row: dict[str, Any]) -> str | None:
    """The row's id: ``id`` in rows, ``message_id`` in some notification payloads."""
    value = row.get("message_id") or row.get("id")
    return value if isinstance(value, str) and value else None


def order_key(row: dict[str, Any]) -> tuple[str, str]:
    """Rows sort by creation time (RFC 3339 in UTC, nanoseconds) and then id."""
    return (_str(row.get("created_at")), row_id(row) or "")


def turn_number(turn_id: Any) -> int:
    """A stable small number for a Kandev turn id (only equality matters: groups and card limits are per turn)."""
    if not isinstance(turn_id, str) or not turn_id:
        return 0
    digits = "".join(c for c in turn_id.lower() if c in "0123456789abcdef")[:7]
    return int(digits, 16) + 1 if digits else abs(hash(turn_id)) % (1 << 28) + 1


def row_item(row: dict[str, Any]) -> Item | None:
    """The item for one row, or None for a row that is not a dict with an id."""
    if not isinstance(row, dict):
        return None
    rid = row_id(row)
    if rid is None:
        return None
    key = f"kandev:{rid}"
    turn = turn_number(row.get("turn_id"))
    kind = _str(row.get("type"))
    content = _str(row.get("content"))
    meta = _dict(row.get("metadata"))
    origin = {"id": rid, "type": kind, "created_at": row.get("created_at"), "turn_id": row.get("turn_id")}
    if kind == "message":
        item_kind = USER if row.get("author_type") == "user" else AGENT
        return Item(key, item_kind, turn, {"text": content, "kandev": origin}, final=True)
    if kind == "thinking":
        text = _str(meta.get("thinking")) or content
        return Item(key, THOUGHT, turn, {"text": text, "kandev": origin}, final=True)
    if kind == "todo":
        entries = [{"content": _str(t.get("text") or t.get("content") or t.get("description")),
                    "priority": t.get("priority"), "status": t.get("status") or ("completed" if t.get("done") else "pending")}
                   for t in meta.get("todos") or [] if isinstance(t, dict)]
        return Item(key, PLAN, turn, {"entries": entries, "kandev": origin}, final=True)
    if kind in TOOL_KINDS:
        return _tool(key, turn, kind, content, meta, origin, row.get(FETCHED))
    if kind == "permission_request":
        return _permission(key, turn, content, meta, origin)
    if kind == "script_execution":
        script = _str(meta.get("script_type")).replace("_", " ") or "script"
        who = _str(meta.get("agent_name")) or _str(meta.get("command"))
        state = _str(meta.get("status")) or "running"
        text = f"{script}: {who} · {state}" if who else f"{script} · {state}"
        if isinstance(meta.get("exit_code"), int) and meta["exit_code"] != 0:
            text += f" (exit code {meta['exit_code']})"
        return Item(key, NOTE, turn, {"text": text, "kandev": origin}, final=True)
    if kind == "status":
        return Item(key, NOTE, turn, {"text": content or "status", "kandev": origin}, final=True)
    label = kind or "row"
    text = f"{label}: {content}" if content else label
    return Item(key, NOTE, turn, {"text": text[:500], "unknown": True, "kandev": origin}, final=True)


def _tool(key: str, turn: int, kind: str, content: str, meta: dict[str, Any], origin: dict[str, Any],
          fetched: Any = None) -> Item:
    """A tool row's item; ``fetched``: a command's output as fetched from the backend (or why it could not be)."""
    normalized = _dict(meta.get("normalized"))
    status = STATUS.get(_str(meta.get("status")), IN_PROGRESS if meta.get("status") else COMPLETE)
    title = _str(meta.get("title")) or content or None
    call_id = _str(meta.get("tool_call_id")) or origin["id"]
    tool_kind = TOOL_KINDS[kind]
    payload: dict[str, Any] = {"tool_call_id": call_id, "status": status, "title": title, "kind": tool_kind,
                               "parent_id": None, "turn": turn, "mcp": False, "kandev": origin}
    shape = _str(normalized.get("kind"))
    body = _dict(normalized.get(shape)) if shape else {}
    if kind == "tool_call" or shape == "generic":
        generic = _dict(normalized.get("generic"))
        raw_name = generic.get("name")
        payload["name"] = raw_name if isinstance(raw_name, str) and raw_name else "other"
        payload["input"] = generic.get("input") if isinstance(generic.get("input"), dict) else {
            "kind": "other", "raw_input": generic.get("input")}
        payload["output"] = generic.get("output")
        if isinstance(payload["input"].get("kind"), str):
            payload["kind"] = payload["input"]["kind"]
    elif shape == "read_file":
        output = _dict(body.get("output"))
        path = _str(body.get("file_path"))
        payload.update(name="read", input={"kind": "read", "raw_input": {"path": path}},
                       output=output.get("content") if "content" in output else output or None)
        if path:
            payload["locations"] = [{"path": path}]
    elif shape == "code_search":
        output = _dict(body.get("output"))
        files = output.get("files")
        payload.update(name="search", input={"kind": "search", "raw_input": {"query": body.get("query"), "path": body.get("path")}},
                       output="\n".join(str(f) for f in files) if isinstance(files, list) else output or None)
    elif shape == "shell_exec":
        output = _dict(body.get("output"))
        raw_input = {"command": body.get("command")}
        if body.get("work_dir"):
            raw_input["cwd"] = body["work_dir"]
        summary: dict[str, Any] = {}
        if "exit_code" in output:
            summary["exit_code"] = output["exit_code"]
        sizes = [f"{output[k]} bytes of {k.split('_')[0]}" for k in ("stdout_bytes", "stderr_bytes") if output.get(k)]
        if isinstance(fetched, dict):  # the text, fetched when the command was opened
            payload["shell"] = {**{k: v for k, v in fetched.items() if k in ("stdout", "stderr")},
                                "exit_code": fetched.get("exit_code", output.get("exit_code"))}
        elif sizes:
            summary["note"] = ", ".join(sizes) + (f": {fetched}" if isinstance(fetched, str) else
                                                  " (Kandev keeps the text: opening the command fetches it)")
            if not isinstance(fetched, str):
                payload["output_at_source"] = origin["id"]  # the source fetches it when asked (Source.fetch_output)
        payload.update(name="execute", input={"kind": "execute", "raw_input": raw_input}, output=summary or None)
    elif shape == "modify_file":
        path = _str(body.get("file_path"))
        payload.update(name="edit", input={"kind": "edit", "raw_input": {"path": path, "mutations": body.get("mutations")}},
                       output=None)
        if path:
            payload["locations"] = [{"path": path}]
    else:  # a shape this adapter does not know yet: keep what Kandev stored
        payload.update(name=tool_kind, input={"kind": tool_kind, "raw_input": body or normalized or None}, output=None)
    return Item(key, TOOL, turn, payload, status=status, tool_call_id=call_id, final=status in TERMINAL)


PERMISSION_DONE = {"approved": "answered", "rejected": "answered", "denied": "answered", "answered": "answered",
                   "expired": "cancelled", "cancelled": "cancelled", "canceled": "cancelled"}


def _permission(key: str, turn: int, content: str, meta: dict[str, Any], origin: dict[str, Any]) -> Item:
    options = [{"optionId": _str(o.get("option_id")), "name": _str(o.get("name")) or _str(o.get("option_id")),
                "kind": _str(o.get("kind"))} for o in meta.get("options") or [] if isinstance(o, dict)]
    tool_call: dict[str, Any] = {"toolCallId": _str(meta.get("tool_call_id")), "title": content or "Permission requested"}
    details = _dict(meta.get("action_details"))
    if details:
        tool_call["rawInput"] = details
    payload: dict[str, Any] = {"tool_call": tool_call, "options": options, "kandev": origin,
                               "pending_id": meta.get("pending_id"), "request_id": meta.get("request_id")}
    resolution = _dict(meta.get("permission_resolution"))
    state = _str(meta.get("status"))
    status = "pending"
    if resolution.get("option_id"):
        option_id = resolution["option_id"]
        name = next((o["name"] for o in options if o["optionId"] == option_id), option_id)
        payload["answer"] = {"outcome": "selected", "option_id": option_id, "name": name,
                             "option_kind": resolution.get("option_kind")}
        status = "answered"
    elif state in PERMISSION_DONE:
        status = PERMISSION_DONE[state]
        payload["answer"] = {"outcome": "cancelled"} if status == "cancelled" else {"outcome": "selected", "name": state}
    return Item(key, PERMISSION, turn, payload, status=status, tool_call_id=tool_call["toolCallId"] or None,
                final=status != "pending")


_INSTANT = re.compile(r"^(.*?)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$")


def instant(value: Any) -> str:
    """An RFC 3339 time that sorts as text: Kandev trims trailing zeros of the nanoseconds."""
    if not isinstance(value, str):
        return ""
    match = _INSTANT.match(value)
    if match is None:
        return value
    return f"{match.group(1)}.{(match.group(2) or '').ljust(9, '0')[:9]}"


def sort_key(row: dict[str, Any]) -> tuple[str, str]:
    return (instant(row.get("created_at")), order_key(row)[1])
