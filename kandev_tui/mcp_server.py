"""The ``show_rich_output_kandev`` MCP server (``kandev-tui mcp``), over stdio.

Built on the official ``mcp`` SDK's low-level ``Server`` so that the raw v1
JSON schema is published as it is. The SDK does not validate arguments against
that schema, so every call goes through :func:`call_show_rich_output`, the same
function ``kandev-tui validate`` uses. ``mcp`` is imported only in :func:`serve`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

from kandev_tui.presentation import (
    INPUT_SCHEMA,
    TOOL_DESCRIPTION,
    TOOL_NAME,
    PresentationError,
    parse_tool_input,
    resolve_csv,
)
from kandev_tui.presentation.guidance import PROFILES, RICH_OUTPUT_PROFILES
from kandev_tui.workspace import Workspace

ACCEPTED = "Rich output accepted."


@dataclass(frozen=True)
class ToolOutcome:
    """What the tool returns: an error text, or a text plus an optional snapshot."""

    is_error: bool
    text: str
    structured: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The MCP ``CallToolResult`` as wire JSON."""
        out: dict[str, Any] = {"content": [{"type": "text", "text": self.text}], "isError": self.is_error}
        if self.structured is not None:
            out["structuredContent"] = self.structured
        return out


def call_show_rich_output(arguments: Any, workspace: Workspace) -> ToolOutcome:
    """Validate ``arguments`` and resolve their CSV charts (spec §5).

    Invalid input: an error outcome with one concise message, nothing read.
    Valid without CSV charts: ``Rich output accepted.``. With CSV charts: the
    snapshot as structured content and the identical compact JSON as text.
    """
    try:
        presentation = parse_tool_input(arguments)
        snapshot = resolve_csv(presentation, workspace)
    except PresentationError as exc:
        return ToolOutcome(True, str(exc))
    if snapshot is None:
        return ToolOutcome(False, ACCEPTED)
    text = json.dumps(snapshot, separators=(",", ":"), ensure_ascii=False)
    return ToolOutcome(False, text, snapshot)


def build_server(workspace: Workspace, profile: str = "task") -> Any:
    """The low-level MCP ``Server`` for a workspace and a profile."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from kandev_tui import __version__

    tools = []
    if profile in RICH_OUTPUT_PROFILES:
        tools.append(
            types.Tool(
                name=TOOL_NAME,
                title="Show rich output",
                description=TOOL_DESCRIPTION,
                input_schema=INPUT_SCHEMA,
                annotations=types.ToolAnnotations(
                    title="Show rich output",
                    read_only_hint=True,
                    destructive_hint=False,
                    idempotent_hint=True,
                    open_world_hint=False,
                ),
            )
        )
    names = {tool.name for tool in tools}

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name not in names:
            outcome = ToolOutcome(True, f"Unknown tool {params.name[:80]!r} (profile {profile}).")
        else:
            try:
                outcome = await anyio.to_thread.run_sync(call_show_rich_output, params.arguments, workspace)
            except Exception as exc:  # never let one call take the server down
                outcome = ToolOutcome(True, f"internal error while presenting: {type(exc).__name__}")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text)],
            structured_content=outcome.structured,
            is_error=outcome.is_error,
        )

    return Server(
        "kandev-tui",
        version=__version__,
        instructions=None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve(workspace: Workspace, profile: str = "task") -> int:
    """Run the server on stdin/stdout until the client closes the stream."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(workspace, profile)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except BaseException as exc:  # a transport failure: say so on stderr, not as a traceback
        print(f"kandev-tui mcp: stopped: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0
