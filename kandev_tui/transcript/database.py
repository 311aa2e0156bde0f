"""Opening the session database: the schema and its migrations, read-only opening for commands that only read, and
SQLite's errors as one line that says what to do (:class:`StoreError`).

A database written by a newer kandev-tui, or one that is not a kandev-tui database, raises :class:`StoreError`,
and is never modified; so does one damaged anywhere, whenever the damage is read (:func:`said`). Commands that
only read open the database read-only: a file they may not write is still read, and an older schema is read as it
is (what it lacks reads as empty).
"""

from __future__ import annotations

import functools
import inspect
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any, Callable, TypeVar

SCHEMA_VERSION = 6
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

# v4: the process that runs a session (``host:pid:started``, transcript/owner.py): a session left ``running`` by a
# process that is gone reads as ``interrupted``
# (sessions left running before owners were kept were left by a process that is gone: no other could know them)
_SCHEMA_V4 = """
ALTER TABLE sessions ADD COLUMN owner TEXT;
UPDATE sessions SET state = 'interrupted' WHERE state = 'running';
"""

# v5: the messages the user queued in a session and that were not sent yet (a JSON list of strings; NULL: none),
# offered again when the session is continued
_SCHEMA_V5 = """
ALTER TABLE sessions ADD COLUMN queued TEXT;
"""

# v6: every stored session's words, searchable (``kandev-tui sessions --grep``, transcript/searching.py): an SQLite
# full-text index (FTS5) of each item's text (a message's, a thought's, the user's; a tool call's title). Storing
# does nothing more than before (a flood is stored as fast): a search first indexes the items written since the
# last one looked (their ``updated`` time, in sessions whose ``updated`` says so: ``search_state``), and a read-only
# one reads those items' text itself. Deleted items leave the index at once. Row ids are the items' own.
SEARCHED = ("'user_message'", "'agent_message'", "'thought'", "'tool_call'")
SEARCHED_KIND = "{row}.kind IN (" + ", ".join(SEARCHED) + ")"
TEXT_OF = ("CASE WHEN {row}.kind = 'tool_call' THEN json_extract({row}.payload, '$.title') "
           "ELSE json_extract({row}.payload, '$.text') END")
_SCHEMA_V6 = """
CREATE VIRTUAL TABLE items_text USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE search_state (indexed_until REAL NOT NULL);
INSERT INTO search_state (indexed_until) VALUES (0);
CREATE TRIGGER items_text_gone AFTER DELETE ON items BEGIN
    DELETE FROM items_text WHERE rowid = old.rowid;
END;
"""

MIGRATIONS: dict[int, str] = {1: _SCHEMA_V1, 2: _SCHEMA_V2, 3: _SCHEMA_V3, 4: _SCHEMA_V4, 5: _SCHEMA_V5,
                              6: _SCHEMA_V6}
SESSION_COLUMNS = ("id", "title", "agent_command", "workspace", "created", "updated", "state", "agent_session_id",
                   "recording", "continues", "owner", "queued")


def statements(script: str) -> list[str]:
    """The SQL statements of ``script``, each whole (a trigger's body holds semicolons of its own)."""
    out: list[str] = []
    pending = ""
    for part in script.split(";"):
        pending += part + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                out.append(pending.strip())
            pending = ""
    return out


