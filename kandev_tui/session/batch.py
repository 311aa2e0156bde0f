"""Item updates on their way to the screen: merged by key, handed over in batches, by one policy.

A fast agent sends hundreds of updates a second, most of them to the same few items (a growing message, a running
tool's output). They wait here, each key keeping only its newest version, and go to the screen as one batch:

- at most every :data:`FLUSH_SECONDS`, or twice as long as the last batch took to apply, so that at most about a
  third of the time goes to putting items on screen and the rest stays free for keys and repaints;
- never while the user's input is being served (``holding``: the input's effect is drawn first);
- not while another screen covers the transcript (help, settings, a file): it catches up when shown again;
- one batch on its way at a time: while the last one's widgets are still being mounted and parsed (``settling``)
  the next waits and grows, for :data:`SETTLE_AT_MOST` at most.

The clock is injected (``time.monotonic`` by default), so the policy is tested without a terminal or a sleep.
"""

from __future__ import annotations

import time
from typing import Callable

from kandev_tui.transcript.items import Item

FLUSH_SECONDS = 1 / 30  # item updates are drawn in batches, at most this often
SETTLE_AT_MOST = 1.0  # a batch waits at most this long for the last one to be on screen
COVERED_POLL = 0.25  # while another screen covers the transcript, updates wait and look again this often
APPLY_AT_MOST = 1.0  # an apply time above this counts as this (a pause, not the cost of a batch)


class Batcher:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._pending: dict[str, Item] = {}
        self.apply_seconds = 0.0  # how long the last batch took to apply
        self.received_at = float("-inf")  # when items last arrived
        self.taken_at = float("-inf")  # when the last batch was handed over

    def add(self, items: list[Item]) -> None:
        self.received_at = self.clock()
        for item in items:
            self._pending[item.key] = item

    @property
    def keys(self) -> list[str]:
        """The keys waiting, in the order they first arrived."""
        return list(self._pending)

    def __bool__(self) -> bool:
        return bool(self._pending)

    def first_wait(self) -> float:
        """How long newly arrived items wait before the first look."""
        return max(FLUSH_SECONDS, 2 * self.apply_seconds)

    def wait(self, *, holding: float = 0.0, covered: bool = False, settling: bool = False) -> float:
        """Seconds to wait before looking again; 0 when the batch goes now (nothing waiting: 0 too)."""
        if not self._pending:
            return 0.0
        wait = holding
        if covered:
            wait = max(wait, COVERED_POLL)
        elif not wait and settling and self.clock() - self.taken_at < SETTLE_AT_MOST:
            wait = FLUSH_SECONDS
        return wait

    def take(self) -> list[Item]:
        """The batch: every waiting item, newest version, in the order its key first arrived."""
        self.taken_at = self.clock()
        batch = list(self._pending.values())
        self._pending.clear()
        return batch

    def applied(self, seconds: float) -> None:
        self.apply_seconds = min(APPLY_AT_MOST, seconds)

    def clear(self) -> None:
        self._pending.clear()
