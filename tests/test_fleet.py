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
from kandev_tui.renderers import Registry, ResultShapeError, renderer_id_of
from kandev_tui.packs.fleet import PACK, PLUMBING, RENDERERS
from kandev_tui.packs.fleet import draw as D
from kandev_tui.packs.fleet import models as M
from kandev_tui.session.layout import Layout
from kandev_tui.widgets.tool_call import ToolCallView
from kandev_tui.widgets.tool_card import ToolCard
from kandev_tui.widgets.tool_group import ToolGroup

from .app_helpers import apply_now, fleet_item, message_item, settle, stored_app

RESULTS: dict = {}
for _step in demo.STEPS:  # the first demo result of each renderer
    if isinstance(_step[3], dict) and _step[3].get("__renderer") in PACK:
        RESULTS.setdefault(_step[3]["__renderer"], _step)


def text_of(renderable, width: int = 70) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None, legacy_windows=False)
    console.print(renderable)
    return console.export_text()


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


async def test_fleet_cards_fallbacks_and_states_in_the_app(tmp_path):
    whoami = demo.STEPS[0][3]
    items = [
        fleet_item("ok", "whoami", whoami),
        fleet_item("pending", "get_entity", arguments={"slug": "web-02"}, status="pending"),
        fleet_item("err", "get_entity", 'Entity not found: "bad"', arguments={"slug": "bad"}, status="error"),
        fleet_item("empty", "list_lxcs", None),
        fleet_item("none", "list_lxcs", {"lxcs": []}, codex=True),
        fleet_item("odd", "get_entity", {"name": "no slug here"}),
    ]
    app = stored_app(tmp_path, items, registry=Registry.from_entry_points())
    async with app.run_test(size=(80, 40)) as pilot:
        await settle(pilot)
        cards = {card.key: card for card in app.view.query(ToolCard)}
        assert [cards[f"tool:{k}"].state for k in ("ok", "pending", "err", "empty", "none", "odd")] == [
            "card", "skeleton", "error", "empty", "card", "card"]
        assert cards["tool:pending"].row.content.plain.endswith("get_entity  web-02")
        assert cards["tool:err"].row.content.plain == '✖ get_entity: Entity not found: "bad"'
        assert cards["tool:empty"].row.content.plain == "list_lxcs ✔"
        assert "No LXCs." in text_of(cards["tool:none"].inner.content)
        assert cards["tool:odd"].fallback and not cards["tool:odd"].failed
        assert isinstance(cards["tool:odd"].inner, ToolCallView)
        assert "ops-agent" in cards["tool:ok"].searchable_text


async def test_entity_table_sorts_from_the_keyboard(tmp_path):
    items = [fleet_item("t", "list_entities", {"entities": demo.ENTITIES})]
    app = stored_app(tmp_path, items, registry=Registry.from_entry_points())
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        from kandev_tui.packs.fleet.cards import EntityTableCard

        table = app.view.query_one(EntityTableCard)

        def first_rows() -> list[str]:
            lines = [line.strip() for line in text_of(table.content, 70).splitlines() if line.strip()]
            return [line.split()[0] for line in lines[2:5]]

        assert first_rows() == ["cache-01", "db-primary", "db-replica"]
        table.focus()
        await pilot.press("r")
        assert (table.column, table.descending) == ("slug", True) and first_rows()[0] == "web-03"
        await pilot.press("s", "s")  # slug → type → health
        assert (table.column, table.descending) == ("health", False)
        assert first_rows() == ["db-replica", "web-02", "queue-01"]
        await pilot.press("s", "s")  # state, then round to slug
        assert table.column == "slug"


async def test_group_summary_beside_fleet_cards(tmp_path):
    items = [fleet_item("a", "get_entity", demo.STEPS[4][3]), fleet_item("b", "get_relations", {"x": 1}),
             fleet_item("c", "get_health_summary", demo.STEPS[2][3], codex=True)]
    app = stored_app(tmp_path, items, registry=Registry.from_entry_points())
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        assert app.view.query_one(ToolGroup).summary == "1 tool: get_relations · 2 cards"
        assert len(app.view.query(ToolCard)) == 2


