"""The suite's own check of kinds (tests/support/kinds.py), run on a scratch tree by a real pytest: a unit test that
starts a process fails, and so does one that is first to ask for a module fixture that starts one (its setup is
watched too), while the same test passes where its kind allows processes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from ..support import CHECKOUT

CONFTEST = """
from pathlib import Path

from tests.conftest import pytest_runtest_makereport, pytest_runtest_setup, pytest_runtest_teardown  # noqa: F401
from tests.support import kinds

for kind in kinds.KINDS:
    kinds.FOLDERS[Path(__file__).resolve().parent / kind] = kind
"""

TESTS = """
import subprocess

import pytest


@pytest.fixture(scope="module")
def ran():
    return subprocess.run(["true"]).returncode


def test_first_to_ask(ran):
    assert ran == 0


def test_starts_one():
    subprocess.run(["true"])


def test_starts_none():
    assert 1 + 1 == 2
"""


def run_kind(tmp_path, kind: str) -> subprocess.CompletedProcess:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / kind).mkdir()
    (tmp_path / kind / "test_probe.py").write_text(textwrap.dedent(TESTS))
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "-p", "no:xdist", "--rootdir", str(tmp_path), str(tmp_path / kind)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_a_unit_test_that_starts_a_process_in_itself_or_in_a_module_fixture_fails(tmp_path):
    run = run_kind(tmp_path, "unit")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAILED unit/test_probe.py::test_first_to_ask" in run.stdout
    assert "FAILED unit/test_probe.py::test_starts_one" in run.stdout
    assert "2 failed, 1 passed" in run.stdout
    assert "this unit test started a process (['true'])" in run.stdout


def test_a_system_test_may_start_processes(tmp_path):
    run = run_kind(tmp_path, "system")
    assert run.returncode == 0 and "3 passed" in run.stdout, run.stdout + run.stderr
