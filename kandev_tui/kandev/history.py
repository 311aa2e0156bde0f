"""An attachment's history: the rows cached in the local store (shown at once, saved as they change) and the pages
fetched from Kandev, newest first, until they overlap what is kept and it is settled."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable, Protocol

from kandev_tui.transcript.items import Item

from .connection import KandevConnection
from .rows import row_id, row_item, sort_key

log = logging.getLogger(__name__)

PAGE = 100


class HistoryLink(Protocol):
    """What the history reads and writes of its attachment: the session's rows (by id, and their sort keys in
    order), what is known of it, and how rows are merged and shown."""

    session_id: str
    store: Any  # kandev-tui's Store, or None (nothing cached)
    backend: str
    rows: dict[str, dict[str, Any]]
    order: list[tuple[str, str]]
    task_id: str
    title: str
    complete: bool
    revision: int | None
    session_state: str
    connection: KandevConnection | None
    fetched: int
    on_items: Callable[[list[Item]], None]

    def items(self) -> list[Item]: ...
    def merge(self, rows: list[Any]) -> list[Item]: ...
    def track(self, items: list[Item]) -> None: ...


class History:
    """The cache and the history pages of one attachment (``link``), ``page_size`` rows a page."""

    def __init__(self, link: HistoryLink, page_size: int = PAGE) -> None:
        self.link = link
        self.page_size = max(1, page_size)
        self._older_lock = asyncio.Lock()

    def load_cache(self) -> int:
        if self.link.store is None:
            return 0
        meta = self.link.store.kandev_session(self.link.backend, self.link.session_id) or {}
        self.link.task_id = meta.get("task_id") or ""
        self.link.title = meta.get("title") or ""
        self.link.complete = bool(meta.get("complete"))
        rows = self.link.store.kandev_rows(self.link.backend, self.link.session_id)
        for row in rows:
            rid = row_id(row)
            if rid is not None:
                self.link.rows[rid] = row
        self.link.order = sorted(sort_key(r) for r in self.link.rows.values())
        if self.link.rows:
            items = self.link.items()
            self.link.track(items)
            self.link.on_items(items)
        return len(self.link.rows)

    def save(self, rows: list[dict[str, Any]]) -> None:
        if self.link.store is not None and rows:
            self.link.store.save_kandev_rows(self.link.backend, self.link.session_id, rows)

    def save_meta(self) -> None:
        if self.link.store is not None:
            self.link.store.save_kandev_session(self.link.backend, self.link.session_id, task_id=self.link.task_id, title=self.link.title,
                                           revision=self.link.revision, complete=self.link.complete)

    async def _page(self, conn: KandevConnection, before: str | None) -> dict[str, Any]:
        payload: dict[str, Any] = {"session_id": self.link.session_id, "limit": self.page_size, "sort": "desc"}
        if before:
            payload["before"] = before
        return await conn.request("message.list", payload)

    def _settled_floor(self) -> tuple[str, str] | None:
        """Rows at or after this key may still change: unfinished tools and permissions, and the newest
        turn while the agent works (its message grows). None when everything known is settled."""
        if not self.link.rows:
            return None
        newest_turn = self.link.rows[self.link.order[-1][1]].get("turn_id")
        working = self.link.session_state in ("RUNNING", "STARTING", "")
        floor = None
        for key in reversed(self.link.order):
            row = self.link.rows[key[1]]
            item = row_item(row)
            if (item is not None and not item.final) or (working and row.get("turn_id") == newest_turn):
                floor = key
        return floor

    async def sync(self, conn: KandevConnection) -> int:
        """Fetch what is missing, newest pages first; return how many rows came.

        Without a cache the newest page is enough (older pages come on demand). With one, paging stops
        at the first page that overlaps the cache and reaches back past every row that may have changed.
        """
        known = set(self.link.rows)
        floor = self._settled_floor()
        before = None
        fetched = 0
        while True:
            page = await self._page(conn, before)
            rows = [r for r in page.get("messages") or [] if isinstance(r, dict)]
            fetched += len(rows)
            self.link.fetched += len(rows)
            self.link.merge(rows)
            if not page.get("has_more") or not rows:
                self.link.complete = True
                break
            if not known:
                break
            overlap = any(row_id(r) in known for r in rows)
            if overlap and (floor is None or min(sort_key(r) for r in rows) <= floor):
                break
            before = page.get("cursor") or row_id(rows[-1])
        self.save_meta()
        return fetched

    async def load_older(self) -> int:
        """One older page (scrolling up); returns how many rows it brought (0: the beginning is reached)."""
        conn = self.link.connection
        if self.link.complete or conn is None or conn.closed.is_set() or not self.link.order:
            return 0
        async with self._older_lock:
            page = await self._page(conn, self.link.order[0][1])
            rows = [r for r in page.get("messages") or [] if isinstance(r, dict)]
            self.link.fetched += len(rows)
            if not page.get("has_more") or not rows:
                self.link.complete = True
            self.link.merge(rows)
            self.save_meta()
            return len(rows)

    async def load_all(self) -> None:
        while not self.link.complete and await self.load_older():
            pass
