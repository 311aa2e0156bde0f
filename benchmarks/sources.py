"""The sessions of benchmarks/sessions.py without the app: SESSIONS real burst agents (tests/support/agents/fault_agent.py, mode
``burst``: CHUNKS chunks, TOOLS tool calls and RICH rich-output charts each) read by SESSIONS real LiveSources (the
ACP transport, the agent's client, the pipeline, one shared SQLite store), each on its own thread as in the app, with
no screen: what the sources' work alone costs, and how fast the agents send when nothing else runs.

Prints, per run: kandev-tui's CPU from the first prompt until every turn has ended, the time from the agents' first
frame until then, the slowest agent's own send time, and the ratio of the two (sessions.py's drain ratio, without a
screen to draw); then the medians over the runs.

    .venv/bin/python benchmarks/sources.py [SESSIONS] [CHUNKS] [TOOLS] [RICH] [RUNS]

No target of its own: it tells the sources' share of sessions.py's figures from the screen's. As there, the agents
send their first frame together, at a gate opened once every one has its prompt (eight interpreters start up to
0.3 s apart on two cores, and the ratio counts from the first agent's first frame).
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


async def one_run(sessions: int, chunks: int, tools: int, rich: int) -> tuple[float, float, float, float]:
    """kandev-tui's CPU, the drain after the first frame, the slowest agent's send time and how far apart the agents'
    first frames were, in seconds."""
    from kandev_tui.acp import AgentOptions
    from kandev_tui.acp.sdk import import_sdk
    from kandev_tui.sources import LiveSource
    from kandev_tui.transcript import Store

    import_sdk()  # as the app has before its agents start: not counted
    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "s.db")
    gate = tmp / "go"  # made once every agent has its prompt: they send their frames together
    ended: set[int] = set()
    began: set[int] = set()
    lock = threading.Lock()
    all_ended = threading.Event()

    class Told:
        """What session ``n``'s source tells (its SourceEvents, as the session model would hear it): its states."""

        def __init__(self, n: int) -> None:
            self.n = n

        def receive_items(self, items: list) -> None:
            pass

        def receive_reset(self, items: list) -> None:
            pass

        def receive_notice(self, text: str) -> None:
            pass

        def receive_status(self, status) -> None:  # on the source's thread
            n, state = self.n, status.state
            if state == "running":
                began.add(n)
            if state == "idle" and (tmp / f"stamp-{n}").exists():  # the turn's end (the stamp is written before it)
                with lock:
                    ended.add(n)
                    if len(ended) == sessions:
                        all_ended.set()

    def source(n: int) -> LiveSource:
        options = AgentOptions(command=[sys.executable, str(ROOT / "tests" / "support" / "agents" / "fault_agent.py"), "burst",
                                        str(chunks), str(tools), str(rich), str(tmp / f"stamp-{n}"), str(gate)],
                               workspace=tmp, inject_guidance=False)
        made = LiveSource(options, store)
        made.bind(Told(n))
        return made

    sources = [source(n) for n in range(1, sessions + 1)]  # their agents started all at once, as the app does
    before = resource.getrusage(resource.RUSAGE_SELF)
    try:
        await asyncio.gather(*(each.start_with("go") for each in sources))
        while len(began) < sessions:
            await asyncio.sleep(0.005)
        gate.touch()
        while not all_ended.is_set():
            await asyncio.sleep(0.005)
        done = time.time()
        after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        for each in sources:
            await each.close()
        store.close()
    stamps = [tuple(float(t) for t in (tmp / f"stamp-{n}").read_text().split()) for n in range(1, sessions + 1)]
    first = min(began for began, _last in stamps)
    slowest = max(last - began for began, last in stamps)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return cpu, done - first, slowest, max(began for began, _last in stamps) - first


def main(sessions: int, chunks: int, tools: int, rich: int, runs: int) -> None:
    figures = []
    for run in range(1, runs + 1):
        cpu, drained, slowest, apart = asyncio.run(one_run(sessions, chunks, tools, rich))
        figures.append((cpu, drained, slowest))
        print(f"run {run}: kandev-tui's CPU {cpu:.2f} s; every turn ended {drained:.2f} s after the first frame (the "
              f"agents' first frames {apart:.2f} s apart); the slowest agent sent its frames in {slowest:.2f} s: "
              f"{drained / max(slowest, 1e-9):.2f}x", flush=True)
    cpu, drained, slowest = (statistics.median(f[i] for f in figures) for i in range(3))
    print(f"{sessions} sources × ({chunks:,} chunks + {tools:,} tools + {rich} rich outputs), no screen, {runs} runs: "
          f"median CPU {cpu:.2f} s, ended {drained:.2f} s after the first frame, slowest send {slowest:.2f} s")


if __name__ == "__main__":
    from benchargs import arguments

    ARGS = arguments(__doc__, ("sessions", int, 8, "sources at once"), ("chunks", int, 5_000, "chunks each"),
                     ("tools", int, 200, "tool calls each"), ("rich", int, 50, "rich-output charts each"),
                     ("runs", int, 3, "runs"))
    if ARGS.runs < 1 or ARGS.sessions < 1:
        sys.exit("sources.py: SESSIONS and RUNS must be at least 1")
    main(ARGS.sessions, ARGS.chunks, ARGS.tools, ARGS.rich, ARGS.runs)
