"""The fleet renderer pack: shapes, drawing, fallbacks, entry points, sorting, folding and promotion."""

from __future__ import annotations

import io
import json
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from kandev_tui.demo import fleet as demo
from kandev_tui.packs.fleet import PACK, PLUMBING, RENDERERS
from kandev_tui.packs.fleet import draw as D
from kandev_tui.packs.fleet import models as M
from kandev_tui.renderers import Registry, ResultShapeError, renderer_id_of
from kandev_tui.session.layout import Layout

from ..support.app_helpers import fleet_item, message_item
from ..support.drawing import text_of
from ..support.fleet import RESULTS, promotion_items



def model_for(renderer_id: str):
    return getattr(M, PACK[renderer_id][1])


def test_the_demo_data_covers_every_renderer():
    assert set(RESULTS) == set(PACK)


# what each card must show of the demo result
EXPECTED = {
    "entity_card": ["ops-agent", "agent", "healthy", "on duty", "version 0.9.4", "last checked 12s ago"],
    "fleet_snapshot": ["41", "healthy", "3", "degraded", "1", "down", "2", "drift", "taken 2026-11-30 14:19 UTC"],
    "health_summary": ["41 healthy", "3 degraded", "1 down", "1 unknown", "46 entities", "█"],
    "entity_table": ["slug ▲", "web-02", "degraded", "db-replica", "down", "queue-01", "unknown"],
    "metric_chart": ["p95_latency_ms", "24 buckets", "min 109", "max 410", "last 410", "12:00 → 13:55", "▁", "█"],
    "blast_radius": ["If web-02 fails: 5 entities affected", "direct (2)", "1 hop (2)", "2 hops (1)", "partner-feed"],
    "change_log": ["12:40", "deploy-bot", "deployed 2.14.1", "14:02", "health degraded"],
    "knowledge_results": ["Runbook: web tier latency", "#runbook", "Postmortem 2026-09-14"],
    "lxc_list": ["name", "host", "IP", "web-02", "10.0.3.12", "pve-1", "stopped"],
}


@pytest.mark.parametrize("renderer_id", sorted(PACK))
def test_each_shape_is_accepted_and_drawn(renderer_id):
    result = model_for(renderer_id).model_validate(RESULTS[renderer_id][3])
    assert not result.is_empty
    shown = text_of(D.DRAW[renderer_id](result))
    for expected in EXPECTED[renderer_id]:
        assert expected in shown, (expected, shown)
    narrow = text_of(D.DRAW[renderer_id](result), width=36)
    assert all(len(line) <= 36 for line in narrow.splitlines())


REJECTED = {
    "entity_card": {"type": "service"},  # no slug
    "health_summary": {"healthy": "many", "degraded": 0, "down": 0},
    "lxc_list": {"containers": []},
    "entity_table": {"entities": [{"type": "service"}]},
    "knowledge_results": {"results": "none"},
    "metric_chart": {"metric": "cpu", "buckets": [{"t": "yesterday", "value": 1}]},
    "blast_radius": {"root": "web-02", "impacted": [{"slug": "a", "hops": -1}]},
    "change_log": {"entries": [{"summary": "no time"}]},
    "fleet_snapshot": {"healthy": 1, "degraded": 0, "down": -2},
}


@pytest.mark.parametrize("renderer_id", sorted(PACK))
def test_each_shape_rejects_what_it_does_not_understand(renderer_id):
    from kandev_tui.packs.fleet.cards import parse

    renderer = next(r for r in RENDERERS if r.id == renderer_id)
    tool = PACK[renderer_id][0][0]
    with pytest.raises(ResultShapeError):
        parse(model_for(renderer_id), fleet_item("x", tool, REJECTED[renderer_id]))
    with pytest.raises(ResultShapeError):
        renderer.widget(fleet_item("x", tool, ["not", "an", "object"]))
    with pytest.raises(ResultShapeError):
        renderer.widget(fleet_item("x", tool, "plain text, not JSON"))


EMPTY = {
    "entity_card": None, "health_summary": {"healthy": 0, "degraded": 0, "down": 0}, "lxc_list": {"lxcs": []},
    "entity_table": {"entities": []}, "knowledge_results": {"results": []},
    "metric_chart": {"metric": "cpu", "buckets": [{"t": "2026-11-30T10:00:00Z", "value": None}]},
    "blast_radius": {"root": "web-02", "impacted": []}, "change_log": {"entries": []},
    "fleet_snapshot": {"healthy": 0, "degraded": 0, "down": 0},
}
EMPTY_TEXT = {
    "health_summary": "No entities reported.", "lxc_list": "No LXCs.", "entity_table": "No entities.",
    "knowledge_results": "No knowledge found.", "metric_chart": "cpu: no data in this window.",
    "blast_radius": "If web-02 fails: nothing else is affected.", "change_log": "No changes in this window.",
    "fleet_snapshot": "The snapshot has no entities.",
}


