"""``kandev-tui validate``, ``guidance``, ``--help`` and ``--version`` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kandev_tui.presentation import GUIDANCE, guidance

from ..support import CHECKOUT, FIXTURES
from ..support.cli import run
from ..support.documents import SPEC_DOCUMENT


def write(tmp_path: Path, data, name="call.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


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


def test_readme_sections_that_pyproject_points_at_exist():
    import re

    root = CHECKOUT
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


def test_validate_stored_on_a_bare_presentation_says_to_drop_stored(tmp_path, inline_doc):
    result = run("validate", "--stored", str(write(tmp_path, inline_doc)))
    assert result.returncode == 1 and "without --stored" in result.stderr
    assert run("validate", str(write(tmp_path, inline_doc))).returncode == 0


def test_help_says_what_each_argument_is():
    assert "a recording made with kandev-tui run --record" in run("replay", "--help").stdout
    for command in ("guidance", "run"):
        text = " ".join(run(command, "--help").stdout.split())
        assert "prepend" not in text and "system prompt" in text
