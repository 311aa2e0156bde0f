"""A chart comes below the answer that allowed it (issue 65, item 7): a card that shows what its call made moves below
the permission request for its call, live (versions as they came) as in a stored session (the final items), for the
sessions recorded from the real adapters."""

from __future__ import annotations

from ..support.frames import RECORDINGS


async def test_on_screen_the_chart_is_below_the_answer_and_its_old_place_draws_nothing(tmp_path):
    from kandev_tui.ui.textual_hooks import screen_text

    from ..support.app_helpers import replay_app, settle

    app = replay_app(tmp_path, RECORDINGS / "claude-real.jsonl")
    async with app.run_test(size=(100, 200)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        asked = text.index("The agent asks to show rich output: Probe results")
        assert asked < text.index("◆ Probe results"), text
        moved = [e for e in app.view.entries if e.kind == "moved"]
        assert moved and all(not app.view.widgets[e.key].display for e in moved if e.key in app.view.widgets)