@pytest.mark.parametrize("renderer_id", sorted(set(PACK) - {"entity_card"}))
def test_empty_results_draw_a_minimal_card(renderer_id):
    result = model_for(renderer_id).model_validate(EMPTY[renderer_id])
    assert result.is_empty
    assert text_of(D.DRAW[renderer_id](result)).strip() == EMPTY_TEXT[renderer_id]


def test_health_words_and_times():
    entity = M.EntityResult.model_validate({"slug": "a", "health": "DEGRADED", "last_checked": "2026-11-30T10:00:00",
                                            "as_of": "2026-11-30T12:30:00+00:00"})
    assert entity.health == "degraded" and entity.last_checked.tzinfo is not None
    assert M.EntityResult.model_validate({"slug": "a", "health": "on fire"}).health == "unknown"
    assert "last checked 2h ago" in text_of(D.entity(entity))
    base = entity.as_of
    from datetime import timedelta

    assert [M.relative_time(base - timedelta(seconds=s), base) for s in (-30, 2, 42, 61, 7200, 3 * 86400)] == [
        "just now", "just now", "42s ago", "1m ago", "2h ago", "3d ago"]


def test_stacked_bar_fills_the_width_and_keeps_tiny_counts_visible():
    bar = D.StackedBar([("healthy", 10_000), ("degraded", 1), ("down", 1)])
    for width in (3, 10, 37, 120):
        line = text_of(bar, width=width).rstrip("\n")
        assert len(line) == width and line.count("█") == width
    console = Console(width=40, file=io.StringIO(), color_system="truecolor")
    segments = list(console.render(bar))
    styles = [s.style.color.name for s in segments if s.text.strip()]
    assert styles == ["green", "yellow", "red"]


def test_sparkline_keeps_peaks_when_buckets_outnumber_cells():
    values = [0.0] * 100
    values[57] = 9.0
    line = text_of(D.Sparkline(values), width=10).strip("\n")
    assert len(line) == 10 and line.count("█") == 1 and set(line) == {"▁", "█"}


def test_entity_sort_orders():
    rows = M.EntityListResult.model_validate({"entities": demo.ENTITIES}).entities
    by_health = [r.slug for r in D.sort_entities(list(rows), "health", False)]
    assert by_health[:2] == ["db-replica", "web-02"] and by_health[2] == "queue-01"
    assert [r.slug for r in D.sort_entities(list(rows), "slug", True)][0] == "web-03"
    assert [r.type for r in D.sort_entities(list(rows), "type", False)][0] == "cache"


def test_matching_by_name_and_by_renderer_id():
    registry = Registry(RENDERERS)
    for renderer_id, (tools, _) in PACK.items():
        for tool in tools:
            for item in (fleet_item("a", tool, {}, status="pending"), fleet_item("a", tool, {}, codex=True)):
                assert registry.match(item.payload).id == renderer_id
        assert registry.match(fleet_item("b", "some_other_tool", {"__renderer": renderer_id}).payload).id == renderer_id
        assert registry.match(fleet_item("b", "other", {"__renderer": renderer_id}, codex=True).payload).id == renderer_id
    for tool in PLUMBING:
        assert registry.match(fleet_item("c", tool, {"ok": True}).payload) is None
    assert registry.match(fleet_item("d", "get_topology", {"__renderer": "topology_graph"}).payload) is None
    assert renderer_id_of(fleet_item("e", "x", "plain text mentioning __renderer").payload) is None


def test_the_pack_is_found_only_through_entry_points():
    registry = Registry.from_entry_points()
    assert registry.errors == []
    fleet = [r for r in registry.renderers if r.source == "kandev_tui.packs.fleet:RENDERERS"]
    assert sorted(r.id for r in fleet) == sorted(PACK)
    assert registry.match(fleet_item("a", "get_entity", {}).payload).source == "kandev_tui.packs.fleet:RENDERERS"


PLUGIN = '''
from kandev_tui.renderers import Renderer

def _widget(item):
    from textual.widgets import Static

    class Mine(Static):
        def update_item(self, item):
            pass

    return Mine("drawn by the test plugin")

RENDERER = Renderer(id="my_entity", widget=_widget, tool_names=frozenset({"get_entity"}), priority=10)
'''


