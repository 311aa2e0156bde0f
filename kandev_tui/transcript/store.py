"""The session store: SQLite (stdlib), WAL, a schema version with migrations.

Sessions ``(id, title, agent command, workspace, created, updated, state)``
and items ``(session, seq, key, kind, tool call id, status, payload, updated)``.
Items are upserted by ``(session, key)``: a streamed message updates its row in
place and keeps the sequence number it was first given. Every batch of
updates is one transaction, committed before the caller shows it.

A database written by a newer kandev-tui, or one that is not a kandev-tui
database, raises :class:`StoreError` with what to do, and is never modified.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any, Iterable, Iterator

from kandev_tui.jsonutil import dumps

from .items import Item, PackedItem

SCHEMA_VERSION = 3
APPLICATION_ID = 0x4B54_5549  # "KTUI": marks the file as kandev-tui's

_SCHEMA_V1 = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    agent_command TEXT NOT NULL DEFAULT '[]',
    workspace TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    updated REAL NOT NULL,
    state TEXT NOT NULL DEFAULT 'running',
    agent_session_id TEXT,
    recording TEXT
);
CREATE TABLE items (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    key TEXT NOT NULL,
    kind TEXT NOT NULL,
    turn INTEGER NOT NULL DEFAULT 0,
    tool_call_id TEXT,
    status TEXT,
    payload TEXT NOT NULL,
    updated REAL NOT NULL,
    PRIMARY KEY (session_id, seq),
    UNIQUE (session_id, key)
);
CREATE INDEX items_by_kind ON items(session_id, kind);
"""

# v2: sessions attached on a Kandev backend, cached as Kandev's own rows (the source of truth; items are
# derived from them on load, so a better adapter improves old caches too)
_SCHEMA_V2 = """
CREATE TABLE kandev_sessions (
    backend TEXT NOT NULL,
    session_id TEXT NOT NULL,
    task_id TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
    revision INTEGER,
    complete INTEGER NOT NULL DEFAULT 0,
    updated REAL NOT NULL,
    PRIMARY KEY (backend, session_id)
);
CREATE TABLE kandev_rows (
    backend TEXT NOT NULL,
    session_id TEXT NOT NULL,
    row_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    row TEXT NOT NULL,
    PRIMARY KEY (backend, session_id, row_id)
);
CREATE INDEX kandev_rows_in_order ON kandev_rows(backend, session_id, created_at, row_id);
"""

# v3: how the agent of a session can continue it (``resume``, ``load``; NULL: it cannot), with its own
# session id (agent_session_id, in v1 already): ``kandev-tui run --resume``
_SCHEMA_V3 = """
ALTER TABLE sessions ADD COLUMN continues TEXT;
"""

MIGRATIONS: dict[int, str] = {1: _SCHEMA_V1, 2: _SCHEMA_V2, 3: _SCHEMA_V3}


