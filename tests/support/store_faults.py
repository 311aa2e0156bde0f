"""Session databases to damage: one filled with sessions of many items (its pages all in the main file), and
the damage itself (leaf pages of named tables overwritten, found only when their rows are read)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kandev_tui.transcript import Item, Store


def filled(path: Path, sessions: int = 3, items: int = 200) -> list[str]:
    store = Store(path)
    ids = []
    for n in range(sessions):
        sid = store.create_session(title=f"session {n}", agent_command=["agent"], state="ended")
        store.upsert_items(sid, [Item(f"message:{i}", "agent_message", 1, {"text": f"line {i} " * 40}, final=True)
                                 for i in range(items)])
        ids.append(sid)
    store.close()
    db = sqlite3.connect(path)  # everything in the main file (no WAL beside it), as a copied database would be
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return ids


def damage(path: Path, *names: str) -> int:
    """Overwrite the leaf pages of the tables and indexes ``names`` (never the first page): the header is good, and
    the damage is found only when their rows are read. How many pages were damaged."""
    db = sqlite3.connect(path)
    size = db.execute("PRAGMA page_size").fetchone()[0]
    pages = [row[0] for name in names
             for row in db.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf'", (name,))]
    db.close()
    with open(path, "r+b") as handle:
        for page in pages:
            handle.seek((page - 1) * size)
            handle.write(b"\xff" * size)
    return len(pages)
