"""The SQLite session store: upserts, schema versions, refusals, concurrency, crashes."""

from __future__ import annotations

import json
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kandev_tui.transcript import Item, Store, StoreError
from kandev_tui.transcript.store import SCHEMA_VERSION, _dumps


def test_wal_and_schema_version(tmp_path):
    path = tmp_path / "s.db"
    Store(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


@pytest.mark.reliability("Store faults", "database written by a newer version", cases=1,
                         held="clear message, file untouched")
def test_newer_database_is_refused_untouched(tmp_path):
    path = tmp_path / "s.db"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer kandev-tui"):
        Store(path)
    assert path.read_bytes() == before


@pytest.mark.reliability("Store faults", "corrupt database", cases=1,
                         held="clear message, file untouched")
def test_corrupt_database_is_refused_untouched(tmp_path):
    path = tmp_path / "s.db"
    path.write_bytes(b"this is not a database at all" * 100)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a kandev-tui database or is damaged"):
        Store(path)
    assert path.read_bytes() == before


@pytest.mark.reliability("Store faults", "another program's SQLite database", cases=1,
                         held="clear message, file untouched")
def test_another_programs_database_is_refused(tmp_path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (x)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="another program"):
        Store(path)


@pytest.mark.reliability("Store faults", "lone surrogates (invalid UTF-8) from an agent", cases=1,
                         held="stored exactly")
def test_lone_surrogates_are_stored_exactly(tmp_path):
    """JSON escapes like "\\ud800" from an agent decode to strings UTF-8 cannot encode: stored and read back as sent."""
    import json

    from kandev_tui.base.jsonutil import dumps

    text = json.loads('"bad \\ud800 and \\udfff bytes, caf\\u00e9"')
    store = Store(tmp_path / "s.db")
    session = store.create_session(title=text)
    store.upsert_items(session, [Item("message:1", "agent_message", 1, {"text": text}, final=True)])
    assert store.items(session)[0].payload["text"] == text
    assert store.session(session)["title"] == "bad \ufffd and \ufffd bytes, café"  # a display string: made valid
    assert json.loads(dumps({"t": text})) == {"t": text} and "café" in dumps({"t": "café"})


async def test_live_frames_are_committed_in_batches(tmp_path):
    """10,000 chunks fed one by one inside the event loop: a handful of transactions, every chunk stored, in order."""
    import asyncio

    from kandev_tui.transcript.frames import IN, Frame
    from kandev_tui.transcript.pipeline import Pipeline

    store = Store(tmp_path / "s.db")
    session = store.create_session(title="flood")
    seen: list[int] = []
    pipeline = Pipeline(store, session, listener=lambda items: seen.append(len(items)))
    for index in range(10_000):
        pipeline.feed(Frame.now(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
            "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"c{index} "}}}}))
    assert pipeline.commits == 0  # nothing written while the loop is busy feeding
    for _ in range(600):  # the batch timer fires once the loop is free (a minute at most on a loaded machine)
        if pipeline.commits:
            break
        await asyncio.sleep(0.1)
    assert pipeline.commits == 1 and seen == [1]
    pipeline.close()
    assert store.items(session)[0].payload["text"] == "".join(f"c{i} " for i in range(10_000))


async def test_the_last_frames_of_a_stream_are_committed_as_soon_as_the_reader_waits(tmp_path):
    """While frames keep coming at every turn of the loop the pipeline is *streaming* and commits by the batch's
    time; the first turn without a frame (the reader waits for the agent) commits what waits at once."""
    import asyncio

    from kandev_tui.transcript.frames import IN, Frame
    from kandev_tui.transcript.pipeline import BATCH_SECONDS, Pipeline

    store = Store(tmp_path / "s.db")
    session = store.create_session(title="stream")
    pipeline = Pipeline(store, session)

    def chunk(index: int) -> Frame:
        return Frame.now(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
            "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"c{index} "}}}})

    loop = asyncio.get_running_loop()
    started = loop.time()
    for turn in range(5):  # frames at each of five turns of the loop, as a reader of a full pipe hands them over
        for index in range(3):
            pipeline.feed(chunk(3 * turn + index))
        assert pipeline.streaming and pipeline.commits == 0  # more keep coming: nothing committed yet
        await asyncio.sleep(0)
    await asyncio.sleep(0)  # a turn without a frame: what waits is committed now, long before the batch's time
    assert pipeline.commits == 1 and not pipeline.streaming and loop.time() - started < BATCH_SECONDS
    assert store.items(session)[0].payload["text"] == "".join(f"c{i} " for i in range(15))
    pipeline.close()


@settings(max_examples=300, deadline=None)
@given(text=st.text(), title=st.text(max_size=20), start=st.integers(0, 40), size=st.integers(1, 12),
       other=st.text(max_size=6), tool=st.booleans())
def test_a_packed_item_rules_out_only_what_it_cannot_mention(text, title, start, size, other, tool):
    """Search skips a packed item only when its stored JSON cannot hold the needle: never a real match missed."""
    from kandev_tui.session.search import item_texts
    from kandev_tui.transcript.items import PackedItem

    payload = {"text": text, "title": title} if not tool else {"name": "read", "input": {"path": title},
                                                                "output": text}
    packed = PackedItem("k", "tool_call" if tool else "agent_message", 1, _dumps(payload))
    assert packed.payload == payload
    texts = [t.casefold() for t in item_texts(packed)]
    for needle in {text[start:start + size].casefold(), other.casefold(), (title + text)[:size].casefold()}:
        if needle and any(needle in t for t in texts):
            assert packed.may_mention(needle), needle


def test_a_packed_item_rules_out_a_needle_without_parsing():
    from kandev_tui.transcript.items import PackedItem, _unpack

    plain = PackedItem("k", "agent_message", 1, _dumps({"text": "Straße\n\x1b[1mbold\x1b[0m"}))
    escaped = PackedItem("k", "agent_message", 1, '{"text":"Stra\\u00dfe"}')  # written with ensure_ascii
    _unpack.cache_clear()
    assert plain.may_mention("strasse") and plain.may_mention("bold") and not plain.may_mention("bolder")
    assert escaped.may_mention("strasse") and escaped.may_mention("anything")  # cannot tell: parse and see
    assert plain.may_mention('"') and plain.may_mention("\n")  # escaped in JSON: cannot tell
    assert _unpack.cache_info().currsize == 0  # none was parsed


def test_call_output_takes_stored_payloads_of_any_shape():
    from kandev_tui.transcript.tools import call_output

    assert call_output({"content": True}) is None and call_output({"content": "text", "shell": 3}) is None
    assert call_output({"shell": {"stdout": 5, "exit_code": 1}}) == "[exit code 1]"


def test_a_flood_of_new_tool_calls_never_looks_in_the_store_and_a_late_update_of_an_old_one_does(tmp_path, monkeypatch):
    """A new call cannot be in the store unless it was released at the end of a turn (or the session is a continued
    one): looking would cost a lookup per call, and each releases the interpreter's lock, which a busy UI thread
    gives back only after a switch interval (with 1,200 calls the source thread fell 0.2-0.4 s behind the agent).
    A late update of a call of an earlier turn is still merged with what the store holds."""
    from kandev_tui.transcript.frames import IN, OUT, Frame
    from kandev_tui.transcript.pipeline import Pipeline

    store = Store(tmp_path / "s.db")
    session = store.create_session(title="calls")
    looked: list[str] = []
    lookup = store.item_payload
    monkeypatch.setattr(store, "item_payload", lambda sid, key: (looked.append(key), lookup(sid, key))[1])

    def update(body: dict) -> Frame:
        return Frame.now(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": body}})

    def turn(prompt_id: int, calls: range) -> list[Frame]:
        frames = [Frame.now(OUT, {"jsonrpc": "2.0", "id": prompt_id, "method": "session/prompt", "params": {
            "sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}})]
        for n in calls:
            frames += [update({"sessionUpdate": "tool_call", "toolCallId": f"c{n}", "title": f"Read f{n}.py",
                               "kind": "read", "status": "pending"}),
                       update({"sessionUpdate": "tool_call_update", "toolCallId": f"c{n}", "status": "completed"})]
        return frames + [Frame.now(IN, {"jsonrpc": "2.0", "id": prompt_id, "result": {"stopReason": "end_turn"}})]

    pipeline = Pipeline(store, session)
    pipeline.feed_many(turn(1, range(0, 300)))
    pipeline.feed_many(turn(2, range(300, 600)))
    assert looked == []  # 600 new calls, no lookup
    pipeline.feed(update({"sessionUpdate": "tool_call_update", "toolCallId": "c7", "content": [
        {"type": "content", "content": {"type": "text", "text": "late words"}}]}))
    pipeline.close()
    assert looked == ["tool:c7"]
    late = {item.key: item for item in store.items(session)}["tool:c7"]
    assert late.payload["title"] == "Read f7.py" and "late words" in json.dumps(late.payload)


def test_several_threads_writing_through_one_store_lose_nothing(tmp_path):
    """The app's sessions share one Store and each pipeline writes from a thread of its own: concurrent transactions
    on the one connection are taken in turn (a second BEGIN failed, and that session was no longer stored)."""
    import threading

    from kandev_tui.transcript import Item, Store

    store = Store(tmp_path / "s.db")
    sessions = [store.create_session(title=f"s{n}") for n in range(6)]
    failures: list[BaseException] = []

    def write(session_id: str) -> None:
        try:
            for batch in range(60):
                store.upsert_items(session_id, [Item(f"m{batch}-{k}", "agent_message", 1, {"text": "x"}, final=True)
                                                for k in range(5)])
                store.update_session(session_id, title=f"batch {batch}")
        except BaseException as exc:  # noqa: BLE001 - the test says which
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(sid,)) for sid in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    assert all(len(store.items(sid)) == 300 for sid in sessions)
    store.close()


def test_a_session_is_named_by_its_id_or_a_prefix_of_one_id_only(tmp_path):
    from kandev_tui.transcript.store import NotNamed

    store = Store(tmp_path / "s.db")
    first = store.create_session(title="First [b]bold[/b]")
    second = store.create_session(title="Second")
    assert store.named(first)["id"] == first and store.named(second[:6])["id"] == second
    with pytest.raises(NotNamed, match=r"no session 'zzz' \(see 'kandev-tui sessions'\)"):
        store.named("zzz")
    ids = [first, second] + [store.create_session() for _ in range(15)]  # 17 ids: two begin with one hex digit
    shared = next(i[0] for i in ids if sum(j[0] == i[0] for j in ids) > 1)
    with pytest.raises(NotNamed, match=f"'{shared}' matches [0-9]+ sessions: .*; give more of the id"):
        store.named(shared)
    store.close()


def test_the_session_to_resume_is_the_named_one_if_its_agent_can_continue_it_else_the_newest_of_the_command(tmp_path):
    from kandev_tui.transcript.continuing import NotContinuable

    store = Store(tmp_path / "s.db")
    never = store.create_session(agent_command=["agent"], state="ended")
    older = store.create_session(agent_command=["agent"], state="ended")
    store.update_session(older, agent_session_id="a-1", continues="resume")
    other = store.create_session(agent_command=["other"], state="ended")
    store.update_session(other, agent_session_id="o-1", continues="load")
    assert store.resumable(["agent"], "")["id"] == older
    assert store.resumable(["agent"], other)["id"] == other  # named: whose command is run's to say
    with pytest.raises(NotContinuable, match=f"session {never} has no agent session to continue"):
        store.resumable(["agent"], never)
    with pytest.raises(NotContinuable, match="no session 'nope'"):
        store.resumable(["agent"], "nope")
    store.close()


def test_the_empty_store_finds_nothing_and_makes_nothing(tmp_path):
    from kandev_tui.transcript.continuing import NotContinuable
    from kandev_tui.transcript.store import EmptyStore, NotNamed

    store = EmptyStore()
    assert store.sessions() == [] and store.matching_sessions("a") == [] and list(store.iter_items("a")) == []
    with pytest.raises(NotNamed, match=r"no session 'abc' \(nothing is stored yet\)"):
        store.named("abc")
    with pytest.raises(NotContinuable):
        store.resumable(["agent"], "")
    store.close()
    assert list(tmp_path.iterdir()) == []
