"""``kandev-tui validate``, ``guidance``, ``--help`` and ``--version`` as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys

from ..support import AGENTS, CHECKOUT
from ..support.cli import run


def test_help_and_version_import_nothing_heavy():
    code = ("import sys; from kandev_tui.cli import main\n"
            "try: main(['--help'])\nexcept SystemExit: pass\n"
            "heavy = [m for m in ('textual', 'mcp', 'acp', 'pydantic', 'plotext', 'rich') if m in sys.modules]\n"
            "print('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout
    assert "HEAVY []" in out
    assert "validate" in out and "guidance" in out and "mcp" in out
    version = run("--version")
    assert version.returncode == 0 and version.stdout.startswith("kandev-tui ")


def test_the_demos_first_frame_imports_nothing_it_does_not_draw(tmp_path):
    """The first frame is drawn before the ACP SDK, the MCP SDK, pydantic, plotext or markdown-it are loaded: they
    come with the agent, the first card, and (markdown-it) in a thread after the first frame (the issue's fast
    start)."""
    code = f"""
import asyncio, sys
from pathlib import Path
from kandev_tui.acp import AgentOptions
from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.demo import agent_command, prepare_workspace
from kandev_tui.base.settings import SettingsStore
from kandev_tui.sources import LiveSource
from kandev_tui.ui.textual_hooks import watch_frames
from kandev_tui.transcript import Store


# what the first frame does not wait for: the SDKs, the renderer packs and the entry points they are found by, the
# transcript's entry widgets (and Rich's syntax highlighting and Markdown they draw with), the turn's checkpoints,
# the client's files and terminals, the screens not shown at start, the agent's client and the normaliser (the
# source starts the agent after the first frame), the demo's files found through importlib.resources
LATER = ("acp", "mcp", "pydantic", "plotext", "markdown_it", "importlib.metadata", "kandev_tui.packs.fleet",
         "kandev_tui.packs.rich_output", "kandev_tui.widgets.entries.table", "kandev_tui.widgets.entries.tool_call",
         "kandev_tui.widgets.entries.subagent", "rich.syntax", "pygments", "kandev_tui.widgets.markdown_rich",
         "kandev_tui.workspace.turn_changes", "kandev_tui.workspace.checkpoints", "kandev_tui.acp.files",
         "kandev_tui.acp.terminals", "kandev_tui.screens.settings", "kandev_tui.screens.file_viewer",
         "kandev_tui.screens.login", "kandev_tui.screens.choices", "kandev_tui.screens.subagent",
         "kandev_tui.acp.client", "kandev_tui.acp.transport", "kandev_tui.transcript.pipeline",
         "kandev_tui.transcript.normalize", "kandev_tui.transcript.diffs", "importlib.resources")

async def main():
    tmp = Path({str(tmp_path)!r})
    store = Store(tmp / "s.db")
    options = AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp / "ws"))
    app = KandevApp(LiveSource(options, store), settings_store=SettingsStore(tmp / "c.toml"))
    seen = []
    def first_frame(screen):
        if not seen:
            # nor the widgets that start hidden (mounted just after it): the search box, the menus
            seen.append([m for m in LATER if m in sys.modules] + [type(w).__name__ for w in screen.query("Input, OptionList")])
    watch_frames(app, first_frame)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(600):  # the agent started: the SDK came after the first frame
            if seen and getattr(app.source, "client", None) is not None and app.source.state == "idle":
                break
            await pilot.pause(0.05)
        preloaded = ("markdown_it", "kandev_tui.widgets.entries.table", "kandev_tui.packs.rich_output")
        for _ in range(100):  # these come in a thread after the first frame, before any message needs them
            if all(m in sys.modules for m in preloaded):
                break
            await pilot.pause(0.05)
        print("AT FIRST FRAME", seen[0], "THEN", app.source.state, "acp" in sys.modules,
              all(m in sys.modules for m in preloaded))
        await app.action_quit()
asyncio.run(main())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "AT FIRST FRAME [] THEN idle True True" in out.stdout, out.stdout + out.stderr[-3000:]


def test_help_fits_80_columns_and_names_current_adapters():
    import os

    env = {**os.environ, "COLUMNS": "80"}
    for command in ([], ["attach"], ["run"], ["demo"], ["export"], ["validate"], ["sessions"], ["replay"]):
        out = subprocess.run([sys.executable, "-m", "kandev_tui", *command, "--help"], capture_output=True, text=True,
                             timeout=60, env=env).stdout
        assert out and max(len(line) for line in out.splitlines()) <= 80, command
    top = run("--help").stdout
    assert "@agentclientprotocol/claude-agent-acp" in top and "claude-code-acp" not in top


