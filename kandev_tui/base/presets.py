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
from pathlib import Path
from typing import Any

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


@dataclass(frozen=True)
class Preset:
    name: str
    command: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    workspace: str | None = None
    builtin: bool = False


# the npm adapters of the built-in presets, pinned to the versions the suite runs (tests/support/real_agents.py reads these):
# name: (npm package, version, the command it installs, the arguments that make it speak ACP)
PINNED_ADAPTERS: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "claude": ("@agentclientprotocol/claude-agent-acp", "0.49.0", "claude-agent-acp", ()),  # the last for node 20
    "codex": ("@agentclientprotocol/codex-acp", "2.6.0", "codex-acp", ()),
    "gemini": ("@google/gemini-cli", "0.61.0", "gemini", ("--experimental-acp",)),
}
INSTALL_TIMEOUT = 900.0  # seconds npm may take to fetch an adapter (claude-agent-acp brings Claude Code: ~100 MB)


class InstallError(Exception):
    """An adapter could not be installed: one line saying why and what to do."""


def python_child(*args: str) -> tuple[str, ...]:
    """A Python child of kandev-tui's own (the demo agent, the MCP server offered to agents, a ``serve`` tab): this
    interpreter with ``-P``, so that a ``kandev_tui`` folder in the working directory (the workspace, untrusted) is
    never imported in place of the installed one."""
    return (sys.executable, "-P", *args)


def trusted_path(path: str | None) -> str:
    """``PATH`` with its relative entries left out (``""``, ``.``, ``bin``): a child started in the workspace would
    look there first, and run a ``git``, ``node`` or agent command the workspace holds in place of the real one."""
    import os

    return os.pathsep.join(entry for entry in (path or os.defpath).split(os.pathsep) if os.path.isabs(entry))


def adapters_cache() -> Path:
    """Where npm adapters are installed and run from: kandev-tui's own cache, a folder per package and version,
    never the workspace's ``node_modules`` (``npx`` in the workspace would run a copy committed there, or fetch from
    the registry its ``.npmrc`` names)."""
    from platformdirs import user_cache_path

    return user_cache_path("kandev-tui", appauthor=False) / "adapters"


def adapter_command(package: str, version: str, program: str, *args: str) -> tuple[str, ...]:
    """The command that runs an npm adapter's ``program`` from kandev-tui's cache by its absolute path (installed,
    when missing, as the agent starts: :func:`install_missing`)."""
    folder = adapters_cache() / f"{package.replace('/', '+')}@{version}"
    return (str(folder / "node_modules" / ".bin" / program), *args)


def cached_adapter(program: str) -> tuple[str, str, Path] | None:
    """(package, version, its folder) when ``program`` is an adapter's command in kandev-tui's cache, else None."""
    cache = adapters_cache()
    try:
        parts = Path(program).relative_to(cache).parts
    except ValueError:
        return None
    if len(parts) != 4 or parts[1:3] != ("node_modules", ".bin") or "@" not in parts[0][1:]:
        return None
    package, _, version = parts[0].rpartition("@")
    return package.replace("+", "/"), version, cache / parts[0]


def install_missing(command: tuple[str, ...] | list[str]) -> str | None:
    """Install the adapter ``command`` runs when it is one of kandev-tui's cache and missing: what was installed
    (``package@version``), or None when nothing needed it. :class:`InstallError` says why an install failed; nothing
    half-made is left (npm installs into a folder beside, renamed into place when it is whole)."""
    import shutil
    import subprocess
    import tempfile

    adapter = cached_adapter(command[0]) if command else None
    if adapter is None or Path(command[0]).exists():
        return None
    package, version, folder = adapter
    import os

    path = trusted_path(os.environ.get("PATH"))  # never a "." that finds an npm of the folder kandev-tui started in
    npm = shutil.which("npm", path=path)
    if npm is None:
        raise InstallError(f"npm is not installed: {package} comes from npm (install node.js and npm, then start it "
                           "again)")
    try:
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.installing-"))
    except OSError as exc:
        raise InstallError(f"cannot install {package} into {folder.parent}: {exc.strerror or exc}") from None
    try:
        # in a folder of its own: npm takes no .npmrc or node_modules from where kandev-tui was started
        done = subprocess.run([npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund",
                               "--loglevel=error", f"{package}@{version}"], cwd=staging, capture_output=True,
                              text=True, timeout=INSTALL_TIMEOUT, stdin=subprocess.DEVNULL,
                              env={**os.environ, "PATH": path})
        if done.returncode != 0 or not (staging / Path(command[0]).relative_to(folder)).exists():
            said = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
            reason = next((line for line in said if "ERR" in line or "error" in line), said[0] if said else "")
            raise InstallError(f"npm could not install {package}@{version}: {reason.strip()[:300] or 'no reason given'}")
        try:
            staging.rename(folder)
        except OSError:
            if not Path(command[0]).exists():  # not another kandev-tui's install, finished meanwhile
                raise InstallError(f"cannot install {package} into {folder}") from None
    except subprocess.TimeoutExpired:
        raise InstallError(f"npm took more than {INSTALL_TIMEOUT:.0f} s to install {package}@{version}") from None
    except OSError as exc:
        raise InstallError(f"npm could not run: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return f"{package}@{version}"


def builtin_presets() -> dict[str, Preset]:
    """The demo agent, and the real adapters pinned, run from kandev-tui's cache (installed the first time)."""
    adapters = [Preset(name, adapter_command(package, version, program, *args), builtin=True)
                for name, (package, version, program, args) in PINNED_ADAPTERS.items()]
    return {preset.name: preset for preset in (
        Preset("demo", python_child("-m", "kandev_tui.demo.agent"), builtin=True),
        *adapters,
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
