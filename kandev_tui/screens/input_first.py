"""Screens that draw what the user just did at once, not at the next tick of a 60 Hz timer.

Textual draws a screen when its update timer ticks, every 1/60 s on a fixed grid; a screen shown
for the first time waits a whole period before its first frame. Between a key and the frame that
shows its effect that is up to 17 ms more, on top of whatever the transcript was doing when the key
came. A screen with :class:`DrawsInputAtOnce` draws on its first idle moment after an input has
been dispatched (:data:`kandev_tui.pacing.USER`), when the input's work is done and something is
waiting to be drawn; other frames still come from the timer.
"""

from __future__ import annotations

import time

from textual import events
from textual.app import ScreenStackError

from kandev_tui.pacing import USER

INPUT_DRAWN_WITHIN = 0.2  # seconds after an input during which its screen draws at once when idle


def covered(screen) -> bool:
    """Whether another screen hides ``screen`` entirely (an opaque one on top): Textual still lays out and draws
    a screen beneath the top one, in case it shows through, but nothing of an opaque screen's does."""
    try:
        top = screen.app.screen
    except ScreenStackError:  # the app is closing
        return False
    return top is not screen and top.styles.background.a >= 1


class DrawsInputAtOnce:
    """A mixin for a :class:`textual.screen.Screen` (put it first among the bases)."""

    _input_drawn_at = float("-inf")  # the input (USER.served_at) last drawn at once

    async def _on_idle(self, event: events.Idle) -> None:
        served = USER.served_at
        if served <= self._input_drawn_at or time.monotonic() - served > INPUT_DRAWN_WITHIN:
            return
        if not self.is_current or self.app._batch_count or covered(self):  # type: ignore[attr-defined]
            return
        if self._layout_required or self._scroll_required or self._repaint_required or self._dirty_widgets:  # type: ignore[attr-defined]
            self._input_drawn_at = served
            self._on_timer_update()  # type: ignore[attr-defined]  # what the timer's tick does, now
