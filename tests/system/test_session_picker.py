"""`kandev-tui open` without an id: the stored sessions to pick from (what `kandev-tui serve` shows by default); and
links in the agent's Markdown open on a click."""

from __future__ import annotations

from kandev_tui.screens.session_picker import SessionPickerScreen
from kandev_tui.transcript import Store

from ..support.app_helpers import message_item, settle, until
from ..support.app_helpers import picker_app


async def test_the_stored_sessions_are_listed_newest_first_and_enter_opens_one(tmp_path):
    store = Store(tmp_path / "sessions.db")
    older = store.create_session(title="Fix the flaky test", agent_command=["claude-agent-acp"], workspace="/w", state="idle")
    store.upsert_items(older, [message_item(1, "The older session's answer.")])
    newer = store.create_session(title="Chart the build times", agent_command=["codex-acp"], workspace="/w", state="ended")
    store.upsert_items(newer, [message_item(1, "The newer session's answer.")])
    app = picker_app(tmp_path, store)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and app.screen.entries)
        picker = app.screen
        assert [entry.task for entry in picker.entries] == ["Chart the build times", "Fix the flaky test"]
        assert "2 sessions, newest first" in str(picker.status.render())
        assert picker.entries[1].agent == "claude-agent-acp" and picker.entries[1].items == 1
        first, second = picker.options.get_option_at_index(1).prompt.renderables
        assert first.plain == "■ ended  Fix the flaky test"  # as `kandev-tui sessions` says its state
        assert "claude-agent-acp · " in second.plain and " · 1 item · /w" in second.plain
        assert first.no_wrap and second.no_wrap  # one line each, cut with an ellipsis where the width ends
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.source.state == "stored")
        await settle(pilot)
        assert app.source.session_id == older and app.transcript_screen.status.title == "Fix the flaky test"
        assert "The older session's answer." in app.view.model.items["message:1"].payload["text"]
        assert app.transcript_screen.prompt.disabled  # read-only, as `open ID` is
        await pilot.press("escape")  # back to the list, not out of the app
        await until(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and app.screen.entries)
        assert not app.view.model.items
        await pilot.press("enter")  # the newest, this time
        await until(pilot, lambda: app.source.state == "stored" and app.source.session_id == newer)
        await settle(pilot)
        assert "The newer session's answer." in app.view.model.items["message:1"].payload["text"]
        assert app.transcript_screen.status.title == "Chart the build times"
    assert app.return_code is None or app.return_code == 0
    store.close()


async def test_a_stored_session_is_read_off_the_event_loop(tmp_path):
    """The store is read in a thread: the screen keeps drawing and taking keys while a long session loads."""
    import threading

    reads = []

    class Watched(Store):
        def packed_items(self, session_id):
            reads.append(threading.current_thread() is threading.main_thread())
            return super().packed_items(session_id)

        def sessions(self):
            reads.append(threading.current_thread() is threading.main_thread())
            return super().sessions()

    store = Watched(tmp_path / "sessions.db")
    session = store.create_session(title="Long", agent_command=["a"], workspace="/w", state="ended")
    store.upsert_items(session, [message_item(n, f"Answer {n}.") for n in range(50)])
    app = picker_app(tmp_path, store)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and app.screen.entries)
        await pilot.press("enter")
        await until(pilot, lambda: app.source.state == "stored")
        await settle(pilot)
        assert len(app.view.entries) == 50
    store.close()
    assert reads == [False, False]  # the list and the items, each read off the main thread
