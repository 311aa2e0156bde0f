"""ACP client, headless (no Textual import). The SDK is imported when an agent starts.

The options, errors and MCP offers come at once; the client (its transport, process handling and the requests it serves) is
imported the first time it is asked for (PEP 562): the app's first frame does not wait for it, and the agent's
source imports it when it starts the agent, after that frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .options import (AgentError, AgentOptions, LoginRequired, headless_permission_policy, kandev_mcp_server,
                      mcp_servers_for, parse_mcp_config)

if TYPE_CHECKING:
    from .client import AgentClient

__all__ = ["AgentClient", "AgentError", "AgentOptions", "LoginRequired", "headless_permission_policy",
           "kandev_mcp_server", "mcp_servers_for", "parse_mcp_config"]


def __getattr__(name: str) -> Any:
    if name == "AgentClient":
        from .client import AgentClient

        return AgentClient
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
