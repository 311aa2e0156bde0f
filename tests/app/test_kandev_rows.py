"""Kandev rows → transcript items: the adapter, the attachment's merge rules and the cache (no backend needed).

The rows were captured from a real Kandev 0.95.1 backend (see the fixture's ``captured_from``).
"""

from __future__ import annotations

import asyncio

from kandev_tui.kandev.rows import row_item

from ..support.kandev_rows import ROWS


async def test_the_transcript_rebuilt_while_its_cards_are_still_mounting(tmp_path):
    """Older history can arrive while the previous rebuild's charts are mounting: nothing may crash."""
    from kandev_tui.widgets.entries.chart_block import ChartBlock

    from ..support.app_helpers import settle, stored_app

    items = [row_item(r) for r in ROWS]
    app = stored_app(tmp_path, items)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        view = app.view
        view.jump_to_first()
        await settle(pilot)
        for delay in [0, 0, 0.001, 0.002, 0.003, 0.005, 0.008, 0.01, 0.015, 0.02, 0.03] * 3:
            view.reset(view.model.reset(list(view.model.items.values())), more_at_source=True)  # removes what the last one
            await asyncio.sleep(delay)  # was still mounting, at every stage of it
        await settle(pilot)
        view.jump_to_latest()
        await settle(pilot)
        assert app.is_running and list(view.model.items) == [i.key for i in items]
        assert len(view.query(ChartBlock)) >= 1


async def test_a_key_at_the_top_asks_for_older_history_when_no_scroll_would(tmp_path):
    """The view can end up at its very top with older history at the source and no scroll to come: a load kept in
    place at 0, or the source saying it has more while the view is there. Home, up and page up there move nothing,
    so no scroll event asks: the key itself must (in CI a Kandev session stopped five rows short of its start)."""
    from ..support.app_helpers import settle, stored_app, until

    app = stored_app(tmp_path, [row_item(r) for r in ROWS])
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        asked: list[int] = []

        async def load_older() -> int:  # the stored source has nothing older: count the requests
            asked.append(1)
            return 0

        app.source.load_older = load_older
        view = app.view
        view.jump_to_first()
        await settle(pilot)
        assert view.lo == 0 and view.scroll_y == 0 and not view.following
        view.set_more_at_source(True)  # the source now says it holds older rows: nothing scrolls
        await pilot.pause(0.1)
        assert asked == []  # nobody asked yet
        view.focus()
        for key in ("home", "up", "pageup"):
            await pilot.press(key)
            await until(pilot, lambda: len(asked) == 1)
            view.set_more_at_source(True)  # still more: each key at the top asks again
            asked.clear()
