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
BATCH_RECHECK = 1 / 60  # seconds between looks at a screen that went idle with something to draw during a batch


def covered(screen) -> bool:
    """Whether another screen hides ``screen`` entirely (an opaque one on top): Textual still lays out and draws
    a screen beneath the top one, in case it shows through, but nothing of an opaque screen's does."""
    try:
        top = screen.app.screen
    except ScreenStackError:  # the app is closing
        return False
    return top is not screen and top.styles.background.a >= 1


class DrawsInputAtOnce:
    """A mixin for a :class:`textual.screen.Screen` (put it first among the bases).

    It also mends a lost update: Textual's screen starts its update timer when it goes idle with something to draw,
    except while a batch of updates is open (a footer rebuilding its keys, a recompose), and when the batch closes
    it prompts only the app, not the screen. A screen that went idle meanwhile and gets no further message (the
    help, just shown) was never drawn; here it looks again once the batch is over.
    """

    _input_drawn_at = float("-inf")  # the input (USER.served_at) last drawn at once
    _looking_again = False

    async def _on_idle(self, event: events.Idle) -> None:
        pending = self._layout_required or self._scroll_required or self._repaint_required or self._dirty_widgets  # type: ignore[attr-defined]
        if not pending or not self.is_current:  # type: ignore[attr-defined]
            return
        if self.app._batch_count:  # type: ignore[attr-defined]
            if not self._looking_again:
                self._looking_again = True
                self.set_timer(BATCH_RECHECK, self._look_again)  # type: ignore[attr-defined]
            return
        served = USER.served_at
        if served <= self._input_drawn_at or time.monotonic() - served > INPUT_DRAWN_WITHIN or covered(self):
            return
        self._input_drawn_at = served
        self._on_timer_update()  # type: ignore[attr-defined]  # what the timer's tick does, now

    def _look_again(self) -> None:
        self._looking_again = False
        self.check_idle()  # type: ignore[attr-defined]  # an idle event, once the batch is over (else again later)
