"""The rich-output tool's names (spec §6.1), apart from the models: the renderer registry asks for them at start-up."""

from __future__ import annotations

from typing import Any

TOOL_NAME = "show_rich_output_kandev"
KANDEV_NAMES = frozenset(
    {
        TOOL_NAME,
        f"mcp__kandev__{TOOL_NAME}",  # Claude Code
        f"kandev/{TOOL_NAME}",  # Codex
        f"mcp.kandev.{TOOL_NAME}",
        f"kandev_{TOOL_NAME}",  # OpenCode: SERVER_TOOL, in the call's title
        f"{TOOL_NAME} (kandev MCP Server)",  # Gemini CLI's title: TOOL (SERVER MCP Server)
    }
)
_NAMESPACE_MARKS = ("/", "__", ".")


def is_rich_output_name(name: str | None, title: str | None = None) -> bool:
    """Spec §6.1: a Kandev-namespaced (or bare) ``show_rich_output_kandev``, in each agent's dialect (Claude's
    ``mcp__kandev__…``, Codex's ``kandev/…``, OpenCode's ``kandev_…``, Gemini CLI's ``… (kandev MCP Server)``).

    A namespaced name of another server is not, whatever the title says (nor ``other_show_rich_output_kandev`` or
    ``show_rich_output_kandev (other MCP Server)``); a name with no namespace (Claude's ``other``, an ACP kind)
    defers to the title.
    """
    if isinstance(name, str):
        candidate = name.strip()
        if candidate in KANDEV_NAMES:
            return True
        if any(mark in candidate for mark in _NAMESPACE_MARKS):
            return False
    if isinstance(title, str):
        return title.strip() in KANDEV_NAMES
    return False


def is_rich_output_call(call: dict[str, Any]) -> bool:
    """Whether a stored tool call (an item's payload) is a rich-output call: as kandev-tui's own server saw it
    (``rich_output``) when a server of ours was reached in its session, else by its name in the agent's dialect.

    A call made while a server of ours was reached (``rich_output_known``) that the server never saw is not one
    until it completes: one that fails or is cancelled never reached the server (refused, say) and stays a generic
    call; one that completes all the same was answered by a server of ours whose report was lost (the side channel
    died), and is read from the agent's frames as it would be without one."""
    if isinstance(call.get("rich_output"), dict):
        return True
    if call.get("rich_output_known") is True and call.get("status") != "complete":
        return False
    name, title = call.get("name"), call.get("title")
    return is_rich_output_name(name if isinstance(name, str) else None, title if isinstance(title, str) else None)


def extract_arguments(input_: Any) -> Any:
    """Spec §6.2: ``input.raw_input.arguments``, else ``input.raw_input``, else ``input``."""
    if isinstance(input_, dict):
        raw = input_.get("raw_input")
        if isinstance(raw, dict):
            arguments = raw.get("arguments")
            return arguments if isinstance(arguments, dict) else raw
    return input_


def outline(arguments: Any) -> str:
    """What a presentation's arguments hold, in a few words (``2 metrics · bar chart: Tests by module``), for the
    user asked to let an agent show it; "" when they hold no blocks. Read as they came (not validated yet): what is
    not a block is left out."""
    blocks = arguments.get("blocks") if isinstance(arguments, dict) else None
    if not isinstance(blocks, list):
        return ""
    parts = []
    for block in blocks[:4]:  # (a presentation holds 1-4)
        if not isinstance(block, dict):
            continue
        kind, title = block.get("type"), block.get("title")
        title = title.strip() if isinstance(title, str) else ""
        if kind == "metrics":
            count = len(block["items"]) if isinstance(block.get("items"), list) else 0
            parts.append(f"{count} metric{'' if count == 1 else 's'}" if count else "metrics")
        elif kind == "chart":
            chart = block.get("chart_type") if block.get("chart_type") in ("line", "bar") else ""
            source = " from a CSV file" if isinstance(block.get("csv"), dict) else ""
            parts.append(f"{chart} chart{source}".strip() + (f": {title}" if title else ""))
        elif kind == "file":
            path = block.get("path")
            parts.append(f"file {path}" if isinstance(path, str) and path.strip() else "a file")
    if len(blocks) > 4:
        parts.append(f"{len(blocks) - 4} more")
    return " · ".join(parts)
