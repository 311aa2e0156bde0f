"""What kandev-tui offers an agent as a session opens: its own MCP server (over HTTP where the agent reaches servers
so, else over stdio reporting to the session's hub) and the guidance, as a system prompt where the agent takes one
(elsewhere it goes before the first prompt)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from kandev_tui.transcript.frames import Frame

from .options import AgentOptions, kandev_mcp_server, mcp_capabilities

if TYPE_CHECKING:
    from kandev_tui.mcp.hub import McpHub


class Offering:
    """The session's hub (``hub``: the loopback server through which it knows each call of its MCP server; None
    until started, or when it cannot listen) and what the agent is offered."""

    def __init__(self, options: AgentOptions) -> None:
        self._options = options
        self.hub: McpHub | None = None

    async def start_hub(self, on_frame: Callable[[Frame], object], busy: Callable[[], bool],
                        note: Callable[[str], None]) -> None:
        """Listen on loopback (said, when it cannot: the server is then offered over stdio, and the agent's frames
        are all there is to read)."""
        from kandev_tui.mcp.hub import McpHub

        options = self._options
        hub = McpHub(options.workspace, options.repos, on_frame, busy=busy, agent=tuple(options.command))
        try:
            await hub.start()
        except OSError as exc:
            note(f"kandev-tui could not listen on 127.0.0.1 for its MCP server ({exc.strerror or exc}); "
                 "rich output is read from the agent's frames alone.")
            return
        self.hub = hub

    def our_server(self, capabilities: dict[str, Any]) -> dict[str, Any]:
        """How the agent is offered kandev-tui's MCP server, as its ``agentCapabilities`` allow."""
        if self.hub is None:
            return kandev_mcp_server(self._options.workspace, self._options.repos)
        if mcp_capabilities(capabilities).get("http") is True:
            return self.hub.http_entry()
        return self.hub.stdio_entry()

    def guidance(self, capabilities: dict[str, Any], session_capabilities: dict[str, Any]) -> dict[str, Any]:
        """The guidance as the client's system prompt, where the agent takes one (``sessionCapabilities
        .systemPrompt``; Claude's ``_meta.systemPrompt.append``); {} elsewhere (or when it is turned off)."""
        if not self._options.inject_guidance:
            return {}
        from kandev_tui.presentation import GUIDANCE

        if isinstance(session_capabilities.get("systemPrompt"), dict):
            return {"systemPrompt": {"mode": "append", "content": [{"type": "text", "text": GUIDANCE}]}}
        meta = capabilities.get("_meta")
        if isinstance(meta, dict) and isinstance(meta.get("claudeCode"), dict):
            return {"_meta": {"systemPrompt": {"append": GUIDANCE}}}
        return {}

    def scrub(self, line: str) -> str:
        """``line`` with the hub's secret taken out."""
        return self.hub.scrub(line) if self.hub is not None else line

    async def close(self) -> None:
        if self.hub is not None:
            await self.hub.close()
