"""What a read or a search gave back: a file's excerpt (syntax colour by its path, the first lines, then how many
more), or a search's matches (one per line, the count). Only text results: anything else keeps the generic view."""

from __future__ import annotations

from typing import Any

from rich.syntax import Syntax
from rich.text import Text

from kandev_tui.base.sanitize import visible
from kandev_tui.transcript.tools import summarize

COMPACT_LINES = 12
FULL_LINES = 2_000


def result_text(payload: dict[str, Any]) -> str | None:
    """The call's result when it is text: a string, the ``text`` of a dict or of its content blocks."""
    output = payload.get("output")
    if isinstance(output, dict):
        output = output.get("content") if isinstance(output.get("content"), (str, list)) else output.get("text")
    if isinstance(output, list):
        texts = [text for b in output if isinstance(b, dict) and isinstance(text := b.get("text"), str)]
        output = "\n".join(texts) if texts else None
    return output if isinstance(output, str) and output.strip() else None


def _bounded(lines: list[str], compact: bool) -> tuple[list[str], int]:
    limit = COMPACT_LINES if compact else FULL_LINES
    return lines[:limit], max(0, len(lines) - limit)


def _more(count: int, compact: bool) -> list[Any]:
    if not count:
        return []
    return [Text(f"{'m: ' if compact else ''}{count:,} more line{'s' if count != 1 else ''}", style="dim italic")]


def read_parts(payload: dict[str, Any], compact: bool, syntax_theme: str = "ansi_dark") -> list[Any] | None:
    text = result_text(payload)
    if text is None:
        return None
    path = summarize(payload).get("file_path")
    lines, more = _bounded(visible(text).splitlines(), compact)
    lexer = "text"
    if isinstance(path, str) and path:
        try:
            lexer = Syntax.guess_lexer(path, code="")
        except Exception:  # noqa: BLE001 - a file type Pygments does not know
            lexer = "text"
    return [Syntax("\n".join(lines), lexer, theme=syntax_theme, word_wrap=True)] + _more(more, compact)


def search_parts(payload: dict[str, Any], compact: bool) -> list[Any] | None:
    text = result_text(payload)
    if text is None:
        return None
    matches = [line for line in visible(text).splitlines() if line.strip()]
    query = summarize(payload).get("query")
    shown, more = _bounded(matches, compact)
    head = Text.assemble((f"{len(matches):,} match{'es' if len(matches) != 1 else ''}", "bold"),
                         (f" for {visible(str(query), keep_newlines=False)[:120]}" if query else "", "dim"))
    body = []
    for line in shown:
        row = Text(line)
        if isinstance(query, str) and query:
            row.highlight_words([query], "bold reverse", case_sensitive=False)
        body.append(row)
    return [head, *body, *_more(more, compact)]
