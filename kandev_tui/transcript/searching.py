"""Search every stored session's words (``kandev-tui sessions --grep``): the database's full-text index (FTS5, schema
6, ``transcript/database.py``) of each item's text, best matches first, each with its session, turn and a line of
context.

Storing an item does nothing more: a search first indexes the items written since the last one looked
(:func:`catch_up`, a chunk at a time, saying how far it is), so a flood is stored as fast as without the index. A
database opened read-only is not written: the text of those items is read and looked at instead, and so is every
item of an older database (no index at all), slower, alike."""

from __future__ import annotations

import re
import sqlite3
import time
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable

from .database import SEARCHED, SEARCHED_KIND, TEXT_OF

MARK_START, MARK_END = "\x02", "\x03"  # around each matched word in a hit's context (the printer draws them)
WORD = re.compile(r"\w+")  # a word, as FTS5's unicode61 tokenizer splits them (near enough: letters and digits)
CONTEXT_WORDS = 14  # words of context around the match (FTS5's snippet)
INDEX_AT_ONCE = 2000  # items indexed per transaction (a progress step)
SETTLING = 2.0  # seconds before a search's start whose writes it looks at again next time (another process may
# have been writing items stamped before the search began, and committed them after it read)
WRITTEN_SINCE = ("items.session_id IN (SELECT id FROM sessions WHERE updated >= {since}) "
                 "AND items.updated >= {since}")  # the items written since a time (the sessions' times find them)


class NothingToFind(ValueError):
    """The text searched for holds no word."""


@dataclass(frozen=True)
class Hit:
    session_id: str
    title: str
    key: str  # the item's
    kind: str
    turn: int
    seq: int  # the item's place in its session (0-based)
    context: str  # a line of the item's text around the match, the matched words between MARK_START and MARK_END

    def to_json(self) -> dict[str, object]:
        return {"session": self.session_id, "title": self.title, "key": self.key, "kind": self.kind,
                "turn": self.turn, "seq": self.seq,
                "context": self.context.replace(MARK_START, "").replace(MARK_END, "")}


def fts_query(text: str) -> str:
    """The words of ``text`` as an FTS5 query that finds items holding all of them, each read as a word (quoted:
    nothing the user typed is FTS5 syntax)."""
    words = text.split()
    if not words:
        raise NothingToFind("give a word to search for")
    return " ".join('"' + word.replace('"', '""') + '"' for word in words)


