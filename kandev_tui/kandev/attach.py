"""Watching one Kandev session: cache, history pages, live rows, receipts, reconnects (headless).

The attachment keeps Kandev's rows by id (the truth) and hands items to the
caller: ``on_items`` for rows that are new at the end or changed in place,
``on_reset`` with every item in order when rows arrive out of order (an older
history page, a row missed in the middle). It

- shows the cached rows at once, then fetches only what is missing: newest
  pages first, until they overlap what it already has and is settled;
- applies ``session.message.added`` / ``updated`` live, keyed by row id (an
  older ``updated_at`` never replaces a newer one, so nothing shows twice or
  goes back);
- follows the per-session ``conversation_receipt`` revision: a gap means a
  notification was missed, and triggers a refetch;
- reconnects with backoff when the connection drops, resubscribes and
  refetches, saying so through ``on_status``.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import urllib.parse
from typing import Any, Callable

from kandev_tui.base.jsonutil import of_type
from kandev_tui.transcript.items import PERMISSION
from kandev_tui.transcript.items import Item

from .history import PAGE, History
from .connection import KandevConnection, KandevError, backend_key, http_base
from .shell_output import FETCHED, shell_output
from .rows import instant, row_id, row_item, sort_key

log = logging.getLogger(__name__)

BACKOFF = (0.5, 1, 2, 4, 8, 15, 30)
PROMPTABLE = {"WAITING_FOR_INPUT", "COMPLETED", "IDLE", "READY"}


class Attachment:
    def __init__(self, url: str, session_id: str, *, token: str | None = None, store: Any = None,
                 page_size: int = PAGE, on_items: Callable[[list[Item]], None],
                 on_reset: Callable[[list[Item]], None] | None = None,
                 on_status: Callable[[str, str], None] | None = None) -> None:
        self.url = url
        self.session_id = session_id
        self.token = token
        self.store = store
        self.on_items = on_items
        self.on_reset = on_reset
        self.on_status = on_status or (lambda status, detail: None)
        self.backend = backend_key(url)
        self.rows: dict[str, dict[str, Any]] = {}
        self._waiting: set[str] = set()  # ids of permission rows shown as pending
        self.order: list[tuple[str, str]] = []  # sort keys of the rows, kept sorted
        self.task_id = ""
        self.title = ""
        self.complete = False  # the oldest row has been seen
        self.revision: int | None = None
        self.session_state = ""
        self.workspace_path = ""  # the session's directory on the Kandev machine
        self.status = "offline"
        self.connection: KandevConnection | None = None
        self._stopping = False
        self._resync: asyncio.Task[None] | None = None
        self.fetched = 0  # rows fetched with message.list, all in all
        self.refetches = 0  # how often a receipt gap or a reconnect made it refetch (tests and the status line)
        self.connects = 0
        self.history = History(self, page_size)  # the rows cached in the store, and the pages fetched from Kandev

    # -- rows → items --------------------------------------------------------------

    def item(self, rid: str) -> Item | None:
        item = row_item(self.rows[rid])
        if item is not None and item.kind == PERMISSION and item.status == "pending" and self._moved_on(rid):
            # Kandev leaves an unanswered request as it was when the turn ends
            item = item.but(status="cancelled", payload={**item.payload, "answer": {"outcome": "cancelled"}}, final=True)
        return item

    def track(self, items: list[Item]) -> None:
        for item in items:
            if item.kind == PERMISSION:
                rid = item.key.removeprefix("kandev:")
                if item.status == "pending":
                    self._waiting.add(rid)
                else:
                    self._waiting.discard(rid)

    def _moved_on(self, rid: str) -> bool:
        """The session went on past this row: a later turn, or a status row of its turn (cancelled, failed)."""
        row = self.rows[rid]
        key = sort_key(row)
        index = bisect.bisect_right(self.order, key)
        for _, later in self.order[index:]:
            other = self.rows[later]
            if other.get("turn_id") != row.get("turn_id") or other.get("type") == "status":
                return True
        return False

    def items(self) -> list[Item]:
        out = []
        for _, rid in self.order:
            item = self.item(rid)
            if item is not None:
                out.append(item)
        return out

    def merge(self, rows: list[Any]) -> list[Item]:
        """Take rows (a page or a notification); tell the caller what changed; return the changed items."""
        changed: list[dict[str, Any]] = []
        reorder = False
        last = self.order[-1] if self.order else None
        for row in rows:
            if not isinstance(row, dict):
                continue
            rid = row_id(row)
            if rid is None:
                continue
            row = {k: v for k, v in row.items() if k != "conversation_receipt"}
            row["id"] = rid
            known = self.rows.get(rid)
            if known is not None:
                if instant(row.get("updated_at")) < instant(known.get("updated_at")):
                    continue  # an older state of the row: never go back
                if FETCHED in known:  # the command's output, fetched: Kandev's row never carries it
                    row[FETCHED] = known[FETCHED]
                if known == row:
                    continue
                row.setdefault("created_at", known.get("created_at"))
            else:
                key = sort_key(row)
                if last is not None and key < last:
                    reorder = True
                self.order.append(key)
            self.rows[rid] = row
            if not self.task_id and isinstance(row.get("task_id"), str):
                self.task_id = row["task_id"]
            changed.append(row)
        if not changed:
            return []
        changed.sort(key=sort_key)  # pages come newest first
        self.order.sort()
        self.history.save(changed)
        if reorder and self.on_reset is not None:
            items = self.items()
            self.track(items)
            self.on_reset(items)
            return items
        rids = [r["id"] for r in changed]
        for rid in list(self._waiting):  # a request the session moved past is no longer waiting
            if rid not in rids and rid in self.rows and self._moved_on(rid):
                rids.append(rid)
        items = [item for item in (self.item(rid) for rid in rids) if item is not None]
        self.track(items)
        self.on_items(items)
        return items

    async def shell_output(self, rid: str) -> None:
        """Fetch a command's output (Kandev's row keeps only its sizes) into its row, cached with it, and show it;
        where the backend has none, the command says so."""
        row = self.rows.get(rid)
        if row is None or FETCHED in row:
            return
        found = await asyncio.to_thread(shell_output, self.url, self.token, self.session_id, rid)
        self.rows[rid] = {**self.rows.get(rid, row), FETCHED: found}
        self.history.save([self.rows[rid]])
        item = self.item(rid)
        if item is not None:
            self.on_items([item])

    # -- live ----------------------------------------------------------------------

    def _notification(self, action: str, payload: dict[str, Any]) -> None:
        session = payload.get("session_id")
        if session not in (None, self.session_id):
            return
        receipt = payload.get("conversation_receipt")
        if isinstance(receipt, dict) and receipt.get("session_id") in (None, self.session_id):
            base, revision = receipt.get("base_revision"), receipt.get("revision")
            if self.revision is not None and isinstance(base, int) and base != self.revision:
                log.info("receipt gap: base %s after %s; refetching", base, self.revision)
                self._schedule_resync()
            if isinstance(revision, int):
                self.revision = revision
        if action in ("session.message.added", "session.message.updated"):
            self.merge([payload])
        elif action == "session.message.deleted":
            rid = row_id(payload)
            if rid in self.rows:
                row = {**self.rows[rid], "type": "deleted", "content": "(deleted in Kandev)"}
                self.rows[rid] = row
                self.history.save([row])
                item = row_item(row)
                if item is not None:
                    self.on_items([item])
        elif action == "session.state_changed":
            state = payload.get("new_state")
            if isinstance(state, str) and state:
                self.session_state = state
                self.on_status(self.status, "")
        elif action in ("session.turn.started", "session.turn.completed"):
            self.on_status(self.status, "")

    def _schedule_resync(self) -> None:
        conn = self.connection
        if conn is None or (self._resync is not None and not self._resync.done()):
            return

        async def again() -> None:
            self.refetches += 1
            self.revision = None
            try:
                await self.history.sync(conn)
            except KandevError as exc:
                log.info("refetch failed: %s", exc)

        self._resync = asyncio.ensure_future(again())

    @property
    def can_prompt(self) -> bool:
        return self.status == "live" and (not self.session_state or self.session_state in PROMPTABLE)

    @property
    def prompt_reason(self) -> str:
        if self.status != "live":
            return "not connected to Kandev"
        if self.session_state in ("RUNNING", "STARTING"):
            return "the agent is working"
        if self.session_state and self.session_state not in PROMPTABLE:
            return f"the Kandev session is {self.session_state.lower().replace('_', ' ')}"
        return ""

    async def _session_info(self) -> None:
        """Task, state and directory of the session (``GET /api/v1/task-sessions/{id}``); not_found if unknown."""
        from .catalog import get_json

        address = f"{http_base(self.url)}/api/v1/task-sessions/{urllib.parse.quote(self.session_id, safe='')}"
        try:
            answer = await asyncio.to_thread(get_json, address, self.token)
        except KandevError as exc:
            if exc.code == "404":
                raise KandevError(f"Kandev has no session {self.session_id} (kandev-tui attach --list shows them)",
                                  "not_found") from None
            log.info("session details unavailable: %s", exc)
            return
        session = of_type(answer, "session", dict, {})
        for key, attr in (("task_id", "task_id"), ("state", "session_state"), ("workspace_path", "workspace_path")):
            if isinstance(session.get(key), str) and session[key]:
                setattr(self, attr, session[key])

    # -- the connection loop ---------------------------------------------------------

    def _set_status(self, status: str, detail: str = "") -> None:
        self.status = status
        self.on_status(status, detail)

    async def connect_once(self) -> KandevConnection:
        """Connect, subscribe, catch up. Raises :class:`KandevError`."""
        conn = KandevConnection(self.url, self.token, self._notification)
        await conn.connect()
        try:
            await conn.request("session.subscribe", {"session_id": self.session_id})
            self.connection = conn
            self.revision = None
            if self.connects:
                self.refetches += 1
            self.connects += 1
            await self._session_info()  # before catching up: a working session may still change its turn
            await self.history.sync(conn)
        except BaseException:
            self.connection = None
            await conn.close()
            raise
        return conn

    async def run(self, first: KandevConnection | None = None) -> None:
        """Stay attached until :meth:`stop`: reconnect with backoff whenever the connection drops."""
        attempt = 0
        conn = first
        while not self._stopping:
            if conn is None:
                self._set_status("connecting" if not self.connects else "reconnecting",
                                 "" if attempt == 0 else f"attempt {attempt + 1}")
                try:
                    conn = await self.connect_once()
                except KandevError as exc:
                    if exc.code == "not_found" or (not self.connects and exc.code in ("refused", "handshake")):
                        self._set_status("error", str(exc))
                        return
                    delay = BACKOFF[min(attempt, len(BACKOFF) - 1)]
                    attempt += 1
                    self._set_status("reconnecting", f"{exc} · retrying in {delay:g} s")
                    await self._sleep(delay)
                    continue
            attempt = 0
            self._set_status("live", "")
            await conn.closed.wait()
            self.connection = None
            reason = conn.close_reason
            await conn.close()
            conn = None
            if not self._stopping:
                self._set_status("reconnecting", f"{reason}; reconnecting")
                await self._sleep(BACKOFF[0])

    async def _sleep(self, seconds: float) -> None:
        end = asyncio.get_running_loop().time() + seconds
        while not self._stopping and asyncio.get_running_loop().time() < end:
            await asyncio.sleep(min(0.1, seconds))

    async def stop(self) -> None:
        self._stopping = True
        if self._resync is not None:
            self._resync.cancel()
        if self.connection is not None:
            await self.connection.close()
        self.history.save_meta()

    # -- acting on the session ------------------------------------------------------

    async def send(self, text: str) -> None:
        conn = self.connection
        if conn is None or conn.closed.is_set():
            raise KandevError("not connected to Kandev; the prompt was not sent", "closed")
        if not self.task_id:
            raise KandevError("the session's task is not known yet; try again in a moment", "no_task")
        await conn.request("message.add", {"task_id": self.task_id, "session_id": self.session_id, "content": text})

    async def answer(self, item_key: str, option_id: str) -> None:
        conn = self.connection
        rid = item_key.removeprefix("kandev:")
        row = self.rows.get(rid)
        if conn is None or row is None:
            raise KandevError("not connected to Kandev; the answer was not sent", "closed")
        meta = of_type(row, "metadata", dict, {})
        await conn.request("permission.respond", {
            "session_id": self.session_id, "task_id": row.get("task_id") or self.task_id,
            "pending_id": meta.get("pending_id"), "request_id": meta.get("request_id"), "option_id": option_id})

    def pending_permissions(self) -> set[str]:
        """Keys of the permission requests that still wait for an answer."""
        keys = set()
        for rid in self._waiting:
            item = self.item(rid) if rid in self.rows else None
            if item is not None and item.status == "pending":
                keys.add(item.key)
        return keys
