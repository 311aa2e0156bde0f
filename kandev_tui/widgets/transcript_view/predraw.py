"""Messages drawn ahead of the frame that measures them, a few milliseconds per event-loop turn."""

from __future__ import annotations

import asyncio
import time
from typing import Callable, Iterable

from textual.widget import Widget

from kandev_tui.base import pacing, stats

from kandev_tui.widgets.transcript_view.lazy import made_entries


class Predrawer:
    """Draws new and grown messages ahead of their frame. ``drawn`` is called once the line is empty (a frame held
    for them is drawn then, not at the next tick)."""

    def __init__(self, drawn: Callable[[], None]) -> None:
        self._drawn = drawn
        self._waiting: dict[Widget, None] = {}  # messages to draw, in order
        self._since = 0.0

    def add(self, widgets: Iterable[Widget]) -> None:
        """Draw new and grown messages ahead of the frame that measures them, a few milliseconds per event-loop turn:
        a frame of a flood would otherwise draw a screen of Markdown in one go, and a key pressed meanwhile would
        wait for all of it. Each waits in line (once); one that a frame drew first costs nothing."""
        E = made_entries()
        if E is None:  # no entry was ever made
            return
        fresh = [w for w in widgets if isinstance(w, E.AgentMessage) and w not in self._waiting]
        if not fresh:
            return
        idle = not self._waiting
        self._waiting.update(dict.fromkeys(fresh))
        if idle:
            self._since = time.monotonic()
            asyncio.get_running_loop().call_soon(self._next)

    @property
    def drawing(self) -> bool:
        """Messages are being drawn ahead of their frame (the frame waits for them, FRAME_WAITS_AT_MOST at most)."""
        return bool(self._waiting) and time.monotonic() - self._since < pacing.FRAME_WAITS_AT_MOST

    def _next(self) -> None:
        stats.bump("predraw_turns")
        started = time.perf_counter()
        while self._waiting:  # at least one, then as many as fit in the slice
            widget = next(iter(self._waiting))
            del self._waiting[widget]
            widget.predraw()  # type: ignore[attr-defined]  # an AgentMessage (add takes no other)
            if time.perf_counter() - started >= pacing.PREDRAW_SLICE:
                break
        if self._waiting:  # the rest in a turn of its own: input goes between
            asyncio.get_running_loop().call_soon(self._next)
        else:
            self._drawn()
