"""A call's ACP content blocks and locations: text as inert Markdown (Claude's Bash description, Codex's review
verdicts, an MCP tool's text result), resource links as paths, images and audio as a line with their type and
size, and ``locations`` as ``path:line``. Diffs and terminals have views of their own."""

from __future__ import annotations

import base64
from typing import Any, Callable

from rich.text import Text

from kandev_tui.base.jsonutil import of_type
from kandev_tui.base.sanitize import visible

from kandev_tui.widgets.entries.calls.diff import workspace_relative


def _size(data: Any) -> str:
    if not isinstance(data, str):
        return "size unknown"
    size = len(data) * 3 // 4 - data[-2:].count("=")
    try:
        size = len(base64.b64decode(data, validate=False))
    except (ValueError, TypeError):
        pass
    return f"{size / 1024:.1f} KB" if size >= 1024 else f"{size} byte{'s' if size != 1 else ''}"


def block_part(block: dict[str, Any]) -> Any | None:
    """One content item (the ``content`` of a ``{type: "content"}`` block) as a renderable, or None to skip it."""
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
        from kandev_tui.widgets.markdown_rich import rich_markdown

        return rich_markdown(visible(block["text"]), dark=True)  # Markdown of inert text: no escape gets through
    if kind in ("image", "audio"):
        mime = visible(str(block.get("mimeType") or kind), keep_newlines=False)[:60]
        return Text(f"[{kind} {mime}, {_size(block.get('data'))}]", style="dim")
    if kind in ("resource_link", "resource"):
        inner = of_type(block, "resource", dict, block)
        where = inner.get("uri") or inner.get("name") or "resource"
        return Text.assemble(("↗ ", "dim"), (visible(str(where), keep_newlines=False)[:300], "underline"))
    return None


def content_parts(content: Any, *, skip_terminal: bool = False, shown: str | None = None,
                  said: Callable[[str], bool] | None = None) -> list[Any]:
    """The content blocks a call carries beside its diffs: text, links, images. With ``skip_terminal`` (the
    call's command output is shown already) a terminal block, which refers to that output, and a fenced block of
    text (Claude's ```` ```console ```` copy of it) are left out; so is a text block that says ``shown`` again (the
    result a read or a search showed already: agents send it both as the result and as content), or one ``said``
    judges said already (a command's output)."""
    shown = shown.strip() if shown else None
    if not isinstance(content, list):
        return []
    parts: list[Any] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "content" and isinstance(block.get("content"), dict):
            inner = block["content"]
            if skip_terminal and inner.get("type") == "text" and str(inner.get("text", "")).lstrip().startswith("```"):
                continue
            if shown and inner.get("type") == "text" and str(inner.get("text", "")).strip() == shown:
                continue
            if said is not None and inner.get("type") == "text" and said(str(inner.get("text", ""))):
                continue
            part = block_part(inner)
            if part is not None:
                parts.append(part)
        elif block.get("type") == "terminal" and not skip_terminal:
            terminal = visible(str(block.get("terminalId") or "?"), keep_newlines=False)[:60]
            parts.append(Text(f"(terminal {terminal}: its output was not sent)", style="dim italic"))
    return parts


def locations_line(locations: Any, root: str | None = None) -> Text | None:
    """``path:line`` for each location, on one line (None when there are none); a path inside the workspace's
    folder ``root`` relative to it, as a diff's header shows it."""
    if not isinstance(locations, list):
        return None
    shown = []
    for location in locations:
        if isinstance(location, dict) and isinstance(location.get("path"), str) and location["path"]:
            line = location.get("line")
            suffix = f":{line}" if isinstance(line, int) and not isinstance(line, bool) else ""
            shown.append(visible(workspace_relative(location["path"], root), keep_newlines=False)[:200] + suffix)
    if not shown:
        return None
    return Text.assemble(("at ", "dim"), (", ".join(dict.fromkeys(shown)), "dim underline"))
