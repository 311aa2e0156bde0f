"""Search over the whole session, built on screen or not: pure functions over immutable item versions.

The transcript takes a :func:`snapshot` (each item's current version with its entry's index: two flat lists, under
a megabyte for 50,000 items) on the event loop, and :func:`find` reads only that, so it runs in a thread while the
session goes on growing: the versions in it never change (:class:`kandev_tui.transcript.items.Item`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from kandev_tui.transcript.items import CHANGES, ELICITATION, PERMISSION, PLAN, SUBAGENT, TOOL
from kandev_tui.transcript.items import Item

if TYPE_CHECKING:
    from .changes import TranscriptModel

Snapshot = tuple[list[int], list[Item]]  # (entry index of each item, the item), in the transcript's order
Hit = tuple[int, str]  # (entry index, item key): a hit inside a tool group names its call


def item_texts(item: Item) -> list[str]:
    """The searchable texts of an item: what it says, its title, its arguments and output (as the store writes
    its JSON, so a packed item can rule itself out from its stored text: :meth:`PackedItem.may_mention`)."""
    payload = item.payload
    parts = [payload.get("text"), payload.get("title"), payload.get("name"), payload.get("message"),
             payload.get("description"), payload.get("summary"), payload.get("markdown")]
    if item.kind in (TOOL, PLAN, PERMISSION, ELICITATION, SUBAGENT, CHANGES):
        parts.append(json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)[:20000])
    return [p for p in parts if isinstance(p, str)]


def item_mentions(item: Item, needle: str) -> bool:
    """Whether one of the item's texts contains ``needle`` (already casefolded)."""
    quick = getattr(item, "may_mention", None)  # a stored item rules itself out without parsing its payload
    if quick is not None and not quick(needle):
        return False
    return any(needle in text.casefold() for text in item_texts(item))


def snapshot(transcript: "TranscriptModel") -> Snapshot:
    """Every item the UI has of the transcript, in order, with its entry's index."""
    items, indexes, found = transcript.items, [], []
    for entry in transcript.entries:
        for key in entry.item_keys:
            indexes.append(entry.index)
            found.append(items[key])
    return indexes, found


def find(snap: Snapshot, needle: str) -> list[Hit]:
    """The hits of ``needle`` (case-insensitive, surrounding blanks ignored), in order."""
    needle = needle.casefold().strip()
    if not needle:
        return []
    return [(index, item.key) for index, item in zip(*snap) if item_mentions(item, needle)]
