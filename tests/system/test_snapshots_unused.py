"""Every stored snapshot is some test's: syrupy fails a run that leaves one unused, but not when the suite runs in
workers (``make test``: pytest-xdist, where syrupy does not merge the workers' reports), so this says it instead."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path


from ..support import CHECKOUT

ROOT = CHECKOUT


def collected(module: Path) -> set[str]:
    """The ids of the tests in ``module`` (``test_name[params]``), as pytest collects them."""
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist",
                          "-p", "no:cacheprovider", str(module)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    return {line.split("::", 1)[1] for line in run.stdout.splitlines() if "::" in line}


def test_every_stored_snapshot_belongs_to_a_test():
    tests = collected(ROOT / "snapshots" / "test_snapshots.py")
    stored = {path.stem for path in (ROOT / "snapshots" / "__snapshots__" / "test_snapshots").glob("*.svg")}
    assert len(tests) > 50 and stored
    assert not sorted(stored - tests), "snapshots no test takes (remove them, or the test lost its name)"
    for amber in (ROOT / "tests").glob("*/__snapshots__/*.ambr"):  # syrupy's own: "# name: test[params][index]"
        names = set(re.findall(r"^# name: (\S+?)(?:\[[^\[\]]*\])?$", amber.read_text(encoding="utf-8"), re.M))
        assert names and not sorted(names - collected(amber.parent.parent / f"{amber.stem}.py")), amber.name
