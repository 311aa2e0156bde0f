"""kandev_tui.testing, the pytest plugin for agent authors: its README example runs here as a user runs it (pytest
in a subprocess, the plugin found through its entry point), passes against its stored snapshot, and fails, with a
diff, when the transcript is drawn differently or no snapshot is stored."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..support import CHECKOUT

ROOT = CHECKOUT
EXAMPLE = ROOT / "examples" / "test_demo_agent.py"
SNAPSHOT = ROOT / "examples" / "__kandev_snapshots__" / "test_the_demo_agent_reports_the_build_with_charts.txt"


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess:
    (folder / "pytest.ini").write_text("[pytest]\n")  # the user's own project, not this suite's settings
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           *args], cwd=folder, capture_output=True, text=True, timeout=600)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(EXAMPLE, tmp_path / EXAMPLE.name)
    return tmp_path


def test_the_readme_example_passes_against_its_stored_snapshot(project):
    (project / "__kandev_snapshots__").mkdir()
    shutil.copy(SNAPSHOT, project / "__kandev_snapshots__" / SNAPSHOT.name)
    done = pytest_in(project, EXAMPLE.name)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 passed" in done.stdout
    body = EXAMPLE.read_text().split('"""\n\n', 2)[-1]  # the example, after its docstring: the README shows it whole
    assert body.strip() in (ROOT / "README.md").read_text()


def test_a_transcript_drawn_differently_fails_with_a_diff(project):
    (project / "__kandev_snapshots__").mkdir()
    changed = SNAPSHOT.read_text().replace("3 failing tests", "2 failing tests", 1)
    assert changed != SNAPSHOT.read_text()
    (project / "__kandev_snapshots__" / SNAPSHOT.name).write_text(changed)
    done = pytest_in(project, EXAMPLE.name)
    assert done.returncode == 1
    assert "the transcript is drawn differently" in done.stdout
    lines = done.stdout.splitlines()
    assert any(line.startswith("-") and "2 failing tests" in line for line in lines)  # the snapshot's line
    assert any(line.startswith("+") and "3 failing tests" in line for line in lines)  # and what is drawn now


def test_without_a_snapshot_it_fails_and_says_how_to_write_one(project):
    done = pytest_in(project, EXAMPLE.name)
    assert done.returncode == 1 and "run pytest --kandev-update to write it" in done.stdout
    written = pytest_in(project, EXAMPLE.name, "--kandev-update")
    assert written.returncode == 0
    assert (project / "__kandev_snapshots__" / SNAPSHOT.name).read_text() == SNAPSHOT.read_text()
