"""Open stored sessions of 100, 1,000, 10,000 and 50,000 items (10% rich output) in the app.

Each size runs in a fresh process (so peak RSS is its own): build the session in a
temporary SQLite store, open it headless at 120x40 through the real StoredSource and
report the time to first paint (the first screen with the session's newest items drawn)
and the peak RSS, then the time of one search through every item. Prints the ratios 10,000 : 100 (first paint) and 50,000 : 1,000 (peak RSS). Run: python benchmarks/open_session.py [sizes...]

Each figure is the median of RUNS runs, the sizes in turns (the machine's drift is shared), all from bytecode (the
environment's PYTHONDONTWRITEBYTECODE is dropped, as benchmarks/startup.py does) after one uncounted run: a single
run of each size put the 10,000 : 100 ratio anywhere between 1.1 and 1.4 on one machine in one hour.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = 3
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode, as installed

CHILD = r"""
import asyncio, json, resource, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
count = int(sys.argv[2])
from kandev_tui.transcript import Item, Store
from tests.support.app_helpers import bar_chart, message_item, rich_item, tool_item, stored_app

def items(n):
    out = []
    for i in range(n):
        turn = i // 50 + 1
        if i % 10 == 9:
            out.append(rich_item(f"r{i}", bar_chart(f"Chart {i}", labels=("a", "b", "c", "d"),
                                                    series=(("S", (i % 7, 3, 5, 2)), ("T", (1, 2, 3, 4)))), turn=turn))
        elif i % 10 in (3, 4, 5):
            out.append(tool_item(f"t{i}", name="read", output="x = 1\n" * 40, turn=turn))
        elif i % 10 == 0:
            out.append(Item(f"user:{i}", "user_message", turn, {"text": f"Prompt {i}"}))
        else:
            out.append(message_item(i, f"Paragraph {i}: " + "some streamed agent text " * 8, turn=turn))
    return out

async def main():
    tmp = Path(sys.argv[3])
    if sys.argv[4] == "build":  # its own process: building 50,000 items must not count in the opening's peak
        stored_app(tmp, items(count))
        return
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.sources import StoredSource
    from tests.support.app_helpers import settings_at

    start = time.perf_counter()
    db = Store(tmp / "sessions.db")
    session = db.sessions()[0]
    app = KandevApp(StoredSource(db, session),
                    settings_store=settings_at(tmp, chart_animation=False))
    app.animation_level = "none"
    first_paint = None
    async with app.run_test(size=(120, 40)) as pilot:
        while True:
            await pilot.pause(0.01)
            if app.source.state == "stored" and app.session.settled:
                await pilot.pause()
                first_paint = time.perf_counter() - start
                widgets = len(list(app.view.walk_children()))
                break
        begin = time.perf_counter()
        from kandev_tui.session import search
        hits = search.find(search.snapshot(app.view.model), "no item says this")  # every item, built or not
        search_s = time.perf_counter() - begin
        assert hits == []
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"items": count, "first_paint_s": first_paint, "peak_rss_mib": rss / 2**20,
                      "widgets": widgets, "search_s": search_s}))

asyncio.run(main())
"""


def run(count: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        for step in ("build", "open"):  # the session is built by one process and opened by a fresh one
            out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(count), tmp, step], capture_output=True,
                                 text=True, timeout=3600, env=ENV)
            if out.returncode:
                raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(sizes: list[int]) -> None:
    run(min(sizes))  # writes the bytecode: not counted
    runs: dict[int, list[dict]] = {count: [] for count in sizes}
    for _ in range(RUNS):
        for count in sizes:
            runs[count].append(run(count))
    results = {count: {key: statistics.median(r[key] for r in rs) for key in rs[0] if key != "items"}
               for count, rs in runs.items()}
    print(f"median of {RUNS} runs each, in turns")
    print(f"{'items':>8}  {'first paint':>12}  {'peak RSS':>10}  {'widgets':>8}  {'search':>9}")
    for count in sizes:
        r = results[count]
        print(f"{count:>8,}  {r['first_paint_s']:>10.2f} s  {r['peak_rss_mib']:>6.0f} MiB  {r['widgets']:>8,.0f}  {r['search_s'] * 1000:>6.0f} ms", flush=True)
    if 100 in results and 10_000 in results:
        ratio = results[10_000]["first_paint_s"] / results[100]["first_paint_s"]
        print(f"first paint 10,000 : 100 = {ratio:.1f}x (target of the performance issue: <= 1.3x)")
    if 1_000 in results and 50_000 in results:
        ratio = results[50_000]["peak_rss_mib"] / results[1_000]["peak_rss_mib"]
        print(f"peak RSS 50,000 : 1,000 = {ratio:.1f}x (target of the performance issue: <= 2x)")


if __name__ == "__main__":
    from benchargs import arguments

    main(arguments(__doc__, ("sizes", int, [100, 1_000, 10_000, 50_000], "items per session"), many=True).sizes)
