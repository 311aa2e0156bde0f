"""What is derived from an item version, worked out once: cached by the item's ``(key, version)``.

Items never change (a change is a new version with a new number, :class:`kandev_tui.transcript.items.Item`), so a
result derived from one version is good for as long as anyone holds that version: a card rebuilt when the
transcript's window comes back to it, or drawn again at another width, reuses it. The caches are bounded (the
newest few hundred versions); a version pushed out is simply worked out again. A cache may be used from several
threads (a version is worked out where it arrives, read where it is drawn).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable, Generic, Hashable, TypeVar

from kandev_tui.base import stats
from kandev_tui.transcript.items import Item

if TYPE_CHECKING:  # the presentation's pydantic models are imported when a call is first read, not with the session
    from kandev_tui.presentation import StoredPresentation

T = TypeVar("T")


class VersionCache(Generic[T]):
    """``derive(item)`` once per item version, the ``size`` versions worked out last kept.

    A plain dict, read without a lock: a lookup or an insertion is one step under the interpreter's lock, and two
    threads working one version out at once agree. Only pushing the oldest out takes the lock. Up to a quarter
    more than ``size`` are kept between two of those. Placing a stored
    session of 50,000 items looks up every tool call once: with an ordered dict, a lock around each lookup and a
    ``KeyError`` for each miss, the lookups took 0.15 s of its first paint (benchmarks/open_session.py)."""

    def __init__(self, derive: Callable[[Item], T], size: int = 512) -> None:
        self._derive = derive
        self._size = size
        self._kept: dict[Hashable, T] = {}
        self._lock = threading.Lock()

    def __call__(self, item: Item) -> T:
        key = (item.key, item.version)
        kept = self._kept
        value = kept.get(key, _MISSING)
        if value is not _MISSING:
            return value  # type: ignore[return-value]
        value = kept[key] = self._derive(item)
        if len(kept) > self._size + self._size // 4:  # the oldest pushed out a quarter at a time
            with self._lock:
                if self._kept is kept:
                    # the newest, in a new dict (dicts keep their order of insertion); a version another thread
                    # put in the old one meanwhile is worked out again when asked
                    self._kept = dict(list(kept.items())[-self._size:])
        return value

    def __contains__(self, item: Item) -> bool:
        return (item.key, item.version) in self._kept

    def clear(self) -> None:
        self._kept.clear()


_MISSING = object()


def _read_presentation(item: Item) -> StoredPresentation:
    from kandev_tui.presentation import read_tool_call

    stats.bump("presentations_parsed")
    return read_tool_call(item.payload, item.status)


presentation_of: VersionCache[StoredPresentation] = VersionCache(_read_presentation)
"""A rich-output call's presentation (:func:`kandev_tui.presentation.read_tool_call`: re-validated, its snapshot
merged, the status gate applied), once per item version."""
