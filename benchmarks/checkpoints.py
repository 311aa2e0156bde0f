"""Checkpoints of a big repository: a generated git repository of FILES files and MB megabytes in all (default
10,000 files, 200 MB), committed. Prints:

- a turn's checkpoint (the work tree recorded with a temporary index) after a turn that changed 10 files: the median
  of 10 (target ≤ 0.5 s);
- a turn that changed 1,000 files: its changes computed (the card), and its review opened from the card, the first
  file's diff drawn: key to frame (target ≤ 1 s);
- the worst key latency (F1 then escape, every 0.1 s, as benchmarks/stream.py measures it) in the app while
  checkpoints of that repository are taken beside it, as a session's turns take them (target ≤ 50 ms).

    .venv/bin/python benchmarks/checkpoints.py [FILES] [MB]
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
       "GIT_COMMITTER_EMAIL": "b@x"}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=ENV)


def generate(root: Path, files: int, megabytes: int) -> None:
    size = megabytes * 1024 * 1024 // files
    line = b"x" * 79 + b"\n"
    body = line * max(1, size // len(line))
    for n in range(files):
        folder = root / f"pkg{n % 100:02}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{n:05}.py").write_bytes(f"# module {n}\n".encode() + body)
    git(root, "init", "-q", "-b", "main", ".")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "generated")


def touch(root: Path, count: int, turn: int) -> None:
    """A turn's edits: ``count`` files get a line."""
    for n in range(count):
        path = root / f"pkg{n % 100:02}" / f"mod{n:05}.py"
        with open(path, "ab") as out:
            out.write(f"# turn {turn}\n".encode())


async def review_and_keys(root: Path, payload: dict, tmp: Path) -> tuple[float | None, list[float]]:
    from keytimer import KeyTimer

    from kandev_tui.workspace import checkpoints
    from kandev_tui.screens.help import HelpScreen
    from kandev_tui.screens.review import ReviewScreen
    from kandev_tui.transcript import Item
    from kandev_tui.widgets.entries.changes_card import ChangesCard
    from tests.support.app_helpers import stored_app

    items = [Item("user:1", "user_message", 1, {"text": "touch a thousand files"}, final=True),
             Item("changes:2", "changes", 1, payload, final=True)]
    app = stored_app(tmp, items)
    timer = KeyTimer(app, HelpScreen)
    latencies: list[float] = []
    opened = None
    async with app.run_test(size=(120, 40)):
        while not app.query(ChangesCard):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.5)
        stop = threading.Event()

        def busy() -> None:  # a session's turns, one after another: checkpoints of the big repository
            turn = 0
            while not stop.is_set():
                turn += 1
                touch(root, 10, 1000 + turn)
                checkpoints.take(root, f"refs/kandev-tui/bench/{turn}-keys")

        worker = threading.Thread(target=busy, daemon=True)
        worker.start()
        started = time.perf_counter()
        while time.perf_counter() - started < 10:
            await asyncio.sleep(0.1)
            shown, closed = await timer.help_and_back()
            latencies += [t for t in (shown, closed) if t is not None]
        stop.set()
        worker.join()
        app.query_one(ChangesCard).focus()
        await asyncio.sleep(0.2)
        count = timer.count
        pressed = time.perf_counter()
        timer.send_key("enter")
        while time.perf_counter() - pressed < 30:
            screen = app.screen
            if isinstance(screen, ReviewScreen) and screen._hunks and timer.count > count:  # noqa: SLF001
                drawn = timer.count
                while timer.count == drawn and time.perf_counter() - pressed < 30:
                    await asyncio.sleep(0.0005)  # the frame that shows the diff
                opened = time.perf_counter() - pressed
                break
            await asyncio.sleep(0.0005)
        await app.action_quit()
    return opened, latencies


def main(files: int, megabytes: int) -> None:
    from kandev_tui.workspace import checkpoints

    tmp = Path(tempfile.mkdtemp())
    root = tmp / "repo"
    root.mkdir()
    began = time.perf_counter()
    generate(root, files, megabytes)
    print(f"generated {files:,} files, {megabytes} MB, committed, in {time.perf_counter() - began:.1f} s")
    times = []
    for turn in range(10):
        touch(root, 10, turn)
        began = time.perf_counter()
        checkpoints.take(root, f"refs/kandev-tui/bench/{turn}-end")
        times.append(time.perf_counter() - began)
    print(f"checkpoint after a turn that changed 10 files: median {statistics.median(times) * 1000:.0f} ms, worst "
          f"{max(times) * 1000:.0f} ms (target median <= 500 ms)")
    start = checkpoints.take(root, "refs/kandev-tui/bench/big-start")
    touch(root, 1000, 99)
    began = time.perf_counter()
    end = checkpoints.take(root, "refs/kandev-tui/bench/big-end")
    found = checkpoints.changes(root, start.commit, end.commit)
    computed = time.perf_counter() - began
    payload = {"state": "ready", "files": [f.to_json() for f in found.files], "count": found.count,
               "added": found.added, "removed": found.removed, "skipped": 0, "overlapped": False,
               "before": start.commit, "after": end.commit, "session": "bench", "repository": str(root)}
    print(f"a turn that changed {found.count:,} files: its end checkpoint and changes computed in "
          f"{computed * 1000:.0f} ms")
    opened, latencies = asyncio.run(review_and_keys(root, payload, tmp))
    if opened is None:
        print("the review never showed the first file's diff")
    else:
        print(f"its review opened (enter on the card to the first file's diff drawn): {opened * 1000:.0f} ms "
              f"(target <= 1000 ms)")
    if latencies:
        print(f"key latency while checkpoints are taken beside it ({len(latencies)} presses): median "
              f"{statistics.median(latencies) * 1000:.0f} ms, worst {max(latencies) * 1000:.0f} ms (target worst "
              f"<= 50 ms)")
    subprocess.run(["rm", "-rf", str(tmp)], check=False)


if __name__ == "__main__":
    from benchargs import arguments

    ARGS = arguments(__doc__, ("files", int, 10_000, "files in the generated repository"),
                     ("megabytes", int, 200, "their size in all"))
    main(ARGS.files, ARGS.megabytes)