def test_demo_without_a_terminal_refuses_and_leaves_nothing(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if k != "KANDEV_TUI_FORCE_APP"}
    env.update(TMPDIR=str(tmp_path), KANDEV_TUI_DB=str(tmp_path / "db" / "s.db"))
    result = subprocess.run([sys.executable, "-m", "kandev_tui", "demo"], capture_output=True, text=True, timeout=60,
                            env=env, stdin=subprocess.DEVNULL)
    assert result.returncode == 2 and "needs a terminal" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_every_benchmark_takes_help_and_refuses_unknown_options():
    root = CHECKOUT
    for script in sorted((root / "benchmarks").glob("*.py")):
        if '__name__ == "__main__"' not in script.read_text():
            continue  # a helper the benchmarks share (benchargs, keytimer)
        shown = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=60)
        assert shown.returncode == 0 and shown.stdout.startswith("usage:"), script.name
        refused = subprocess.run([sys.executable, str(script), "--no-such-option"], capture_output=True, text=True,
                                 timeout=60)
        assert refused.returncode == 2 and "unrecognized arguments" in refused.stderr, script.name


def test_a_dumb_terminal_is_refused_with_what_to_use_instead(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if k != "KANDEV_TUI_FORCE_APP"}
    env.update(TERM="dumb", TMPDIR=str(tmp_path), KANDEV_TUI_DB=str(tmp_path / "s.db"))
    from ..support.app_helpers import DEMO_RECORDING

    for command in (["demo"], ["replay", str(DEMO_RECORDING)]):
        result = subprocess.run([sys.executable, "-m", "kandev_tui", *command], capture_output=True, text=True,
                                timeout=60, env=env)
        assert result.returncode == 2 and "TERM=dumb" in result.stderr and "--headless" in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_run_preset_bad_input_is_one_line(tmp_path):
    import subprocess as sp

    env = {**os.environ, "KANDEV_TUI_CONFIG": str(tmp_path / "config.toml")}
    run = lambda *args: sp.run([sys.executable, "-m", "kandev_tui", "run", *args], capture_output=True, text=True,  # noqa: E731
                               env=env, timeout=60)
    unknown = run("--preset", "nope")
    assert unknown.returncode == 2 and "--preset nope: no such preset (there are: claude, codex, demo" in unknown.stderr
    assert "[presets.NAME]" in unknown.stderr and "Traceback" not in unknown.stderr
    both = run("--preset", "demo", "--", "agent")
    assert both.returncode == 2 and "not both" in both.stderr
    headless = run("--headless", "--prompt", "hi", "--preset", "demo", "--preset", "demo")
    assert headless.returncode == 2 and "--headless runs one agent" in headless.stderr


def test_a_preset_from_the_settings_file_runs_its_agent_with_its_environment(tmp_path):
    """A [presets.NAME] table: its command runs, with its env added to kandev-tui's (the dialect kit's script comes
    through it), in its workspace."""
    import json as _json
    import subprocess as sp

    kit = AGENTS / "dialect_agent.py"
    (tmp_path / "ws").mkdir()
    script = _json.dumps({"steps": [{"op": "say", "text": "Said through the preset's environment."}]})
    (tmp_path / "config.toml").write_text(
        f'[presets.kit]\ncommand = [{_json.dumps(sys.executable)}, {_json.dumps(str(kit))}]\n'
        f'env = {{ DIALECT = {_json.dumps(script)} }}\nworkspace = {_json.dumps(str(tmp_path / "ws"))}\n')
    env = {k: v for k, v in os.environ.items() if k != "DIALECT"}
    env["KANDEV_TUI_CONFIG"] = str(tmp_path / "config.toml")
    done = sp.run([sys.executable, "-m", "kandev_tui", "run", "--headless", "--prompt", "hi", "--preset", "kit",
                   "--db", str(tmp_path / "s.db")], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    texts = [_json.loads(line)["payload"].get("text") for line in done.stdout.splitlines()
             if _json.loads(line)["kind"] == "agent_message"]
    assert texts == ["Said through the preset's environment."]
    sessions = sp.run([sys.executable, "-m", "kandev_tui", "sessions", "--json", "--db", str(tmp_path / "s.db")],
                      capture_output=True, text=True, env=env, timeout=60)
    assert _json.loads(sessions.stdout.splitlines()[0])["workspace"] == str((tmp_path / "ws").resolve())
