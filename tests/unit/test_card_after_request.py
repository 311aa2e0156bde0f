"""A chart comes below the answer that allowed it (issue 65, item 7): a card that shows what its call made moves below
the permission request for its call, live (versions as they came) as in a stored session (the final items), for the
sessions recorded from the real adapters."""

from __future__ import annotations

import pytest

from kandev_tui.renderers import Registry
from kandev_tui.session.layout import Layout
from kandev_tui.transcript.items import PERMISSION
from kandev_tui.transcript.replay import items_from_recording

from ..support.frames import RECORDINGS, versions


def shape(layout: Layout) -> list[tuple[str, list[str]]]:
    return [(entry.kind, entry.item_keys) for entry in layout.entries]


@pytest.mark.parametrize("name", ["claude-real", "gemini-real", "opencode-real", "codex-real"])
def test_a_chart_comes_below_the_request_that_allowed_it_live_as_when_stored(name):
    registry = Registry.from_entry_points()
    live, stored = Layout(registry), Layout(registry)
    for item in versions(RECORDINGS / f"{name}.jsonl"):
        live.place(item)
    final = items_from_recording(RECORDINGS / f"{name}.jsonl")
    for item in final:
        stored.place(item)
    assert shape(live) == shape(stored)
    assert [e.index for e in live.entries] == list(range(len(live.entries)))
    assert all(live.by_key[e.key] is e for e in live.entries)
    requests = {item.tool_call_id: item.key for item in final if item.kind == PERMISSION}
    cards = [e for e in live.entries if e.kind == "card" and e.renderer is not None and e.renderer.after_request]
    assert cards, "the recording has a chart"
    asked = 0
    for card in cards:
        call = live.calls[card.item_keys[0]]
        if call.tool_call_id in requests:
            asked += 1
            assert live.entry_of[requests[call.tool_call_id]].index < card.index, (name, shape(live))
    assert asked or name in ("codex-real", "opencode-real")  # (these two ran their charts without asking)
    for moved in (e for e in live.entries if e.kind == "moved"):  # only a chart moves: an edit's card shows what is
        call = live.calls[moved.key.removeprefix("moved:")]  # asked about, and stays where its call is
        assert registry.match(call.payload).after_request and call.tool_call_id in requests
