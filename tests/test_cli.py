"""``kandev-tui validate``, ``guidance``, ``--help`` and ``--version`` as a user runs them."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kandev_tui.presentation import GUIDANCE, guidance

from .conftest import FIXTURES, SPEC_DOCUMENT



def run(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``kandev-tui ARGS`` through :func:`kandev_tui.cli.main` in the test's own process: its output, its errors
    and its exit status (argparse's too), as a process would give them. (The tests that need a real process, for
    the import cost, a terminal or a signal, start one.)"""
    from contextlib import redirect_stderr, redirect_stdout

    from kandev_tui.cli import main

    out, err = io.StringIO(), io.StringIO()
    given = io.TextIOWrapper(io.BytesIO((stdin or "").encode("utf-8")), encoding="utf-8")
    saved_stdin, saved_cwd = sys.stdin, os.getcwd()
    try:
        sys.stdin = given
        if cwd is not None:
            os.chdir(cwd)
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse: --help, --version, a usage error
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    finally:
        sys.stdin = saved_stdin
        os.chdir(saved_cwd)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def write(tmp_path: Path, data, name="call.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


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


def test_validate_inline_prints_what_the_tool_returns(tmp_path, inline_doc):
    result = run("validate", str(write(tmp_path, inline_doc)))
    assert result.returncode == 0 and result.stdout == "Rich output accepted.\n" and result.stderr == ""


def test_validate_resolves_csv_against_the_workspace(workspace_dir, doc, tmp_path):
    call = write(tmp_path, doc)
    result = run("validate", "--workspace", str(workspace_dir), str(call))
    assert result.returncode == 0
    assert json.loads(result.stdout)["resolved_charts"][0]["series"][0]["values"] == [18.2, None]
    # default workspace: the current directory
    assert run("validate", str(call), cwd=workspace_dir).stdout == result.stdout


def test_validate_reads_stdin(inline_doc):
    assert run("validate", "-", stdin=json.dumps(inline_doc)).returncode == 0


def test_validate_repo_roots(tmp_path, doc):
    other = tmp_path / "other"
    (other / "reports").mkdir(parents=True)
    (other / "reports" / "build-times.csv").write_text("started_at,seconds\n2026-01-01,1\n")
    doc["blocks"][1]["csv"]["repo"] = "other"
    result = run("validate", "--workspace", str(tmp_path), "--repo", f"other={other}", str(write(tmp_path, doc)))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["resolved_charts"][0]["labels"] == ["2026-01-01"]


def test_validate_errors_exit_1_on_stderr(tmp_path, doc):
    doc["blocks"][2]["series"][0]["values"] = [1]
    result = run("validate", str(write(tmp_path, doc)))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == "blocks[2].series[0].values: 1 values for 2 labels\n"
    missing_csv = run("validate", "--workspace", str(tmp_path), str(write(tmp_path, SPEC_DOCUMENT)))
    assert missing_csv.returncode == 1
    assert missing_csv.stderr == "could not read CSV source reports/build-times.csv: no such file\n"
    not_json = write(tmp_path, "{'version': 1}")
    bad_json = run("validate", str(not_json))
    assert bad_json.returncode == 1  # a failed validation; said with the command and the file, as every other error
    assert bad_json.stderr.startswith(f"kandev-tui validate: {not_json}: invalid JSON: line 1 column 2")
    assert bad_json.stderr.count("\n") == 1


def test_validate_error_output_is_inert(tmp_path, doc):
    doc["blocks"][1]["csv"]["path"] = "\x1b]0;owned\x07.csv"
    result = run("validate", "--workspace", str(tmp_path), str(write(tmp_path, doc)))
    assert result.returncode == 1
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "␛]0;owned␇.csv" in result.stderr


@pytest.mark.parametrize(
    "args",
    [["validate"], ["validate", "/no/such/file.json"], ["validate", "--workspace", "/no/such/dir", "x"],
     ["validate", "--repo", "bad", "x"], ["mcp", "--workspace", "/no/such/dir"], ["guidance", "--profile", "config"],
     ["no-such-command"]],
)
def test_usage_errors_exit_2(args, tmp_path):
    if args[-1] == "x":
        args = args[:-1] + [str(write(tmp_path, SPEC_DOCUMENT))]
    result = run(*args)
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr and result.stderr.strip()


def test_validate_stored_ready_prints_the_merged_presentation():
    result = run("validate", "--stored", str(FIXTURES / "stored" / "codex-mcp-csv.json"))
    assert result.returncode == 0, result.stderr
    merged = json.loads(result.stdout)
    assert "csv" not in merged["blocks"][1] and merged["blocks"][1]["labels"][0] == "2026-09-01T10:00:00Z"


@pytest.mark.parametrize(
    ("fixture", "stderr"),
    [("pending.json", "pending\n"),
     ("failed.json", "failed: blocks[1].series[0].values: 3 values for 2 labels\n"),
     ("foreign-server.json", "not-rich-output\n")],
)
def test_validate_stored_states_exit_1(fixture, stderr):
    result = run("validate", "--stored", str(FIXTURES / "stored" / fixture))
    assert result.returncode == 1 and result.stderr == stderr


def test_validate_stored_unavailable_gives_the_reason(tmp_path):
    call = json.loads((FIXTURES / "stored" / "codex-mcp-csv.json").read_text())
    call["output"] = "Rich output accepted."
    result = run("validate", "--stored", str(write(tmp_path, call)))
    assert result.returncode == 1 and result.stderr == "unavailable: CSV charts have no resolved snapshot\n"
    result = run("validate", "--stored", str(write(tmp_path, [1, 2])))
    assert result.returncode == 1 and result.stderr.startswith("unavailable:")


def test_guidance_has_each_recipe_once():
    for profile in ("task", "office"):
        text = run("guidance", "--profile", profile).stdout.strip()
        assert text == guidance(profile)
        assert text.count('"chart_type":"bar"') == 1  # the inline chart recipe
        assert text.count('"csv":{') == 1  # the CSV chart recipe
        assert text.count('"type":"metrics"') == 1  # the metric group recipe
        assert "64 KiB" in text and "closed" in text and "ASCII" in text
    assert GUIDANCE == guidance("task")


def test_guidance_recipes_are_valid_documents():
    import re

    from kandev_tui.presentation import parse_tool_input

    recipes = re.findall(r'(\{"version":1.*?\}\]\})\. ', GUIDANCE)
    assert len(recipes) == 3
    for recipe in recipes:
        parse_tool_input(json.loads(recipe))


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
         "kandev_tui.packs.rich_output", "kandev_tui.widgets.entries", "kandev_tui.widgets.tool_call",
         "kandev_tui.widgets.subagent", "rich.syntax", "pygments", "kandev_tui.widgets.markdown_rich",
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
        preloaded = ("markdown_it", "kandev_tui.widgets.entries", "kandev_tui.packs.rich_output")
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


def test_readme_sections_that_pyproject_points_at_exist():
    import re

    root = Path(__file__).parent.parent
    headings = {line.lstrip("#").strip() for line in (root / "README.md").read_text().splitlines()
                if line.startswith("#")}
    pointed = re.findall(r'see README "([^"]+)"', (root / "pyproject.toml").read_text())
    assert pointed, "pyproject.toml points at no README section: this test checks nothing"
    missing = [name for name in pointed if name not in headings]
    assert not missing, f"pyproject.toml points at README sections that are not there: {missing}"


def test_a_command_error_shows_that_commands_usage():
    result = run("sessions", "--bogus")
    assert result.returncode == 2 and "usage: kandev-tui sessions" in result.stderr and "--bogus" in result.stderr
    result = run("run", "--init-timeout", "-1", "--", "agent")
    assert result.returncode == 2 and "greater than 0" in result.stderr
    result = run("run", "--init-timeout", "nan", "--", "agent")
    assert result.returncode == 2


def test_mcp_config_errors_say_the_prefix_once(tmp_path):
    result = run("run", "--headless", "--prompt", "hi", "--db", str(tmp_path / "s.db"),
                 "--mcp-config", str(tmp_path / "missing.json"), "--", "agent")
    assert result.returncode == 2
    assert result.stderr.count("kandev-tui") == 1 and "missing.json: no such file" in result.stderr
    bad = write(tmp_path, "{nope", "bad.json")
    result = run("run", "--headless", "--prompt", "hi", "--db", str(tmp_path / "s.db"), "--mcp-config", str(bad), "--", "agent")
    assert result.returncode == 2 and result.stderr.count("kandev-tui") == 1 and "invalid JSON" in result.stderr


def test_demo_without_a_terminal_refuses_and_leaves_nothing(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if k != "KANDEV_TUI_FORCE_APP"}
    env.update(TMPDIR=str(tmp_path), KANDEV_TUI_DB=str(tmp_path / "db" / "s.db"))
    result = subprocess.run([sys.executable, "-m", "kandev_tui", "demo"], capture_output=True, text=True, timeout=60,
                            env=env, stdin=subprocess.DEVNULL)
    assert result.returncode == 2 and "needs a terminal" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_validate_stored_on_a_bare_presentation_says_to_drop_stored(tmp_path, inline_doc):
    result = run("validate", "--stored", str(write(tmp_path, inline_doc)))
    assert result.returncode == 1 and "without --stored" in result.stderr
    assert run("validate", str(write(tmp_path, inline_doc))).returncode == 0


def test_every_benchmark_takes_help_and_refuses_unknown_options():
    root = Path(__file__).parent.parent
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
    from .app_helpers import DEMO_RECORDING

    for command in (["demo"], ["replay", str(DEMO_RECORDING)]):
        result = subprocess.run([sys.executable, "-m", "kandev_tui", *command], capture_output=True, text=True,
                                timeout=60, env=env)
        assert result.returncode == 2 and "TERM=dumb" in result.stderr and "--headless" in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_help_says_what_each_argument_is():
    assert "a recording made with kandev-tui run --record" in run("replay", "--help").stdout
    for command in ("guidance", "run"):
        text = " ".join(run(command, "--help").stdout.split())
        assert "prepend" not in text and "system prompt" in text


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
    from pathlib import Path as _Path

    kit = _Path(__file__).resolve().parent / "agents" / "dialect_agent.py"
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
