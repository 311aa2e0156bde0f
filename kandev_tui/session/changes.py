"""The transcript's entries, headless: item batches in, change sets out.

:class:`TranscriptModel` places each batch of item versions with the :class:`~kandev_tui.session.layout.Layout` and
says what changed as a :class:`ChangeSet`: how many entries are new (appended), which item versions replace older
ones in entries that existed already, which entries the layout reshaped (a grouped call promoted to a card), the
group summaries to show again, and the items that are not in the flow (session info, usage: the status line's).
The transcript widget applies a change set mechanically: it decides nothing about where an item goes.

Which renderer draws a call (the registry's match, which may parse the call's result) and what the renderer prepares
for its card (rich output's validated presentation) are worked out by :meth:`TranscriptModel.prepare` where the items
arrive, on the source's thread, before they are handed over; placing them on the UI's thread then finds both done.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Iterable

from kandev_tui.transcript import items as K
from kandev_tui.transcript.items import Item
from kandev_tui.renderers.registry import Registry, Renderer

from .layout import Entry, Layout
from .parsed import VersionCache

log = logging.getLogger("kandev_tui.session")
STATUS_KINDS = (K.SESSION_INFO, K.USAGE)
MATCHES_KEPT = 4096  # tool-call versions whose renderer is remembered (matched where they arrive, placed later)


@dataclass
class ChangeSet:
    new_entries: int = 0  # entries appended to the layout: its last ``new_entries``
    updated: dict[str, Item] = field(default_factory=dict)  # item key → newest version, in entries that existed
    rebuilt: list[tuple[str, Entry]] = field(default_factory=list)  # (old entry key, entry) reshaped: build anew
    summaries: dict[str, str] = field(default_factory=dict)  # group entry key → its summary
    status: list[Item] = field(default_factory=list)  # items not in the flow (session info, usage), in order
    keys: list[str] = field(default_factory=list)  # every item key of the batch, in order
    reset_from: list[Entry] | None = None  # a reset's: the entries before it (where a view finds its place again)


class TranscriptModel:
    """Every entry of the session (the widget mounts a window of them), placed batch by batch."""

    def __init__(self, registry: Registry, card_limit: int = 16) -> None:
        self.registry = registry
        self.matched: VersionCache[Renderer | None] = VersionCache(lambda item: registry.match(item.payload),
                                                                  MATCHES_KEPT)
        self.layout = Layout(registry, card_limit, self.matched)

    def prepare(self, items: Iterable[Item]) -> None:
        """Match each tool-call version with its renderer and let the renderer prepare it (any thread: the source's,
        before the items are handed over). What a renderer raises is logged: placing the item matches it again. Until
        the app has read the renderer packs (in a thread after its first frame) nothing is matched here: the agent's
        thread goes on reading rather than wait for them, and placing matches what came meanwhile."""
        if not self.registry.discovered:
            return
        for item in items:
            if item.kind != K.TOOL:
                continue
            try:
                renderer = self.matched(item)
                if renderer is not None and renderer.prepare is not None:
                    renderer.prepare(item)
            except Exception:  # noqa: BLE001 - a renderer's bug must not stop the agent's thread
                log.exception("preparing %s failed", item.key)

    @property
    def entries(self) -> list[Entry]:
        return self.layout.entries

    @property
    def items(self) -> dict[str, Item]:
        return self.layout.items

    @property
    def card_limit(self) -> int:
        return self.layout.card_limit

    @card_limit.setter
    def card_limit(self, limit: int) -> None:
        self.layout.card_limit = limit  # for the entries placed from now on

    def apply(self, items: Iterable[Item]) -> ChangeSet:
        """Place each item version (the last of each key wins) and say what changed."""
        layout = self.layout
        before = len(layout.entries)
        changes = ChangeSet()
        touched_groups: set[str] = set()
        for item in items:
            changes.keys.append(item.key)
            entry, _ = layout.place(item)
            if entry is None:
                if item.kind in STATUS_KINDS:
                    changes.status.append(item)
                continue
            if entry.kind == "group":
                touched_groups.add(entry.key)
            changes.updated[item.key] = item
        changes.rebuilt, layout.rebuilt = layout.rebuilt, []
        changes.new_entries = len(layout.entries) - before
        # an update is for an entry that was on screen before and keeps its widget: a new entry, or one built anew,
        # is built from the newest versions anyway
        rebuilt = {id(entry) for _, entry in changes.rebuilt}
        for key in list(changes.updated):
            entry = layout.entry_of[key]
            if entry.index >= before or id(entry) in rebuilt:
                del changes.updated[key]
        for key in self._groups_to_summarise(touched_groups):
            changes.summaries[key] = layout.summary(layout.by_key[key])
        return changes

    def reset(self, items: Iterable[Item]) -> ChangeSet:
        """Every item again, in order, into a new layout (older history arrived): all entries are new."""
        old = self.layout
        self.layout = Layout(old.registry, old.card_limit, self.matched)
        changes = self.apply(items)
        changes.updated.clear()
        changes.rebuilt.clear()
        changes.reset_from = old.entries
        return changes

    def summary(self, group: Entry) -> str:
        return self.layout.summary(group)

    def _groups_to_summarise(self, touched: set[str]) -> set[str]:
        """Groups whose summary may have changed: touched ones, and those of recent runs that got a card."""
        entries = self.layout.entries
        runs = {e.run for e in entries[-8:] if e.kind == "card"}
        return {key for key in touched if key in self.layout.by_key} | {
            e.key for e in entries[-16:] if e.kind == "group" and e.run in runs}
