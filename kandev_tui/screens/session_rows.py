"""The sessions list's rows as text, every part inert: a stored session, a Kandev task session, a search's hit, and
the list's heading (kandev_tui/screens/sessions.py shows them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rich.cells import cell_len
from rich.text import Text

from kandev_tui.base.sanitize import visible
from kandev_tui.transcript.continuing import can_continue
from kandev_tui.widgets.entries.base import safe_text

WHO = {"user_message": "you", "agent_message": "agent", "thought": "thought", "tool_call": "tool"}


def hit_text(hit: Any, width: int) -> Text:
    """A search hit in two lines, every part inert: its session's title and turn, who said it; then the words around
    the match, the matched ones bold."""
    from kandev_tui.transcript.searching import MARK_END, MARK_START

    text = Text.assemble(("⌕ ", "dim"), (safe_text(hit.title or "untitled", keep_newlines=False), "italic"),
                         (f"  turn {hit.turn}", "dim"), (f"  {WHO.get(hit.kind, hit.kind)}", "bold"))
    text.truncate(max(10, width), overflow="ellipsis")
    second = Text("    ")
    parts = hit.context.split(MARK_START)
    second.append(safe_text(parts[0], keep_newlines=False))
    for part in parts[1:]:
        marked, _, rest = part.partition(MARK_END)
        second.append(safe_text(marked, keep_newlines=False), style="bold reverse")
        second.append(safe_text(rest, keep_newlines=False))
    second.truncate(max(10, width), overflow="ellipsis")
    text.append("\n")
    text.append_text(second)
    return text


def stored_text(row: dict[str, Any], width: int) -> Text:
    """A stored session in two lines, every part inert: when, state, items, agent; then title and workspace."""
    from kandev_tui.sources import agent_display_name

    when = datetime.fromtimestamp(row.get("updated") or row.get("created") or 0).strftime("%Y-%m-%d %H:%M")
    text = Text.assemble(("■ ", "dim"), (when, "bold"), (f"  {visible(str(row.get('state') or ''), keep_newlines=False)}",
                                                         "dim"), (f"  {items_said(row)}", "dim"))
    if can_continue(row):  # its folder gone (a worktree removed on close), it can only be opened: c says so
        gone = row.get("folder_gone", False)  # looked at where the rows are read, off the UI's thread
        text.append("  folder gone" if gone else "  c continues", style="dim" if gone else "green")
    text.append("  ")
    text.append(safe_text(agent_display_name(row.get("agent_command") or []), keep_newlines=False), style="bold")
    text.truncate(max(10, width), overflow="ellipsis")
    second = Text("    ")
    second.append(safe_text(str(row.get("title") or "session"), keep_newlines=False), style="italic")
    second.append("  ")
    second.append(safe_text(str(row.get("workspace") or ""), keep_newlines=False), style="dim")
    second.truncate(max(10, width), overflow="ellipsis")
    text.append("\n")
    text.append_text(second)
    return text


def heading_text(count: int, live: int, waiting: int, can_start: bool, width: int) -> Text:
    """The list's heading in ``width`` columns, on one line: whole parts only (a key is never wrapped away from what
    it does), who waits first, then how many there are, then ctrl+n; a part that does not fit is left out."""
    parts: list[tuple[str, str]] = []
    if waiting:
        parts.append((f"  {waiting} waiting for you (f4)", "bold yellow"))
    parts.append((f"  {count} in this app" + (f" · {live} live" if live else ""), "dim"))
    if can_start:  # agents can be started here
        parts.append(("  ctrl+n new", "dim"))
    heading = Text("Sessions")
    for part, style in parts:
        if heading.cell_len + cell_len(part) <= width:
            heading.append(part, style=style)
        elif style.startswith("bold") and heading.cell_len + cell_len(f"  {waiting} waiting (f4)") <= width:
            heading.append(f"  {waiting} waiting (f4)", style=style)
    return heading


def items_said(row: dict[str, Any]) -> str:
    count = row.get("items", 0)
    return f"{count} item{'s' if count != 1 else ''}"


def remote_text(entry: Any, width: int) -> Text:
    """A Kandev task session in two lines, every part inert: when, state, agent; then the task and its workspace."""
    from kandev_tui.screens.session_picker import state_words, when

    _mark, words, style = state_words(str(entry.state or ""))
    text = Text.assemble(("◇ ", "cyan"), (when(str(entry.updated_at)) if entry.updated_at else "", "bold"),
                         (f"  {words}", style or "dim"), "  ")
    text.append(safe_text(str(entry.agent or "kandev"), keep_newlines=False), style="bold")
    text.truncate(max(10, width), overflow="ellipsis")
    second = Text("    ")
    second.append(safe_text(str(entry.task or "task"), keep_newlines=False), style="italic")
    second.append("  ")
    second.append(safe_text(str(entry.workspace or ""), keep_newlines=False), style="dim")
    second.truncate(max(10, width), overflow="ellipsis")
    text.append("\n")
    text.append_text(second)
    return text
