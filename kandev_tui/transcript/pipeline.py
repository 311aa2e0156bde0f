"""One direction: frames → recording → normaliser → store → listeners.

Used identically by a live run (the ACP client calls :meth:`Pipeline.feed`
for every frame) and by a replay (frames read from a recording), so both
store and show the same items.

Live frames are recorded and normalised at once, but stored and shown in
batches (a streamed text's chunks are kept as parts, and its new version is made as the batch goes): within an event loop, the items a frame changed wait until the
reader has nothing more to read (a turn of the loop passes without a frame:
the agent's pipe is empty), or at most :data:`BATCH_SECONDS` (or
:data:`BATCH_ITEMS` items) while frames keep coming, and are then committed in
one transaction, the last version of each item winning. A fast agent's 50,000
chunks therefore cost a few dozen commits of the growing message, not 50,000,
and the last of them is committed as soon as it is read.
:meth:`Pipeline.flush` commits at once (the live source calls it whenever a
turn ends or the agent stops).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable, Iterable

# a batch at least every BATCH_SECONDS or BATCH_ITEMS; an open text of LONG_TEXT characters (a message still
# streaming) stored at most once per STORE_LONG_TEXT_EVERY seconds (it is shown at each batch); a flush at the turn's
# end or on close stores it all. Why these values: pacing.py
from kandev_tui.base.pacing import BATCH_ITEMS, BATCH_SECONDS, LONG_TEXT, STORE_LONG_TEXT_EVERY

from .frames import Frame, RecordingWriter
from .items import Item
from .normalize import Normalizer
from .store import Store, StoreError

log = logging.getLogger("kandev_tui.pipeline")




class Pipeline:
    """Feeds one session's frames through the normaliser into the store."""

    def __init__(self, store: Store | None, session_id: str | None, *, recording: RecordingWriter | None = None,
                 listener: Callable[[list[Item]], None] | None = None, recorded: bool = False,
                 after: tuple[int, int] = (0, 0), stored_history: bool = False) -> None:
        """``recorded``: the frames are kept in a recording already (a replay), as they are with ``recording``;
        ``after`` and ``stored_history``: a session continued (see :class:`Normalizer`)."""
        self.store = store
        self.session_id = session_id
        self.recording = recording
        self.listeners: list[Callable[[list[Item]], None]] = [listener] if listener else []
        loader = (lambda key: store.item_payload(session_id, key)) if store is not None and session_id else None
        self.normalizer = Normalizer(loader=loader, recorded=recorded or recording is not None, after=after,
                                     stored_history=stored_history)
        self.frames = 0
        self.commits = 0
        self._dirty: dict[str, Item] = {}
        self._unstored: dict[str, Item] = {}  # long open texts shown and not yet stored (newest version)
        self._stored_at: dict[str, float] = {}  # when each long open text was last stored
        self._timer: asyncio.TimerHandle | None = None
        self._watching = False  # frames keep coming: a look for the loop's first turn without one is on its way
        self._seen = 0  # frames fed when it last looked
        self.store_failure = ""  # why the session is no longer stored (the database failed mid-session), once so

    def update_session(self, **fields: Any) -> None:
        """Change the session's row (title, state…), unless the store has failed (said once, as for items)."""
        if self.store is None or self.session_id is None or self.store_failure:
            return
        try:
            self.store.update_session(self.session_id, **fields)
        except StoreError as exc:
            self._store_failed(exc)

    def _store_failed(self, exc: StoreError) -> None:
        """The database failed (damaged, the disk full): nothing more is stored, and the transcript says so once; what
        follows is still shown (and recorded, with ``--record``)."""
        self.store_failure = str(exc)
        log.info("the session is no longer stored: %s", exc)  # said in the transcript; headless, on exit
        said = [self.normalizer.error_item(f"This session is no longer stored: {exc}")]
        for listener in self.listeners:
            listener(said)

    def feed(self, frame: Frame) -> list[Item]:
        """One frame: recorded and normalised now; committed and shown with the rest of its batch."""
        self.frames += 1
        if self.recording is not None:
            self.recording.write(frame)
        changed = self.normalizer.feed(frame)
        for item in changed:
            self._dirty[item.key] = item  # first appearance keeps its place (the store's order), last state wins
        if not self._dirty and not self.normalizer.growing:
            return changed
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or len(self._dirty) >= BATCH_ITEMS:
            self.flush()
            return changed
        if self._timer is None:
            self._timer = loop.call_later(BATCH_SECONDS, self.flush)
        if not self._watching:
            self._watching, self._seen = True, self.frames
            loop.call_soon(self._flush_when_idle, loop)
        return changed

    def _flush_when_idle(self, loop: asyncio.AbstractEventLoop) -> None:
        """Once per turn of the loop while frames come; the first turn without one (the reader waits for the agent)
        commits what is waiting at once, not at the end of the batch's time."""
        if self.frames != self._seen:
            self._seen = self.frames
            loop.call_soon(self._flush_when_idle, loop)
            return
        self._watching = False
        self.flush()

    @property
    def streaming(self) -> bool:
        """Frames keep coming (the agent's pipe had more at the last turn of the loop): more items follow soon."""
        return self._watching

    def flush(self) -> None:
        """Commit and show every item changed since the last batch, in one transaction."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for item in self.normalizer.settle():  # the open texts as they are now: one version each per batch
            self._dirty[item.key] = item
        if not self._dirty:
            return
        batch = list(self._dirty.values())
        self._dirty.clear()
        self._commit(batch)

    def store_all(self) -> None:
        """Store the long open texts held back (see :data:`STORE_LONG_TEXT_EVERY`): the turn ends, the source stops."""
        self.flush()
        if self._unstored:
            held = list(self._unstored.values())
            self._unstored.clear()
            self._store(held)

    def _commit(self, changed: list[Item]) -> None:
        now = time.monotonic()
        stored: list[Item] = []
        for item in changed:
            text = item.payload.get("text") if item.grown_from and not item.final else None
            if isinstance(text, str) and len(text) >= LONG_TEXT and now - self._stored_at.get(item.key, -STORE_LONG_TEXT_EVERY) < \
                    STORE_LONG_TEXT_EVERY:
                self._unstored[item.key] = item  # shown now, stored with a later batch
                continue
            self._unstored.pop(item.key, None)
            if isinstance(text, str) and len(text) >= LONG_TEXT:
                self._stored_at[item.key] = now
            stored.append(item)
        failed = self._store(stored)
        for listener in self.listeners:
            listener(changed)
        if failed is not None:  # said after what it failed on, which is still shown
            self._store_failed(failed)

    def _store(self, items: list[Item]) -> StoreError | None:
        if items and self.store is not None and self.session_id is not None and not self.store_failure:
            try:
                self.store.upsert_items(self.session_id, items)  # stored before it is shown
                self.commits += 1
            except StoreError as exc:
                return exc
        return None

    def feed_many(self, frames: Iterable[Frame]) -> list[Item]:
        """A batch of frames in one store transaction (the last state of each item wins)."""
        changed: list[Item] = []
        for frame in frames:
            self.frames += 1
            if self.recording is not None:
                self.recording.write(frame)
            changed.extend(self.normalizer.feed(frame))
        changed.extend(self.normalizer.settle())
        self.flush()  # anything fed one by one before comes first
        if changed:
            self._commit(changed)
        return changed

    def close(self) -> None:
        self.store_all()
        if self.recording is not None:
            self.recording.close()
            self.recording = None
