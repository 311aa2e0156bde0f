"""The plotted output never depends on PYTHONHASHSEED: the same scene renders identically under two seeds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import asyncio, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from snapshots.scenes import make, RUN_BEFORE

async def main():
    app = make("blocks", Path(tempfile.mkdtemp()), "textual-dark")
    async with app.run_test(size=(100, 40)) as pilot:
        await RUN_BEFORE["blocks"](pilot)
        sys.stdout.write(app.export_screenshot())

asyncio.run(main())
"""


def render(seed: str) -> str:
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONHASHSEED": seed}
    result = subprocess.run([sys.executable, "-c", SCRIPT, root], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_rendering_is_identical_under_different_hash_seeds():
    first, second = render("1"), render("4242")
    assert "Latency" in first and first == second
