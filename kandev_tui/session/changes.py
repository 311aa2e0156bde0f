"""The transcript's entries, headless: item batches in, change sets out.

Items are placed where they arrive, on the source's thread (:meth:`TranscriptModel.place`): which renderer draws a
call (the registry's match, which may parse the call's result), what the renderer prepares for its card (rich
output's validated presentation), which entry each item goes to (the :class:`~kandev_tui.session.layout.Layout`),
and the group summaries. What changed since the UI last took a change set waits as one :class:`ChangeSet`: the
entries new or reshaped (handed over as they are then: the layout never changes an entry it handed over, it copies
it), the item versions that update entries the UI has, the group summaries to show again, and the items that are
not in the flow (session info, usage: the status line's). The UI's thread takes it when the batch policy says
(:meth:`TranscriptModel.take`): it keeps its own list of the entries it was handed (:attr:`TranscriptModel.entries`
and the maps beside it), so what the transcript widget reads never changes under it while the source places more;
the widget applies the change set mechanically: it decides nothing about where an item goes.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Iterable

from kandev_tui.transcript.items import SESSION_INFO, TOOL, USAGE
from kandev_tui.transcript.items import Item
from kandev_tui.renderers.registry import Registry, Renderer

from .layout import Entry, Layout
from .parsed import VersionCache

log = logging.getLogger("kandev_tui.session")
STATUS_KINDS = (SESSION_INFO, USAGE)
MATCHES_KEPT = 4096  # tool-call versions whose renderer is remembered (matched where they arrive, placed later)
PREPARED_AT_MOST = 256  # a batch's newest tool calls matched and prepared where they arrive (prepare)


@dataclass
class ChangeSet:
    new_entries: int = 0  # entries appended: the UI's last ``new_entries``
    updated: dict[str, Item] = field(default_factory=dict)  # item key → newest version, in entries the UI had
    rebuilt: list[tuple[str, Entry]] = field(default_factory=list)  # (old entry key, entry) reshaped: build anew
    summaries: dict[str, str] = field(default_factory=dict)  # group entry key → its summary
    status: list[Item] = field(default_factory=list)  # items not in the flow (session info, usage), in order
    keys: list[str] = field(default_factory=list)  # every item key placed, in the order each first came
    reset_from: list[Entry] | None = None  # a reset's: the entries before it (where a view finds its place again)
    entries: dict[int, Entry] = field(default_factory=dict)  # index → entry, every entry new or reshaped
    items: dict[str, Item] = field(default_factory=dict)  # item key → newest version, every item placed
    reset: bool = False  # every item was placed again (older history arrived): the entries start afresh
    news: int = 0  # items in the flow whose keys the UI was not handed before (a covered session's "+N new")

    def __bool__(self) -> bool:
        return bool(self.items) or self.reset


class TranscriptModel:
    """Every entry of the session (the widget mounts a window of them). Placed on the source's thread, taken on the
    UI's: :attr:`entries`, :attr:`entry_of`, :attr:`items` and :meth:`summary` are what the UI was
    handed (read them on its thread only); :attr:`layout` is where the source places (under the model's lock)."""

    def __init__(self, registry: Registry, card_limit: int = 16) -> None:
        self.registry = registry
        self.matched: VersionCache[Renderer | None] = VersionCache(lambda item: registry.match(item.payload),
                                                                  MATCHES_KEPT)
        self.layout = Layout(registry, card_limit, self.matched)
        self._lock = threading.Lock()
        self._pending = ChangeSet()  # placed since the UI last took a change set
        self._handed = 0  # entries the UI has
        self._placed = 0  # entries the layout had after the last placing
        self._rebuilt_old: dict[int, str] = {}  # index → the key the UI knows it by, for entries it had, reshaped
        self._unplaced: list[Item] = []  # arrived before the renderer packs were read: placed when they are
        # the UI's
        self.entries: list[Entry] = []
        self.entry_of: dict[str, Entry] = {}
        self.items: dict[str, Item] = {}
        self.summaries: dict[str, str] = {}

    def prepare(self, items: Iterable[Item]) -> None:
        """Match each tool-call version with its renderer and let the renderer prepare it (any thread: the source's,
        before the items are placed; outside the model's lock). What a renderer raises is logged: placing the item
        matches it again. Until the app has read the renderer packs (in a thread after its first frame) nothing is
        matched here: the agent's thread goes on reading rather than wait for them (:meth:`place`)."""
        if not self.registry.discovered:
            return
        calls = [item for item in items if item.kind == TOOL]
        # a reset's or a loaded history's thousands of calls: only the newest are drawn soon (the window opens at
        # the end); the others are matched as they are placed and prepared when a card shows them. Preparing all
        # 5,000 charts of a 50,000-item session held its first paint back 0.7-0.9 s (benchmarks/open_session.py)
        for item in calls[-PREPARED_AT_MOST:]:
            try:
                renderer = self.matched(item)
                if renderer is not None and renderer.prepare is not None:
                    renderer.prepare(item)
            except Exception:  # noqa: BLE001 - a renderer's bug must not stop the agent's thread
                log.exception("preparing %s failed", item.key)

    @property
    def card_limit(self) -> int:
        return self.layout.card_limit

    @card_limit.setter
    def card_limit(self, limit: int) -> None:
        with self._lock:
            self.layout.card_limit = limit  # for the entries placed from now on

    # -- the source's side (any thread) ------------------------------------------------

    def place(self, items: Iterable[Item]) -> None:
        """Place each item version (the last of each key wins) and add what changed to the change set the UI takes
        next. Before the app has read the renderer packs (40-60 ms of imports, in a thread after its first frame)
        the items wait unplaced, and the agent's thread goes on reading: placing them needs the packs, and the first
        of :meth:`take` or a :meth:`place` after the packs are read places them (terminal.py 5,000/200/50: the
        agent's thread waiting for the packs made the end show 0.03-0.05 s later, 8505b3a)."""
        with self._lock:
            self._place_when_read(items)

    def place_all(self, items: Iterable[Item]) -> None:
        """Every item again, in order, into a new layout (older history arrived): the next change set starts the
        UI's entries afresh."""
        with self._lock:
            old = self.layout
            self.layout = Layout(old.registry, old.card_limit, self.matched)
            self._pending = ChangeSet(reset=True)
            self._handed = self._placed = 0
            self._rebuilt_old.clear()
            self._unplaced = []
            self._place_when_read(items)
            self._pending.news = 0  # what was there before and is now placed again is no news

    def _place_when_read(self, items: Iterable[Item]) -> None:
        if not self.registry.discovered:
            self._unplaced.extend(items)
            return
        self._place_unplaced()
        self._place(items)

    def _place_unplaced(self) -> None:
        if self._unplaced:
            unplaced, self._unplaced = self._unplaced, []
            self._place(unplaced)

    def _place(self, items: Iterable[Item]) -> None:
        layout, pending, handed = self.layout, self._pending, self._handed
        touched: set[int] = set()
        placed = layout.entry_of
        for item in items:
            if item.key not in placed and item.key not in pending.items and item.kind not in STATUS_KINDS:
                pending.news += 1
            pending.items[item.key] = item
            entry, _ = layout.place(item)
            if entry is None:
                if item.kind in STATUS_KINDS:
                    pending.status.append(item)
                continue
            touched.add(entry.index)
            if entry.index < handed:
                pending.updated[item.key] = item
        for old_key, entry in layout.rebuilt:
            touched.add(entry.index)
            if entry.index < handed:
                self._rebuilt_old.setdefault(entry.index, old_key)
        layout.rebuilt = []
        touched.update(range(self._placed, len(layout.entries)))  # appended (a group's rest follows its card)
        self._placed = len(layout.entries)
        entries = layout.entries
        groups = set()
        for index in touched:
            entry = entries[index]
            entry.shared = True  # the UI may have it from now on: the layout copies it before a change
            pending.entries[index] = entry
            if entry.kind == "group":
                groups.add(entry.key)
        for index in touched:  # a card placed in a run changes its groups' summaries ("1 tool + 1 card"), wherever
            # they are (a call that became a card when it finished comes last; eight messages placed after a card once
            # left its group saying "1 tool: ping_service")
            if entries[index].kind == "card":
                groups.update(layout.groups_of(entries[index].run))
        for key in groups:
            pending.summaries[key] = layout.summary(layout.by_key[key])

    @property
    def news(self) -> int:
        """How many items in the flow were placed (or wait for the renderer packs) whose keys the UI has not been
        handed yet: what a covered session's row says arrived. Counted as they are placed, never by a scan."""
        with self._lock:
            return self._pending.news + len({item.key for item in self._unplaced if item.kind not in STATUS_KINDS})

    # -- the UI's side (its thread) ------------------------------------------------------

    def take(self) -> ChangeSet:
        """What was placed since the last call (empty: nothing), now the UI's too: its entries, maps and summaries
        take it in before the widget applies it. Items that wait for the renderer packs are placed now (the packs are
        read first, outside the lock, if the app has not read them yet)."""
        if self._unplaced and not self.registry.discovered:
            self.registry.discover()
        with self._lock:
            self._place_unplaced()
            changes, self._pending = self._pending, ChangeSet()
            rebuilt_old, self._rebuilt_old = self._rebuilt_old, {}
            self._handed = len(self.layout.entries)
            by_key = self.layout.by_key
            changes.summaries = {key: text for key, text in changes.summaries.items() if key in by_key}
        if changes.reset:
            changes.reset_from = self.entries
            self.entries, self.entry_of, self.items, self.summaries = [], {}, {}, {}
        before = len(self.entries)
        changes.keys = list(changes.items)
        self.items.update(changes.items)
        for index in sorted(changes.entries):
            entry = changes.entries[index]
            if index < before:
                self.entries[index] = entry
            else:
                self.entries.append(entry)
            for key in entry.item_keys:
                self.entry_of[key] = entry
        self.summaries.update(changes.summaries)
        changes.new_entries = len(self.entries) - before
        changes.rebuilt = [(old_key, self.entries[index]) for index, old_key in sorted(rebuilt_old.items())]
        for key in list(changes.updated):  # an entry new or built anew is built from the newest versions
            index = self.entry_of[key].index
            if index >= before or index in rebuilt_old:
                del changes.updated[key]
        return changes

    def apply(self, items: Iterable[Item]) -> ChangeSet:
        """Place ``items`` and take the change set at once (the UI's thread: a stored session, tests)."""
        self.place(items)
        return self.take()

    def reset(self, items: Iterable[Item]) -> ChangeSet:
        """Every item again, in order (older history arrived), taken at once: all entries are new."""
        self.place_all(items)
        return self.take()

    def summary(self, group: Entry) -> str:
        """A group's summary as the UI was handed it (``3 tools: read, search, execute``)."""
        return self.summaries.get(group.key, "")