def test_a_second_plugin_takes_precedence_as_documented(tmp_path, monkeypatch):
    """Installed the way any plugin is (a distribution with an entry point); priority 10 beats the pack's 0."""
    (tmp_path / "my_plugin.py").write_text(textwrap.dedent(PLUGIN))
    dist = tmp_path / "my_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[kandev_tui.renderers]\nmine = my_plugin:RENDERER\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = Registry.from_entry_points()
    assert registry.errors == []
    assert registry.match(fleet_item("a", "get_entity", {}).payload).id == "my_entity"
    assert registry.match(fleet_item("a", "whoami", {}).payload).id == "entity_card"  # the rest of the pack still draws
    sys.modules.pop("my_plugin", None)


@pytest.mark.parametrize("first", [True, False], ids=["promoted-first", "promoted-second"])
def test_promotion_gives_the_order_a_stored_session_gives(first):
    started, finished = promotion_items(first)
    live = Layout(Registry(RENDERERS))
    for item in [message_item(1, "hi"), *started, *finished, message_item(2, "bye")]:
        live.place(item)
    stored = Layout(Registry(RENDERERS))
    final = {i.key: i for i in finished}
    for item in [message_item(1, "hi"), *[final[i.key] for i in started], message_item(2, "bye")]:
        stored.place(item)
    shape = [(e.kind, e.item_keys) for e in live.entries]
    assert shape == [(e.kind, e.item_keys) for e in stored.entries]
    assert ("card", ["tool:d"]) in shape and ("group", ["tool:p"]) in shape
    assert [e.index for e in live.entries] == list(range(len(live.entries)))
    assert all(live.by_key[e.key] is e for e in live.entries)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["message", "plain", "card", "promoted", "turn"]), max_size=40), st.integers(0, 3))
def test_cards_in_a_run_are_counted_as_they_are_placed(steps, card_limit):
    """The count a group's summary reads per batch (kept as cards are placed, not counted over every entry)
    is the number of card entries of the run, through promotions and the card limit."""
    layout = Layout(Registry(RENDERERS), card_limit)
    digest = demo.STEPS[14][3]
    turn = 1
    for n, step in enumerate(steps):
        if step == "turn":
            turn += 1
        elif step == "message":
            layout.place(message_item(n, "words", turn=turn))
        elif step == "plain":
            layout.place(fleet_item(f"p{n}", "ping_service", {"ok": True}, turn=turn))
        elif step == "card":
            layout.place(fleet_item(f"c{n}", "fleet_digest", digest, turn=turn))
        else:  # pending in the run's group, then finished with a result that names its renderer
            layout.place(fleet_item(f"d{n}", "fleet_digest", status="pending", turn=turn))
            layout.place(fleet_item(f"q{n}", "ping_service", status="pending", turn=turn))
            layout.place(fleet_item(f"d{n}", "fleet_digest", digest, turn=turn))
    for run in {e.run for e in layout.entries}:
        assert layout.cards_in_run(run) == sum(1 for e in layout.entries if e.run == run and e.kind == "card")


def test_fleet_results_in_the_demo_are_valid_json_for_their_tools():
    for _call_id, _tool, arguments, result, status in demo.STEPS:
        json.dumps(arguments)
        if isinstance(result, dict) and result.get("__renderer") in PACK and status == "completed":
            model_for(result["__renderer"]).model_validate(result)


def test_the_name_memo_of_the_registry_stays_bounded():
    """Titles often carry the call's argument ("Read src/m1.py"): a long session matches thousands of distinct
    (name, title) pairs, and the memo of their matches stays bounded while every match stays right."""
    from kandev_tui.renderers.registry import NAME_MEMO_AT_MOST

    registry = Registry(RENDERERS)
    for n in range(3 * NAME_MEMO_AT_MOST):
        assert registry.match({"name": "read", "title": f"Read src/m{n}.py"}) is None
    assert registry.match({"name": "fleet/get_entity", "title": "x"}) is not None
    assert len(registry._by_name) <= NAME_MEMO_AT_MOST


def test_a_match_takes_the_leaf_names_of_a_call_once_not_once_per_renderer(monkeypatch):
    """A flood brings a thousand calls of new titles ("Read src/m1.py") whose match the memo cannot hold; each is
    matched on the UI's thread. Every name renderer read the leaf names of the call's name and title again (18 per
    call with the built-in packs); they are read once."""
    import kandev_tui.renderers.registry as registry_module

    seen = []
    leaf = registry_module.leaf_name
    monkeypatch.setattr(registry_module, "leaf_name", lambda name: seen.append(name) or leaf(name))
    registry = Registry(RENDERERS)
    assert len([r for r in registry.renderers if r.matches is None]) > 2
    assert registry.match({"name": "read_file", "title": "Read src/m1.py"}) is None
    assert len(seen) == 2
    assert registry.match({"name": "mcp__fleet__get_entity", "title": "Entity web-01"}).id == "entity_card"
