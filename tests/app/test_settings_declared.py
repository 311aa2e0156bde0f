"""Each setting is declared once (kandev_tui/base/settings.py: DECLARED): the settings dataclass has exactly those
fields, the settings screen is made from the declarations (a row each, switches, numbers and the theme as declared,
changes posted as messages and applied by the app), and the README's table says what the declarations say."""

from __future__ import annotations

from textual.widgets import Input, Label, Select, Switch

from kandev_tui.base.settings import DECLARED

from ..support.app_helpers import message_item, settle, stored_app, until


async def test_the_settings_screen_is_made_from_the_declarations_and_its_changes_apply(tmp_path):
    app = stored_app(tmp_path, [message_item(1, "Hello.")])
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await until(pilot, lambda: app.screen.query(Switch))
        screen = app.screen
        labels = [str(label.render()) for label in screen.query(Label)]
        assert labels == [declared.screen_label for declared in DECLARED]
        for declared in DECLARED:
            kind = Select if declared.name == "theme" else Input if declared.bounds else Switch
            assert isinstance(screen.query_one(f"#{declared.name}"), kind), declared.name
        screen.query_one("#attention_bell", Switch).value = False
        await until(pilot, lambda: app.settings_store.settings.attention_bell is False)
        numbers = screen.query_one("#card_limit", Input)
        numbers.value = "500"  # out of its bounds: not taken
        numbers.value = "7"
        await until(pilot, lambda: app.settings_store.settings.card_limit != 16)
        assert app.settings_store.settings.card_limit == 7  # 500 was never taken
        assert "card_limit = 7" in app.settings_store.path.read_text()


async def test_the_settings_screen_is_made_once_and_shows_the_settings_as_they_are_each_time(tmp_path):
    """F2 again only draws the screen made the first time (composing it took 100-115 ms a press,
    benchmarks/screens.py); what changed meanwhile elsewhere (the command palette's theme) is what it shows, and
    showing it changes nothing."""
    app = stored_app(tmp_path, [message_item(1, "Hello.")])
    async with app.run_test(size=(100, 60)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await until(pilot, lambda: app.screen.query(Switch))
        first = app.screen
        first.query_one("#card_limit", Input).value = "12"  # an unsaved half of a number is left behind
        first.query_one("#card_limit", Input).value = "1234"
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.transcript_screen)
        app.settings_store.update(theme="nord", attention_bell=False)
        saved = app.settings_store.path.read_text()
        await pilot.press("f2")
        await until(pilot, lambda: app.screen is first)
        assert first.query_one("#theme", Select).value == "nord" and first.query_one("#theme", Select).has_focus
        assert first.query_one("#attention_bell", Switch).value is False
        assert first.query_one("#card_limit", Input).value == "12"
        await pilot.pause()
        assert app.settings_store.path.read_text() == saved  # shown, not changed
