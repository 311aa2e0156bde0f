"""The rich-output tool's names (spec §6.1), apart from the models: the renderer registry asks for them at start-up."""

from __future__ import annotations

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
