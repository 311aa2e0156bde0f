"""The session database as users meet it: damaged past what opening it reads, a file that may not be written, and
sessions left ``running`` by a process that is gone, or still run by another one."""

from __future__ import annotations

import sqlite3

import pytest

from kandev_tui.transcript import Store, StoreError

from ..support.store_faults import damage, filled


def test_a_store_error_from_a_damaged_page_names_the_file(tmp_path):
    db = tmp_path / "s.db"
    ids = filled(db, sessions=1)
    damage(db, "items")
    store = Store(db, create=False)
    try:
        with pytest.raises(StoreError, match="is damaged .*malformed.*left untouched"):
            store.items(ids[0])
        with pytest.raises(StoreError, match="is damaged"):
            list(store.iter_items(ids[0]))
    finally:
        store.close()


def test_sessions_left_running_before_owners_were_kept_are_interrupted_once_migrated(tmp_path):
    from kandev_tui.transcript.database import APPLICATION_ID, MIGRATIONS

    db_path = tmp_path / "old.db"
    db = sqlite3.connect(db_path)
    for step in (1, 2, 3):
        for statement in MIGRATIONS[step].split(";"):
            if statement.strip():
                db.execute(statement)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA user_version = 3")
    db.execute("INSERT INTO sessions (id, created, updated, state) VALUES ('abc', 1, 1, 'running')")
    db.execute("INSERT INTO sessions (id, created, updated, state) VALUES ('def', 2, 2, 'ended')")
    db.commit()
    db.close()
    store = Store(db_path, create=False)  # read as it is: nothing can tell
    assert {row["id"]: row["state"] for row in store.sessions()} == {"abc": "running", "def": "ended"}
    store.close()
    store = Store(db_path)
    assert {row["id"]: row["state"] for row in store.sessions()} == {"abc": "interrupted", "def": "ended"}
    store.close()
