"""The session store: SQLite (stdlib), WAL, a schema version with migrations (:mod:`.database` opens it).

Sessions ``(id, title, agent command, workspace, created, updated, state, owner)``
and items ``(session, seq, key, kind, tool call id, status, payload, updated)``.
Items are upserted by ``(session, key)``: a streamed message updates its row in
place and keeps the sequence number it was first given. Every batch of
updates is one transaction, committed before the caller shows it.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any, Callable, Iterable, Iterator, TypeVar

from kandev_tui.base.jsonutil import dumps

from .database import (SCHEMA_VERSION, SESSION_COLUMNS, Database, StoreError, StoreMissing, default_db_path,
                       said as _said)
from .items import Item, PackedItem
from . import searching
from .searching import Hit, fts_query, search
from .owner import owner_alive, owner_pid, this_process

T = TypeVar("T")

__all__ = ["SCHEMA_VERSION", "EmptyStore", "NotNamed", "Store", "StoreError", "StoreMissing", "default_db_path"]


def _column(value: Any) -> Any:
    """A text column as UTF-8 can hold it: lone surrogates (from JSON escapes) become U+FFFD."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in value)
    return value


def _dumps(payload: Any) -> str:
    return dumps(payload, separators=(",", ":"))


class NotNamed(Exception):
    """Why ``wanted`` names no one stored session (none, or several: which), as the end of a sentence."""


def _one_named(rows: list[dict[str, Any]], wanted: str, where: str) -> dict[str, Any]:
    from kandev_tui.base.sanitize import visible

    if len(rows) == 1:
        return rows[0]
    if not rows:
        raise NotNamed(f"no session {wanted!r} ({where})")
    shown = ", ".join(f"{row['id']} ({visible(row['title'] or 'untitled', keep_newlines=False)[:30]})"
                      for row in rows[:5])
    more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
    raise NotNamed(f"{wanted!r} matches {len(rows)} sessions: {shown}{more}; give more of the id")


def _resumable(rows: list[dict[str, Any]], named: Any, command: list[str], wanted: str) -> dict[str, Any]:
    from .continuing import NotContinuable, how_continued, newest_to_continue, why_not

    if not wanted:
        return newest_to_continue(rows, command)
    try:
        session: dict[str, Any] = named(wanted)
    except NotNamed as exc:
        raise NotContinuable(str(exc)) from None
    if not how_continued(session):  # the session's own facts; whose command and who runs it now are run's to say
        raise NotContinuable(why_not(session))
    return session


class EmptyStore:
    """The session database before anything is stored in it (the default one, not made yet), or where nothing is
    stored (a replay): every read finds nothing, and nothing is written or made."""

    path = None

    def close(self) -> None:
        pass

    def sessions(self) -> list[dict[str, Any]]:
        return []

    def matching_sessions(self, prefix: str) -> list[dict[str, Any]]:
        return []

    def session(self, session_id: str) -> dict[str, Any] | None:
        return None

    def items(self, session_id: str) -> list[Item]:
        return []

    def iter_items(self, session_id: str) -> Iterator[Item]:
        return iter(())

    def named(self, wanted: str) -> dict[str, Any]:
        """As :meth:`Store.named`: here, never found."""
        return _one_named([], wanted, "nothing is stored yet")

    def resumable(self, command: list[str], wanted: str) -> dict[str, Any]:
        """As :meth:`Store.resumable`: here, never found."""
        return _resumable([], self.named, command, wanted)

    def search(self, text: str, limit: int = 50, progress: Callable[[int, int], None] | None = None) -> list[Hit]:
        fts_query(text)  # (nothing to search for is said as the store would say it)
        return []


