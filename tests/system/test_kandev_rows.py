"""Kandev rows → transcript items: the adapter, the attachment's merge rules and the cache (no backend needed).

The rows were captured from a real Kandev 0.95.1 backend (see the fixture's ``captured_from``).
"""

from __future__ import annotations

import pytest

from kandev_tui.kandev.connection import KandevError, backend_key, normalize_url
from kandev_tui.kandev.rows import row_item, turn_number
from kandev_tui.transcript.items import AGENT, NOTE, PERMISSION, PLAN, THOUGHT, TOOL, USER

from ..support.kandev_rows import ROWS


def test_every_captured_row_becomes_one_item_keyed_by_its_id():
    items = [row_item(r) for r in ROWS]
    assert all(item is not None for item in items)
    assert [i.key for i in items] == [f"kandev:{r['id']}" for r in ROWS]
    kinds = [i.kind for i in items]
    assert kinds.count(USER) == 1 and AGENT in kinds and THOUGHT in kinds and PLAN in kinds
    assert PERMISSION in kinds and kinds.count(TOOL) == 9  # read, search, 2 × execute, edit, 4 × rich output
    assert {i.turn for i in items if i.kind != NOTE} == {turn_number(ROWS[1]["turn_id"])}


def test_urls():
    assert normalize_url("127.0.0.1:38429") == "ws://127.0.0.1:38429/ws"
    assert normalize_url("http://devbox:9000") == "ws://devbox:9000/ws"
    assert normalize_url("wss://k.example/ws?x=1") == "wss://k.example/ws?x=1"
    assert backend_key("ws://127.0.0.1:38429/ws") == "127.0.0.1:38429"
    with pytest.raises(KandevError, match="not a Kandev address"):
        normalize_url("ftp://x")
