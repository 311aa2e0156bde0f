"""ACP client, headless (no Textual import). The SDK is imported when an agent starts."""

from .client import (AgentClient, AgentError, AgentOptions, LoginRequired, headless_permission_policy,
                     kandev_mcp_server, mcp_servers_for, parse_mcp_config)

__all__ = ["AgentClient", "AgentError", "AgentOptions", "LoginRequired", "headless_permission_policy",
           "kandev_mcp_server", "mcp_servers_for", "parse_mcp_config"]
