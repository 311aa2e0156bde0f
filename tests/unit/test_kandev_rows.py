"""Kandev rows → transcript items: the adapter, the attachment's merge rules and the cache (no backend needed).

The rows were captured from a real Kandev 0.95.1 backend (see the fixture's ``captured_from``).
"""

from __future__ import annotations

import asyncio
import json

import pytest

from kandev_tui.kandev.attach import instant
from kandev_tui.kandev.rows import row_item, sort_key
from kandev_tui.presentation.stored import State, read_stored_call
from kandev_tui.renderers import Registry
from kandev_tui.transcript import Store
from kandev_tui.transcript.items import COMPLETE, FAILED, NOTE

from ..support.kandev_rows import ROWS, attachment


def rows_of(kind: str) -> list[dict]:
    return [r for r in ROWS if r["type"] == kind]


def test_tool_rows_become_the_neutral_tool_payload():
    read = row_item(rows_of("tool_read")[0])
    assert read.payload["name"] == "read" and read.payload["input"]["raw_input"] == {"path": "reports/build.json"}
    assert "412" in read.payload["output"] and read.status == COMPLETE and read.final
    search = row_item(rows_of("tool_search")[0])
    assert "src/billing.py:9" in search.payload["output"]
    failed = [row_item(r) for r in rows_of("tool_execute") if r["content"] == "make lint"][0]
    assert failed.status == FAILED and failed.payload["output"]["exit_code"] == 2
    assert "48 bytes of stderr" in failed.payload["output"]["note"]  # Kandev keeps sizes, not text: say so


def test_a_kandev_rich_output_row_parses_with_its_csv_snapshot():
    registry = Registry.from_entry_points()
    calls = [row_item(r) for r in rows_of("tool_call")]
    assert len(calls) == 4
    for call in calls:
        assert registry.match(call.payload) is not None  # matched by the title mcp__kandev__show_rich_output_kandev
    p = calls[1].payload
    parsed = read_stored_call(p["name"], p["title"], p["status"], p["input"], p["output"])
    assert parsed.state is State.READY, parsed.reason
    chart = parsed.presentation.blocks[0]
    assert chart.labels[0] == "2026-08-10T09:12:00Z" and chart.series[1].values[2] is None
    rejected = calls[3]
    assert rejected.status == FAILED


def test_permission_rows_pending_and_answered():
    answered = row_item(rows_of("permission_request")[0])
    assert answered.status == "answered" and answered.payload["answer"]["name"] == "Allow once"
    assert [o["optionId"] for o in answered.payload["options"]] == ["allow", "reject"]
    pending = json.loads(json.dumps(rows_of("permission_request")[0]))
    pending["metadata"].pop("permission_resolution")
    pending["metadata"]["status"] = "pending"
    item = row_item(pending)
    assert item.status == "pending" and "answer" not in item.payload and not item.final


@pytest.mark.reliability("Kandev attach", "malformed or unknown Kandev rows (unknown type, no type, metadata not an "
                         "object, null shapes, odd todos and options, null content)", cases=1,
                         held="each became an item (unknown types a one-line note); nothing raised")
@pytest.mark.parametrize("row", [
    {"id": "x1", "type": "some_future_type", "content": "hello"},
    {"id": "x2"},
    {"id": "x3", "type": "tool_call", "metadata": "not a dict"},
    {"id": "x4", "type": "tool_execute", "metadata": {"normalized": {"kind": "shell_exec", "shell_exec": None}}},
    {"id": "x5", "type": "todo", "metadata": {"todos": [None, 3, {"text": "ok", "done": True}]}},
    {"id": "x6", "type": "permission_request", "metadata": {"options": "nope"}},
    {"message_id": "x7", "type": "message", "author_type": "agent", "content": None},
])
def test_odd_rows_never_raise(row):
    item = row_item(row)
    assert item is not None and item.key == f"kandev:{row.get('id') or row.get('message_id')}"
    if row.get("type") == "some_future_type":
        assert item.kind == NOTE and "some_future_type: hello" in item.payload["text"]


def test_rows_without_an_id_are_skipped():
    assert row_item({"type": "message"}) is None and row_item("nope") is None  # type: ignore[arg-type]


def test_instants_sort_although_kandev_trims_trailing_zeros():
    assert instant("2026-11-30T23:14:14.5Z") > instant("2026-11-30T23:14:14.45Z")
    assert instant("2026-11-30T23:14:14.5Z") < instant("2026-11-30T23:14:14.50001Z")
    assert instant("2026-11-30T23:14:14Z") < instant("2026-11-30T23:14:14.000000001Z")


