"""The app over a live agent: the real demo agent process, its MCP server, the store."""

from __future__ import annotations

from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.transcript import Store

from ..support.app_helpers import footer_keys, settings_at, until


async def test_a_crash_in_the_app_never_exits_0(tmp_path, capsys):
    """An exception Textual cannot recover from ends the app with a traceback: the command's status is not 0."""
    from kandev_tui.cli import app_exit_status
    from kandev_tui.session import NullSource

    class Broken(NullSource):
        @property
        def can_pick_session(self):  # read when the app mounts
            raise RuntimeError("broken source")

    app = KandevApp(Broken(), settings_store=settings_at(tmp_path))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.1)
    except RuntimeError:
        pass
    assert app_exit_status(app) == 1


async def test_the_footer_shows_every_app_key_at_80_columns_in_a_replay(tmp_path):
    from ..support.app_helpers import replay_app, settle

    app = replay_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = [d for _, d, _ in footer_keys(app)]
        assert {"Quit", "Help", "Settings", "Search"} <= set(shown) and "Cancel turn" not in shown
        assert all(right <= 80 for _, _, right in footer_keys(app))


async def test_the_transcript_focused_itself_offers_its_scroll_and_tab_and_an_entry_focused_its_own_keys(tmp_path):
    """A stored session opens with the transcript focused, and tab from the prompt lands there: the footer said no
    key that works there. It offers ↑↓ to scroll and tab to the items (where the keys do not fit, they give way after
    the settings' key, which comes back where it then fits); with an entry focused, the entry's keys show instead,
    and ↓ still scrolls the transcript."""
    from kandev_tui.sources import StoredSource

    from ..support.app_helpers import message_item, settle, stored_app, tool_item

    items = [message_item(n, f"Line {n}.\n\n" + "More text.\n\n" * 6) for n in range(1, 8)]
    app = stored_app(tmp_path, [*items[:3], tool_item("c1", turn=1), *items[3:]])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.view
        await pilot.press("ctrl+home")
        await until(pilot, lambda: view.scroll_y == 0)
        assert app.focused is view
        shown = [(k, d) for k, d, _ in footer_keys(app)]
        assert shown[:2] == [("↑↓", "Scroll"), ("tab", "Items")] and ("f2", "Settings") in shown
        await pilot.press("down")
        await until(pilot, lambda: view.scroll_y == 1)
        await pilot.press("tab")
        await until(pilot, lambda: app.focused is not view and app.focused in view.query("*"))
        await until(pilot, lambda: "Items" not in [d for _, d, _ in footer_keys(app)])
        assert "Scroll" not in [d for _, d, _ in footer_keys(app)]
        before = view.scroll_y
        await pilot.press("down")
        await until(pilot, lambda: view.scroll_y > before)
    app = stored_app(tmp_path / "two", [message_item(1, "Hello.")])
    db = Store(tmp_path / "two" / "sessions.db")
    row = db.session(db.sessions()[0]["id"])
    app.open_session(StoredSource(db, row))
    async with app.run_test(size=(80, 24)) as pilot:  # two sessions at 80 columns: the settings' key gives way
        await settle(pilot)
        assert [d for _, d, _ in footer_keys(app)] == ["Scroll", "Items", "Search", "Quit", "Help", "Sessions",
                                                       "palette"]
    app = stored_app(tmp_path / "narrow", [message_item(1, "Hello.")])
    async with app.run_test(size=(45, 24)) as pilot:  # no room for them: the settings' key fits again, and is shown
        await settle(pilot)
        assert [d for _, d, _ in footer_keys(app)] == ["Search", "Quit", "Help", "Settings"]
