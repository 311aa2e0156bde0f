"""The sessions sidebar's cost: the UI thread's CPU for one update of the rows (shown, then drawn), with SESSIONS rows,
when one row changed (a session's state, its "+N new") and when every row did; headless, 120x40, UPDATES updates each.

    .venv/bin/python benchmarks/sidebar.py [UPDATES]

No target of its own: an update costs the UI thread this much while agents stream (sessions.py), and once per state
change of any session. While the sidebar was an OptionList, which draws every row again when one changes, one row's
change cost 6.9-7.1 ms with 8 sessions and 19.5-20.6 ms with 30.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def rows(count: int, version: int, every: bool) -> list:
    from kandev_tui.session.row import SessionRow
    from kandev_tui.session.state import SessionState

    return [SessionRow(number=n, agent="kandev-tui demo agent", title=f"build the report {n}", workspace="/tmp/ws",
                       branch=f"kandev/demo-{n}", state=SessionState.RUNNING, activity="working", detail="",
                       waiting_since=None, unseen=version + n if every else (version if n == 3 else 0), cost="",
                       current=n == 1)
            for n in range(1, count + 1)]


async def per_update(count: int, every: bool, updates: int) -> float:
    """Milliseconds of the UI thread's CPU per update, the app's idle turns taken out."""
    from textual.app import App, ComposeResult

    from kandev_tui.widgets.chrome.sessions_sidebar import SessionsSidebar

    class Beside(App[None]):
        def compose(self) -> ComposeResult:
            self.sidebar = SessionsSidebar()
            yield self.sidebar

    app = Beside()
    async with app.run_test(size=(120, 40)) as pilot:
        for version in range(3):  # drawn once: the first draw is not an update
            app.sidebar.show_rows(rows(count, version, every))
            await pilot.pause()
        started = time.thread_time()
        for version in range(updates):
            app.sidebar.show_rows(rows(count, 10 + version, every))
            await pilot.pause()
        busy = time.thread_time() - started
        started = time.thread_time()
        for _ in range(updates):
            await pilot.pause()
        idle = time.thread_time() - started
    return (busy - idle) / updates * 1000


def main(updates: int) -> None:
    for count in (8, 30):
        one = asyncio.run(per_update(count, False, updates))
        every = asyncio.run(per_update(count, True, updates))
        print(f"{count} sessions: {one:.2f} ms an update when one row changed, {every:.2f} ms when every row did "
              f"({updates} updates each)", flush=True)


if __name__ == "__main__":
    from benchargs import arguments

    ARGS = arguments(__doc__, ("updates", int, 60, "updates measured"))
    if ARGS.updates < 1:
        sys.exit("sidebar.py: UPDATES must be at least 1")
    main(ARGS.updates)
