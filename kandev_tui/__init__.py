"""kandev-tui: a terminal transcript client for coding agents.

The package is split into a headless core (``presentation``, ``workspace``,
``transcript``, ``acp``, ``mcp_server``) that never imports Textual, and the
Textual app on top of it.
"""

__version__ = "0.1.0"