class Store(Database):
    """One connection to the session database."""

    def close(self) -> None:
        self._db.close()

    # -- sessions ------------------------------------------------------------

    @_said
    def create_session(self, *, title: str = "", agent_command: list[str] | None = None, workspace: str = "",
                       state: str = "running", recording: str | None = None) -> str:
        """A new session, owned by this process (see :mod:`.owner`)."""
        session_id = uuid.uuid4().hex[:12]
        now = time.time()
        self._db.execute(
            "INSERT INTO sessions (id, title, agent_command, workspace, created, updated, state, recording, owner) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, _column(title), _dumps(agent_command or []), _column(workspace), now, now, state, recording,
             this_process()),
        )
        return session_id

    def set_queued(self, session_id: str, messages: list[str]) -> None:
        """The messages queued in a session and not sent yet (none: cleared); kept for when it is continued."""
        self.update_session(session_id, queued=json.dumps(messages) if messages else None)

    @_said
    def update_session(self, session_id: str, **fields: Any) -> None:
        """Change a session's columns; a session set ``running`` is this process's from then on."""
        allowed = {"title", "state", "agent_session_id", "recording", "workspace", "continues", "queued"}
        sets = {k: v for k, v in fields.items() if k in allowed}
        if sets.get("state") == "running":
            sets["owner"] = this_process()
        if not sets:
            return
        columns = ", ".join(f"{k} = ?" for k in sets)
        self._db.execute(f"UPDATE sessions SET {columns}, updated = ? WHERE id = ?",
                         (*map(_column, sets.values()), time.time(), session_id))

    def session(self, session_id: str) -> dict[str, Any] | None:
        """The session with this id, or the only one it is a prefix of; None when none or several match."""
        rows = self.matching_sessions(session_id)
        return rows[0] if len(rows) == 1 else None

    def matching_sessions(self, prefix: str) -> list[dict[str, Any]]:
        """The session whose id is ``prefix`` exactly, else every session whose id starts with it (compared
        literally: ``%`` and ``_`` are characters, not wildcards), newest first."""
        exact = self._session_rows("WHERE s.id = ?", (prefix,))
        if exact or not prefix:
            return exact
        return self._session_rows("WHERE substr(s.id, 1, ?) = ?", (len(prefix), prefix))

    def sessions(self) -> list[dict[str, Any]]:
        """All sessions, newest first, with their item counts."""
        return self._session_rows("", ())

    def named(self, wanted: str) -> dict[str, Any]:
        """The one stored session ``wanted`` names (its id, or a prefix of one id only); :class:`NotNamed` says why
        there is none."""
        return _one_named(self.matching_sessions(wanted), wanted, "see 'kandev-tui sessions'")

    def resumable(self, command: list[str], wanted: str) -> dict[str, Any]:
        """The stored session ``run --resume`` continues: the one ``wanted`` names, else (``wanted`` empty) the newest
        of the agent ``command`` that can be continued (:mod:`.continuing`'s rule, which :class:`~kandev_tui.
        transcript.continuing.NotContinuable` says the failure of)."""
        return _resumable(self.sessions(), self.named, command, wanted)

    def delete_session(self, session_id: str) -> None:
        """The session gone from the store, its items with it, and its agent's log (kandev-tui's own file; a
        recording the user asked for is theirs, and stays). One another kandev-tui runs is refused."""
        (row,) = self._session_rows("WHERE s.id = ?", (session_id,)) or (None,)
        if row is None:
            return
        if row.get("running_elsewhere"):
            raise StoreError(f"session {session_id} is running in another kandev-tui (pid {row['running_elsewhere']})")
        self._delete(session_id)
        (self.path.parent / "logs" / f"{session_id}.log").unlink(missing_ok=True)

    @_said
    def _delete(self, session_id: str) -> None:
        self._db.execute("DELETE FROM items WHERE session_id = ?", (session_id,))
        self._db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    @_said
    def _session_rows(self, where: str, args: tuple[Any, ...]) -> list[dict[str, Any]]:
        """Sessions as dicts. A session left ``running`` by a process that is gone reads as ``interrupted``; one that
        another live process runs says so in ``running_elsewhere`` (that process's pid)."""
        if self._empty:
            return []
        columns = ", ".join(c if c.startswith("NULL") else f"s.{c}" for c in self._columns)
        rows = self._db.execute(
            f"SELECT {columns}, (SELECT count(*) FROM items i WHERE i.session_id = s.id) "
            f"FROM sessions s {where} ORDER BY s.created DESC",
            args,
        ).fetchall()
        out = []
        mine = this_process()
        for row in rows:
            record = dict(zip((*SESSION_COLUMNS, "items"), row))
            try:
                record["agent_command"] = json.loads(record["agent_command"])
            except ValueError:
                record["agent_command"] = []
            record["queued"] = _queued(record["queued"])
            owner = record.pop("owner")
            if record["state"] == "running" and owner != mine:
                alive = owner_alive(owner)
                if alive is False:
                    record["state"] = "interrupted"
                elif alive:
                    record["running_elsewhere"] = owner_pid(owner)
            out.append(record)
        return out

    # -- items ---------------------------------------------------------------

    @_said
    def upsert_items(self, session_id: str, items: Iterable[Item]) -> int:
        """Write a batch of item states in one transaction (last state per key wins)."""
        latest: dict[str, Item] = {}
        for item in items:
            latest[item.key] = item
        if not latest:
            return 0
        now = time.time()
        rows = [
            (session_id, session_id, item.key, item.kind, item.turn, item.tool_call_id, item.status,
             _dumps(item.payload), now)
            for item in latest.values()
        ]
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(
                "INSERT INTO items (session_id, seq, key, kind, turn, tool_call_id, status, payload, updated) "
                "VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM items WHERE session_id = ?), ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (session_id, key) DO UPDATE SET kind = excluded.kind, turn = excluded.turn, "
                "tool_call_id = excluded.tool_call_id, status = excluded.status, payload = excluded.payload, "
                "updated = excluded.updated",
                rows,
            )
            db.execute("UPDATE sessions SET updated = ? WHERE id = ?", (now, session_id))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return len(rows)

    def items(self, session_id: str, *, start: int = 0, limit: int | None = None) -> list[Item]:
        """Items in sequence order (``start`` is a 0-based offset)."""
        return list(self.iter_items(session_id, start=start, limit=limit))

    @_said
    def packed_items(self, session_id: str) -> list[Item]:
        """Every item in order, each payload kept compressed and parsed when used (:class:`PackedItem`): for
        opening a session, which builds widgets for only a window of its items."""
        cursor = self._db.execute(
            "SELECT key, kind, turn, status, tool_call_id, payload FROM items WHERE session_id = ? ORDER BY seq",
            (session_id,),
        )
        return [PackedItem(key, kind, turn, payload, status=status, tool_call_id=tool_call_id)
                for key, kind, turn, status, tool_call_id, payload in cursor]

    @_said
    def iter_items(self, session_id: str, *, start: int = 0, limit: int | None = None) -> Iterator[Item]:
        cursor = self._db.execute(
            "SELECT key, kind, turn, status, tool_call_id, payload FROM items WHERE session_id = ? "
            "ORDER BY seq LIMIT ? OFFSET ?",
            (session_id, -1 if limit is None else limit, start),
        )
        for key, kind, turn, status, tool_call_id, payload in cursor:
            try:
                data = json.loads(payload)
            except ValueError:
                data = {"unreadable": True}
            yield Item(key, kind, turn, data, status=status, tool_call_id=tool_call_id, final=True)

    @_said
    def item_payload(self, session_id: str, key: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT payload FROM items WHERE session_id = ? AND key = ?", (session_id, key)).fetchone()
        return json.loads(row[0]) if row else None

    def search(self, text: str, limit: int = 50, progress: Callable[[int, int], None] | None = None) -> list[Hit]:
        """The items of every stored session that hold every word of ``text``, best first
        (:mod:`~kandev_tui.transcript.searching`); what was stored since the last search is indexed first (unless the
        database was opened read-only), ``progress(done, total)`` told as it goes: a step at a time, so that the
        sessions storing meanwhile (other threads) wait for one step at most."""
        fts_query(text)
        indexed = None
        if not self.read_only and self._searchable():
            todo = self._call(searching.backlog)
            for at in range(0, len(todo.items), searching.INDEX_AT_ONCE):
                self._call(searching.index, todo.items[at:at + searching.INDEX_AT_ONCE])
                if progress is not None:
                    progress(min(at + searching.INDEX_AT_ONCE, len(todo.items)), len(todo.items))
            indexed = self._call(searching.caught_up, todo)
        return self._call(search, text, limit, indexed)

    def _searchable(self) -> bool:
        return self._call(searching.has_index)

    @_said
    def _call(self, step: Callable[..., T], *args: Any) -> T:
        """One step of a search on the connection, alone on it (see :func:`~.database.said`)."""
        return step(self._db, *args)

    # -- Kandev sessions (kandev-tui attach) -------------------------------------

    @_said
    def kandev_session(self, backend: str, session_id: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT task_id, title, revision, complete, updated FROM kandev_sessions WHERE backend = ? AND session_id = ?",
            (backend, session_id)).fetchone()
        if row is None:
            return None
        return dict(zip(("task_id", "title", "revision", "complete", "updated"), row)) | {"complete": bool(row[3])}

    @_said
    def save_kandev_session(self, backend: str, session_id: str, **fields: Any) -> None:
        current = self.kandev_session(backend, session_id) or {"task_id": "", "title": "", "revision": None,
                                                               "complete": False}
        current.update({k: v for k, v in fields.items() if k in ("task_id", "title", "revision", "complete")})
        self._db.execute(
            "INSERT INTO kandev_sessions (backend, session_id, task_id, title, revision, complete, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (backend, session_id) DO UPDATE SET task_id = excluded.task_id, "
            "title = excluded.title, revision = excluded.revision, complete = excluded.complete, updated = excluded.updated",
            (backend, session_id, _column(current["task_id"] or ""), _column(current["title"] or ""), current["revision"],
             int(bool(current["complete"])), time.time()))

    @_said
    def kandev_rows(self, backend: str, session_id: str) -> list[dict[str, Any]]:
        """The cached rows of a Kandev session, oldest first."""
        out = []
        for (text,) in self._db.execute("SELECT row FROM kandev_rows WHERE backend = ? AND session_id = ? "
                                        "ORDER BY created_at, row_id", (backend, session_id)):
            try:
                row = json.loads(text)
            except ValueError:
                continue
            if isinstance(row, dict):
                out.append(row)
        return out

    @_said
    def save_kandev_rows(self, backend: str, session_id: str, rows: Iterable[dict[str, Any]]) -> int:
        """Upsert rows by id, in one transaction."""
        values = [(backend, session_id, str(r["id"]), str(r.get("created_at") or ""), str(r.get("updated_at") or ""),
                   _dumps(r)) for r in rows]
        if not values:
            return 0
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(
                "INSERT INTO kandev_rows (backend, session_id, row_id, created_at, updated_at, row) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (backend, session_id, row_id) DO UPDATE SET created_at = excluded.created_at, "
                "updated_at = excluded.updated_at, row = excluded.row", values)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return len(values)

    @_said
    def item_count(self, session_id: str) -> int:
        count: int = self._db.execute("SELECT count(*) FROM items WHERE session_id = ?", (session_id,)).fetchone()[0]
        return count


def _queued(column: Any) -> list[str]:
    """The queued messages a session's column holds (damage reads as none)."""
    try:
        messages = json.loads(column) if column else []
    except ValueError:
        return []
    return [m for m in messages if isinstance(m, str)] if isinstance(messages, list) else []
