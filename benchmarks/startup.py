"""Start-up: ``kandev-tui --help`` and the first paint of the demo, next to a bare Textual app.

First paint is the time from the interpreter running the script to the first frame the app writes to the
terminal (its driver's first output), the same hook for both apps. Then, for the demo, the time until its agent
has started and opened the session, and the first prompt is sent (the session's state says its turn runs). Prints medians of 15 runs, each in
a fresh process, the two apps in turns (targets from the performance issue:
--help <= 150 ms, first paint of the demo <= 1.0 s), and the demo : hello ratio.

Both apps run from bytecode, as an installed kandev-tui does: the runs write ``__pycache__`` even where the
environment sets ``PYTHONDONTWRITEBYTECODE`` (this machine's does, which made every demo run compile its 80
modules from source, 130-180 ms, while Textual's came compiled from pip), and one run of each goes uncounted.
Run: python benchmarks/startup.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KANDEV = str(Path(sys.executable).with_name("kandev-tui"))
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode, as installed

FIRST_FRAME = r"""
import asyncio, time

async def print_first_frame(app, start, quit_after=None):
    # the time from the script's start to the first frame the app writes to the terminal (its driver's output)
    from kandev_tui.ui.textual_hooks import watch_frames
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
from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.demo import agent_command, prepare_workspace
from kandev_tui.base.settings import SettingsStore
from kandev_tui.sources import LiveSource
from kandev_tui.transcript import Store
""" + FIRST_FRAME + r"""
async def main():
    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "s.db")
    options = AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp / "ws"))
    app = KandevApp(LiveSource(options, store), settings_store=SettingsStore(tmp / "c.toml"),
                    initial_prompt="Check the build health")
    await print_first_frame(app, start, quit_after=app.action_quit)  # status line, prompt, the agent starting

asyncio.run(main())
"""

# the same demo, until its agent has started, answered initialize and session/new, and has the first prompt: the
# time from the interpreter running the script to the session's state saying its turn runs
DEMO_READY = DEMO.replace("await print_first_frame(app, start, quit_after=app.action_quit)", """
    async with app.run_test(size=(120, 40)):
        while app.source.state not in ("running", "waiting", "idle", "error"):
            await asyncio.sleep(0.001)
        print(time.perf_counter() - start)
        await app.action_quit()""")


def first_frames(runs: int, commands: list[list[str]]) -> list[float]:
    """The median first-frame time of each command, over ``runs`` runs taken in turns (the machine's drift is
    shared); the first run of each writes the bytecode and is not counted."""
    times: list[list[float]] = [[] for _ in commands]
    for run in range(runs + 1):
        for i, command in enumerate(commands):
            out = subprocess.run(command, capture_output=True, text=True, timeout=300, env=ENV)
            if out.returncode:
                raise SystemExit(out.stderr[-2000:])
            if run:
                times[i].append(float(out.stdout.strip().splitlines()[-1]))
    return [statistics.median(t) for t in times]


def help_time(runs: int = 10) -> float:
    times = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        subprocess.run([KANDEV, "--help"], capture_output=True, timeout=60, check=True, env=ENV)
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


def main() -> None:
    print(f"kandev-tui --help: median {help_time() * 1000:.0f} ms over 10 runs (target <= 150 ms)")
    runs = 15
    hello, demo, ready = first_frames(runs, [[sys.executable, "-c", HELLO], [sys.executable, "-c", DEMO, str(ROOT)],
                                              [sys.executable, "-c", DEMO_READY, str(ROOT)]])
    print(f"first paint, median of {runs} runs each, in turns: bare Textual hello {hello:.2f} s; kandev-tui demo "
          f"{demo:.2f} s (target <= 1.0 s); ratio {demo / hello:.2f}x (target <= 1.5x)")
    print(f"the demo's agent started, its session open and its first prompt sent: {ready:.2f} s after the "
          f"interpreter started (median of {runs})")


if __name__ == "__main__":
    from benchargs import arguments

    arguments(__doc__)
    main()