class StoreError(Exception):
    """The database cannot be used; the message says why and what to do. ``reason``: for a file that cannot be
    used at all (not a problem of what is in it), why, in a few words (the command line names the option)."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason


class StoreMissing(StoreError):
    """A command that only reads was given a database file that does not exist (nothing was created)."""


F = TypeVar("F", bound=Callable[..., Any])


def said(method: F) -> F:
    """SQLite's errors from ``method`` (a generator's too, as it is read) as a :class:`StoreError` that says what to
    do: a database damaged past what opening it reads (``database disk image is malformed``) is found only when
    that part is read."""

    def as_store_error(store: Any, exc: sqlite3.Error) -> StoreError:
        if isinstance(exc, sqlite3.OperationalError):
            return StoreError(f"the session database {store.path} cannot be used: {exc}")
        error: StoreError = store.damaged(exc, untouched=store.read_only)
        return error

    if inspect.isgeneratorfunction(method):
        @functools.wraps(method)
        def reading(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                yield from method(self, *args, **kwargs)
            except sqlite3.Error as exc:
                raise as_store_error(self, exc) from None
        return reading  # type: ignore[return-value]

    @functools.wraps(method)
    def calling(self: Any, *args: Any, **kwargs: Any) -> Any:
        # one call at a time on the connection: several sessions' pipelines write from threads of their own, and a
        # second BEGIN on the shared connection failed ("cannot start a transaction within a transaction"), which
        # stopped storing that session
        with self._calls:
            try:
                return method(self, *args, **kwargs)
            except sqlite3.Error as exc:
                raise as_store_error(self, exc) from None
    return calling  # type: ignore[return-value]


def default_db_path() -> Path:
    """``KANDEV_TUI_DB`` if set, else ``sessions.db`` in the platform data directory."""
    override = os.environ.get("KANDEV_TUI_DB")
    if override:
        return Path(override).expanduser()
    return own_db_path()


def own_db_path() -> Path:
    """``sessions.db`` in kandev-tui's own folder of the platform data directory: the one folder whose permissions it
    may tighten (a database the user names, ``$KANDEV_TUI_DB`` or ``--db``, may be in a folder others share: ``/tmp``
    made 0700 locked every other user out of it)."""
    from platformdirs import user_data_path

    return user_data_path("kandev-tui", appauthor=False) / "sessions.db"


class Database:
    """One connection to the session database, opened as :class:`~kandev_tui.transcript.store.Store` asks."""

    def __init__(self, path: str | Path | None = None, *, create: bool = True) -> None:
        """Open the database at ``path`` (default: :func:`default_db_path`). ``create``: make it (and its
        directories) if missing, to read and write. Otherwise (commands that only read) it is opened read-only: a
        missing file raises :class:`StoreMissing` and nothing is made, and a file that may not be written is still
        read."""
        self._calls = threading.RLock()  # one call at a time on the shared connection (see :func:`said`)
        self.path = Path(path) if path is not None else default_db_path()
        self.read_only = not create
        self._columns: tuple[str, ...] = SESSION_COLUMNS
        self._empty = False
        try:
            if self.read_only:
                self._db = self._open_read_only()
            else:
                self._db = self._open_to_write()
            self._prepare()
        except sqlite3.OperationalError as exc:  # cannot be opened or written: not a sign of damage
            raise StoreError(f"the session database {self.path} cannot be used: {exc}", str(exc)) from None
        except sqlite3.DatabaseError as exc:
            raise self.damaged(exc) from None

    def damaged(self, exc: BaseException, *, untouched: bool = True) -> StoreError:
        """The line for a file SQLite cannot read (``untouched``: nothing was written to it)."""
        return StoreError(
            f"{self.path} is not a kandev-tui database or is damaged ({exc}). "
            + ("It was left untouched: move it aside" if untouched else "Move it aside")
            + ", or choose another file with --db or KANDEV_TUI_DB.")

    def _open_to_write(self) -> sqlite3.Connection:
        from kandev_tui.base.userpaths import output_problem

        problem = output_problem(self.path, make_parents=True)
        if problem is not None:
            raise StoreError(f"the session database {self.path} cannot be used: {problem}", problem)
        from kandev_tui.base.userpaths import private_dir

        try:  # kandev-tui's data folder (0700, however an older version made it) and the database (0600) are private
            private_dir(self.path.parent, tighten=self.path == own_db_path())
            if not self.path.exists():
                os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError as exc:
            reason = str(exc.strerror or exc)
            raise StoreError(f"the session database {self.path} cannot be used: {reason}", reason) from None
        return sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)

    def _open_read_only(self) -> sqlite3.Connection:
        """The file as it is, never written: ``mode=ro``; where SQLite cannot read a WAL database that way (its
        ``-shm`` file cannot be made beside it: a folder or file that may not be written), as immutable."""
        if not self.path.exists():
            from kandev_tui.base.userpaths import directory_problem

            problem = directory_problem(self.path.parent)  # a file where a folder should be is said as such
            if problem is not None and "is not a directory" in problem:
                raise StoreError(f"the session database {self.path} cannot be used: {problem}", problem)
            raise StoreMissing(f"the session database {self.path} does not exist", "does not exist")
        if self.path.is_dir():
            raise StoreError(f"the session database {self.path} cannot be used: is a directory", "is a directory")
        if not os.access(self.path, os.R_OK):
            raise StoreError(f"the session database {self.path} cannot be used: not readable", "not readable")
        uri = self.path.absolute().as_uri()
        for query in ("mode=ro", "mode=ro&immutable=1"):
            db = sqlite3.connect(f"{uri}?{query}", uri=True, timeout=30, isolation_level=None,
                                 check_same_thread=False)
            try:
                db.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return db
            except sqlite3.OperationalError:
                db.close()
                if "immutable" in query:
                    raise
        raise AssertionError("unreachable")

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
        if self.read_only:  # read as it is: what an older schema lacks reads as empty
            self._empty = tables == 0
            have = {row[1] for row in db.execute("PRAGMA table_info(sessions)")}
            self._columns = tuple(c if c in have else f"NULL AS {c}" for c in SESSION_COLUMNS)
            return
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = ON")
        if version < SCHEMA_VERSION:
            db.execute("BEGIN IMMEDIATE")
            try:
                current = db.execute("PRAGMA user_version").fetchone()[0]  # another process may have migrated
                for step in range(current + 1, SCHEMA_VERSION + 1):
                    for statement in statements(MIGRATIONS[step]):
                        db.execute(statement)
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

