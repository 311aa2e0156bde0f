"""Which entries the transcript mounts as widgets: the window arithmetic, as pure functions.

The layout holds every entry of the session; only a *window* ``[lo, hi)`` of them is mounted (at most
:data:`WINDOW_MAX`), so a session of 50,000 items costs about what one of 100 does. These functions say where the
window goes; the transcript widget mounts and unmounts what the difference says (:func:`moves`). Sizes are counted
in *screens* of estimated height, so a screen of one-line notes and a screen of charts both fill the viewport.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from kandev_tui.transcript.items import Item

from .layout import Entry

WINDOW_MAX = 150  # entries mounted at most
MIN_FOLLOW = 12  # entries kept mounted at least while following
SCREENS_FOLLOW = 1.5  # following a long session, this many screens of entries stay mounted (by estimated height):
# what a flood scrolls past before it is ever seen is not built (scrolling up mounts more, as at the top of a window)
OPEN_ALL = 100  # a session of at most this many entries opens fully mounted
SCREENS_FIRST = 3  # a larger one mounts this many screens of entries (by estimated height), more on scroll
SCREENS_STEP = 2  # screens of entries mounted per scroll step (as many unmounted on the far side when full)
LOAD_STEP = 40  # entries on each side of a jump target (search)


@dataclass(frozen=True)
class Window:
    lo: int = 0
    hi: int = 0

    def __contains__(self, index: object) -> bool:
        return isinstance(index, int) and self.lo <= index < self.hi

    def __len__(self) -> int:
        return self.hi - self.lo


@dataclass(frozen=True)
class Viewport:
    """The transcript's size in cells, and how tall an entry is estimated to be."""

    width: int
    height: int

    def entry_height(self, entry: Entry, items: dict[str, Item]) -> int:
        """A rough height in lines, only to decide how many entries fill a few screens."""
        if entry.kind == "group":
            return 2
        if entry.kind == "moved":  # a card's old place: nothing
            return 0
        if entry.kind == "card":
            return 24
        if entry.kind == "call":  # the call's lines and a row per subagent it spawned
            return 6 + 2 * (len(entry.item_keys) - 1)
        text = items[entry.item_keys[0]].payload.get("text")
        if isinstance(text, str):
            width = max(20, self.width - 6)
            return 2 + text.count("\n") + len(text) // width
        return 4


Height = Callable[[Entry], int]


def count_for_height(entries: Sequence[Entry], start: int, direction: int, screens: float, viewport_height: int,
                     height: Height) -> int:
    """How many entries from ``start`` (going up, from ``start - 1``, when ``direction`` is -1) fill ``screens``
    screens of ``viewport_height`` lines; at least 1, at most :data:`WINDOW_MAX`."""
    budget = screens * max(10, viewport_height)
    count, index = 0, start + (direction if direction < 0 else 0)
    while 0 <= index < len(entries) and budget > 0 and count < WINDOW_MAX:
        budget -= height(entries[index])
        count += 1
        index += direction
    return max(count, 1)


def at_end(window: Window, entries: Sequence[Entry], following: bool, viewport_height: int, height: Height) -> Window:
    """The window once new entries at the end are mounted: opening (nothing mounted) mounts everything when the
    session is small, else a few screens from the end; following keeps a screen and a half (and at least
    :data:`MIN_FOLLOW` entries); a window the user scrolled up in keeps its top and grows up to :data:`WINDOW_MAX`
    entries (the rest wait below, as when scrolling down: :func:`later`)."""
    total = len(entries)
    if window.hi == window.lo:
        size = total if total <= OPEN_ALL else count_for_height(entries, total, -1, SCREENS_FIRST, viewport_height,
                                                                height)
        return Window(total - size, total)
    if not following:
        return Window(window.lo, min(total, max(window.hi, window.lo + WINDOW_MAX)))
    size = WINDOW_MAX if total - window.lo <= MIN_FOLLOW else max(
        MIN_FOLLOW, count_for_height(entries, total, -1, SCREENS_FOLLOW, viewport_height, height))
    return Window(max(window.lo, total - size), total)


def earlier(window: Window, entries: Sequence[Entry], viewport_height: int, height: Height) -> Window:
    """Two screens more above (the top of the window scrolled into view); as many below unmounted when the
    window would pass :data:`WINDOW_MAX`."""
    lo = max(0, window.lo - count_for_height(entries, window.lo, -1, SCREENS_STEP, viewport_height, height))
    return Window(lo, min(window.hi, lo + WINDOW_MAX))


def later(window: Window, entries: Sequence[Entry], viewport_height: int, height: Height) -> Window:
    """Two screens more below; as many above unmounted when the window would pass :data:`WINDOW_MAX`."""
    hi = min(len(entries), window.hi + count_for_height(entries, window.hi, 1, SCREENS_STEP, viewport_height, height))
    return Window(max(window.lo, hi - WINDOW_MAX), hi)


def around(index: int, total: int) -> Window:
    """A window with entry ``index`` in it (a search hit, a jump): :data:`LOAD_STEP` entries on either side."""
    lo = max(0, index - LOAD_STEP)
    return Window(lo, min(total, lo + 2 * LOAD_STEP))


@dataclass(frozen=True)
class Moves:
    """What changes on screen when the window goes from ``old`` to ``new``: ranges of entry indexes."""

    unmount: tuple[range, ...]
    mount_above: range  # mounted above what stays (in order, after the top sentinel)
    mount_below: range  # mounted below what stays (before the bottom sentinel)


def moves(old: Window, new: Window) -> Moves:
    """The ranges to unmount and mount to go from ``old`` to ``new``; windows that do not overlap start afresh."""
    if not len(old) or new.lo >= old.hi or new.hi <= old.lo:
        return Moves((range(old.lo, old.hi),) if len(old) else (), range(0), range(new.lo, new.hi))
    unmount = tuple(r for r in (range(old.lo, new.lo), range(new.hi, old.hi)) if len(r))
    return Moves(unmount, range(new.lo, old.lo) if new.lo < old.lo else range(0),
                 range(old.hi, new.hi) if new.hi > old.hi else range(0))
