"""The app over the dialect kit's scripted agent (``agents/dialect_agent.py``, a real process playing the steps
it is given in an agent's dialect), and the text of the agent's messages it shows."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from kandev_tui.acp import AgentOptions
from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.sources import LiveSource
from kandev_tui.transcript import Store

from . import AGENTS
from .app_helpers import settings_at

KIT = [sys.executable, str(AGENTS / "dialect_agent.py")]


def kit_app(tmp_path: Path, steps: list[dict], prompt: str = "Cut a release", launcher: bool = False,
            **dialect) -> tuple[Store, KandevApp]:
    """The app over the dialect kit's agent playing ``steps``; ``launcher``: as ``kandev-tui run`` makes it (ctrl+s
    lists the stored sessions, ctrl+n starts more)."""
    from kandev_tui.sources.launch import Launcher

    store = Store(tmp_path / "s.db")
    (tmp_path / "w").mkdir(exist_ok=True)
    env = {**os.environ, "DIALECT": json.dumps({"steps": steps, **dialect})}
    options = AgentOptions(command=KIT, workspace=tmp_path / "w", env=env)
    settings = settings_at(tmp_path, chart_animation=False)
    app = KandevApp(LiveSource(options, store),
                    settings_store=settings, initial_prompt=prompt,
                    launcher=Launcher(store, settings) if launcher else None)
    app.animation_level = "none"
    return store, app


def agent_text(app: KandevApp) -> str:
    return "".join(i.payload.get("text", "") for i in app.view.model.items.values() if i.kind == "agent_message")
