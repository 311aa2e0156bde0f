from __future__ import annotations

from functools import lru_cache

from rich.errors import StyleSyntaxError
from rich.style import Style
from rich.text import Text

from kandev_tui.transcript.items import AGENT_NOTICE, ERROR, NOTE, Item

from kandev_tui.widgets.entries.base import TextEntry, code_spans, safe_text


SHOWN_LINES = 5  # of a run of lines that are not JSON-RPC (its item keeps more: kandev_tui/transcript/rawlines.py)


class Notice(TextEntry):
    """An error that says what happened, a quiet one-line note, or the end-of-turn marker."""

    DEFAULT_CSS = """
    Notice { height: auto; margin: 1 0 0 0; padding: 0 1; }
    Notice.error { border-left: thick $error; color: $text; background: $error 10%; }
    Notice.turn-end { color: $text-muted; text-align: center; margin: 0; }
    Notice.note { color: $text-muted; margin: 0; }
    Notice.agent-info { color: $text; }
    Notice.agent-warning { border-left: thick $warning; background: $warning 10%; }
    Notice.agent-error { border-left: thick $error; background: $error 10%; }
    """

    def __init__(self, item: Item) -> None:
        kind = {ERROR: "error", NOTE: "note"}.get(item.kind, "turn-end")
        if item.kind == AGENT_NOTICE:
            kind = f"agent-{item.payload.get('severity', 'info')}"
        super().__init__(item, classes="entry " + kind)

    def update_item(self, item: Item) -> None:
        payload = item.payload
        if item.kind == ERROR:
            text = Text()
            text.append("✖ ", style="bold red")
            text.append(safe_text(payload.get("message", "Error")))
            if payload.get("exit_code") is not None:
                text.append(f"\n  exit code {payload['exit_code']}", style="dim")
            for line in payload.get("stderr") or []:
                text.append("\n  " + safe_text(line, keep_newlines=False), style="dim")
            first = payload.get("first")  # the agent's lines that are not JSON-RPC (a run of them: its first)
            lines: list = [line for line in (first if isinstance(first, list) else [payload.get("preview")]) if line]
            for line in lines[:SHOWN_LINES]:
                text.append("\n  " + safe_text(str(line), keep_newlines=False)[:200], style="dim")
            count = payload.get("lines")
            more = count - min(len(lines), SHOWN_LINES) if isinstance(count, int) else 0
            if more > 0:
                text.append(f"\n  … and {more:,} more line{'s' if more != 1 else ''}", style="dim")
        elif item.kind == AGENT_NOTICE:
            severity = payload.get("severity", "info")
            mark = {"warning": ("▲ ", "bold yellow"), "error": ("✖ ", "bold red")}.get(severity, ("ℹ ", "bold"))
            code = _code_style(self.app.current_theme.accent)  # as a message's `code` is drawn
            title = safe_text(str(payload.get("title", "")), keep_newlines=False)[:500]
            text = Text.assemble(mark, *code_spans(title, "bold", code))
            if payload.get("description"):
                text.append("\n")
                text.append_tokens(code_spans(safe_text(str(payload["description"]))[:4000], "", code))
        elif item.kind == NOTE:
            text = Text("· " + safe_text(str(payload.get("text", "")), keep_newlines=False)[:300])
        else:
            reason = payload.get("stop_reason", "end_turn")
            label = {"end_turn": "end of turn", "cancelled": "turn cancelled", "error": "turn ended with an error",
                     "max_tokens": "stopped: token limit", "refusal": "the agent refused"}.get(reason, f"turn ended ({reason})")
            text = Text(f"── {safe_text(label, keep_newlines=False)} ──")
        self.show(text)


@lru_cache(maxsize=8)
def _code_style(accent: str | None) -> str:
    """Bold in the theme's accent, as Markdown's `code` (a colour Rich cannot parse, a custom theme's: bold)."""
    try:
        return str(Style.parse(f"bold {accent}")) if accent else "bold"
    except StyleSyntaxError:
        return "bold"
