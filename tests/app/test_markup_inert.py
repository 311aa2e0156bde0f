"""Text from an agent, a file name, git or the user is drawn as text, never parsed as markup: a toast, a dialog's
border title, a dialog's error line. Markup there made an action link of a file name (one click ran an app action
with arguments) or, unbalanced, raised MarkupError and ended the whole app with every session in it."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from kandev_tui.base.sanitize import visible
from kandev_tui.screens.choices import ChoicesScreen
from kandev_tui.screens.login import LoginScreen
from kandev_tui.session.controls import Controls
from kandev_tui.ui.textual_hooks import screen_text

from ..support.app_helpers import home_app, message_item, new_session_dialog, stored_app, until
from ..support.hostile_corpus import CORPUS

MARKUP = {name: CORPUS[name] for name in ("click-quit", "click-screen", "closing-only", "unclosed-markup",
                                          "rich-link", "textual-variable")}
@pytest.mark.reliability("Terminal and text", "the hostile corpus (markup, action links, escapes, controls, bidi…) in "
                         "toasts (the app's and a widget's), a login and a modes dialog's border title (an agent's "
                         "name)", cases=len(CORPUS) * 4, held="drawn as text (markup as the text it is); no action, "
                                                               "no crash")
async def test_hostile_text_in_toasts_titles_and_dialogs_is_drawn_as_text(tmp_path):
    app = stored_app(tmp_path, [message_item(1, "hello")])
    async with app.run_test(size=(100, 30), notifications=True) as pilot:  # (off in run_test unless asked)
        await until(pilot, lambda: "hello" in screen_text(app))

        def toasts() -> str:  # as they are drawn, wrapped where they like
            return "".join("".join(str(toast.render()).split()) for toast in app.screen.query("Toast"))

        for name, text in CORPUS.items():
            shown = visible(text, keep_newlines=False)  # what a title shows of it (escapes as visible stand-ins)
            app.notify(f"{text} put back before this turn.", timeout=30)
            app.transcript_screen.notify(f"widget {text}", timeout=30)  # a widget's notify passes markup=True itself
            if name in MARKUP:  # drawn as the very text
                await until(pilot, lambda text=text: "".join(f"widget {text}".split()) in toasts()
                            and "".join(f"{text} put back".split()) in toasts())
            else:
                await until(pilot, lambda: len(app.screen.query("Toast")) == 2)
            app.clear_notifications()
            app.push_screen(LoginScreen(text, text, [], None))
            await until(pilot, lambda shown=shown: isinstance(app.screen, LoginScreen)
                        and ("needs a login" in screen_text(app)))
            if name in MARKUP:
                assert f"{shown[:40]} needs a login" in screen_text(app), name
            app.pop_screen()
            app.push_screen(ChoicesScreen(text, Controls()))
            await until(pilot, lambda: isinstance(app.screen, ChoicesScreen) and "mode and model" in screen_text(app))
            if name in MARKUP:
                assert f"{shown[:40]}: mode and model" in screen_text(app), name
            app.pop_screen()
            await until(pilot, lambda: not isinstance(app.screen, ChoicesScreen))
        assert app.is_running and app.return_code is None  # no app.quit clicked, no crash
@pytest.mark.reliability("Terminal and text", "the hostile corpus in a folder name said in the new-session dialog's "
                         "error line", cases=len(CORPUS), held="drawn as the text it is; no crash")
async def test_a_hostile_folder_name_in_the_new_session_dialogs_error_is_drawn_as_text(tmp_path):
    app, store = home_app(tmp_path)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            dialog = await new_session_dialog(pilot)
            for text in CORPUS.values():
                dialog.say(f"no such directory {text}")
                await pilot.pause()
                said = str(dialog.query_one("#new-session-error", Static).render())
                assert said == f"no such directory {visible(text, keep_newlines=False)}"
            assert app.is_running
    finally:
        store.close()

