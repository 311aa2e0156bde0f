"""The suite's own check of what it leaves behind (tests/support/leftovers.py, run when the suite ends): a run whose test
leaks a process, a demo workspace copy and a checkpoint in the checkout's repository fails, names both and removes them, in one process and in workers
(``pytest -n 2``, as ``make test`` runs it: each worker says its processes, the controller the files)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

from ..support import CHECKOUT
from ..support.procs import live_pids

LEAKING = os.environ.get("KANDEV_LEAK_ON_PURPOSE", "")  # set only by the test below, for the run it starts
@pytest.mark.skipif(not LEAKING, reason="leaks on purpose only in the run test_a_leak_fails_the_run starts")
def test_leaks_on_purpose():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", LEAKING],  # never ended
                     start_new_session=True)
    tempfile.mkdtemp(prefix="kandev-demo-")
    subprocess.run(["git", "update-ref", f"refs/kandev-tui/{LEAKING}/1-start", "HEAD"], cwd=CHECKOUT,
                   check=True)  # a checkpoint left in the checkout's own repository
@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_leak_fails_the_run_names_it_and_removes_it(tmp_path, workers):
    mark = f"leak-probe-{tmp_path.name}"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "KANDEV_LEAK_ON_PURPOSE": mark, "KANDEV_LEFTOVERS_GRACE": "0.5", "TMPDIR": str(scratch)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", workers, "-p", "no:cacheprovider",
                          "tests/system/test_leftovers.py::test_leaks_on_purpose"], cwd=CHECKOUT,
                         capture_output=True, text=True, timeout=240, env=env)
    said = run.stdout + run.stderr
    assert run.returncode == 1 and "1 passed" in said, said
    assert "the suite left these behind (now removed):" in said and f"time.sleep(600) {mark}" in said, said
    assert "file " + str(scratch / "kandev-demo-") in said, said
    assert not live_pids(lambda _pid, cmdline: mark.encode() in cmdline)  # ended
    assert not list(scratch.glob("kandev-demo-*"))  # removed
    ref = f"refs/kandev-tui/{mark}/1-start"
    assert f"checkpoint {ref} in the checkout's repository" in said, said
    assert subprocess.run(["git", "rev-parse", "--verify", "-q", ref], cwd=CHECKOUT).returncode != 0
