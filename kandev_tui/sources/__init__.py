"""Where a transcript comes from: a live agent (live.py), the store (stored.py), a recording (replay.py), a Kandev
backend (kandev.py). Headless: none of this imports Textual.

Each is a :class:`kandev_tui.session.Source`: it delivers item batches to ``on_items`` and state changes to
``on_state``; the session model (kandev_tui/session/model.py) takes them and the app draws what it is given. This
layer stands above the session model and the agent-session core (kandev_tui/session/agent.py), and nothing below
imports it (tests/unit/test_import_contract.py).
"""

from __future__ import annotations

from .kandev import KandevSource
from .live import LiveSource
from .names import agent_display_name
from .replay import ReplaySource
from .stored import StoredSource

__all__ = ["KandevSource", "LiveSource", "ReplaySource", "StoredSource", "agent_display_name"]
