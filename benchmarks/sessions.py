"""Several sessions at once: SESSIONS live agents in one app, each streaming CHUNKS chunks, TOOLS tool calls and RICH
rich-output charts as fast as its pipe takes them, one session on screen.

Each agent is a real process (tests/agents/fault_agent.py, mode ``burst``) through the real LiveSource, pipeline and
store; kandev-tui runs headless at 120x40. While they stream, F1 then escape are pressed every 0.25 s (the key
latency, as benchmarks/stream.py measures it), and every second the next session is shown through the sidebar
(enter on its row): the time from the key to the first frame of that session's screen. Prints the worst key latency
(target ≤ 50 ms), the switch latency (median; target ≤ 100 ms), the app's peak RSS (run it with 1 session and with 8:
target one session's + 15 MB per added session), the time until every session is drained against the slowest
agent's own send time (target ≤ 1.5x), and, once idle, the app's CPU over 10 s (target under 1%).

    .venv/bin/python benchmarks/sessions.py [SESSIONS] [CHUNKS] [TOOLS] [RICH]
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


async def main(sessions: int, chunks: int, tools: int, rich: int) -> None:
    from keytimer import KeyTimer

    from kandev_tui.acp import AgentOptions
    from kandev_tui.app import KandevApp
    from kandev_tui.screens.help import HelpScreen
    from kandev_tui.sources import LiveSource
    from kandev_tui.transcript import Store
    from tests.app_helpers import settings_at

    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "s.db")

    def factory(n: int):
        agent = AgentOptions(command=[sys.executable, str(ROOT / "tests" / "agents" / "fault_agent.py"), "burst",
                                      str(chunks), str(tools), str(rich), str(tmp / f"stamp-{n}")], workspace=tmp,
                             inject_guidance=False)
        return lambda on_items, on_state: LiveSource(agent, store, on_items, on_state)

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

    from kandev_tui.textual_hooks import watch_frames
    watch_frames(app, frame)
    latencies: list[float] = []
    switches: list[float] = []
    lost = 0
    async with app.run_test(size=(120, 40)):
        start = time.perf_counter()
        while not any(s.source.state == "running" for s in app.sessions):
            await asyncio.sleep(0.005)

        def busy() -> bool:  # a turn runs (its end stores what came), or the session on screen is drawing it
            return any(s.source.state != "idle" for s in app.sessions) or any(
                not (tmp / f"stamp-{s.number}").exists() for s in app.sessions) or not app.session.settled

        last_switch = time.perf_counter()
        while busy():
            await asyncio.sleep(0.25)
            opened, closed = await timer.help_and_back()
            if opened is None or closed is None:
                lost += 1
                break
            latencies += [opened, closed]
            if sessions > 1 and time.perf_counter() - last_switch >= 1.0:
                last_switch = time.perf_counter()
                target = app.sessions[app.current.number % sessions]
                shown_at.pop(target.number, None)
                sidebar = app.current.screen.sidebar
                timer.send_key("ctrl+s")  # the sidebar takes the focus (120 columns)
                while not sidebar.has_focus and time.perf_counter() - last_switch < 10:
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
        drained_at = time.time()
        elapsed = time.perf_counter() - start
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        before = resource.getrusage(resource.RUSAGE_SELF)
        idle_from = time.perf_counter()
        await asyncio.sleep(10)
        after = resource.getrusage(resource.RUSAGE_SELF)
        idle_cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / (time.perf_counter() - idle_from)
        await app.action_quit()
    stamps = [tuple(float(t) for t in (tmp / f"stamp-{n}").read_text().split()) for n in range(1, sessions + 1)]
    first = min(s[0] for s in stamps)
    slowest = max(last - begin for begin, last in stamps)
    rows = store.sessions()
    print(f"{sessions} sessions × ({chunks:,} chunks + {tools:,} tools + {rich} rich outputs): all idle and on screen "
          f"after {elapsed:.1f} s; {len(rows)} sessions stored, {sum(r['items'] for r in rows):,} items")
    print(f"slowest agent sent its frames in {slowest:.2f} s; all drained {drained_at - first:.2f} s after the first "
          f"frame: {(drained_at - first) / max(slowest, 1e-9):.1f}x (target <= 1.5x)")
    if latencies:
        print(f"key latency while streaming ({len(latencies)} presses): median {statistics.median(latencies) * 1000:.0f} ms, "
              f"worst {max(latencies) * 1000:.0f} ms (target worst <= 50 ms)" + (f"; {lost} never drawn" if lost else ""))
    if switches:
        print(f"switching sessions ({len(switches)} switches): median {statistics.median(switches) * 1000:.0f} ms, "
              f"worst {max(switches) * 1000:.0f} ms (target median <= 100 ms)")
    print(f"peak RSS {rss:.0f} MB; idle CPU over 10 s: {idle_cpu * 100:.2f}% (target < 1%)")


if __name__ == "__main__":
    from benchargs import arguments

    ARGS = arguments(__doc__, ("sessions", int, 8, "sessions at once"), ("chunks", int, 5_000, "chunks each"),
                     ("tools", int, 200, "tool calls each"), ("rich", int, 50, "rich-output charts each"))
    asyncio.run(main(ARGS.sessions, ARGS.chunks, ARGS.tools, ARGS.rich))
