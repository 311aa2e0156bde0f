"""One direction: frames → recording → normaliser → store → listeners.

Used identically by a live run (the ACP client calls :meth:`Pipeline.feed`
for every frame) and by a replay (frames read from a recording), so both
store and show the same items.
"""

from __future__ import annotations

from typing import Callable, Iterable

from .frames import Frame, RecordingWriter
from .items import Item
from .normalize import Normalizer
from .store import Store


class Pipeline:
    """Feeds one session's frames through the normaliser into the store."""

    def __init__(self, store: Store | None, session_id: str | None, *, recording: RecordingWriter | None = None,
                 listener: Callable[[list[Item]], None] | None = None) -> None:
        self.store = store
        self.session_id = session_id
        self.recording = recording
        self.listeners: list[Callable[[list[Item]], None]] = [listener] if listener else []
        loader = (lambda key: store.item_payload(session_id, key)) if store is not None and session_id else None
        self.normalizer = Normalizer(loader=loader)
        self.frames = 0

    def feed(self, frame: Frame) -> list[Item]:
        """One frame: recorded, normalised, committed, then shown."""
        return self.feed_many((frame,))

    def feed_many(self, frames: Iterable[Frame]) -> list[Item]:
        """A batch of frames in one store transaction (the last state of each item wins)."""
        changed: list[Item] = []
        for frame in frames:
            self.frames += 1
            if self.recording is not None:
                self.recording.write(frame)
            changed.extend(self.normalizer.feed(frame))
        if changed:
            if self.store is not None and self.session_id is not None:
                self.store.upsert_items(self.session_id, changed)
            for listener in self.listeners:
                listener(changed)
        return changed

    def close(self) -> None:
        if self.recording is not None:
            self.recording.close()
            self.recording = None
