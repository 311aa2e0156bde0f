"""The fleet renderer pack: shapes, drawing, fallbacks, entry points, sorting, folding and promotion."""

from __future__ import annotations

from kandev_tui.demo import fleet as demo
from kandev_tui.renderers import Registry
from kandev_tui.widgets.entries.tool_call import ToolCallView
from kandev_tui.widgets.entries.tool_card import ToolCard
from kandev_tui.widgets.entries.tool_group import ToolGroup

from ..support import CHECKOUT
from ..support.app_helpers import apply_now, fleet_item, message_item, settle, stored_app
from ..support.drawing import text_of
from ..support.fleet import promotion_items



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


async def test_promotion_rebuilds_the_mounted_group_as_a_card(tmp_path):
    started, finished = promotion_items(True)
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


async def test_the_guide_example_works_as_written(tmp_path):
    """docs/renderers.md's example, run as written: a card on success, the generic display on a wrong shape."""
    import re
    import types

    from kandev_tui.renderers import Renderer

    guide = (CHECKOUT / "docs" / "renderers.md").read_text()
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
