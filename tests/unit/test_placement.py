"""Items are placed where they arrive (the source's thread); the UI's thread takes what changed and keeps its own
entries: what it was handed never changes under it, and it ends where placing everything at once ends."""

from __future__ import annotations

import threading

from hypothesis import example, given, settings
from hypothesis import strategies as st

from kandev_tui.demo import fleet as demo
from kandev_tui.renderers.registry import Registry
from kandev_tui.session.changes import TranscriptModel
from kandev_tui.transcript.items import Item

from ..support.app_helpers import fleet_item, message_item

REGISTRY = Registry.from_entry_points()
DIGEST = demo.STEPS[14][3]


def shape(entries) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(e.key, e.kind, tuple(e.item_keys)) for e in entries]


def kid(n: int, spawned_by: str) -> Item:
    payload = {"session_id": f"kid-{n}", "title": "Reviewer", "description": "", "state": "running", "text": "",
               "tools": [], "spawned_by": spawned_by}
    return Item(f"subagent:{n}", "subagent", 1, payload)


def test_placing_on_another_thread_leaves_the_uis_entries_as_they_were_until_it_takes_them():
    model = TranscriptModel(REGISTRY)
    model.apply([message_item(1, "hi"), fleet_item("a", "ping_service", status="pending")])
    handed = model.entries
    group = handed[1]
    assert shape(handed) == [("message:1", "item", ("message:1",)), ("group:tool:a", "group", ("tool:a",))]

    def source() -> None:  # the agent's thread: a second call joins the group, a third comes after a message
        model.place([fleet_item("b", "ping_service", status="pending"), message_item(2, "then")])

    thread = threading.Thread(target=source)
    thread.start()
    thread.join()
    assert shape(model.entries) == [("message:1", "item", ("message:1",)), ("group:tool:a", "group", ("tool:a",))]
    assert group.item_keys == ["tool:a"] and "tool:b" not in model.items  # nothing the UI holds changed
    assert model.summary(group) == "1 tool: ping_service"
    changes = model.take()
    assert changes.new_entries == 1 and list(changes.updated) == ["tool:b"] and changes.keys == ["tool:b", "message:2"]
    assert shape(model.entries)[1:] == [("group:tool:a", "group", ("tool:a", "tool:b")), ("message:2", "item",
                                                                                             ("message:2",))]
    assert model.entries[1] is not group and group.item_keys == ["tool:a"]  # the group was copied, then changed
    assert model.summary(model.entries[1]) == "2 tools: ping_service" and model.entry_of["tool:b"] is model.entries[1]
    assert not model.take()  # nothing more was placed


def test_a_change_set_waiting_for_the_ui_gathers_every_placing_since_it_last_took_one():
    model = TranscriptModel(REGISTRY)
    model.apply([fleet_item("d", "fleet_digest", status="pending"), fleet_item("p", "ping_service",
                                                                              status="pending")])
    model.place([fleet_item("p", "ping_service", {"ok": True})])  # an update of an entry the UI has
    model.place([fleet_item("d", "fleet_digest", DIGEST)])  # then the group's first call becomes a card
    changes = model.take()
    assert [(old, entry.key, entry.kind) for old, entry in changes.rebuilt] == [("group:tool:d", "tool:d", "card")]
    assert changes.new_entries == 1 and changes.updated == {}  # the rest of the group is a new entry, built anew
    assert shape(model.entries) == [("tool:d", "card", ("tool:d",)), ("group:tool:p", "group", ("tool:p",))]
    assert model.summary(model.entries[1]) == "1 tool: ping_service · 1 card"


STEPS = st.lists(st.tuples(st.sampled_from(["message", "plain", "pending", "finish", "card", "kid", "take"]),
                           st.integers(0, 5)), max_size=40)


@settings(max_examples=80, deadline=None)
@given(STEPS)
# found by this test: a card placed with eight messages after it in one batch left its group's summary "1 tool:
# ping_service" (only the last eight entries were looked at for cards); a card in a run whose group came before a
# call of an earlier run that finished into a card (appended last) did too
@example([("plain", 0), ("card", 1)] + [("message", 1)] * 7 + [("message", 0)])
@example([("plain", 0), ("pending", 0), ("message", 0), ("plain", 0), ("finish", 0), ("finish", 0)])
def test_what_the_ui_was_handed_never_changes_and_ends_as_placing_everything_at_once(steps):
    """Random arrivals (messages, grouped calls, calls finishing into cards, subagents inside their calls) placed in
    chunks, the UI taking now and then: every entry it was handed keeps the shape it had when handed; after each
    take its entries are the layout's; at the end they are what one placing of every item gives, group summaries
    too."""
    model = TranscriptModel(REGISTRY)
    arrived: list[Item] = []
    chunk: list[Item] = []
    handed: list[tuple[object, tuple]] = []  # (entry, its shape when handed)
    pending: list[str] = []
    for n, (step, pick) in enumerate(steps):
        if step == "take":
            model.place(chunk)
            chunk = []
            model.take()
            assert shape(model.entries) == shape(model.layout.entries)
            assert all(model.entry_of[key] is e for e in model.entries for key in e.item_keys)
            assert [e.index for e in model.entries] == list(range(len(model.entries)))
            handed += [(e, shape([e])[0]) for e in model.entries]
            continue
        if step == "message":
            item = message_item(n, "words")
        elif step == "plain":
            item = fleet_item(f"p{n}", "ping_service", {"ok": True})
        elif step == "pending":
            item = fleet_item(f"d{n}", "fleet_digest", status="pending")
            pending.append(f"d{n}")
        elif step == "finish" and pending:
            item = fleet_item(pending.pop(pick % len(pending)), "fleet_digest", DIGEST)
        elif step == "kid" and pending:
            item = kid(n, pending[pick % len(pending)])
        else:
            item = fleet_item(f"c{n}", "fleet_digest", DIGEST)
        arrived.append(item)
        chunk.append(item)
        if pick == 0:
            model.place(chunk)
            chunk = []
    model.place(chunk)
    model.take()
    assert all(shape([entry])[0] == was for entry, was in handed)
    at_once = TranscriptModel(REGISTRY)
    at_once.apply(arrived)
    assert shape(model.entries) == shape(at_once.entries)
    assert [model.summary(e) for e in model.entries] == [at_once.summary(e) for e in at_once.entries]
    assert model.items == at_once.items


def test_the_session_model_places_items_on_the_thread_they_arrive_on():
    """The source's thread places (the layout has the entries before the UI's loop runs); the UI's loop takes them
    when the batch goes."""
    from kandev_tui.session.batch import FLUSH_SECONDS

    from ..support.models import Clock, session_model

    model, ui, loop = session_model(Clock(), REGISTRY)
    placed_on: list[int] = []
    place = model.transcript.place
    model.transcript.place = lambda items: (placed_on.append(threading.get_ident()), place(items))  # type: ignore
    source = threading.Thread(target=model.receive_items, args=([message_item(1, "a"), fleet_item(
        "d", "fleet_digest", DIGEST)],))
    source.start()
    source.join()
    assert placed_on == [source.ident] and shape(model.transcript.layout.entries) == [
        ("message:1", "item", ("message:1",)), ("tool:d", "card", ("tool:d",))]
    assert not model.transcript.entries and not ui.applied  # the UI has nothing yet
    loop.run(FLUSH_SECONDS)
    assert [c.keys for c in ui.applied] == [["message:1", "tool:d"]]
    assert shape(model.transcript.entries) == shape(model.transcript.layout.entries)
