"""An attachment's history: the rows cached in the local store (shown at once, saved as they change) and the pages
fetched from Kandev, newest first, until they overlap what is kept and it is settled."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .connection import KandevConnection
from .rows import row_id, row_item, sort_key

if TYPE_CHECKING:
    from ._parts import AttachmentParts
else:
    AttachmentParts = object  # a plain mixin at run time: see _parts

log = logging.getLogger(__name__)

PAGE = 100


class History(AttachmentParts):
    """The cache and the history pages (a part of :class:`~kandev_tui.kandev.attach.Attachment`)."""

    def load_cache(self) -> int:
        if self.store is None:
            return 0
        meta = self.store.kandev_session(self.backend, self.session_id) or {}
        self.task_id = meta.get("task_id") or ""
        self.title = meta.get("title") or ""
        self.complete = bool(meta.get("complete"))
        rows = self.store.kandev_rows(self.backend, self.session_id)
        for row in rows:
            rid = row_id(row)
            if rid is not None:
                self.rows[rid] = row
        self._order = sorted(sort_key(r) for r in self.rows.values())
        if self.rows:
            items = self.items()
            self._track(items)
            self.on_items(items)
        return len(self.rows)

    def _save(self, rows: list[dict[str, Any]]) -> None:
        if self.store is not None and rows:
            self.store.save_kandev_rows(self.backend, self.session_id, rows)

    def _save_meta(self) -> None:
        if self.store is not None:
            self.store.save_kandev_session(self.backend, self.session_id, task_id=self.task_id, title=self.title,
                                           revision=self.revision, complete=self.complete)

    async def _page(self, conn: KandevConnection, before: str | None) -> dict[str, Any]:
        payload: dict[str, Any] = {"session_id": self.session_id, "limit": self.page_size, "sort": "desc"}
        if before:
            payload["before"] = before
        return await conn.request("message.list", payload)

    def _settled_floor(self) -> tuple[str, str] | None:
        """Rows at or after this key may still change: unfinished tools and permissions, and the newest
        turn while the agent works (its message grows). None when everything known is settled."""
        if not self.rows:
            return None
        newest_turn = self.rows[self._order[-1][1]].get("turn_id")
        working = self.session_state in ("RUNNING", "STARTING", "")
        floor = None
        for key in reversed(self._order):
            row = self.rows[key[1]]
            item = row_item(row)
            if (item is not None and not item.final) or (working and row.get("turn_id") == newest_turn):
                floor = key
        return floor

    async def sync(self, conn: KandevConnection) -> int:
        """Fetch what is missing, newest pages first; return how many rows came.

        Without a cache the newest page is enough (older pages come on demand). With one, paging stops
        at the first page that overlaps the cache and reaches back past every row that may have changed.
        """
        known = set(self.rows)
        floor = self._settled_floor()
        before = None
        fetched = 0
        while True:
            page = await self._page(conn, before)
            rows = [r for r in page.get("messages") or [] if isinstance(r, dict)]
            fetched += len(rows)
            self.fetched += len(rows)
            self.merge(rows)
            if not page.get("has_more") or not rows:
                self.complete = True
                break
            if not known:
                break
            overlap = any(row_id(r) in known for r in rows)
            if overlap and (floor is None or min(sort_key(r) for r in rows) <= floor):
                break
            before = page.get("cursor") or row_id(rows[-1])
        self._save_meta()
        return fetched

    async def load_older(self) -> int:
        """One older page (scrolling up); returns how many rows it brought (0: the beginning is reached)."""
        conn = self.connection
        if self.complete or conn is None or conn.closed.is_set() or not self._order:
            return 0
        async with self._older_lock:
            page = await self._page(conn, self._order[0][1])
            rows = [r for r in page.get("messages") or [] if isinstance(r, dict)]
            self.fetched += len(rows)
            if not page.get("has_more") or not rows:
                self.complete = True
            self.merge(rows)
            self._save_meta()
            return len(rows)

    async def load_all(self) -> None:
        while not self.complete and await self.load_older():
            pass
