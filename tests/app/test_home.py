"""The bare ``kandev-tui``: the app opens on the sessions list with the stored sessions; enter opens one read-only,
``c`` continues one with its own agent (a real process that loads its session), ctrl+s comes back to the list (and
escape from it to the session), and closing the last live session does too. Without a terminal the bare command prints its help."""

from __future__ import annotations

from kandev_tui.app.home import HomeApp
from kandev_tui.sources.launch import Launcher
from kandev_tui.transcript import Store

from ..support.app_helpers import settings_at, until


async def test_the_new_session_dialogs_folder_follows_the_preset_chosen_until_the_user_types_one(tmp_path):
    """A preset's own workspace (its table's ``workspace``) fills the folder field when it is chosen (the dialog
    ignored it: the agent ran in the current folder); another preset puts the default back; a folder the user typed
    stays."""
    from textual.widgets import Select

    from kandev_tui.base.settings import SettingsStore
    from kandev_tui.screens.new_session import NewSessionScreen

    own = tmp_path / "far"
    own.mkdir()
    config = tmp_path / "c.toml"
    config.write_text(f'chart_animation = false\n[presets.far]\ncommand = ["agent"]\nworkspace = "{own}"\n')
    settings = SettingsStore(config)
    app = HomeApp(Launcher(Store(tmp_path / "s.db"), settings), settings_store=settings)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+n")
        await until(pilot, lambda: isinstance(app.screen, NewSessionScreen))
        dialog = app.screen
        folder, preset = dialog.query_one("#workspace"), dialog.query_one("#preset", Select)
        default = folder.value
        assert default != str(own)
        preset.value = "far"
        await until(pilot, lambda: folder.value == str(own))
        preset.value = "demo"
        await until(pilot, lambda: folder.value == default)
        folder.value = str(tmp_path)  # typed
        preset.value = "far"
        await pilot.pause()  # (waits until the dialog's widgets have handled what was posted to them)
        assert folder.value == str(tmp_path)
        await app.action_quit()


async def test_the_terminal_coming_back_into_focus_on_the_home_with_no_session_is_no_crash(tmp_path):
    """A terminal that reports focus sends FocusIn when the user comes back to it; on the home, before any session
    is open, the app has no transcript to look at (it asked the first session's view, and there is none)."""
    from textual import events

    app = HomeApp(Launcher(Store(tmp_path / "s.db"), settings_at(tmp_path)), settings_store=settings_at(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.screen is app.home)
        app.post_message(events.AppBlur())
        app.post_message(events.AppFocus())
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        await until(pilot, lambda: app.app_focus)
        assert app.screen is app.home and not app.sessions and app.return_code is None