async def test_many_cards_in_a_turn_fold_past_the_limit(tmp_path):
    items = [fleet_item(f"e{n}", "get_entity", {"slug": f"web-{n:02}", "health": "healthy"}) for n in range(7)]
    app = stored_app(tmp_path, items, registry=Registry.from_entry_points(), card_limit=4)
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        assert [c.key for c in app.view.query(ToolCard)] == [f"tool:e{n}" for n in range(4)]
        group = app.view.query_one(ToolGroup)
        assert list(group.items) == ["tool:e4", "tool:e5", "tool:e6"] and group.summary == "3 tools: get_entity · 4 cards"


def _promotion_items(first_is_promoted: bool):
    digest = demo.STEPS[14]
    assert digest[1] == "fleet_digest"
    plain_call = fleet_item("p", "ping_service", {"ok": True})
    pending = fleet_item("d", "fleet_digest", status="pending")
    done = fleet_item("d", "fleet_digest", digest[3])
    order = [pending, fleet_item("p", "ping_service", status="pending")] if first_is_promoted else \
        [fleet_item("p", "ping_service", status="pending"), pending]
    return order, [plain_call, done]


@pytest.mark.parametrize("first", [True, False], ids=["promoted-first", "promoted-second"])
def test_promotion_gives_the_order_a_stored_session_gives(first):
    started, finished = _promotion_items(first)
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


async def test_promotion_rebuilds_the_mounted_group_as_a_card(tmp_path):
    started, finished = _promotion_items(True)
    app = stored_app(tmp_path, [message_item(1, "hi")], registry=Registry.from_entry_points())
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        apply_now(app, started)
        await pilot.pause()
        assert len(app.view.query_one(ToolGroup).items) == 2 and not app.view.query(ToolCard)
        apply_now(app, finished)
        await pilot.pause()
        card = app.view.query_one(ToolCard)
        assert card.key == "tool:d" and card.renderer.id == "health_summary" and card.state == "card"
        group = app.view.query_one(ToolGroup)
        assert list(group.items) == ["tool:p"] and group.summary == "1 tool: ping_service · 1 card"
        children = [w for w in app.view.children if w in (card, group)]
        assert children == [card, group]


def test_fleet_results_in_the_demo_are_valid_json_for_their_tools():
    for _call_id, _tool, arguments, result, status in demo.STEPS:
        json.dumps(arguments)
        if isinstance(result, dict) and result.get("__renderer") in PACK and status == "completed":
            model_for(result["__renderer"]).model_validate(result)


async def test_the_guide_example_works_as_written(tmp_path):
    """docs/renderers.md's example, run as written: a card on success, the generic display on a wrong shape."""
    import re
    import types
    from pathlib import Path

    from kandev_tui.renderers import Renderer

    guide = (Path(__file__).parents[1] / "docs" / "renderers.md").read_text()
    code = re.findall(r"```python\n(.*?)```", guide, re.S)[1]
    module = types.ModuleType("guide_example")
    exec(compile(code, "docs/renderers.md", "exec"), module.__dict__)  # noqa: S102 - our own documentation
    renderer = Renderer(id="deploy_card", widget=module.deploy_widget, tool_names=frozenset({"get_deploy"}),
                        renderer_ids=frozenset({"deploy_card"}))
    items = [fleet_item("a", "get_deploy", {"service": "api", "version": "1.2"}),
             fleet_item("b", "get_deploy", {"nothing": "useful"})]
    app = stored_app(tmp_path, items, registry=Registry([renderer]))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        cards = list(app.view.query(ToolCard))
        assert cards[0].inner.content.plain == "api → 1.2" and not cards[0].fallback
        assert cards[1].fallback and isinstance(cards[1].inner, ToolCallView)


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
