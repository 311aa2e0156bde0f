"""Messages drawn ahead of the frame that measures them, a few milliseconds per event-loop turn."""

from __future__ import annotations

import asyncio
import time
from typing import Iterable, TYPE_CHECKING

from textual.widget import Widget

from kandev_tui.base import pacing, stats

from .lazy import made_entries

if TYPE_CHECKING:
    from ._parts import ViewParts
else:
    ViewParts = object  # a plain mixin at run time: see _parts


class Predraw(ViewParts):
    """Drawing ahead (a part of :class:`TranscriptView`)."""

    def _predraw(self, widgets: Iterable[Widget]) -> None:
        """Draw new and grown messages ahead of the frame that measures them, a few milliseconds per event-loop turn:
        a frame of a flood would otherwise draw a screen of Markdown in one go, and a key pressed meanwhile would
        wait for all of it. Each waits in line (once); one that a frame drew first costs nothing."""
        E = made_entries()
        if E is None:  # no entry was ever made
            return
        fresh = [w for w in widgets if isinstance(w, E.AgentMessage) and w not in self._predraws]
        if not fresh:
            return
        idle = not self._predraws
        self._predraws.update(dict.fromkeys(fresh))
        if idle:
            self._predraws_since = time.monotonic()
            asyncio.get_running_loop().call_soon(self._predraw_next)

    @property
    def predrawing(self) -> bool:
        """Messages are being drawn ahead of their frame (the frame waits for them, FRAME_WAITS_AT_MOST at most)."""
        return bool(self._predraws) and time.monotonic() - self._predraws_since < pacing.FRAME_WAITS_AT_MOST

    def _predraw_next(self) -> None:
        stats.bump("predraw_turns")
        started = time.perf_counter()
        while self._predraws:  # at least one, then as many as fit in the slice
            widget = next(iter(self._predraws))
            del self._predraws[widget]
            widget.predraw()
            if time.perf_counter() - started >= pacing.PREDRAW_SLICE:
                break
        if self._predraws:  # the rest in a turn of its own: input goes between
            asyncio.get_running_loop().call_soon(self._predraw_next)
        elif self.is_attached:
            self.screen.check_idle()  # a frame held for these is drawn now (DrawsInputAtOnce), not at the next tick
