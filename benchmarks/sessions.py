"""Several sessions at once: SESSIONS live agents in one app, each streaming CHUNKS chunks, TOOLS tool calls and RICH
rich-output charts as fast as its pipe takes them, one session on screen.

Each agent is a real process (tests/support/agents/fault_agent.py, mode ``burst``) through the real LiveSource, pipeline and
store; kandev-tui runs headless at 120x40. While they stream, F1 then escape are pressed every 0.25 s (the key
latency, as benchmarks/stream.py measures it), and every second the next session is shown through the sidebar
(enter on its row): the time from the key to the first frame of that session's screen; once all are drained, it goes
once through the other sessions the same way (each shows what it held back while covered). Prints the worst key latency
(target ≤ 50 ms), the switch latency (median; target ≤ 100 ms), the app's peak RSS (run it with 1 session and with 8:
target one session's + 15 MB per added session), the time until every session is drained against the slowest
agent's own send time (looked at every 5 ms; target ≤ 1.5x; the agents send their first frame together, at a gate
opened once every session's turn has begun: eight interpreters start up to 0.3 s apart on two cores, and the ratio
counts from the first agent's first frame) and where the time after the agents' last frames went
(each session's turn end, as its source says it, after its agent's last frame: what kandev-tui had read ahead of
its work; then the screen settling), and, once idle, the app's CPU over 10 s (target under 1%):
the 10 s from 10 s after the last key, once the prompt's cursor has stopped blinking (pacing.CURSOR_BLINKS_FOR), and
the 10 s before.

    .venv/bin/python benchmarks/sessions.py [SESSIONS] [CHUNKS] [TOOLS] [RICH] [RUNS] [IDLE]

With RUNS over 1, each run is a process of its own (a new app, new agents), and the drain's ratio is summed up over
the runs at the end (its median, best and worst, and in how many runs it was over 1.5x); the idle CPU is measured
after the last run only (IDLE 0: not at all).
"""

from __future__ import annotations

import asyncio
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main(sessions: int, chunks: int, tools: int, rich: int, runs: int, idle: bool) -> None:
    """RUNS runs, each in a process of its own (a new app, new agents, its own peak RSS), the idle CPU measured after
    the last; with several, the drain's spread across them: a busy machine's scheduling moves it from run to run."""
    if runs == 1:
        asyncio.run(one_run(sessions, chunks, tools, rich, last=idle))
        return
    ratios = []
    for run in range(1, runs + 1):
        print(f"-- run {run} of {runs}", flush=True)
        command = [sys.executable, __file__, *map(str, (sessions, chunks, tools, rich, 1, int(idle and run == runs)))]
        out = subprocess.run(command, capture_output=True, text=True, check=False)
        print(out.stdout + out.stderr, end="", flush=True)
        found = re.search(r"after the first frame: ([0-9.]+)x", out.stdout)
        if out.returncode or found is None:
            sys.exit(f"sessions.py: run {run} failed (exit status {out.returncode})")
        ratios.append(float(found.group(1)))
    over = sum(ratio > 1.5 for ratio in ratios)
    print(f"drained / the slowest agent's send time over {runs} runs: median {statistics.median(ratios):.2f}x, "
          f"best {min(ratios):.2f}x, worst {max(ratios):.2f}x; over 1.5x in {over} of {runs}")


