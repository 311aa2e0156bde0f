"""The plotted output never depends on PYTHONHASHSEED: the same scene renders identically under two seeds."""

from __future__ import annotations

import os
import subprocess
import sys


from ..support import CHECKOUT

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
    root = str(CHECKOUT)
    env = {**os.environ, "PYTHONHASHSEED": seed}
    result = subprocess.run([sys.executable, "-c", SCRIPT, root], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_rendering_is_identical_under_different_hash_seeds():
    first, second = render("1"), render("4242")
    assert "Latency" in first and first == second


PLOT_SCRIPT = r"""
import hashlib, sys
sys.path.insert(0, sys.argv[1])
from kandev_tui.ui.charts import ChartData, plot

line = ChartData('l', 'line', ('2026-09-01T10:00:00Z', '2026-09-01T11:00:00Z', '2026-09-01T12:00:00Z', '2026-09-01T13:00:00Z'),
                 ('p95', 'p50'), ((420, 380, None, 180), (90, 85, 80, 0)))
bar = ChartData('b', 'bar', ('api', 'auth', 'billing', 'web'), ('P', 'F', 'S'), ((128, 64, 91, 129), (0, 1, 2, 0), (5, None, 5, 5)))
lines = []
for data in (line, bar):
    for width in (45, 71, 100):
        for colors in (((1, 2, 3), (4, 5, 6), (7, 8, 9)), None):
            lines += plot(data, width, 12, colors, (True,) * len(data.series_labels))
print(hashlib.sha256("".join(str(l.spans) + l.plain for l in lines).encode()).hexdigest())
"""


def test_plots_are_identical_under_eight_hash_seeds():
    root = str(CHECKOUT)
    digests = set()
    for seed in ("0", "1", "2", "3", "17", "99", "1234", "4242"):
        out = subprocess.run([sys.executable, "-c", PLOT_SCRIPT, root], capture_output=True, text=True,
                             env={**os.environ, "PYTHONHASHSEED": seed}, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        digests.add(out.stdout.strip())
    assert len(digests) == 1
