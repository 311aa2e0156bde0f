"""From the agent's last frame to a real terminal showing it: kandev-tui in tmux at 120x40, read with capture-pane.

A real agent process (tests/support/agents/fault_agent.py, mode ``burst``) streams CHUNKS message chunks with TOOLS tool
calls and RICH rich-output charts among them, as fast as its pipe takes them, then a last chunk "END-OF-STREAM",
and writes the wall-clock time of that last frame to a file. The app runs in tmux (``kandev-tui run``, the prompt
sent for it); the benchmark reads the pane every 5 ms until "END-OF-STREAM" shows (the time of the read that first
shows it: a read takes 3-5 ms), and prints the time from the agent's last frame to the terminal showing it (target
≤ 0.3 s; for 20,000/1,000/200 the median ≤ 0.1 s), the agent's own send time (a pipe that kandev-tui
reads more slowly than the agent writes makes the agent wait: its send time grows), and the whole: from its first
frame to the terminal showing the last.

    .venv/bin/python benchmarks/terminal.py [--runs N] [CHUNKS/TOOLS/RICH ...]   (default: 5000/200/50 20000/1000/200)
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "tests" / "support" / "agents" / "fault_agent.py"
KANDEV = f"env PYTHONPATH={ROOT} {sys.executable} -m kandev_tui"  # this checkout's kandev-tui


def tmux(socket: str, *args: str) -> str:
    return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=30).stdout


def one_run(chunks: int, tools: int, rich: int, limit: float) -> tuple[float | None, float, float | None]:
    """(seconds from the agent's last frame to the pane showing it, or None if it never did within ``limit``;
    seconds the agent took to send its frames; seconds from its first frame to the pane showing the last)."""
    scratch = Path(tempfile.mkdtemp(prefix="kandev-terminal-"))
    stamp = scratch / "last-frame"
    socket = f"kandev-bench-{uuid.uuid4().hex[:8]}"
    env = {"KANDEV_TUI_DB": str(scratch / "s.db"), "KANDEV_TUI_CONFIG": str(scratch / "c.toml"),
           "KANDEV_TUI_CHART_ANIMATION": "false", "TERM": "xterm-256color"}
    command = (f"env {' '.join(f'{k}={v}' for k, v in env.items())} {KANDEV} run --no-guidance --prompt go "
               f"--workspace {scratch} -- {sys.executable} {AGENT} burst {chunks} {tools} {rich} {stamp}")
    tmux(socket, "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", f"{command}; sleep 60")
    try:
        started = time.time()
        seen = None
        while True:
            asked = time.time()  # the pane is read as it is when asked (a read takes a few ms itself)
            screen = tmux(socket, "capture-pane", "-p", "-t", "t")
            if "END-OF-STREAM" in screen:
                seen = asked
                break
            if time.time() - started > limit:
                print(f"END-OF-STREAM never showed in {limit:.0f} s; the screen was:\n{screen}", file=sys.stderr)
                break
            time.sleep(0.005)
        for _ in range(200):  # the stamp is written just after the last frame is sent
            if stamp.exists() and stamp.read_text():
                break
            time.sleep(0.01)
        first, last = (float(t) for t in stamp.read_text().split())
        return (None if seen is None else seen - last), last - first, (None if seen is None else seen - first)
    finally:
        tmux(socket, "kill-server")
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per stream (default: 3)")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds a run waits for the end to show "
                                                                   "(default: 60)")
    parser.add_argument("streams", nargs="*", default=["5000/200/50", "20000/1000/200"],
                        help="CHUNKS/TOOLS/RICH (default: 5000/200/50 20000/1000/200)")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("benchmarks/terminal.py needs tmux")
    for stream in args.streams:
        chunks, tools, rich = (int(n) for n in stream.split("/"))
        results = [one_run(chunks, tools, rich, args.limit) for _ in range(args.runs)]
        shown = [r[0] for r in results if r[0] is not None]
        never = len(results) - len(shown)
        figures = (f"median {statistics.median(shown):.3f} s, worst {max(shown):.3f} s (each run: "
                   f"{', '.join(f'{s * 1000:.0f}' for s in shown)} ms)" if shown else "no run")
        print(f"{chunks:>6} chunks / {tools:>5} tools / {rich:>4} rich outputs: last frame to terminal {figures} "
              f"(target ≤ 0.3 s); never shown in {never} of {len(results)} runs; "
              f"the agent's own send time {statistics.median(r[1] for r in results):.2f} s; its first frame to the "
              f"terminal showing its last {statistics.median(r[2] for r in results if r[2] is not None):.2f} s")


if __name__ == "__main__":
    main()
