"""Writing a stored session out: JSON, JSON lines, or a readable Markdown transcript."""

from __future__ import annotations


import re
from datetime import datetime, timezone
from typing import Any, Iterable

from kandev_tui.base.sanitize import visible

from kandev_tui.base.jsonutil import dumps

from .items import (AGENT, AGENT_NOTICE, CHANGES, COMPACTION, ELICITATION, ERROR, PERMISSION, PLAN, SUBAGENT, THOUGHT,
                    TOOL, TURN_END, USER)
from .items import Item
from .rich_calls import what_is_asked
from .tools import call_output


def _md_cell(text: Any) -> str:
    return visible(str(text), keep_newlines=False).replace("|", "\\|")


def _fence(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}\n{visible(text)}\n{ticks}"


def rich_output_markdown(item: Item) -> str | None:
    """Markdown for a rich-output call, or None when the item is not one."""
    from kandev_tui.presentation import State, read_tool_call
    from kandev_tui.presentation.axis import format_y_tick

    result = read_tool_call(item.payload, item.status)
    if not result.is_rich_output:
        return None
    if result.state is not State.READY:
        state = {State.PENDING: "visual output pending", State.RUNNING: "visual output running",
                 State.CANCELLED: "visual output cancelled", State.UNAVAILABLE: "This presentation is unavailable.",
                 State.FAILED: f"visual output failed: {result.error}"}[result.state]
        return f"> {_md_cell(state)}"
    presentation = result.presentation
    assert presentation is not None
    lines = [f"#### {_md_cell(presentation.title)}"]
    if presentation.description:
        lines.append(_md_cell(presentation.description))
    for block in presentation.blocks:
        lines.append("")
        if block.type == "chart":
            lines.append(f"**{_md_cell(block.title)}** ({block.chart_type} chart): {_md_cell(block.summary)}")
            lines.append("")
            lines.append("| " + " | ".join([""] + [_md_cell(s.label) for s in block.series]) + " |")
            lines.append("|" + "---|" * (len(block.series) + 1))
            for index, label in enumerate(block.labels):
                values = ["" if s.values[index] is None else format_y_tick(s.values[index]) if abs(s.values[index]) >= 1000
                          else repr(s.values[index]).removesuffix(".0") for s in block.series]
                lines.append("| " + " | ".join([_md_cell(label)] + values) + " |")
        elif block.type == "metrics":
            for metric in block.items:
                detail = f" ({_md_cell(metric.detail)})" if metric.detail else ""
                lines.append(f"- **{_md_cell(metric.label)}**: {_md_cell(metric.value)}{detail}")
        else:
            where = f"{block.repo}:" if block.repo else ""
            title = f"{_md_cell(block.title)}: " if block.title else ""
            lines.append(f"- file {title}`{_md_cell(where + block.path)}`" + (f" — {_md_cell(block.caption)}" if block.caption else ""))
    return "\n".join(lines)