def test_merge_appends_updates_in_place_and_never_goes_back():
    att, seen = attachment()
    att.merge(ROWS[:10])
    assert seen.batches == [[f"kandev:{r['id']}" for r in ROWS[:10]]]
    older = dict(ROWS[5], content="an older state", updated_at="2000-01-01T00:00:00Z")
    assert att.merge([older]) == []  # an older updated_at never replaces a newer one
    assert att.merge([dict(ROWS[5])]) == []  # the same state again: nothing to show
    newer = dict(ROWS[5], content="grown", updated_at="2099-01-01T00:00:00Z")
    assert [i.key for i in att.merge([newer])] == [f"kandev:{ROWS[5]['id']}"]
    assert seen.resets == []


def test_an_older_page_arrives_as_one_reset_in_order():
    att, seen = attachment()
    att.merge(ROWS[15:])
    att.merge(ROWS[:15])  # the older page
    assert seen.resets == [[f"kandev:{r['id']}" for r in ROWS]]


def test_the_cache_shows_rows_at_once_and_survives_a_reopen(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    att, _ = attachment(store)
    att.merge(ROWS)
    att.title = "Show me the build times"
    att.complete = True
    att.history.save_meta()
    store.close()
    store = Store(tmp_path / "db.sqlite")
    again, seen = attachment(store)
    assert again.history.load_cache() == len(ROWS)
    assert seen.batches == [[f"kandev:{r['id']}" for r in ROWS]]
    assert again.complete and again.title == "Show me the build times"
    assert again.task_id == ROWS[0]["task_id"]


def test_a_version_1_database_migrates_and_keeps_its_sessions(tmp_path):
    import sqlite3

    from kandev_tui.transcript.database import APPLICATION_ID, MIGRATIONS

    path = tmp_path / "v1.sqlite"
    db = sqlite3.connect(path)
    for statement in MIGRATIONS[1].split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute("INSERT INTO sessions (id, title, created, updated) VALUES ('s1', 'old', 1, 1)")
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    store = Store(path)
    assert store.session("s1")["title"] == "old"
    assert store.kandev_rows("h:1", "s") == []


def test_a_page_in_newest_first_order_is_shown_oldest_first():
    att, seen = attachment()
    att.merge(list(reversed(ROWS[:6])))
    assert seen.batches == [[f"kandev:{r['id']}" for r in ROWS[:6]]] and seen.resets == []


def test_an_unanswered_request_stops_waiting_when_the_turn_is_cancelled():
    """Kandev leaves the row as it was; a later status row of the turn ('Turn cancelled by user') ends it."""
    request = json.loads(json.dumps(rows_of("permission_request")[0]))
    request["metadata"].pop("permission_resolution")
    request["metadata"].pop("status", None)
    before = [r for r in ROWS if r["created_at"] < request["created_at"]]
    att, seen = attachment()
    att.merge(before + [request])
    assert att.pending_permissions() == {f"kandev:{request['id']}"}
    cancelled = {"id": "zz-status", "type": "status", "content": "Turn cancelled by user", "turn_id": request["turn_id"],
                 "session_id": request["session_id"], "created_at": "2099-01-01T00:00:00Z", "updated_at": "2099-01-01T00:00:00Z"}
    items = att.merge([cancelled])
    assert att.pending_permissions() == set()
    again = [i for i in items if i.key == f"kandev:{request['id']}"]
    assert again and again[0].status == "cancelled" and again[0].payload["answer"] == {"outcome": "cancelled"}


class Pages:
    """A connection that serves the rows' ``message.list`` pages newest first, as Kandev does."""

    def __init__(self, rows: list[dict]):
        self.rows = sorted(rows, key=sort_key, reverse=True)
        self.asked: list[dict] = []
        self.closed = asyncio.Event()

    async def request(self, method: str, payload: dict) -> dict:
        assert method == "message.list"
        self.asked.append(payload)
        start = 0 if "before" not in payload else next(
            i for i, row in enumerate(self.rows) if row["id"] == payload["before"]) + 1
        page = self.rows[start:start + payload["limit"]]
        return {"messages": page, "has_more": start + len(page) < len(self.rows), "cursor": page[-1]["id"] if page else None}


async def test_the_history_pages_back_until_it_overlaps_what_is_kept_and_all_is_settled():
    att, seen = attachment(page_size=5)
    pages = Pages(ROWS)
    await att.history.sync(pages)  # nothing kept: the newest page is enough (older ones come on demand)
    assert len(pages.asked) == 1 and not att.complete and att.fetched == 5
    att.connection = pages  # type: ignore[assignment]
    while await att.history.load_older():
        pass
    assert att.complete and len(att.rows) == len({row["id"] for row in ROWS})
    asked = len(pages.asked)
    att.session_state = "COMPLETED"  # the agent no longer works: only unfinished rows may still change
    await att.history.sync(pages)  # everything kept: it pages back only as far as a row that may have changed
    again = len(pages.asked) - asked
    assert 1 <= again < asked, (again, asked)