async def one_run(sessions: int, chunks: int, tools: int, rich: int, last: bool) -> None:
    """One run, its figures printed (main reads the drain's ratio from them). ``last``: the idle CPU is measured
    after it."""
    from keytimer import KeyTimer

    from kandev_tui.acp import AgentOptions
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.screens.help import HelpScreen
    from kandev_tui.sources import LiveSource
    from kandev_tui.transcript import Store
    from tests.support.app_helpers import settings_at

    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "s.db")
    gate = tmp / "go"  # made once every session's turn has begun: the agents send their frames together
    agents_before = resource.getrusage(resource.RUSAGE_CHILDREN)

    turn_ended: dict[int, float] = {}  # each session's turn end, as its source says it (on its own thread)
    ran: set[int] = set()  # the sessions whose turn has begun (said on the source's thread: a short turn is over
    # before the app's loop looks at the source's state again)

    def factory(n: int):
        def said(on_status):
            def on_status_timed(status):
                if status.state == "running":
                    ran.add(n)
                elif status.state == "idle":
                    turn_ended[n] = time.time()
                on_status(status)
            return on_status_timed

        agent = AgentOptions(command=[sys.executable, str(ROOT / "tests" / "support" / "agents" / "fault_agent.py"), "burst",
                                      str(chunks), str(tools), str(rich), str(tmp / f"stamp-{n}"), str(gate)],
                             workspace=tmp,
                             inject_guidance=False)
        class Timed(LiveSource):
            def bind(self, events):  # its states timed as it says them (on its own thread)
                super().bind(events)
                self.on_status = said(self.on_status)

        return Timed(agent, store)

    app = KandevApp(factory(1), settings_store=settings_at(tmp, chart_animation=False), initial_prompt="go")
    for n in range(2, sessions + 1):
        app.open_session(factory(n), "go")
    app.animation_level = "none"
    timer = KeyTimer(app, HelpScreen)
    shown_at: dict[int, float] = {}

    def frame(screen) -> None:
        for s in app.sessions:
            if screen is s.screen and s.number not in shown_at:
                shown_at[s.number] = time.perf_counter()

    from kandev_tui.ui.textual_hooks import watch_frames
    watch_frames(app, frame)
    latencies: list[float] = []
    by_key: dict[str, list[float]] = {"f1": [], "escape": []}
    switches: list[float] = []
    lost = 0
    async with app.run_test(size=(120, 40)):
        while len(ran) < sessions:  # each agent has its prompt and waits at the gate
            await asyncio.sleep(0.005)
        gate.touch()
        start = time.perf_counter()

        def busy() -> bool:  # a turn runs (its end stores what came), or the session on screen is drawing it
            return any(s.model.source.state != "idle" for s in app.sessions) or any(
                not (tmp / f"stamp-{s.number}").exists() for s in app.sessions) or not app.session.settled

        drained_at = 0.0
        drained_cpu: list = []
        started_cpu = resource.getrusage(resource.RUSAGE_SELF)

        async def watch_drain() -> None:  # looked at every 5 ms, not only between the keys (0.25 s and more apart)
            nonlocal drained_at
            while busy():
                await asyncio.sleep(0.005)
            drained_at = time.time()
            drained_cpu.append(resource.getrusage(resource.RUSAGE_SELF))

        async def switch_to_next() -> None:
            """The next session shown through the sidebar (ctrl+s, enter on its row): key to its first frame."""
            target = app.sessions[app.current.number % sessions]
            shown_at.pop(target.number, None)
            sidebar = app.current.screen.sidebar
            asked = time.perf_counter()
            timer.send_key("ctrl+s")  # the sidebar takes the focus (120 columns)
            while not sidebar.has_focus and time.perf_counter() - asked < 10:
                await asyncio.sleep(0.001)
            sidebar.highlighted = target.number - 1
            pressed = time.perf_counter()
            timer.send_key("enter")
            while target.number not in shown_at and time.perf_counter() - pressed < 60:
                await asyncio.sleep(0.0005)
            if target.number in shown_at:
                switches.append(shown_at[target.number] - pressed)
            else:
                print(f"session {target.number} was never drawn after its switch", file=sys.stderr)

        watcher = asyncio.create_task(watch_drain())
        last_switch = time.perf_counter()
        while not watcher.done():
            await asyncio.sleep(0.25)
            opened, closed = await timer.help_and_back()
            if opened is None or closed is None:
                lost += 1
                break
            latencies += [opened, closed]
            by_key["f1"].append(opened)
            by_key["escape"].append(closed)
            if sessions > 1 and time.perf_counter() - last_switch >= 1.0:
                last_switch = time.perf_counter()
                await switch_to_next()
        await watcher
        elapsed = drained_at - (time.time() - (time.perf_counter() - start))
        streaming_switches = len(switches)
        for _ in range(sessions - 1 if sessions > 1 else 0):  # then once through the others, each with what it holds
            await switch_to_next()
        while not app.session.settled:  # the last one shown has put what it held on screen: idle from here
            await asyncio.sleep(0.01)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        idle_cpu = []  # the first 10 s after the last key (the prompt's cursor blinks), then the next 10 s (it is still)
        for _ in range(2 if last else 0):
            before = resource.getrusage(resource.RUSAGE_SELF)
            idle_from = time.perf_counter()
            await asyncio.sleep(10)
            after = resource.getrusage(resource.RUSAGE_SELF)
            idle_cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
                            / (time.perf_counter() - idle_from))
        await app.action_quit()
    stamps = [tuple(float(t) for t in (tmp / f"stamp-{n}").read_text().split()) for n in range(1, sessions + 1)]
    first = min(s[0] for s in stamps)
    slowest = max(last - begin for begin, last in stamps)
    rows = store.sessions()
    print(f"{sessions} sessions × ({chunks:,} chunks + {tools:,} tools + {rich} rich outputs): all idle and on screen "
          f"after {elapsed:.1f} s; {len(rows)} sessions stored, {sum(r['items'] for r in rows):,} items")
    print(f"slowest agent sent its frames in {slowest:.2f} s; all drained {drained_at - first:.2f} s after the first "
          f"frame: {(drained_at - first) / max(slowest, 1e-9):.2f}x (target <= 1.5x)")
    print(f"  the agents' first frames {max(s[0] for s in stamps) - first:.2f} s apart (they start at a gate opened "
          f"once every turn has begun); drained {drained_at - max(s[1] for s in stamps):.2f} s after the last agent's last frame")
    behind = sorted((turn_ended[n] - stamps[n - 1][1], n) for n in turn_ended)
    if len(behind) == sessions:  # where the time after the agents' last frames goes: kandev-tui's reading, then the screen
        print(f"  each session's turn ended {statistics.median(b for b, _ in behind):.2f} s (median) after its agent's "
              f"last frame, {behind[-1][0]:.2f} s at worst (session {behind[-1][1]}: what it had read ahead, and its "
              f"turn's end); the screen settled {drained_at - max(turn_ended.values()):.2f} s after the last turn ended")
    if latencies:
        print(f"key latency while streaming ({len(latencies)} presses): median {statistics.median(latencies) * 1000:.0f} ms, "
              f"worst {max(latencies) * 1000:.0f} ms (target worst <= 50 ms)" + (f"; {lost} never drawn" if lost else ""))
        print("  " + ", ".join(f"{key}: median {statistics.median(values) * 1000:.0f} ms, worst {max(values) * 1000:.0f} ms"
                               for key, values in by_key.items()))
    if switches:
        print(f"switching sessions ({len(switches)} switches, {streaming_switches} while streaming): median "
              f"{statistics.median(switches) * 1000:.0f} ms, worst {max(switches) * 1000:.0f} ms (target median <= 100 ms)")
    used = drained_cpu[0].ru_utime + drained_cpu[0].ru_stime - started_cpu.ru_utime - started_cpu.ru_stime
    agents = resource.getrusage(resource.RUSAGE_CHILDREN)
    agents_cpu = agents.ru_utime + agents.ru_stime - agents_before.ru_utime - agents_before.ru_stime
    print(f"CPU until drained: kandev-tui {used:.2f} s (all its threads) over {elapsed:.2f} s; the agents "
          f"{agents_cpu:.2f} s in all (2 cores: {2 * elapsed:.2f} s)")
    print(f"peak RSS {rss:.0f} MB" + (f"; idle CPU over 10 s: {idle_cpu[1] * 100:.2f}% (target < 1%), "
                                       f"{idle_cpu[0] * 100:.2f}% in the 10 s before, while the cursor still blinks "
                                       "after the last key" if idle_cpu else ""))


if __name__ == "__main__":
    from benchargs import arguments

    ARGS = arguments(__doc__, ("sessions", int, 8, "sessions at once"), ("chunks", int, 5_000, "chunks each"),
                     ("tools", int, 200, "tool calls each"), ("rich", int, 50, "rich-output charts each"),
                     ("runs", int, 1, "runs, each in a process of its own"),
                     ("idle", int, 1, "1: measure the idle CPU after the (last) run, 0: not"))
    if ARGS.runs < 1:
        sys.exit("sessions.py: RUNS must be at least 1")
    main(ARGS.sessions, ARGS.chunks, ARGS.tools, ARGS.rich, ARGS.runs, bool(ARGS.idle))
