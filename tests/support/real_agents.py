"""The real agents' ACP adapters, pinned, from npm, run through kandev-tui against scripted model servers.

The adapters are installed once per machine with npm into a cache outside the repository
(``$KANDEV_AGENTS_CACHE``, default ``$KANDEV_TEST_CACHE/real-agents-<pins>``, that is
``~/.cache/kandev-tui/real-agents-<pins>``), as the Kandev runtime is. Each
run starts ``kandev-tui run --headless`` with the adapter *inside* a network namespace that has only loopback
(``unshare -n`` as root, ``unshare -rn`` otherwise), beside the scripted server (:mod:`tests.netns_run`): the
adapter, its tools and its MCP calls to ``kandev-tui mcp`` are real, only the model's HTTP API is scripted, and
nothing can leave the machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kandev_tui.base.presets import PINNED_ADAPTERS

from . import CHECKOUT
from .installs import TEST_CACHE, npm_cache

ROOT = CHECKOUT
KANDEV = str(Path(sys.executable).with_name("kandev-tui"))
NETNS_RUN = str(Path(__file__).resolve().parent / "netns_run.py")

# name: (npm package, version, the command it installs, the arguments that make it speak ACP)
# (the built-in presets' pins: codex-acp 2.6.0 bundles @openai/codex 0.166; claude-agent-acp 0.49.0 is the last for
# node 20)
ADAPTERS = {
    **{name: (package, version, program, list(args)) for name, (package, version, program, args)
       in PINNED_ADAPTERS.items()},
    "opencode": ("opencode-ai", "1.18.33", "opencode", ["acp"]),
}
_PINS = hashlib.sha1(json.dumps(sorted(ADAPTERS.items())).encode()).hexdigest()[:8]
CACHE = Path(os.environ.get("KANDEV_AGENTS_CACHE") or TEST_CACHE / f"real-agents-{_PINS}")
FIXED_PORT = 18080  # for the agents whose config names the server's address; inside its namespace every port is free
CODEX_PORT = FIXED_PORT
# the model API each agent talks to (tests/support/model_servers.py), and whether its config names a fixed port
SERVER = {"claude": ("anthropic", False), "codex": ("responses", True), "gemini": ("gemini", False),
          "opencode": ("chat", True)}


class Unavailable(Exception):
    """The adapters cannot be installed here, or network namespaces cannot be made (the message says which)."""


def adapter(name: str) -> Path:
    """The pinned adapter's command, installed with npm (every pin at once, one process at a time) when it is
    missing."""
    from .installs import only_one_installs

    binary = CACHE / "node_modules" / ".bin" / ADAPTERS[name][2]
    if binary.exists():
        return binary
    with only_one_installs(CACHE):
        return _install(binary)


def _install(binary: Path) -> Path:
    if binary.exists():  # another process installed them meanwhile
        return binary
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is not installed: the real agents' adapters come from npm")
    CACHE.mkdir(parents=True, exist_ok=True)
    wanted = [f"{p}@{v}" for p, v, _, _ in ADAPTERS.values()]
    # opencode-ai's postinstall writes folders under the XDG directories: scratch ones, not the user's
    scratch = CACHE / "install-xdg"
    env = {**os.environ, **{f"XDG_{kind}_HOME": str(scratch / kind.lower()) for kind in ("CONFIG", "DATA", "CACHE",
                                                                                        "STATE")}}
    done = subprocess.run([npm, "install", *npm_cache(), "--prefix", str(CACHE), "--no-audit", "--no-fund", "--loglevel=error",
                           *wanted], capture_output=True, text=True, timeout=900, env=env)
    if done.returncode != 0 or not binary.exists():
        raise Unavailable(f"npm install {' '.join(wanted)} failed: {done.stderr.strip()[-500:]}")
    return binary


def adapter_command(name: str) -> list[str]:
    """The command line that starts the adapter ``name`` as an ACP agent."""
    return [str(adapter(name)), *ADAPTERS[name][3]]


def unshare_command() -> list[str]:
    """How to make a loopback-only network namespace here (``unshare -n`` as root, else ``unshare -rn``)."""
    unshare = shutil.which("unshare")
    if unshare is None:
        raise Unavailable("unshare (util-linux) is not installed: no network namespace for the real agents")
    command = [unshare, "-n"] if os.geteuid() == 0 else [unshare, "-rn"]
    probe = subprocess.run([*command, "true"], capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        raise Unavailable(f"network namespaces are not available here ({probe.stderr.strip()[:200]})")
    return command


@dataclass
class Run:
    """One headless turn of a real agent: its exit status, the items it printed, what the model server got."""

    code: int
    items: list[dict[str, Any]]
    stderr: str
    requests: list[dict[str, Any]]
    recording: Path
    workspace: Path
    db: Path
    extra: dict[str, Any] = field(default_factory=dict)

    def kinds(self, kind: str) -> list[dict[str, Any]]:
        """The items of a kind, each as it was last printed (headless prints an item again when it changes: a
        call changes as more of it arrives), in the order they came."""
        last: dict[str, dict[str, Any]] = {}
        for item in self.items:
            if item["kind"] == kind:
                last[item["key"]] = item
        return list(last.values())

    def tool(self, title_part: str) -> dict[str, Any]:
        return next(item for item in self.kinds("tool_call") if title_part in (item["payload"].get("title") or ""))


def agent_env(name: str, home: Path, *, model: str = "gpt-5.1-codex-max", mode: str = "read-only",
              logged_in: bool = True) -> tuple[str, list[str]]:
    """(server kind, ``--env`` entries) for an adapter, its model API pointed at the scripted server.

    Codex's tools depend on the model name: for one it has no metadata for (``gpt-5.1-codex-max``) it offers
    ``exec_command`` and the MCP namespace directly; for ``gpt-5.5``, ``apply_patch`` (freeform) and MCP tools
    through ``tool_search``. ``mode``: its ``INITIAL_AGENT_MODE`` (read-only sends approvals to the client; it
    cannot write files even when one is approved)."""
    home.mkdir(parents=True, exist_ok=True)
    common = [f"HOME={home}", f"XDG_CONFIG_HOME={home / '.config'}", f"XDG_DATA_HOME={home / '.local/share'}",
              f"XDG_CACHE_HOME={home / '.cache'}", f"XDG_STATE_HOME={home / '.local/state'}"]
    if name == "gemini":
        # a trusted folder (else no stdio MCP server starts and kandev's tool never appears); a fixed model (the
        # default "auto" first asks a classifier model)
        return "gemini", common + ["GEMINI_API_KEY=scripted", "GOOGLE_GEMINI_BASE_URL={url}",
                                   "GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_MODEL=gemini-2.5-pro"]
    if name == "opencode":
        config = home / "opencode.json"
        config.write_text(json.dumps({
            "$schema": "https://opencode.ai/config.json",
            "provider": {"scripted": {"npm": "@ai-sdk/openai-compatible", "name": "Scripted",  # bundled in opencode
                                      "options": {"baseURL": f"http://127.0.0.1:{FIXED_PORT}/v1", "apiKey": "scripted"},
                                      "models": {"scripted": {"name": "Scripted", "tool_call": True,
                                                              "limit": {"context": 100000, "output": 8000}}}}},
            "model": "scripted/scripted", "small_model": "scripted/scripted", "autoupdate": False, "share": "disabled",
            **({"permission": {"edit": "ask", "bash": "ask"}} if mode == "ask" else {})}))
        return "chat", common + [f"OPENCODE_CONFIG={config}", "OPENCODE_DISABLE_AUTOUPDATE=1",
                                 "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_SHARE=1"]
    if name == "claude":
        return "anthropic", common + [
            "ANTHROPIC_BASE_URL={url}", "ANTHROPIC_API_KEY=sk-ant-scripted", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
            "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "IS_SANDBOX=1"]  # IS_SANDBOX: Claude Code refuses root
    codex_home = home / "codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    if not logged_in:  # no provider of ours, no key: Codex asks for a login
        return "responses", common + [f"CODEX_HOME={codex_home}"]
    (codex_home / "config.toml").write_text(
        f'model = "{model}"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\nname = "scripted"\n'
        f'base_url = "http://127.0.0.1:{CODEX_PORT}/v1"\nwire_api = "responses"\nenv_key = "SCRIPTED_API_KEY"\n'
        "requires_openai_auth = false\n")
    # read-only: approvals come to the client (the default mode sends them to a reviewer model)
    return "responses", common + [f"CODEX_HOME={codex_home}", "SCRIPTED_API_KEY=scripted", f"INITIAL_AGENT_MODE={mode}"]


def run_agent(name: str, script: list[list[dict[str, Any]]], tmp: Path, prompt: str, *,
              permission: str = "allow-once", workspace: Path | None = None, timeout: float = 240,
              extra: list[str] | tuple[str, ...] = (), run: str = "run", **codex: Any) -> Run:
    """One headless turn of the real adapter ``name`` through kandev-tui, in its own loopback-only namespace
    (``codex``: ``model``, ``mode`` and ``logged_in``, see :func:`agent_env`; ``extra``: more options for
    ``kandev-tui run``; ``run``: the name of this run's files in ``tmp``, so that a second run of the same session
    database, its home and workspace (``--resume``) keeps the first's)."""
    binary = adapter_command(name)
    unshare = unshare_command()
    workspace = workspace or tmp / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    server, env = agent_env(name, tmp / "home", **codex)
    script_file, requests_file = tmp / f"{run}.script.json", tmp / f"{run}.requests.json"
    script_file.write_text(json.dumps(script))
    record, db = tmp / f"{run}.recording.jsonl", tmp / "sessions.db"
    port = ["--port", str(FIXED_PORT)] if SERVER[name][1] else []
    command = [*unshare, sys.executable, NETNS_RUN, "--server", server, *port, "--script", str(script_file),
               "--requests", str(requests_file), *[f"--env={entry}" for entry in env], "--",
               KANDEV, "run", "--headless", "--prompt", prompt, "--permission", permission, "--workspace",
               str(workspace), "--db", str(db), "--record", str(record), *extra, "--", *binary]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=tmp)
    if done.returncode == 97:
        raise Unavailable(done.stderr.strip())
    items = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    requests = json.loads(requests_file.read_text()) if requests_file.exists() else []
    return Run(done.returncode, items, done.stderr, requests, record, workspace, db)


def scrubbed(run: Run, tmp: Path) -> str:
    """The run's recording with this machine's paths made neutral (the workspace as ``/workspace``, the rest of
    the test's directory as ``/run``, the interpreter as ``/venv/bin/python``, the adapters' cache as
    ``/agents``), to keep as a fixture: ``KANDEV_SAVE_REAL=1 pytest tests/system/test_real_agents.py`` writes them."""
    text = run.recording.read_text()
    for real_path, neutral in ((str(run.workspace), "/workspace"), (str(tmp), "/run"), (sys.executable, "/venv/bin/python"),
                               (str(CACHE), "/agents"), (str(Path.home()), "/home")):
        text = text.replace(json.dumps(real_path)[1:-1], neutral).replace(real_path, neutral)
    return text


def keep_fixture(run: Run, tmp: Path, name: str) -> None:
    if os.environ.get("KANDEV_SAVE_REAL"):
        (ROOT / "tests" / "fixtures" / "recordings" / f"{name}.jsonl").write_text(scrubbed(run, tmp))
