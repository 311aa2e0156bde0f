"""What is derived from an item version, worked out once: cached by the item's ``(key, version)``.

Items never change (a change is a new version with a new number, :class:`kandev_tui.transcript.items.Item`), so a
result derived from one version is good for as long as anyone holds that version: a card rebuilt when the
transcript's window comes back to it, or drawn again at another width, reuses it. The caches are bounded (the
newest few hundred versions); a version pushed out is simply worked out again. A cache may be used from several
threads (a version is worked out where it arrives, read where it is drawn).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Callable, Generic, Hashable, TypeVar

from kandev_tui import stats
from kandev_tui.transcript.items import Item

if TYPE_CHECKING:  # the presentation's pydantic models are imported when a call is first read, not with the session
    from kandev_tui.presentation import StoredPresentation

T = TypeVar("T")


class VersionCache(Generic[T]):
    """``derive(item)`` once per item version, the newest ``size`` kept."""

    def __init__(self, derive: Callable[[Item], T], size: int = 512) -> None:
        self._derive = derive
        self._size = size
        self._kept: OrderedDict[Hashable, T] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, item: Item) -> T:
        key = (item.key, item.version)
        with self._lock:
            try:
                self._kept.move_to_end(key)
                return self._kept[key]
            except KeyError:
                pass
        value = self._derive(item)  # unlocked: two threads may work one version out at once, and agree
        with self._lock:
            self._kept[key] = value
            if len(self._kept) > self._size:
                self._kept.popitem(last=False)
        return value

    def __contains__(self, item: Item) -> bool:
        with self._lock:
            return (item.key, item.version) in self._kept

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


def _read_presentation(item: Item) -> StoredPresentation:
    from kandev_tui.presentation import read_tool_call

    stats.bump("presentations_parsed")
    return read_tool_call(item.payload, item.status)


presentation_of: VersionCache[StoredPresentation] = VersionCache(_read_presentation)
"""A rich-output call's presentation (:func:`kandev_tui.presentation.read_tool_call`: re-validated, its snapshot
merged, the status gate applied), once per item version."""