def item_markdown(item: Item) -> str | None:
    payload = item.payload
    if item.kind == USER:
        return "### You\n\n" + visible(str(payload.get("text", "")))
    if item.kind == AGENT:
        return visible(str(payload.get("text", "")))
    if item.kind == THOUGHT:
        return "> *Thought:* " + _md_cell(payload.get("text", ""))
    if item.kind == PLAN and ("markdown" in payload or "file" in payload):
        said = "**Plan**" + (" (removed)" if payload.get("removed") else "")
        if "file" in payload:
            return f"{said}: kept in `{_md_cell(payload['file'])}`"
        return f"{said}\n\n" + _fence(str(payload["markdown"])[:20000])
    if item.kind == PLAN:
        marks = {"completed": "x", "in_progress": "~"}
        return "**Plan**\n\n" + "\n".join(
            f"- [{marks.get(e.get('status'), ' ')}] {_md_cell(e.get('content', ''))}" for e in payload.get("entries", []))
    if item.kind == TOOL:
        rich = rich_output_markdown(item)
        if rich is not None:
            return rich
        title = payload.get("title") or payload.get("name") or "tool"
        text = f"- **{_md_cell(title)}** ({_md_cell(item.status or 'pending')})"
        output = call_output(payload)
        if output not in (None, "", [], {}):
            body = output if isinstance(output, str) else dumps(output, indent=2)
            text += "\n\n" + _fence(body[:4000] + ("\n…" if len(body) > 4000 else ""))
        return text
    if item.kind == PERMISSION:
        tool_call = payload.get("tool_call")
        verb, title, _ = what_is_asked(tool_call if isinstance(tool_call, dict) else {})
        answer = payload.get("answer") or {}
        said = answer.get("name") or answer.get("outcome") or "unanswered"
        return f"- Permission asked to {verb} **{_md_cell(title)}**: {_md_cell(said)}"
    if item.kind == ELICITATION:
        return elicitation_markdown(item)
    if item.kind == SUBAGENT:
        calls = payload.get("tools") or []
        said = (f"- Subagent **{_md_cell(payload.get('title') or payload.get('description') or 'a subagent')}** "
                f"({_md_cell(payload.get('state', 'running'))}, {len(calls)} call{'s' if len(calls) != 1 else ''})")
        words = payload.get("text") or ""
        return said + (f"\n\n> {_md_cell(words[-2000:])}" if words else "")
    if item.kind == AGENT_NOTICE:
        said = f"> **{_md_cell(payload.get('severity', 'info'))}: {_md_cell(payload.get('title', ''))}**"
        return said + (f"\n> {_md_cell(payload['description'])}" if payload.get("description") else "")
    if item.kind == COMPACTION:
        said = f"- Context compaction ({_md_cell(payload.get('status', 'in_progress'))})"
        if isinstance(payload.get("context_before"), int) and isinstance(payload.get("context_after"), int):
            said += f", context {payload['context_before']} → {payload['context_after']} tokens"
        if payload.get("error"):
            said += f": {_md_cell(payload['error'])}"
        summary = payload.get("summary") or ""
        return said + ("\n\n" + _fence(summary[:4000] + ("\n…" if len(summary) > 4000 else "")) if summary else "")
    if item.kind == CHANGES:
        return changes_markdown(payload)
    if item.kind == ERROR:
        return f"> **Error:** {_md_cell(payload.get('message', ''))}"
    if item.kind == TURN_END:
        return f"*— end of turn ({_md_cell(payload.get('stop_reason', ''))}) —*"
    return None


def elicitation_markdown(item: Item) -> str:
    """A question the agent asked: what, the link's host, and the answer (each field's value)."""
    from .elicitation import parse_form, shown

    payload = item.payload
    asked = f"- Question from {_md_cell(payload.get('agent') or 'the agent')}: **{_md_cell(payload.get('message') or '')}**"
    if payload.get("mode") == "url":
        asked += f" (opens {_md_cell(payload.get('host') or payload.get('url') or '?')})"
    said = f"declined: {payload['problem']}" if payload.get("problem") else (item.status or "pending")
    lines = [f"{asked}: {_md_cell(said)}"]
    content = (payload.get("answer") or {}).get("content")
    if isinstance(content, dict):
        fields = {f.name: f for f in parse_form(payload.get("schema"))[0]}
        for name, value in content.items():
            field = fields.get(name)
            value_text = shown(field, value) if field is not None else str(value)
            lines.append(f"  - {_md_cell(field.title if field is not None else str(name))}: {_md_cell(value_text)}")
    return "\n".join(lines)


def session_markdown(session: dict[str, Any], items: Iterable[Item]) -> str:
    started = datetime.fromtimestamp(session["created"], tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head = [f"# {_md_cell(session.get('title') or 'Session')}", "",
            f"- session: `{session['id']}`", f"- agent: `{_md_cell(' '.join(session.get('agent_command') or []))}`",
            f"- workspace: `{_md_cell(session.get('workspace', ''))}`", f"- started: {started}", ""]
    body = [text for text in (item_markdown(item) for item in items) if text]
    return "\n".join(head) + "\n" + "\n\n".join(body) + "\n"  # (a blank line between the head's list and the body)


def changes_markdown(payload: dict[str, Any]) -> str:
    """A turn's changes card: its counts, then a table of its files."""
    state = payload.get("state")
    if state == "unavailable":
        return f"- Changes not tracked: {_md_cell(payload.get('reason', ''))}"
    if state != "ready":
        return "- No files changed" if state == "none" else "- Changes: still being computed"
    count = payload.get("count", 0)
    said = f"- **{count} file{'s' if count != 1 else ''} changed** +{payload.get('added', 0)} −{payload.get('removed', 0)}"
    if payload.get("overlapped"):
        said += " (another session's turn ran in this repository meanwhile)"
    rows = ["| file | change | + | − |", "|---|---|---|---|"]
    for entry in payload.get("files") or []:
        name = entry["path"] if not entry.get("old_path") else f"{entry['old_path']} → {entry['path']}"
        rows.append(f"| {_md_cell(name)} | {_md_cell(entry.get('status', ''))}{' (binary)' if entry.get('binary') else ''}"
                    f"{' (no tool call named it)' if entry.get('unnamed') else ''}"
                    f" | {entry.get('added', 0)} | {entry.get('removed', 0)} |")
    return said + "\n\n" + "\n".join(rows)
