"""Searching every stored session (``kandev-tui sessions --grep``): the full-text index's cost and speed.

Stores SESSIONS sessions of ITEMS items each (user prompts, agent messages of a few sentences, thoughts, tool calls;
their words drawn from a vocabulary of 5,000, a few rare ones planted), in transactions of 256 items as the pipeline
writes them, twice: into a database with the index (schema 6) and into one without it (the index's triggers
dropped), in turns, fifty sessions at a time. Prints the time to store each way and the index's share (target: the
index adds <= 10% to storing: storing does nothing more, the first search indexes what was stored, timed apart),
then the median and worst of 20 queries of each kind: a rare word, two common words, a word in every session
(target: <= 50 ms a query, 50 hits at most, as ``--grep`` asks).

    .venv/bin/python benchmarks/search.py [SESSIONS] [ITEMS]    (default: 1,000 sessions of 1,000 items)
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kandev_tui.transcript.items import Item  # noqa: E402
from kandev_tui.transcript.store import Store  # noqa: E402

BATCH = 256
KINDS = ("user_message", "agent_message", "agent_message", "thought", "tool_call")


def session_items(rng: random.Random, words: list[str], count: int, planted: str | None) -> list[Item]:
    items = []
    for n in range(count):
        kind = KINDS[n % len(KINDS)]
        text = " ".join(rng.choice(words) for _ in range(rng.randint(8, 60))) + "."
        if planted is not None and n == count // 2:
            text += f" {planted}"
        payload = {"title": text[:60], "status": "completed"} if kind == "tool_call" else {"text": text}
        items.append(Item(f"{kind}:{n}", kind, n // 10 + 1, payload))
    return items


def store_all(store: Store, sessions: list[list[Item]]) -> float:
    spent = 0.0
    for items in sessions:
        started = time.perf_counter()
        session = store.create_session(title="a session", agent_command=["agent"], workspace="/w", state="ended")
        for at in range(0, len(items), BATCH):
            store.upsert_items(session, items[at:at + BATCH])
        spent += time.perf_counter() - started
    return spent


def main(count: int, per: int) -> None:
    rng = random.Random(7)
    words = [f"w{n}" for n in range(5000)]
    sessions = [session_items(rng, words, per, "zanzibar" if n % 97 == 0 else None) for n in range(count)]
    tmp = Path(tempfile.mkdtemp())
    indexed, plain = Store(tmp / "indexed.db"), Store(tmp / "plain.db")
    for statement in ("DROP TRIGGER items_text_gone", "DROP TABLE items_text", "DROP TABLE search_state"):
        plain._db.execute(statement)
    with_index = without = 0.0
    for at in range(0, count, 50):  # in turns, fifty sessions at a time
        with_index += store_all(indexed, sessions[at:at + 50])
        without += store_all(plain, sessions[at:at + 50])
    print(f"stored {count:,} sessions of {per:,} items: {without:.1f} s without the index, {with_index:.1f} s with it "
          f"(+{(with_index / without - 1) * 100:.0f}%; target <= 10%): storing does nothing more, a search indexes")
    counted: list[int] = []
    started = time.perf_counter()
    indexed.search("zanzibar", 50, progress=lambda done, total: counted.append(total))
    spent = time.perf_counter() - started
    items = counted[-1] if counted else 0
    print(f"the first search indexed the {items:,} items stored before it: {spent:.1f} s "
          f"({spent / max(1, items) * 1e6:.0f} µs an item, once)")
    time.sleep(2.5)  # (past the seconds a search looks at again: the queries below read the index alone)
    indexed.search("zanzibar", 50)
    for label, text in (("a rare word", "zanzibar"), ("two common words", "w17 w4242"), ("a word in every session",
                                                                                           "w1")):
        times, found = [], 0
        for _ in range(20):
            started = time.perf_counter()
            found = len(indexed.search(text, 50))
            times.append(time.perf_counter() - started)
        print(f"{label} ({text!r}): {found} hits, median {statistics.median(times) * 1000:.1f} ms, worst "
              f"{max(times) * 1000:.1f} ms (target <= 50 ms)")
    store_all(indexed, sessions[:10])  # ten sessions more, not indexed yet: a reader reads them through
    reader = Store(tmp / "indexed.db", create=False)
    started = time.perf_counter()
    found = len(reader.search("zanzibar", 50))
    print(f"a read-only search with {10 * per:,} items stored since the index caught up (read through): {found} hits "
          f"in {(time.perf_counter() - started) * 1000:.0f} ms")


if __name__ == "__main__":
    from benchargs import arguments

    ARGS = arguments(__doc__, ("sessions", int, 1000, "sessions stored"), ("items", int, 1000, "items each"))
    main(ARGS.sessions, ARGS.items)
