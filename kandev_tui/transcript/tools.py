"""Tool calls: merging ACP frames into the provider-neutral form (spec §3).

Every update for a ``toolCallId`` merges into one call. The stored form is the
one Kandev keeps at ``metadata.normalized.generic``: ``{name, input, output}``
plus ``status``, ``title``, ``kind`` and ``parent_id``. Dialects handled here:
Codex MCP envelopes (``execute`` frames with ``_meta.is_mcp_tool_call``),
Claude Code's title-only MCP names and ``parentToolUseId`` nesting, shell
output across providers, async subagent launches and the Monitor tool.
"""

from __future__ import annotations

from typing import Any

from kandev_tui.base.jsonutil import of_type

from .commands import shell_output
from .diffs import diff_summary
from .items import CANCELLED, COMPLETE, FAILED, IN_PROGRESS, PENDING, TERMINAL

ACP_STATUS = {
    "pending": PENDING,
    "in_progress": IN_PROGRESS,
    "completed": COMPLETE,
    "complete": COMPLETE,
    "failed": FAILED,
    "error": FAILED,
    "cancelled": CANCELLED,
}


def _blank(value: Any) -> bool:
    return not isinstance(value, str) or not value.strip()


def mcp_envelope(update: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """``(server/tool, arguments)`` when a frame is a complete Codex MCP envelope.

    Only when ``_meta.is_mcp_tool_call`` is ``true`` and ``rawInput`` is
    ``{server, tool, arguments}`` with non-blank strings and an object.
    """
    meta = update.get("_meta")
    raw = update.get("rawInput")
    if not isinstance(meta, dict) or meta.get("is_mcp_tool_call") is not True or not isinstance(raw, dict):
        return None
    server, tool, arguments = raw.get("server"), raw.get("tool"), raw.get("arguments")
    if not isinstance(server, str) or not isinstance(tool, str) or _blank(server) or _blank(tool) \
            or not isinstance(arguments, dict):
        return None
    return f"{server.strip()}/{tool.strip()}", arguments


def _claude_meta(update: dict[str, Any]) -> dict[str, Any]:
    meta = update.get("_meta")
    if isinstance(meta, dict) and isinstance(claude := meta.get("claudeCode"), dict):
        return claude
    return {}


OUTPUT_TAIL = 256 * 1024  # characters of a command's output an item keeps: the last ones (the recording has all)


def terminal_meta(call: dict[str, Any], meta: Any) -> bool:
    """Codex's command output, sent beside the protocol (``_meta.terminal_output_delta.data`` chunks, then
    ``_meta.terminal_exit {exit_code, signal}``, and ``_meta.terminal_info {cwd}``), merged into the call's
    ``shell`` whatever its kind (codex-acp sends it for calls it calls ``read`` too). True if there was any."""
    if not isinstance(meta, dict):
        return False
    delta = meta.get("terminal_output_delta")
    info = meta.get("terminal_info")
    ended = meta.get("terminal_exit")
    if not any(isinstance(part, dict) for part in (delta, info, ended)):
        return False
    # a new dict, not the one in place: an item version handed out earlier shares it (items never change)
    shell = call["shell"] = dict(call["shell"]) if isinstance(call.get("shell"), dict) else {}
    if isinstance(delta, dict) and isinstance(delta.get("data"), str):
        previous = shell.get("stdout")
        shell["stdout"] = (previous if isinstance(previous, str) else "") + delta["data"]
    if isinstance(info, dict) and isinstance(info.get("cwd"), str):
        shell["cwd"] = info["cwd"]
    if isinstance(ended, dict):
        code = ended.get("exit_code", ended.get("exitCode"))
        if isinstance(code, int) and not isinstance(code, bool):
            shell["exit_code"] = code
        if isinstance(ended.get("signal"), str) and ended["signal"]:
            shell["signal"] = ended["signal"]
    return True


def whole(value: Any) -> int:
    """A count from a payload (which stored data may have in any shape): the int, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def bound_output(call: dict[str, Any]) -> None:
    """Keep the last OUTPUT_TAIL characters of a command's output (from a line start), counting the lines cut in
    ``shell.cut_lines``: a command that prints 100,000 lines costs a bounded item, and the view says what was cut."""
    shell = call["shell"] = dict(call["shell"])  # a new dict: earlier item versions share the old one
    for key in ("stdout", "stderr"):
        text = shell.get(key)
        if isinstance(text, str) and len(text) > OUTPUT_TAIL:
            start = text.find("\n", len(text) - OUTPUT_TAIL)
            start = len(text) - OUTPUT_TAIL if start < 0 else start + 1
            shell["cut_lines"] = whole(shell.get("cut_lines")) + text.count("\n", 0, start)
            shell[key] = text[start:]
    output = call.get("output")
    if isinstance(output, str) and len(output) > OUTPUT_TAIL:  # the same text as stdout: kept once, bounded
        call["output"] = {"cut": True, "chars": len(output)}


def keep_written(call: dict[str, Any]) -> None:
    """Put the diffs of the files kandev-tui wrote for ``call`` (``written``, see :mod:`.clientside`) back into its
    content: an update replaces the content, and the agent's own content may show no diff (OpenCode)."""
    written = call.get("written")
    if not isinstance(written, list) or not written:
        return
    content = of_type(call, "content", list, [])
    shown = {block.get("path") for block in content if isinstance(block, dict) and block.get("type") == "diff"}
    missing = [block for block in written if isinstance(block, dict) and block.get("path") not in shown]
    if missing:
        call["content"] = [*content, *missing]


def new_call(tool_call_id: str, turn: int) -> dict[str, Any]:
    return {
        "tool_call_id": tool_call_id,
        "name": "other",
        "input": {"kind": "other", "raw_input": None},
        "output": None,
        "status": PENDING,
        "title": None,
        "kind": "other",
        "parent_id": None,
        "turn": turn,
    }


def merge_tool_frame(call: dict[str, Any], update: dict[str, Any], first: bool) -> dict[str, Any]:
    """Merge one ``tool_call``/``tool_call_update`` into ``call`` (mutated and returned)."""
    claude = _claude_meta(update)
    if first and call.get("mcp") is None:
        envelope = mcp_envelope(update)
        call["mcp"] = envelope is not None
        if envelope:
            call["name"], call["input"] = envelope[0], envelope[1]
    brought_something = False
    title = update.get("title")
    if isinstance(title, str) and title:
        call["title"] = title
        brought_something = True
    kind = update.get("kind")
    if isinstance(kind, str) and kind:
        call["kind"] = kind
    if not call.get("mcp"):
        call["name"] = call["kind"]
        if "rawInput" in update:
            raw = update["rawInput"]
            previous = (call.get("input") or {}).get("raw_input")
            if raw not in (None, {}) or previous in (None, {}):
                call["input"] = {"kind": call["kind"], "raw_input": raw}
                brought_something = brought_something or raw not in (None, {})
        else:
            call["input"] = {**(call.get("input") or {}), "kind": call["kind"]}
    for key in ("content", "locations"):
        if isinstance(update.get(key), list):
            call[key] = update[key]
            brought_something = brought_something or bool(update[key])
    status = ACP_STATUS.get(of_type(update, "status", str, ""))
    if "rawOutput" in update:
        raw_output = update["rawOutput"]
        if call.get("mcp") and isinstance(raw_output, dict) and "result" in raw_output and "error" in raw_output:
            if raw_output.get("error") not in (None, "", {}):
                call["output"] = {"error": raw_output["error"]}
                status = FAILED
            else:
                call["output"] = raw_output["result"]
        else:
            call["output"] = raw_output
    parent = claude.get("parentToolUseId")
    if isinstance(parent, str) and parent:
        call["parent_id"] = parent
    subagent = _subagent_info(call, update, claude)
    if subagent:
        call["subagent"] = {**(call.get("subagent") or {}), **subagent}
    response = claude.get("toolResponse")
    if status is None and isinstance(response, dict) and response.get("status") == "async_launched":
        status = COMPLETE
    if (
        status == COMPLETE
        and claude.get("toolName") == "Monitor"
        and isinstance(update.get("rawOutput"), str)
        and update["rawOutput"].startswith("Monitor started")
    ):
        status = IN_PROGRESS  # the registration, not the end of the monitor
    if not call.get("mcp") and terminal_meta(call, update.get("_meta")) and status is None and call["status"] == PENDING:
        status = IN_PROGRESS  # output is streaming
    if not call.get("mcp") and (call["kind"] == "execute" or isinstance(call.get("shell"), dict)):
        # a command (or a call that streamed command output: codex-acp calls some commands "read"), its rawOutput
        shell = shell_output(call.get("output") if "rawOutput" in update else None, update.get("_meta"),
                             update.get("content") if "content" in update else None)
        if shell:
            call["shell"] = {**(call.get("shell") or {}), **{k: v for k, v in shell.items() if v is not None}}
    shell = call.get("shell")
    if isinstance(shell, dict):
        bound_output(call)
        ended = status if status is not None else call["status"]
        if ended == COMPLETE and (shell.get("exit_code") not in (None, 0) or shell.get("signal") not in (None, "")):
            status = FAILED  # done, but the command failed: whatever status the agent gave, never ✔
    keep_written(call)
    diffs = diff_summary(call.get("content"))
    if diffs is not None:
        call["diffs"] = diffs
    if status is not None:
        call["status"] = status
    elif brought_something and call["status"] == PENDING:
        call["status"] = IN_PROGRESS
    return call


def _subagent_info(call: dict[str, Any], update: dict[str, Any], claude: dict[str, Any]) -> dict[str, Any] | None:
    known = (call.get("subagent") or {}).get("provider")
    if claude.get("toolName") in ("Agent", "Task") or (known == "claude" and claude):
        info: dict[str, Any] = {"provider": "claude"}
        response = claude.get("toolResponse")
        if isinstance(response, dict):
            for key in ("agentId", "agentType", "status", "totalDurationMs", "totalTokens", "totalToolUseCount", "isAsync"):
                if key in response:
                    info[key] = response[key]
        return info
    meta = update.get("_meta")
    codex = meta.get("codex") if isinstance(meta, dict) else None
    if isinstance(codex, dict):
        collaboration = codex.get("collaboration")
        if isinstance(collaboration, dict) and collaboration.get("tool") == "spawnAgent":
            return {"provider": "codex", "threads": collaboration.get("receiverThreadIds")}
        activity = codex.get("subagent")
        if isinstance(activity, dict) and isinstance(activity.get("activity"), str):
            return {"provider": "codex", "activity": activity["activity"], "path": activity.get("path")}
    title = call.get("title")
    if isinstance(title, str) and (title.startswith("Task: ") or title == "task"):
        return {"provider": "cursor" if title.startswith("Task: ") else "opencode"}
    return None


def call_output(payload: dict[str, Any]) -> Any:
    """What a call gave back, for a reader: a command's stdout and stderr with its exit code; else its output as
    the agent sent it; else the text of its ``content`` blocks (where agents put a failed call's error). None when
    it gave nothing back. Stored payloads are not trusted to have the normaliser's shape."""
    shell = payload.get("shell")
    if isinstance(shell, dict) and any(shell.get(k) not in (None, "") for k in ("stdout", "stderr", "exit_code")):
        text = "\n".join(part for part in (shell.get("stdout"), shell.get("stderr")) if isinstance(part, str) and part)
        if shell.get("exit_code") is not None:
            text += f"\n[exit code {str(shell['exit_code'])[:40]}]"
        return text.lstrip("\n")
    output = payload.get("output")
    if output not in (None, "", [], {}):
        return output
    return content_text(payload)


def content_text(payload: dict[str, Any]) -> str | None:
    """The text of a call's ``content`` blocks, one paragraph each (None when they hold none)."""
    content = payload.get("content")
    texts = [block["content"]["text"] for block in (content if isinstance(content, list) else [])
             if isinstance(block, dict) and isinstance(block.get("content"), dict)
             and isinstance(block["content"].get("text"), str) and block["content"]["text"]]
    return "\n\n".join(texts) or None


def cancel_if_unfinished(call: dict[str, Any]) -> bool:
    """At the end of a turn an unfinished call becomes cancelled; True if it changed."""
    if call.get("status") not in TERMINAL:
        call["status"] = CANCELLED
        return True
    return False


def summarize(call: dict[str, Any]) -> dict[str, Any]:
    """The tool's type and key argument (file path, command, query), for cards and groups.

    ``tool_type`` is one of ``tool_read``, ``tool_edit``, ``tool_execute``,
    ``tool_search`` and ``tool_call``, as Kandev's normaliser classifies them.
    """
    kind = call.get("kind") or "other"
    inp = of_type(call, "input", dict, {})
    raw = of_type(inp, "raw_input", dict, {})
    locations = call.get("locations") or inp.get("locations") or []
    if not isinstance(locations, list):  # stored data is not trusted to have our shape
        locations = []
    first_location = next((loc.get("path") for loc in locations if isinstance(loc, dict) and isinstance(loc.get("path"), str) and loc.get("path")), None)
    path = next((raw[k] for k in ("path", "file_path") if isinstance(raw.get(k), str) and raw[k]), None)
    out: dict[str, Any] = {}
    if call.get("mcp"):
        out["tool_type"] = "tool_call"
        out["key"] = call.get("name")
        return out
    if kind == "read":
        out["tool_type"] = "tool_search" if raw.get("type") == "directory" else "tool_read"
        out["file_path"] = path or first_location
    elif kind == "edit":
        out["tool_type"] = "tool_edit"
        out["file_path"] = path or first_location
        for source, target in (("old_str_1", "old_content"), ("new_str_1", "new_content"),
                               ("old_str_start_line_number_1", "start_line"), ("old_str_end_line_number_1", "end_line")):
            if source in raw:
                out[target] = raw[source]
    elif kind == "execute":
        out["tool_type"] = "tool_execute"
        if isinstance(raw.get("command"), str):
            out["command"] = raw["command"]
        if isinstance(raw.get("cwd"), str) and raw["cwd"]:
            out["cwd"] = raw["cwd"]
        wait = raw.get("max_wait_seconds", raw.get("timeout"))
        if isinstance(wait, (int, float)) and not isinstance(wait, bool) and wait > 0:
            out["timeout"] = wait
    elif kind == "search":
        out["tool_type"] = "tool_search"
        for key in ("query", "pattern"):
            if isinstance(raw.get(key), str):
                out["query"] = raw[key]
                break
    else:
        out["tool_type"] = "tool_call"
    out["key"] = out.get("file_path") or out.get("command") or out.get("query") or call.get("title")
    return {k: v for k, v in out.items() if v is not None}
