"""Item updates on their way to the screen: merged by key, handed over in batches, by one policy.

A fast agent sends hundreds of updates a second, most of them to the same few items (a growing message, a running
tool's output). They wait here, each key keeping only its newest version, and go to the screen as one batch:

- at once when nothing went on screen lately, else at most every :data:`FLUSH_SECONDS`; and while the source is
  *streaming* (taking in output as fast as it can), no sooner than the UI's thread has spent at most
  :data:`UI_SHARE` of the time since the last batch working (putting that batch on screen: mounting, laying out,
  drawing; or anything else), so that the rest of its time stays free for keys and repaints, and the source's own
  thread (which reads, normalises and stores) keeps up. The last batch of a stream goes at once, and so does what
  waits when the turn ends or stops for the user (``final``: nothing more is coming to merge it with);
- never while the user's input is being served (``holding``: the input's effect is drawn first);
- not while another screen covers the transcript (help, settings, a file, another session): it waits, looked at
  by nobody (:data:`UNTIL_SHOWN`: no timer runs for it), and catches up when shown again;
- one batch on its way at a time: while the last one's widgets are still being mounted and parsed (``settling``)
  the next waits and grows, for :data:`SETTLE_AT_MOST` at most.

Both clocks are injected (``time.monotonic`` and the UI thread's ``time.thread_time`` by default), so the policy is
tested without a terminal or a sleep. Keys may be added from any thread (a source reads its agent in a thread of
its own); the batch is looked at and taken on the UI's. The batch keeps clocks and keys, never the items: they are
placed where they arrive, into the one buffer on their way to the screen (the transcript model's change set,
``session/changes.py``), and the batch says when the UI takes what was placed. A *reset* (every item again, in order:
older history arrived) waits in the batch too.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Iterable

# FLUSH_SECONDS: item updates are drawn in batches, at most this often; UI_SHARE: while updates stream, the UI's thread
# works at most this share of the time (the rest is free); BUSY_WAIT_AT_MOST: however busy the UI, a batch waits at
# most this long after the last one; SETTLE_AT_MOST: a batch waits at most this long for the last one to be on screen.
# Why: pacing.py
from kandev_tui.base.pacing import BUSY_WAIT_AT_MOST, FLUSH_SECONDS, SETTLE_AT_MOST, UI_SHARE


UNTIL_SHOWN = float("inf")  # a covered transcript's batch waits until the UI shows it again (SessionModel.look_now)


class Batcher:
    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 ui_time: Callable[[], float] = time.thread_time) -> None:
        self.clock = clock
        self.ui_time = ui_time  # the processor time of the thread that takes batches (called on it)
        self._pending: dict[str, None] = {}  # the keys of the items placed since the last batch, in order
        self._reset = False
        self._lock = threading.Lock()
        self.received_at = float("-inf")  # when items last arrived
        self.taken_at = float("-inf")  # when the last batch was handed over
        self._taken_ui = 0.0  # the UI thread's processor time then

    def add(self, keys: Iterable[str]) -> None:
        """Items of these keys were placed (a key already waiting keeps its place)."""
        with self._lock:
            self.received_at = self.clock()
            self._pending.update(dict.fromkeys(keys))

    def reset(self) -> None:
        """Every item again (older history arrived; the transcript model placed them): what waited before is part of
        it (and dropped); what comes after waits."""
        with self._lock:
            self.received_at = self.clock()
            self._reset = True
            self._pending.clear()

    @property
    def keys(self) -> list[str]:
        """The keys waiting, in the order they first arrived."""
        with self._lock:
            return list(self._pending)

    def __bool__(self) -> bool:
        return bool(self._pending) or self._reset

    def first_wait(self, *, streaming: bool = False) -> float:
        """How long newly arrived items wait before the first look: 0 when nothing went on screen lately, else until
        the batch's turn comes (:meth:`turn_in`)."""
        return self.turn_in(streaming=streaming)

    def turn_in(self, *, streaming: bool = False) -> float:
        """Seconds until the next batch's turn: :data:`FLUSH_SECONDS` after the last one; while ``streaming``, also
        once the UI's thread has been working at most :data:`UI_SHARE` of the time since (but
        :data:`BUSY_WAIT_AT_MOST` after the last batch at the latest)."""
        since = self.clock() - self.taken_at
        wait = FLUSH_SECONDS - since
        if streaming:
            busy = self.ui_time() - self._taken_ui
            wait = max(wait, min(BUSY_WAIT_AT_MOST, busy / UI_SHARE) - since)
        return max(0.0, wait)

    def wait(self, *, holding: float = 0.0, covered: bool = False, settling: bool = False,
             streaming: bool = False, final: bool = False) -> float:
        """Seconds to wait before looking again; 0 when the batch goes now (nothing waiting: 0 too); :data:`UNTIL_SHOWN`
        while covered. ``final``: the source's turn has ended or stopped for the user, so the batch does not wait
        its turn unless the source still streams (it still waits for the user's input, a covering screen and the
        last batch being put on screen)."""
        if not self:
            return 0.0
        wait = max(holding, 0.0 if final and not streaming else self.turn_in(streaming=streaming))
        if covered:
            wait = UNTIL_SHOWN
        elif not wait and settling and self.clock() - self.taken_at < SETTLE_AT_MOST:
            wait = FLUSH_SECONDS
        return wait

    def take(self) -> list[str]:
        """The batch's turn has come: the keys that waited, in the order each first arrived (what was placed for
        them is the transcript model's to hand over), and the reset, if one waited, are taken."""
        with self._lock:
            self.taken_at = self.clock()
            self._taken_ui = self.ui_time()
            keys = list(self._pending)
            self._pending.clear()
            self._reset = False
            return keys
