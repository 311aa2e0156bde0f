"""Streaming at agent speed: the app, live, fed 50,000 chunks and 2,000 tool calls as fast as possible (case
``mixed``), and one long message: 1 MB of Markdown in 100,000 chunks (case ``long``).

A real agent process (tests/support/agents/fault_agent.py, mode ``burst``, no charts) writes the frames as fast as its
pipe takes them; kandev-tui runs headless at 120x40 through the real LiveSource, pipeline and store.
While the turn streams, F1 then escape are pressed every 0.25 s, each as the terminal driver delivers a
key; the key-to-screen latency is the time from the key to the first frame drawn that shows its effect
(the help screen, then the transcript again). Prints wall time to idle, frames drawn, store commits, the
agent's own send time and the time until everything is on screen (target within 1.5x of it),
and the latency (median and worst; target worst ≤ 50 ms). For the long message it also prints the time per chunk
in the first and the last 10% of it, and in each tenth, as the agent could send them (its pipe is read as fast as
kandev-tui takes it), and how far the screen is behind the agent at 10% and at 90% of it: a message that costs more
per chunk as it grows shows in both (target: the last 10% no slower than the first). The first tenth goes by before
the screen shows the message's first batch (the UI's thread takes no share of the machine yet): the tenths after it
say whether the time per chunk grows with the message (with 400,000 chunks, ``long 400000``, the first tenth is long
enough for the screen to take part in it too). It also prints kandev-tui's own CPU per chunk in each tenth, apart:
its reading threads and the store (the cost of a chunk as the message grows), and the UI's thread (which takes a
share of the time, not of the chunks, and none while the help covers the transcript). Then how long until every block of the message is drawn
(those above the screen are drawn a slice at a time once the flood pauses), and the CPU that takes.

    .venv/bin/python benchmarks/stream.py [CASE] [CHUNKS] [TOOLS]    (CASE: mixed, long or both)
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


async def main(case: str, chunks: int, tools: int) -> None:
    from keytimer import KeyTimer

    from kandev_tui.acp import AgentOptions
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.screens.help import HelpScreen
    from kandev_tui.widgets.entries.agent_message import AgentMessage
    from kandev_tui.sources import LiveSource
    from kandev_tui.transcript import Store
    from tests.support.app_helpers import settings_at

    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "s.db")
    size = 1_000_000
    shape = ["long", str(chunks), str(size)] if case == "long" else ["burst", str(chunks), str(tools), "0"]
    agent = AgentOptions(command=[sys.executable, str(ROOT / "tests" / "support" / "agents" / "fault_agent.py"), *shape,
                                  str(tmp / "stamp")], workspace=tmp, inject_guidance=False)
    app = KandevApp(LiveSource(agent, store),
                    settings_store=settings_at(tmp, chart_animation=False))
    app.animation_level = "none"
    timer = KeyTimer(app, HelpScreen)
    latencies: list[float] = []
    by_key: dict[str, list[float]] = {"f1": [], "escape": []}
    lost = 0  # keys whose effect was never drawn (the run stops at the first)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.source.state != "idle":
            await pilot.pause(0.01)
        app.transcript_screen.prompt.focus()
        timer.count = 0
        start = time.perf_counter()
        await pilot.press(*"go")
        timer.send_key("enter")  # as the terminal would: pilot.press would wait for the app to be idle, i.e. the end
        while app.source.state == "idle" and not any(e.key.startswith("turn_end") for e in app.view.entries):
            await asyncio.sleep(0.001)  # the turn has started (or, if tiny, already ended)
        lags: list[float] = []
        shown: list[tuple[float, int]] = []  # (wall-clock time, characters of the message on screen)
        cpu: list[tuple[float, float, float]] = []  # (wall-clock time, the process's CPU, the UI thread's CPU)

        async def watch_loop() -> None:  # how long the event loop goes without running anything else
            while True:
                before = time.perf_counter()
                await asyncio.sleep(0.005)
                lags.append(time.perf_counter() - before - 0.005)
                usage = resource.getrusage(resource.RUSAGE_SELF)
                cpu.append((time.time(), usage.ru_utime + usage.ru_stime, time.thread_time()))  # (on the UI thread)
                message = next((w for w in app.view.widgets.values() if isinstance(w, AgentMessage)), None)
                if message is not None:
                    shown.append((time.time(), len(message.item.payload.get("text", "")) - message.backlog))

        watcher = asyncio.ensure_future(watch_loop())

        def busy() -> bool:  # the turn runs, or what it sent is still being put on screen
            return app.source.state != "idle" or not app.session.settled

        while busy():
            await asyncio.sleep(0.25)
            if not busy():
                break
            opened, closed = await timer.help_and_back()
            if opened is None or closed is None:
                lost += 1
                print("a key never reached the screen within 60 s", file=sys.stderr)
                break
            latencies += [opened, closed]
            by_key["f1"].append(opened)
            by_key["escape"].append(closed)
        while not app.session.settled:
            await pilot.pause(0.01)
        elapsed = time.perf_counter() - start
        drained_at = time.time()
        watcher.cancel()
        used = resource.getrusage(resource.RUSAGE_SELF)
        while any(isinstance(w, AgentMessage) and w.drawing_rest for w in app.view.widgets.values()):
            await asyncio.sleep(0.01)  # the blocks above the screen, drawn a slice at a time
        rest = (time.time() - drained_at, resource.getrusage(resource.RUSAGE_SELF).ru_utime - used.ru_utime)
        pipeline = app.source.pipeline
        view = app.view
        mounted = (len(view.widgets), len(list(app.screen.walk_children())), view.following)
        await app.action_quit()
    items = store.items(store.sessions()[0]["id"])
    text = "".join(i.payload.get("text", "") for i in items if i.kind == "agent_message")
    stored_chunks = text.count("c")
    calls = sum(1 for i in items if i.kind == "tool_call")
    if case == "long":
        print(f"one message of {size:,} characters in {chunks:,} chunks (stored: {len(text):,} characters, "
              f"{len(items)} items)")
    print(f"{chunks:,} chunks + {tools if case != 'long' else 0:,} tool calls: idle after {elapsed:.1f} s, {timer.count:,} frames drawn, "
          f"{pipeline.commits:,} store commits for {pipeline.frames:,} frames")
    print(f"stored: {stored_chunks if case != 'long' else 0:,} chunks, {calls:,} tool calls; at the end {mounted[0]} entries mounted "
          f"({mounted[1]:,} widgets), following: {mounted[2]}")
    stamps = [float(t) for t in (tmp / "stamp").read_text().split()]
    first, last = stamps[0], stamps[-1]
    if case == "long":
        tenth = chunks // 10
        sent = [(later - earlier) / tenth * 1e6 for earlier, later in zip(stamps, stamps[1:])]
        print(f"per chunk as the agent could send them: first 10% {sent[0]:.0f} µs, last 10% {sent[-1]:.0f} µs; "
              f"each tenth: {', '.join(f'{us:.0f}' for us in sent)} µs")

        def cpu_at(at: float) -> tuple[float, float]:  # (the process's, the UI thread's) CPU when the agent was there
            return next(((total, ui) for t, total, ui in cpu if t >= at), cpu[-1][1:] if cpu else (0.0, 0.0))

        marks = [cpu_at(stamp) for stamp in stamps]
        spent = [((b[0] - a[0]) - (b[1] - a[1]), b[1] - a[1]) for a, b in zip(marks, marks[1:])]
        print("kandev-tui's CPU per chunk in each tenth: its readers and the store (every thread but the UI's) "
              + ", ".join(f"{other / tenth * 1e6:.1f}" for other, _ in spent) + " µs; the UI's thread "
              + ", ".join(f"{ui / tenth * 1e6:.1f}" for _, ui in spent) + " µs")

        def shown_at(share: float) -> float:  # when the screen first held this share of the message
            return next((t for t, n in shown if n >= share * len(text)), drained_at)

        behind = ((shown_at(0.1) - stamps[1]) * 1000, (shown_at(0.9) - stamps[-2]) * 1000)
        print(f"the screen behind the agent: at 10% of the message {behind[0]:.0f} ms, at 90% {behind[1]:.0f} ms")
        print(f"every block of the message drawn {rest[0]:.1f} s after all was on screen (for scrolling back: a "
              f"slice at a time, keys between), kandev-tui's CPU meanwhile {rest[1]:.1f} s")
    print(f"the agent sent its frames in {last - first:.2f} s; all on screen {drained_at - first:.2f} s after its "
          f"first frame: {(drained_at - first) / max(last - first, 1e-9):.1f}x its send time (target <= 1.5x)")
    if lags:
        print(f"event loop stalls while streaming: median {statistics.median(lags) * 1000:.0f} ms, "
              f"worst {max(lags) * 1000:.0f} ms, {sum(1 for lag in lags if lag > 0.05)} over 50 ms")
    if latencies:
        print(f"key latency while streaming ({len(latencies)} presses): median {statistics.median(latencies) * 1000:.0f} ms, "
              f"worst {max(latencies) * 1000:.0f} ms (target worst <= 50 ms)"
              + (f"; {lost} key never drawn" if lost else ""))
        for key, values in by_key.items():
            print(f"  {key}: median {statistics.median(values) * 1000:.0f} ms, worst {max(values) * 1000:.0f} ms")


if __name__ == "__main__":
    from benchargs import arguments

    ARGS = arguments(__doc__, ("case", str, "both", "mixed (chunks and tool calls), long (one message) or both"),
                     ("chunks", int, 0, "message chunks the agent sends (0: 50,000 mixed, 100,000 long)"),
                     ("tools", int, 2_000, "tool calls among them (mixed)"))
    if ARGS.case not in ("mixed", "long", "both"):
        raise SystemExit(f"stream.py: the case is mixed, long or both, not {ARGS.case!r}")
    for CASE in (("mixed", "long") if ARGS.case == "both" else (ARGS.case,)):
        print(f"-- {CASE}")
        asyncio.run(main(CASE, ARGS.chunks or (100_000 if CASE == "long" else 50_000), ARGS.tools))
