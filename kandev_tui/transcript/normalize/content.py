"""What the normaliser reads out of ACP content: a block's text, a sent file's name, a todo list, a request's view
of a call."""

from __future__ import annotations

from typing import Any


def _request_view(call: dict[str, Any]) -> dict[str, Any]:
    """A known call as a permission request's ``toolCall`` carries it (title, kind, rawInput, content, locations)."""
    view: dict[str, Any] = {}
    for key in ("title", "kind"):
        if isinstance(call.get(key), str) and call[key]:
            view[key] = call[key]
    raw = (call.get("input") or {}).get("raw_input") if isinstance(call.get("input"), dict) else None
    if raw not in (None, {}, ""):
        view["rawInput"] = raw
    for key in ("content", "locations"):
        if isinstance(call.get(key), list) and call[key]:
            view[key] = call[key]
    return view


def _text_of(content: Any) -> str:
    """The text of one ACP content block (other block types become a marker)."""
    if isinstance(content, dict):
        if content.get("type") == "text" and isinstance(text := content.get("text"), str):
            return text
        if content.get("type") in ("resource_link", "resource"):
            uri = content.get("uri") or (content.get("resource") or {}).get("uri")
            return f"[{content.get('type')}: {uri}]" if isinstance(uri, str) else f"[{content.get('type')}]"
        if isinstance(content.get("type"), str):
            return f"[{content['type']}]"
    if isinstance(content, list):
        return "".join(_text_of(c) for c in content)
    return ""


def _block_name(block: Any) -> str:
    """How the user's message names a file sent with it (``@`` in the prompt): its path, or its URI's last part."""
    if not isinstance(block, dict):
        return ""
    if isinstance(name := block.get("name"), str):
        return name[:300]
    uri = block.get("uri") or (block.get("resource") or {}).get("uri")
    return uri.rsplit("/", 1)[-1][:300] if isinstance(uri, str) else str(block.get("type") or "")[:40]


def _todos(output: Any) -> list[dict[str, Any]] | None:
    """A todo tool's list (OpenCode: ``todos`` or ``metadata.todos``), which becomes the plan."""
    if not isinstance(output, dict):
        return None
    todos = output.get("todos")
    if todos is None and isinstance(output.get("metadata"), dict):
        todos = output["metadata"].get("todos")
    if isinstance(todos, list) and todos and all(isinstance(t, dict) for t in todos):
        return todos
    return None
