"""kandev-tui's own MCP server (``show_rich_output_kandev``) and the per-session hub that offers it to an agent.
Headless; the ``mcp`` library is imported lazily."""
