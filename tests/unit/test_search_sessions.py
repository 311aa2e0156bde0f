"""Search every stored session (issue 62, item 7): the database's full-text index of each item's text, kept as items
are stored, grown, re-stored and deleted; an older database indexed once as it is migrated, or scanned when it is
only read; ``kandev-tui sessions --grep`` as one line per hit or JSON lines, what agents wrote kept inert."""

from __future__ import annotations

import json
import sqlite3

import pytest

from kandev_tui.transcript.database import APPLICATION_ID, MIGRATIONS, statements
from kandev_tui.transcript.items import Item
from kandev_tui.transcript.searching import MARK_END, MARK_START, NothingToFind
from kandev_tui.transcript.store import Store

from ..support.cli import run


def stored(store: Store, title: str, items: list[Item]) -> str:
    session = store.create_session(title=title, agent_command=["agent"], workspace="/w", state="ended")
    store.upsert_items(session, items)
    return session


def message(n: int, text: str, kind: str = "agent_message", turn: int = 1) -> Item:
    return Item(f"{kind}:{n}", kind, turn, {"text": text})


def test_every_session_is_searched_for_every_word_and_the_index_follows_what_is_stored(tmp_path):
    store = Store(tmp_path / "s.db")
    first = stored(store, "Flaky test", [message(1, "Fix the flaky test in ci", "user_message"),
                                         message(2, "The retry loop in the runner was the cause."),
                                         Item("tool:1", "tool_call", 1, {"title": "Read runner.py", "status": "done"})])
    second = stored(store, "Café", [message(1, "Le café est prêt", "thought", turn=2)])
    hits = store.search("RETRY runner")
    assert [(h.session_id, h.key, h.kind, h.turn, h.seq) for h in hits] == [(first, "agent_message:2",
                                                                               "agent_message", 1, 1)]
    assert f"{MARK_START}retry{MARK_END}" in hits[0].context and f"{MARK_START}runner{MARK_END}" in hits[0].context
    assert [h.key for h in store.search("runner.py")] == ["tool:1"]  # a call's title
    assert [h.session_id for h in store.search("cafe pret")] == [second]  # case and accents aside
    assert store.search("retry café") == []  # every word, in one item
    store.upsert_items(first, [message(2, "The retry loop in the runner was the cause. Fixed with a backoff.")])
    assert [h.key for h in store.search("backoff")] == ["agent_message:2"]  # a message stored again as it grew
    store.upsert_items(first, [message(2, "Rewritten: nothing about it now.")])
    assert store.search("backoff") == [] and [h.key for h in store.search("rewritten")] == ["agent_message:2"]
    store.delete_session(first)
    assert store.search("rewritten") == [] and store.search("cafe")


@pytest.mark.parametrize("text", ['"', 'NEAR(a b)', "a*", "-retry", "retry OR", "col:x", "^x", "(", "a AND"])
def test_what_is_typed_is_words_never_fts_syntax(tmp_path, text):
    store = Store(tmp_path / "s.db")
    stored(store, "t", [message(1, f"the text holds {text} as it is")])
    store.search(text)  # no syntax error, whatever it finds


def test_what_was_stored_since_the_index_caught_up_is_found_by_a_reader_too(tmp_path):
    """A search indexes what was stored since the last; a read-only reader (another process, a file it may not
    write) finds what came after that by reading it, and the two kinds of hit read alike."""
    store = Store(tmp_path / "s.db")
    early = stored(store, "Early", [message(1, "An early word: pelican.")])
    assert [h.session_id for h in store.search("pelican")] == [early]  # indexed now
    late = stored(store, "Late", [message(1, "A late word: Pélican, again.")])
    store.close()
    reader = Store(tmp_path / "s.db", create=False)
    hits = reader.search("pelican")
    assert {h.session_id for h in hits} == {early, late}
    assert all(f"{MARK_START}" in h.context and "pelican" in h.context.casefold().replace("é", "e") for h in hits)


def test_nothing_to_search_for_is_said(tmp_path):
    store = Store(tmp_path / "s.db")
    with pytest.raises(NothingToFind):
        store.search("   ")


def old_database(path, items: list[tuple[str, str, dict]]) -> None:
    """A database as kandev-tui wrote it before the index (schema 5), with items."""
    db = sqlite3.connect(path)
    for step in range(1, 6):
        for statement in statements(MIGRATIONS[step]):
            db.execute(statement)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA user_version = 5")
    db.execute("INSERT INTO sessions (id, title, created, updated, state) VALUES ('old1', 'Old one', 1, 1, 'ended')")
    for seq, (key, kind, payload) in enumerate(items, 1):
        db.execute("INSERT INTO items (session_id, seq, key, kind, payload, updated) VALUES ('old1', ?, ?, ?, ?, 1)",
                   (seq, key, kind, json.dumps(payload)))
    db.commit()
    db.close()


def test_an_older_database_is_scanned_when_only_read_and_indexed_once_when_opened_to_write(tmp_path):
    path = tmp_path / "old.db"
    old_database(path, [("m:1", "agent_message", {"text": "An old answer about migrations."}),
                        ("u:1", "user_message", {"text": "How do migrations work?"}),
                        ("n:1", "note", {"text": "migrations, but a note: not searched"})])
    reading = Store(path, create=False)
    scanned = [(h.key, h.seq) for h in reading.search("MIGRATIONS")]
    reading.close()
    assert sorted(scanned) == [("m:1", 0), ("u:1", 1)]
    writing = Store(path)  # migrated: indexed once
    assert sorted((h.key, h.seq) for h in writing.search("migrations")) == scanned
    assert all(MARK_START in h.context for h in writing.search("migrations"))


def test_sessions_grep_prints_one_line_per_hit_or_json_and_keeps_agents_text_inert(tmp_path):
    db = tmp_path / "s.db"
    store = Store(db)
    session = stored(store, "Deploy \x1b[31mred\x1b[0m", [message(1, "The deploy \x1b]52;c;aGk=\x07failed on the "
                                                                  "canary host; rolling back now.")])
    store.close()
    out = run("sessions", "--grep", "canary", "--db", str(db))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[:3] == ["ID", "TURN", "WHO"] and len(lines) == 2
    assert lines[1].startswith(session) and "agent" in lines[1] and "canary host" in lines[1]
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    as_json = run("sessions", "--grep", "canary", "--json", "--db", str(db))
    hit = json.loads(as_json.stdout)
    assert hit["session"] == session and hit["key"] == "agent_message:1" and "canary" in hit["context"]
    assert MARK_START not in hit["context"]
    indexed = sqlite3.connect(db).execute("SELECT count(*) FROM items_text WHERE items_text MATCH 'canary'").fetchone()
    assert indexed == (1,)  # the search indexed what was stored since the last (none)
    none = run("sessions", "--grep", "nowhere", "--db", str(db))
    assert none.returncode == 0 and "No stored item holds 'nowhere'" in none.stdout
    empty = run("sessions", "--grep", " ", "--db", str(db))
    assert empty.returncode != 0 and "give a word to search for" in empty.stderr and "Traceback" not in empty.stderr