def _column(value: Any) -> Any:
    """A text column as UTF-8 can hold it: lone surrogates (from JSON escapes) become U+FFFD."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in value)
    return value


class StoreError(Exception):
    """The database cannot be used; the message says why and what to do."""


class StoreMissing(StoreError):
    """A command that only reads was given a database file that does not exist (nothing was created)."""


def default_db_path() -> Path:
    """``KANDEV_TUI_DB`` if set, else ``sessions.db`` in the platform data directory."""
    override = os.environ.get("KANDEV_TUI_DB")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_path

    return user_data_path("kandev-tui", appauthor=False) / "sessions.db"


def _dumps(payload: Any) -> str:
    return dumps(payload, separators=(",", ":"))


class Store:
    """One connection to the session database."""

    def __init__(self, path: str | Path | None = None, *, create: bool = True) -> None:
        """Open the database at ``path`` (default: :func:`default_db_path`). ``create``: make it (and its
        directories) if missing; otherwise a missing file raises :class:`StoreMissing` and nothing is made."""
        from kandev_tui.userpaths import output_problem

        self.path = Path(path) if path is not None else default_db_path()
        problem = output_problem(self.path, make_parents=True)
        if not create and not self.path.exists() and problem is None:
            raise StoreMissing(f"the session database {self.path} does not exist")
        if problem is not None:
            raise StoreError(f"the session database {self.path} cannot be used: {problem}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"the session database {self.path} cannot be used: {exc.strerror or exc}") from None
        try:
            self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            self._prepare()
        except sqlite3.OperationalError as exc:  # cannot be opened or written: not a sign of damage
            raise StoreError(f"the session database {self.path} cannot be used: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path} is not a kandev-tui database or is damaged ({exc}). "
                "It was left untouched: move it aside, or choose another file with --db or KANDEV_TUI_DB."
            ) from None

    def _prepare(self) -> None:
        db = self._db
        db.execute("PRAGMA busy_timeout = 30000")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        tables = db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer kandev-tui (schema {version}; this one knows {SCHEMA_VERSION}). "
                "It was left untouched: upgrade kandev-tui, or choose another file with --db or KANDEV_TUI_DB."
            )
        if tables and app_id != APPLICATION_ID:
            raise StoreError(
                f"{self.path} is an SQLite database of another program. "
                "It was left untouched: choose another file with --db or KANDEV_TUI_DB."
            )
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = ON")
        if version < SCHEMA_VERSION:
            db.execute("BEGIN IMMEDIATE")
            try:
                current = db.execute("PRAGMA user_version").fetchone()[0]  # another process may have migrated
                for step in range(current + 1, SCHEMA_VERSION + 1):
                    for statement in MIGRATIONS[step].split(";"):
                        if statement.strip():
                            db.execute(statement)
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        self._db.close()

    # -- sessions ------------------------------------------------------------

    def create_session(self, *, title: str = "", agent_command: list[str] | None = None, workspace: str = "",
                       state: str = "running", recording: str | None = None) -> str:
        session_id = uuid.uuid4().hex[:12]
        now = time.time()
        self._db.execute(
            "INSERT INTO sessions (id, title, agent_command, workspace, created, updated, state, recording) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (session_id, _column(title), _dumps(agent_command or []), _column(workspace), now, now, state, recording),
        )
        return session_id

    def update_session(self, session_id: str, **fields: Any) -> None:
        allowed = {"title", "state", "agent_session_id", "recording", "workspace", "continues"}
        sets = {k: v for k, v in fields.items() if k in allowed}
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

    def _session_rows(self, where: str, args: tuple[Any, ...]) -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT s.id, s.title, s.agent_command, s.workspace, s.created, s.updated, s.state, s.agent_session_id, "
            "s.recording, s.continues, (SELECT count(*) FROM items i WHERE i.session_id = s.id) "
            f"FROM sessions s {where} ORDER BY s.created DESC",
            args,
        ).fetchall()
        keys = ("id", "title", "agent_command", "workspace", "created", "updated", "state", "agent_session_id",
                "recording", "continues", "items")
        out = []
        for row in rows:
            record = dict(zip(keys, row))
            try:
                record["agent_command"] = json.loads(record["agent_command"])
            except ValueError:
                record["agent_command"] = []
            out.append(record)
        return out

    # -- items ---------------------------------------------------------------

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

    def packed_items(self, session_id: str) -> list[Item]:
        """Every item in order, each payload kept compressed and parsed when used (:class:`PackedItem`): for
        opening a session, which builds widgets for only a window of its items."""
        cursor = self._db.execute(
            "SELECT key, kind, turn, status, tool_call_id, payload FROM items WHERE session_id = ? ORDER BY seq",
            (session_id,),
        )
        return [PackedItem(key, kind, turn, payload, status=status, tool_call_id=tool_call_id)
                for key, kind, turn, status, tool_call_id, payload in cursor]

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

    def item_payload(self, session_id: str, key: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT payload FROM items WHERE session_id = ? AND key = ?", (session_id, key)).fetchone()
        return json.loads(row[0]) if row else None

    # -- Kandev sessions (kandev-tui attach) -------------------------------------

    def kandev_session(self, backend: str, session_id: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT task_id, title, revision, complete, updated FROM kandev_sessions WHERE backend = ? AND session_id = ?",
            (backend, session_id)).fetchone()
        if row is None:
            return None
        return dict(zip(("task_id", "title", "revision", "complete", "updated"), row)) | {"complete": bool(row[3])}

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

    def item_count(self, session_id: str) -> int:
        return self._db.execute("SELECT count(*) FROM items WHERE session_id = ?", (session_id,)).fetchone()[0]
