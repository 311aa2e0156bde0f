"""Each use of Textual's private names (kandev_tui/textual_hooks.py) fails here when an upgrade breaks it."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from kandev_tui.textual_hooks import screen_text


class Two(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("first line of the screen")
        yield Static("second line")


async def test_screen_text_is_what_the_screen_shows():
    app = Two()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        text = screen_text(app)
    lines = text.splitlines()
    assert len(lines) == 5 and lines[0].rstrip() == "first line of the screen" and lines[1].rstrip() == "second line"