def _has(db: sqlite3.Connection, table: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None


def has_index(db: sqlite3.Connection) -> bool:
    """Whether the database has the index (schema 6 on)."""
    return _has(db, "items_text")


def indexed_until(db: sqlite3.Connection) -> float:
    """The time from which items written may not be in the index yet."""
    return float(db.execute("SELECT indexed_until FROM search_state").fetchone()[0])


@dataclass(frozen=True)
class Backlog:
    """What a search indexes first: the items written since the index last caught up (:func:`backlog`)."""

    since: float  # the index's time before
    started: float  # when this catch-up began: the index is up to date until then once every item is indexed
    items: list[int]  # their row ids


def backlog(db: sqlite3.Connection) -> Backlog:
    """The items written since the index last caught up (in sessions written since: their times find them)."""
    started = time.time()
    since = indexed_until(db)
    items = [row[0] for row in db.execute(
        f"SELECT items.rowid FROM items WHERE {WRITTEN_SINCE.format(since='?')} AND {SEARCHED_KIND.format(row='items')}",
        (since, since))]
    return Backlog(since, started, items)


def index(db: sqlite3.Connection, items: list[int]) -> None:
    """These items (row ids) indexed as they are now, in one transaction (the database opened to write)."""
    marks = ",".join("?" * len(items))
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(f"DELETE FROM items_text WHERE rowid IN ({marks})", items)
        db.execute(f"INSERT INTO items_text (rowid, text) SELECT rowid, {TEXT_OF.format(row='items')} FROM items "
                   f"WHERE rowid IN ({marks}) AND json_valid(payload)", items)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def caught_up(db: sqlite3.Connection, done: Backlog) -> float:
    """Every item of ``done`` is indexed: the next catch-up starts from a little before it began (another process
    may have stamped items before it and committed them after). Returns the time the index is now up to date until."""
    db.execute("UPDATE search_state SET indexed_until = ?", (max(done.since, done.started - SETTLING),))
    return done.started


def catch_up(db: sqlite3.Connection, progress: Callable[[int, int], None] | None = None) -> float:
    """Index every item written since the last search looked, :data:`INDEX_AT_ONCE` per transaction
    (``progress(done, total)`` after each); returns the time the index is up to date until. (The database opened to
    write, not in a transaction; :meth:`~kandev_tui.transcript.store.Store.search` takes these steps one at a time,
    so that the sessions storing meanwhile wait for one step at most.)"""
    todo = backlog(db)
    for at in range(0, len(todo.items), INDEX_AT_ONCE):
        index(db, todo.items[at:at + INDEX_AT_ONCE])
        if progress is not None:
            progress(min(at + INDEX_AT_ONCE, len(todo.items)), len(todo.items))
    return caught_up(db, todo)


def search(db: sqlite3.Connection, text: str, limit: int = 50, indexed: float | None = None) -> list[Hit]:
    """The items of every session whose text holds every word of ``text``, best first (at most ``limit``): the
    index's hits, and after them those of the items written since ``indexed`` (the index is up to date until then:
    :func:`catch_up`'s time; by default what the database says), read as they are."""
    query = fts_query(text)
    if not _has(db, "items_text"):
        return _scanned(db, text, limit, "")
    since = indexed_until(db) if indexed is None else indexed
    recent = WRITTEN_SINCE.format(since=repr(since))
    rows = db.execute(
        "SELECT items.session_id, sessions.title, items.key, items.kind, items.turn, items.seq, "
        f"snippet(items_text, 0, '{MARK_START}', '{MARK_END}', '…', {CONTEXT_WORDS}) "
        "FROM items_text JOIN items ON items.rowid = items_text.rowid JOIN sessions ON sessions.id = items.session_id "
        f"WHERE items_text MATCH ? AND NOT ({recent}) ORDER BY rank LIMIT ?", (query, limit)).fetchall()
    hits = [_hit(row) for row in rows]
    if len(hits) < limit:
        hits += _scanned(db, text, limit - len(hits), f"AND {recent}")
    return hits


def _hit(row: tuple[Any, ...]) -> Hit:
    session_id, title, key, kind, turn, seq, context = row
    return Hit(session_id, title or "", key, kind, int(turn or 0), int(seq) - 1, " ".join(str(context or "").split()))


def _scanned(db: sqlite3.Connection, text: str, limit: int, among: str) -> list[Hit]:
    """Items read and looked at (``among``: which, an SQL condition on ``items``), their words read as the index reads
    them: those not indexed yet, or every one of an older database opened read-only."""
    words = _words(text)
    found: list[Hit] = []
    rows = db.execute(
        "SELECT items.session_id, sessions.title, items.key, items.kind, items.turn, items.seq, "
        f"{TEXT_OF.format(row='items')} FROM items JOIN sessions ON sessions.id = items.session_id "
        f"WHERE items.kind IN ({', '.join(SEARCHED)}) AND json_valid(items.payload) {among} "
        "ORDER BY sessions.updated DESC, items.seq")
    for *head, item_text in rows:
        if words <= set(_words(str(item_text or ""))):
            found.append(_hit((*head, _context(str(item_text), words))))
            if len(found) >= limit:
                break
    return found


def _fold(text: str) -> str:
    """As the index's tokenizer reads letters: case and accents aside."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)).casefold()


def _words(text: str) -> set[str]:
    return set(WORD.findall(_fold(text)))


def _context(text: str, words: set[str]) -> str:
    """About :data:`CONTEXT_WORDS` words of ``text`` around the first that matches, marked as the index marks them."""
    tokens = text.split()
    matches = [bool(_words(token) & words) for token in tokens]
    at = matches.index(True) if any(matches) else 0
    start = max(0, at - CONTEXT_WORDS // 2)
    shown = [MARK_START + token + MARK_END if matched else token
             for token, matched in zip(tokens[start:start + CONTEXT_WORDS], matches[start:start + CONTEXT_WORDS])]
    return ("…" if start else "") + " ".join(shown) + ("…" if start + CONTEXT_WORDS < len(tokens) else "")
