"""When the cyclic garbage collector may stop the world.

CPython's full (generation 2) pass walks every tracked object. In a live session that is the
interpreter's modules, Textual, the SDKs and the whole transcript, and the pass stalls the event
loop for hundreds of milliseconds, several times a minute while an agent streams. Keys and
repaints wait for it. The app keeps that pass for quiet moments:

- what was loaded at start-up lives as long as the app, so it is frozen out of the collector's
  walks (``gc.freeze``, at the app's first frame: the agents' start, with the ACP SDK's import,
  comes after it and is no quiet moment);
- automatic full passes are off. Young garbage is still collected as usual by generations 0
  and 1, and :meth:`GcPolicy.tick` runs the full pass when the user, the agent and the screen
  have been quiet for a moment, or at the latest every ``FULL_AT_LEAST_EVERY`` seconds, so
  memory stays bounded in a session that never pauses. The screen is busy while it draws a
  long message's blocks a slice at a time, keys between (:meth:`GcPolicy.working`): a full
  pass then (70-100 ms after a 1 MB flood, every second) held a key back for its length.
"""

from __future__ import annotations

import gc
import time

from kandev_tui.base.pacing import GC_FULL_AT_LEAST_EVERY as FULL_AT_LEAST_EVERY  # a full pass at least this often
from kandev_tui.base.pacing import GC_QUIET_SECONDS as QUIET_SECONDS  # this long without input or output: a full pass

NO_AUTOMATIC_FULL = 1_000_000  # generation-2 threshold that the interpreter never reaches


class GcPolicy:
    def __init__(self) -> None:
        self.saved: tuple[int, int, int] | None = None
        self.last_full = time.monotonic()
        self.full_passes = 0
        self.worked_at = float("-inf")  # the screen's last slice of work done a bit at a time

    def working(self) -> None:
        """The screen did a slice of work it spreads between keys: no full pass until it has been quiet too."""
        self.worked_at = time.monotonic()

    def start(self) -> None:
        """Freeze what is loaded now and take over the full passes (from the app's first frame)."""
        if self.saved is not None:
            return
        self.saved = gc.get_threshold()
        gc.freeze()
        gc.set_threshold(self.saved[0], self.saved[1], NO_AUTOMATIC_FULL)
        # the start is work too: the agents start, the first frames come and the user's first keys with them. An
        # automatic full pass while eight agents started (70-100 ms, sessions.py 8) held an F1 back for 100-200 ms
        self.last_full = self.worked_at = time.monotonic()

    @property
    def due(self) -> bool:
        """A full pass waits for a quiet moment: as many generation-1 passes ran as would have triggered one."""
        return self.saved is not None and gc.get_count()[2] >= self.saved[2]

    def tick(self, last_activity: float) -> bool:
        """Run a full pass if one is due now; ``last_activity`` is the monotonic time of the latest input or
        output. Says whether it ran."""
        if self.saved is None:
            return False
        now = time.monotonic()
        if (self.due and now - max(last_activity, self.worked_at) >= QUIET_SECONDS) or now - self.last_full >= FULL_AT_LEAST_EVERY:
            gc.collect()
            self.last_full = now
            self.full_passes += 1
            return True
        return False

    def stop(self) -> None:
        """Give the collector back its defaults (the app is closing; tests start many apps in one process)."""
        if self.saved is not None:
            gc.set_threshold(*self.saved)
            gc.unfreeze()
            self.saved = None
