"""Start-up: ``kandev-tui --help`` and the first paint of the demo, next to a bare Textual app.

First paint is the time from the interpreter running the script to the first frame the app writes to the
terminal (its driver's first output), the same hook for both apps. Prints medians of several runs, each in
a fresh process (targets from the performance issue:
--help <= 150 ms, first paint of the demo <= 1.0 s), and the demo : hello ratio.
Run: python benchmarks/startup.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KANDEV = str(Path(sys.executable).with_name("kandev-tui"))

FIRST_FRAME = r"""
import asyncio, time

async def print_first_frame(app, start, quit_after=None):
    # the time from the script's start to the first frame the app writes to the terminal (its driver's output)
    from kandev_tui.textual_hooks import watch_frames
    drawn = []
    def first_frame(screen):
        if not drawn:
            drawn.append(time.perf_counter() - start)
    watch_frames(app, first_frame)
    async with app.run_test(size=(120, 40)):
        while not drawn:
            await asyncio.sleep(0.001)
        print(drawn[0])
        if quit_after is not None:
            await quit_after()
"""

HELLO = r"""
import time
start = time.perf_counter()
from textual.app import App
from textual.widgets import Static

class Hello(App):
    def compose(self):
        yield Static("hello")
""" + FIRST_FRAME + r"""
asyncio.run(print_first_frame(Hello(), start))
"""

DEMO = r"""
import time
start = time.perf_counter()
import asyncio, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from kandev_tui.acp import AgentOptions
from kandev_tui.app import KandevApp
from kandev_tui.demo import agent_command, prepare_workspace
from kandev_tui.settings import SettingsStore
from kandev_tui.sources import LiveSource
from kandev_tui.transcript import Store
""" + FIRST_FRAME + r"""
async def main():
    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "s.db")
    options = AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp / "ws"))
    app = KandevApp(lambda i, s: LiveSource(options, store, i, s), settings_store=SettingsStore(tmp / "c.toml"),
                    initial_prompt="Check the build health")
    await print_first_frame(app, start, quit_after=app.action_quit)  # status line, prompt, the agent starting

asyncio.run(main())
"""


def median_of(runs: int, command: list[str]) -> float:
    times = []
    for _ in range(runs):
        out = subprocess.run(command, capture_output=True, text=True, timeout=300)
        if out.returncode:
            raise SystemExit(out.stderr[-2000:])
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


def help_time(runs: int = 10) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([KANDEV, "--help"], capture_output=True, timeout=60, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    print(f"kandev-tui --help: median {help_time() * 1000:.0f} ms over 10 runs (target <= 150 ms)")
    hello = median_of(5, [sys.executable, "-c", HELLO])
    demo = median_of(5, [sys.executable, "-c", DEMO, str(ROOT)])
    print(f"first paint: bare Textual hello {hello:.2f} s; kandev-tui demo {demo:.2f} s (target <= 1.0 s); "
          f"ratio {demo / hello:.1f}x")


if __name__ == "__main__":
    from benchargs import arguments

    arguments(__doc__)
    main()
