"""Key-to-screen latency of the screens over the transcript: the help (F1, a full screen) and the settings (F2, a
modal one), each opened, moved in (down, tab) and closed (escape), ROUNDS times, each key delivered as the terminal's
driver delivers one; the latency is the time from the key to the first frame the app writes that shows its effect (the
screen opened, any frame of it after the move, the transcript again after escape).

Case ``quiet``: a stored session of 200 items, nothing else happening. Case ``flood``: while a real agent process
(tests/support/agents/fault_agent.py, mode ``burst``) streams 50,000 chunks and 2,000 tool calls (as benchmarks/stream.py) (the move is left out: the
flood draws the screen beneath a modal one anyway). Prints median and worst per key and screen (target: worst
≤ 50 ms; the transcript screen and the help draw an input's effect at once, the others at their update timer's
next tick, up to 1/60 s later: kandev_tui/ui/textual_hooks.py, DrawsInputAtOnce).

    .venv/bin/python benchmarks/screens.py [CASE] [ROUNDS]    (CASE: quiet, flood or both)
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SCREENS = (("help", "f1", "down", "HelpScreen"), ("settings", "f2", "tab", "SettingsScreen"))


class Frames:
    """The screens drawn, by class name, each with the time of its newest frame."""

    def __init__(self, app) -> None:
        from kandev_tui.ui.textual_hooks import watch_frames

        self.app = app
        self.drawn: dict[str, float] = {}
        watch_frames(app, self._frame)

    def _frame(self, screen) -> None:
        self.drawn[type(screen).__name__] = time.perf_counter()

    async def key(self, key: str, screen: str, limit: float = 30) -> float | None:
        """Deliver ``key``; seconds until a frame of ``screen`` (a class name) is written after it."""
        from textual import events

        from kandev_tui.ui.textual_hooks import send_as_terminal

        pressed = time.perf_counter()
        send_as_terminal(self.app, events.Key(key, None))
        while self.drawn.get(screen, 0) < pressed:
            if time.perf_counter() - pressed > limit:
                return None
            await asyncio.sleep(0.0005)
        return self.drawn[screen] - pressed


async def rounds(app, frames: Frames, count: int, move: bool, still_busy=lambda: True) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {}
    for _ in range(count):
        for name, key, move_key, screen in SCREENS:
            if not still_busy():
                return figures
            await asyncio.sleep(0.05)
            opened = await frames.key(key, screen)
            while type(app.screen).__name__ != screen:
                await asyncio.sleep(0.001)
            await asyncio.sleep(0.05)
            moved = await frames.key(move_key, screen) if move else None
            await asyncio.sleep(0.05)
            closed = await frames.key("escape", "TranscriptScreen")
            while type(app.screen).__name__ != "TranscriptScreen":
                await asyncio.sleep(0.001)
            for what, value in ((f"{name}: open ({key})", opened), (f"{name}: move ({move_key})", moved),
                                (f"{name}: close (escape)", closed)):
                if value is not None:
                    figures.setdefault(what, []).append(value)
    return figures


async def quiet(count: int) -> dict[str, list[float]]:
    from tests.support.app_helpers import message_item, settle, stored_app, tool_item

    tmp = Path(tempfile.mkdtemp())
    items = [tool_item(f"t{i}", name="read", output="x = 1\n" * 20) if i % 4 == 3 else message_item(i, f"Message {i}. " * 20)
             for i in range(200)]
    app = stored_app(tmp, items)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        frames = Frames(app)
        return await rounds(app, frames, count, move=True)


async def flood(count: int) -> dict[str, list[float]]:
    from kandev_tui.acp import AgentOptions
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.sources import LiveSource
    from kandev_tui.transcript import Store
    from tests.support.app_helpers import settings_at

    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "s.db")
    agent = AgentOptions(command=[sys.executable, str(ROOT / "tests" / "support" / "agents" / "fault_agent.py"), "burst", "50000",
                                  "2000", "0", str(tmp / "stamp")], workspace=tmp, inject_guidance=False)
    app = KandevApp(LiveSource(agent, store),
                    settings_store=settings_at(tmp, chart_animation=False))
    app.animation_level = "none"
    async with app.run_test(size=(120, 40)) as pilot:
        while app.source.state != "idle":
            await pilot.pause(0.01)
        frames = Frames(app)
        app.transcript_screen.prompt.focus()
        await pilot.press(*"go")
        await frames.key("enter", "TranscriptScreen")
        while app.source.state == "idle" and not any(e.key.startswith("turn_end") for e in app.view.entries):
            await asyncio.sleep(0.001)  # the turn has started
        figures = await rounds(app, frames, count, move=False,
                               still_busy=lambda: app.source.state != "idle" or not app.session.settled)
        await app.action_quit()
    return figures


def report(case: str, figures: dict[str, list[float]]) -> None:
    every = [value for values in figures.values() for value in values]
    if not every:
        print(f"{case}: no key was pressed")
        return
    print(f"{case}: {len(every)} keys, median {statistics.median(every) * 1000:.1f} ms, worst {max(every) * 1000:.1f} ms "
          "(target worst <= 50 ms)")
    for what, values in figures.items():
        print(f"  {what:32} median {statistics.median(values) * 1000:5.1f} ms, worst {max(values) * 1000:5.1f} ms "
              f"({len(values)})")


async def main(case: str, count: int) -> None:
    if case in ("quiet", "both"):
        report("quiet", await quiet(count))
    if case in ("flood", "both"):
        report("while streaming", await flood(count))


if __name__ == "__main__":
    from benchargs import arguments

    args = arguments(__doc__, ("case", str, "both", "quiet, flood or both"), ("rounds", int, 10, "rounds of keys"))
    asyncio.run(main(args.case, args.rounds))
