"""Items from a recording, without a store: what ``kandev-tui transcript`` prints."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from .frames import Frame, read_recording
from .items import Item
from .normalize import Normalizer


def items_from_frames(frames: Iterable[Frame], *, recorded: bool = False) -> list[Item]:
    """The final state of every item, in the order the items were created."""
    normalizer = Normalizer(recorded=recorded)
    latest: dict[str, Item] = {}
    for frame in frames:
        for item in normalizer.feed(frame):
            latest[item.key] = item
    for item in normalizer.settle():
        latest[item.key] = item
    return list(latest.values())


def items_from_recording(path: str | Path) -> list[Item]:
    return items_from_frames(read_recording(path), recorded=True)
