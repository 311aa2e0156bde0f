"""Agent presets: a name for an agent command (with its environment and workspace), for ``kandev-tui run --preset``.

Built in: the demo agent and the four adapters the README lists. The settings file adds or overrides them with
``[presets.NAME]`` tables::

    [presets.review]
    command = ["npx", "-y", "@agentclientprotocol/claude-agent-acp"]
    env = { ANTHROPIC_MODEL = "claude-opus-4" }    # added to kandev-tui's own environment
    workspace = "~/src/app"                         # where it runs unless --workspace says otherwise

A table that does not say this correctly is left out, with a warning that says why (never a crash).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from typing import Any

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


@dataclass(frozen=True)
class Preset:
    name: str
    command: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    workspace: str | None = None
    builtin: bool = False


def builtin_presets() -> dict[str, Preset]:
    """The demo agent, and the real adapters as the README starts them (npx fetches each the first time)."""
    return {preset.name: preset for preset in (
        Preset("demo", (sys.executable, "-m", "kandev_tui.demo.agent"), builtin=True),
        Preset("claude", ("npx", "-y", "@agentclientprotocol/claude-agent-acp"), builtin=True),
        Preset("codex", ("npx", "-y", "@agentclientprotocol/codex-acp"), builtin=True),
        Preset("gemini", ("npx", "-y", "@google/gemini-cli", "--experimental-acp"), builtin=True),
        Preset("opencode", ("opencode", "acp"), builtin=True),
    )}


def read_presets(table: Any, where: str) -> tuple[dict[str, Preset], list[str]]:
    """The presets of a settings file's ``presets`` table, and a warning for each that cannot be used."""
    presets: dict[str, Preset] = {}
    warnings: list[str] = []
    if table is None:
        return presets, warnings
    if not isinstance(table, dict):
        return presets, [f"{where}: presets must be a table of [presets.NAME] tables; ignored"]
    for name, body in table.items():
        problem = _problem(name, body)
        if problem:
            warnings.append(f"{where}: [presets.{name!r}] {problem}; left out")
            continue
        presets[name] = Preset(name, tuple(body["command"]), dict(body.get("env") or {}), body.get("workspace"))
    return presets, warnings


def _problem(name: str, body: Any) -> str:
    if not NAME.match(name):
        return "has a name that is not letters, digits, '-', '_' or '.' (40 at most)"
    if not isinstance(body, dict):
        return "is not a table"
    command = body.get("command")
    if not (isinstance(command, list) and command and all(isinstance(part, str) and part for part in command)):
        return "needs command = [\"program\", \"argument\", …] (a list of strings)"
    env = body.get("env", {})
    if not (isinstance(env, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
        return "has an env that is not a table of strings"
    if not isinstance(body.get("workspace", ""), str):
        return "has a workspace that is not a string"
    unknown = sorted(set(body) - {"command", "env", "workspace"})
    if unknown:
        return f"has unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} (command, env and workspace " \
               "are known)"
    return ""


def preset_names(presets: dict[str, Preset]) -> str:
    return ", ".join(sorted(presets))
