"""Key latency while a client terminal prints as fast as it can.

The app (120x40) over the scripted agent of tests/support/agents/client_agent.py, which asks kandev-tui to run
``yes '…'`` in a terminal (ACP ``terminal/create``) and embeds it in a tool call, expanded on screen; for the
measured seconds F1 and escape are pressed every 0.1 s, each as the terminal driver delivers a key, and the
key-to-screen latency is printed (median and worst; target worst <= 50 ms). Then the turn is cancelled (the command
killed) and the keys are timed again on the same screen, the app's own latency to compare with. Also printed: how much the command printed meanwhile (what kandev-tui read from its terminal), how much the
recording got (the transcript's bounded trickle), and the process's peak memory.

    .venv/bin/python benchmarks/terminals.py [SECONDS]
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AGENT = [sys.executable, str(ROOT / "tests" / "support" / "agents" / "client_agent.py")]
LINE = "kandev-tui terminal benchmark: a line of output as fast as the command can print it"


async def main(seconds: float) -> None:
    from keytimer import KeyTimer

    from kandev_tui.acp import AgentOptions
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.screens.help import HelpScreen
    from kandev_tui.sources import LiveSource
    from kandev_tui.ui.textual_hooks import screen_text
    from kandev_tui.transcript import Store
    from kandev_tui.widgets.entries.tool_group import ToolGroup
    from tests.support.app_helpers import settings_at

    folder = Path(tempfile.mkdtemp(prefix="kandev-terminals-"))
    workspace = folder / "ws"
    workspace.mkdir()
    options = AgentOptions(command=AGENT, workspace=workspace.resolve(), inject_guidance=False,
                           env={**os.environ, "CLIENT_AGENT_RESULTS": str(folder / "results.jsonl")},
                           log_path=folder / "agent.log")
    store = Store(folder / "s.db")
    app = KandevApp(LiveSource(options, store, record=folder / "rec.jsonl"),
                    settings_store=settings_at(folder, chart_animation=False))
    app.animation_level = "none"
    timer = KeyTimer(app, HelpScreen)
    steps = [{"op": "run", "command": "yes", "args": [LINE], "title": "yes (as fast as it can)"}]
    async with app.run_test(size=(120, 40)) as pilot:
        while app.source.state != "idle":
            await asyncio.sleep(0.01)
        prompt = app.transcript_screen.prompt
        prompt.focus()
        prompt.insert(json.dumps(steps))
        await pilot.press("enter")
        while not app.view.query(ToolGroup):
            await asyncio.sleep(0.01)
        group = app.view.query(ToolGroup).first()
        group.action_toggle()
        started = time.perf_counter()
        while LINE[:30] not in screen_text(app) and time.perf_counter() - started < 30:
            await asyncio.sleep(0.01)
        latencies = await presses(timer, seconds)
        printed = app.source.client.terminals.printed
        await pilot.press("escape")  # cancel: the command is killed
        while app.source.state != "idle":
            await asyncio.sleep(0.05)
        quiet = await presses(timer, seconds)  # the same screen, nothing printing: the app's own latency
        await app.action_quit()
    recorded = (folder / "rec.jsonl").stat().st_size
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"the command printed {printed / 1e6:.0f} MB in {seconds:g} s; the recording got {recorded / 1e6:.1f} MB; "
          f"peak memory {peak:.0f} MiB")
    for what, figures in (("while it prints", latencies), ("once it has been killed (the same screen)", quiet)):
        if figures:
            print(f"key latency {what} ({len(figures)} presses): median {statistics.median(figures) * 1000:.0f} ms, "
                  f"worst {max(figures) * 1000:.0f} ms (target worst <= 50 ms)")


async def presses(timer, seconds: float) -> list[float]:
    """F1 and escape every 0.1 s for ``seconds``: each key's latency."""
    latencies: list[float] = []
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        await asyncio.sleep(0.1)
        opened, closed = await timer.help_and_back()
        if opened is None or closed is None:
            print("a key never reached the screen within 60 s", file=sys.stderr)
            break
        latencies += [opened, closed]
    return latencies


if __name__ == "__main__":
    from benchargs import arguments

    args = arguments(__doc__, ("seconds", float, 5.0, "seconds of key presses while the command prints"))
    asyncio.run(main(args.seconds))
