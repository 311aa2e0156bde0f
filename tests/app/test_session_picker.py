"""`kandev-tui open` without an id: the stored sessions to pick from (what `kandev-tui serve` shows by default); and
links in the agent's Markdown open on a click."""

from __future__ import annotations

from pathlib import Path

from kandev_tui.app import kandev_app as app_module
from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.screens.session_picker import SessionPickerScreen

from ..support.app_helpers import message_item, settings_at, settle, stored_app, until
from ..support.app_helpers import picker_app


async def test_with_nothing_stored_the_picker_says_how_to_start_and_escape_quits(tmp_path):
    from kandev_tui.transcript.store import EmptyStore

    app = picker_app(tmp_path, EmptyStore())
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionPickerScreen)
                    and "No sessions are stored yet" in str(app.screen.status.render()))
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code == 0


class LinkRecordingApp(KandevApp):
    """The app with the one boundary it cannot cross here, the system's browser, written down instead."""

    CSS_PATH = Path(app_module.__file__).parent / KandevApp.CSS_PATH  # the app's, not next to this test
    opened: list[str]

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        self.opened.append(url)


async def test_a_click_on_a_link_in_the_agents_markdown_opens_it(tmp_path):
    from kandev_tui.widgets.entries.agent_message import AgentMessage

    source = stored_app(tmp_path, [message_item(1, "See [the build log](https://ci.example.com/build/42) "
                                                   "and [a file](file:///etc/passwd).")]).source
    app = LinkRecordingApp(source.__class__(source.store, source.session), settings_store=settings_at(tmp_path))
    app.opened = []
    async with app.run_test(size=(100, 20)) as pilot:
        await settle(pilot)
        message = app.query_one(AgentMessage)
        line = message.render_line(0).text
        at = line.index("the build log")
        await pilot.click(message, offset=(at + 3, 0))
        at_file = line.index("a file")
        await pilot.click(message, offset=(at_file + 1, 0))
        await pilot.pause()
    assert app.opened == ["https://ci.example.com/build/42"]  # the file: link is text only
