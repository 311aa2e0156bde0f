"""Several live sessions in one app (real agent processes: the demo agent twice, the dialect kit's scripted agent):
each streams and stores while another is on screen, the list says who waits, f4 goes there, ctrl+w closes one
and the others go on, quitting leaves no agent behind."""

from __future__ import annotations

import pytest

from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.screens.sessions import SessionsScreen
from kandev_tui.ui.textual_hooks import screen_text

from ..support.app_helpers import settings_at, until


async def test_beside_the_transcript_at_120_columns_the_sidebar_switches_sessions(tmp_path):
    """Three replayed sessions at 120x40: the sidebar stands beside the transcript, ctrl+s focuses it, enter on a row
    shows that session, as a click does (the row under the mouse is marked); ctrl+b hides it; at 100 columns there is
    none (ctrl+s opens the list screen instead)."""
    from kandev_tui.sources import ReplaySource

    from ..support.app_helpers import FIXTURES, replay_app

    recordings = FIXTURES / "recordings"
    app = replay_app(tmp_path, recordings / "claude-real.jsonl")
    for name in ("codex-real.jsonl", "gemini-real.jsonl"):
        app.open_session(ReplaySource(recordings / name))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: all(s.last_state == "replayed" for s in app.sessions))
        sidebar = app.transcript_screen.sidebar
        await until(pilot, lambda: sidebar.display and sidebar.option_count == 3)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: sidebar.has_focus)
        await pilot.press("down", "down", "enter")
        await until(pilot, lambda: app.current is app.sessions[2] and app.screen is app.sessions[2].screen)
        assert app.transcript_screen.sidebar.display and app.transcript_screen.sidebar.highlighted == 2
        await pilot.press("ctrl+b")
        await until(pilot, lambda: not app.transcript_screen.sidebar.display)
        await pilot.press("ctrl+b")
        await until(pilot, lambda: app.transcript_screen.sidebar.display)
        sidebar = app.transcript_screen.sidebar
        await pilot.click(sidebar, offset=(4, 3))  # the second line of the second row: that session, shown
        await until(pilot, lambda: app.current is app.sessions[1] and app.screen is app.sessions[1].screen)
        sidebar = app.transcript_screen.sidebar
        await until(pilot, lambda: sidebar.highlighted == 1)
        hover = sidebar.get_component_rich_style("sessions-sidebar--hover").bgcolor

        def background(y: int):
            return list(sidebar.render_line(y))[0].style.bgcolor

        assert hover is not None and background(4) != hover
        await pilot.hover(sidebar, offset=(4, 4))  # the mouse over the third row: it is marked, the others not
        await until(pilot, lambda: background(4) == background(5) == hover)
        assert background(0) != hover and background(2) != hover
        from textual.color import Color
        marked = [segment.style for segment in sidebar.render_line(4) if segment.text.strip()][1]  # its number
        assert abs(Color.from_rich_color(marked.color).brightness  # still readable (a partial style's tint
                   - Color.from_rich_color(marked.bgcolor).brightness) > 0.4  # was white under light grey)
        await pilot.hover(sidebar, offset=(4, 0))  # then over the first
        await until(pilot, lambda: background(0) == hover and background(4) != hover)
        await pilot.hover(app.transcript_screen.prompt)  # and away from the list
        await until(pilot, lambda: background(0) != hover)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: sidebar.has_focus)
        await pilot.press("home", "enter")  # the keys of a list
        await until(pilot, lambda: app.current is app.sessions[0] and app.screen is app.sessions[0].screen)
        sidebar = app.transcript_screen.sidebar
        await pilot.press("ctrl+s")
        await until(pilot, lambda: sidebar.has_focus)
        await pilot.press("end", "pageup", "pagedown", "up", "enter")
        await until(pilot, lambda: app.current is app.sessions[1] and app.screen is app.sessions[1].screen)
        await pilot.resize_terminal(100, 30)
        await until(pilot, lambda: not app.transcript_screen.sidebar.display)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen))


async def test_an_idle_app_has_no_timer_and_a_covered_sessions_news_still_reaches_its_row(tmp_path, monkeypatch):
    """Each wake of an idle process costs (20 idle sessions, a laptop on battery, a slow VM): the app looks at its
    sessions' rows and the collector only while something happens, and sets no repeating timer. What a covered
    session received still reaches its row in the sidebar ("+N new"); once quiet, no look is pending; a key brings
    one."""
    from textual.app import App

    from kandev_tui.sources import ReplaySource

    from ..support.app_helpers import FIXTURES, replay_app

    recordings = FIXTURES / "recordings"
    app = replay_app(tmp_path, recordings / "claude-real.jsonl")
    for name in ("codex-real.jsonl", "gemini-real.jsonl"):
        app.open_session(ReplaySource(recordings / name))
    repeating: list = []
    monkeypatch.setattr(app, "set_interval", lambda *a, **k: repeating.append(a) or App.set_interval(app, *a, **k))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: all(s.last_state == "replayed" for s in app.sessions))
        covered = app.sessions[1]
        await until(pilot, lambda: covered.model.unshown() > 0)
        await until(pilot, lambda: f"+{covered.model.unshown()} new" in screen_text(app))  # its row, in the sidebar
        await until(pilot, lambda: not app.life.looking)  # all is quiet: nothing is looked at
        assert repeating == []
        await pilot.press("ctrl+b")  # an input: a look follows it
        assert app.life.looking


async def test_a_burst_of_state_changes_shows_the_rows_once(tmp_path, monkeypatch):
    """Three sessions change state at once (their turns start together): the sidebar is given its rows once for
    them all, and then shows each one running."""
    from kandev_tui.widgets.chrome.sessions_sidebar import SessionsSidebar

    from ..support.app_helpers import ScriptedSource, message_item

    def scripted(n: int):
        return ScriptedSource([message_item(1, f"Session {n} here.")],
                                                         state="idle", agent=f"agent-{n}")

    app = KandevApp(scripted(1), settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    for n in (2, 3):
        app.open_session(scripted(n))
    async with app.run_test(size=(120, 40)) as pilot:
        sidebar = app.transcript_screen.sidebar
        await until(pilot, lambda: all(s.last_state == "idle" for s in app.sessions) and sidebar.option_count == 3)
        given: list = []
        show_rows = SessionsSidebar.show_rows
        monkeypatch.setattr(SessionsSidebar, "show_rows", lambda self, rows: (given.append(rows), show_rows(self, rows)))
        for session in app.sessions:
            await session.model.source.send("go")
        await until(pilot, lambda: len(given) > 0 and all(row.state == "running" for row in given[-1]))
        assert len(given) == 1, [[row.state for row in rows] for rows in given]
        assert all(s.last_state == "running" for s in app.sessions)


@pytest.mark.parametrize("size", [(120, 40), (100, 30)])
@pytest.mark.parametrize("sessions", [2, 6])
@pytest.mark.parametrize("rows_after", [0.001, 0.005, 0.02])
async def test_quitting_while_the_rows_and_a_screens_hidden_widgets_wait_ends_cleanly(tmp_path, monkeypatch, rows_after,
                                                                                    sessions, size):
    """ctrl+q ends the agents (their states change: the rows are to follow a moment later) and closes the screens,
    those never shown (their sidebar, search box and command menu wait for their first frame; each mounted ahead of
    it): neither waits past the screens, and the app ends without an error (with six sessions, the last waiting for a
    login, at 100 columns, a screen mounted ahead mounted its hidden widgets while the app exited: MountError)."""
    from kandev_tui.base import pacing

    from ..support.app_helpers import ScriptedSource, message_item

    monkeypatch.setattr(pacing, "LISTS_AT_MOST_EVERY", rows_after)

    def scripted(n: int):
        return ScriptedSource([message_item(1, f"Session {n} here.")],
                                                         state="login" if n == 6 else "idle", agent=f"agent-{n}")

    app = KandevApp(scripted(1), settings_store=settings_at(tmp_path, chart_animation=False))
    for n in range(2, sessions + 1):
        app.open_session(scripted(n))
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: all(s.last_state in ("idle", "login") for s in app.sessions))
        await app.action_quit()
    assert app.return_code == (1 if sessions == 6 else 0)  # 1: a session waited for a login (said on stderr), no error
    assert all("login" in failure for failure in app.life.failures()), app.life.failures()


async def test_the_search_asked_for_as_a_session_is_first_shown_takes_the_keys(tmp_path):
    """A screen's search box (like its sidebar and command menu) is mounted just after the screen's first frame: ctrl+f
    pressed with the switch to a session just opened still focuses it, and what is typed next is searched."""
    from ..support.app_helpers import ScriptedSource, message_item

    def scripted(n: int):
        return ScriptedSource([message_item(1, f"Session {n} here.")],
                                                         state="idle", agent=f"agent-{n}")

    app = KandevApp(scripted(1), settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.current.last_state == "idle")
        second = app.open_session(scripted(2))  # opened while the app runs: its screen is not even mounted yet
        app.lists.switch_to(second)
        assert not second.screen.search_box.is_mounted
        second.screen.action_search()  # in the same turn of the loop: before its first frame
        await until(pilot, lambda: second.screen.search_box.has_focus)
        await pilot.press(*"here")
        assert second.screen.search_box.value == "here" and second.screen.prompt.text == ""


async def test_thirty_sessions_at_once_are_listed_and_reached(tmp_path):
    """Thirty sessions in one app: every one listed (the list scrolls), f4 reaches the one that waits, the oldest
    waiting first, and each screen is its own."""
    from ..support.app_helpers import ScriptedSource, message_item

    def scripted(n: int, state: str = "idle"):
        return ScriptedSource([message_item(1, f"Session {n} here.")],
                                                         state=state, detail="asks" if state == "waiting" else "",
                                                         agent=f"agent-{n}")

    app = KandevApp(scripted(1), settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    for n in range(2, 31):
        app.open_session(scripted(n, "waiting" if n in (12, 27) else "idle"))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: all(s.last_state != "starting" for s in app.sessions))
        assert sum(1 for s in app.sessions if s.waiting_since is not None) == 2
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        assert app.screen.options.option_count == 30 and "2 waiting for you" in screen_text(app)
        await pilot.press("end", "enter")
        await until(pilot, lambda: app.current is app.sessions[29])
        oldest = min((s for s in app.sessions if s.waiting_since is not None), key=lambda s: s.waiting_since)
        await pilot.press("f4")
        await until(pilot, lambda: app.current is oldest)
        await until(pilot, lambda: "Session " in screen_text(app))
        assert f"Session {oldest.number} here." in screen_text(app)
        assert len({id(s.screen) for s in app.sessions}) == 30


async def test_sessions_that_start_waiting_together_call_the_user_once_then_once_for_the_rest(tmp_path, monkeypatch):
    """Five sessions off screen start waiting at once (one needs a login): the first is called at once (a notice, the
    bell, the title, a desktop notification); the others in one call at the end of that call's time, without the one
    that no longer waits by then. Thirty sessions asking at once stacked 29 notices over the transcript."""
    import re

    from kandev_tui.app import attention as app_attention
    from kandev_tui.base import pacing

    from ..support.app_helpers import ScriptedSource, message_item

    monkeypatch.setattr(pacing, "CALL_OUT_EVERY", 600, raising=False)  # the gathered call goes when the test says
    titles: list[str] = []
    desktop: list[tuple[str, str]] = []
    notices: list[str] = []
    bells: list[int] = []
    monkeypatch.setattr(app_attention, "set_terminal_title", lambda app, text: titles.append(text) or True)
    monkeypatch.setattr(app_attention, "notify_desktop", lambda app, title, body: desktop.append((title, body)) or True)

    def scripted(n: int, state: str = "idle"):
        return ScriptedSource([message_item(1, f"Session {n} here.")],
                                                         state=state, agent=f"agent-{n}")

    app = KandevApp(scripted(1), settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    for n, state in ((2, "waiting"), (3, "waiting"), (4, "waiting"), (5, "waiting"), (6, "login")):
        app.open_session(scripted(n, state))
    app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
    notify = app.notify
    app.notify = lambda message, **options: notices.append(message) or notify(message, **options)  # type: ignore
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: all(s.last_state in ("waiting", "login") for s in app.sessions[1:]))
        assert len(notices) == len(bells) == len(titles) == len(desktop) == 1
        called = re.fullmatch(r"Session (\d) \(agent-\d\) (is waiting for you|needs a login): f4 goes there\.",
                              notices[0])
        assert called is not None, notices[0]
        first = int(called.group(1))
        waiting = [s for s in app.sessions[1:5] if s.number != first]
        await waiting[0].model.source.send("an answer from elsewhere")  # it no longer waits: not called
        await until(pilot, lambda: waiting[0].last_state == "running")
        assert app.attention._next is not None  # the call's time runs: nothing more was said
        app.attention._next.stop()
        app.attention._call_gathered()  # its end
        assert len(notices) == len(bells) == len(titles) == len(desktop) == 2
        named = {int(n) for n in re.findall(r"\d+", notices[1])}
        assert named == {2, 3, 4, 5, 6} - {first, waiting[0].number}, notices[1]
        assert notices[1].endswith(": f4 goes to each, the one waiting longest first.")
        assert ("are waiting for you" in notices[1]) and (("session 6 needs a login" in notices[1]) == (first != 6))
        assert titles[1].startswith("kandev-tui: ") and " · sessions " in titles[1]
        await app.action_quit()


async def test_beside_thirty_sessions_the_one_on_screen_is_in_view_whole(tmp_path):
    """Thirty sessions at 120x40: shown from the sidebar, the last one's row is in the sidebar of its screen, both its
    lines: its screen's sidebar got its rows while hidden, and did not scroll to it; and the footer lay over the
    sidebar's last line, where its second line was."""
    from ..support.app_helpers import ScriptedSource, message_item

    def scripted(n: int):
        return ScriptedSource([message_item(1, f"Session {n} here.")],
                                                         agent=f"agent-{n}")

    app = KandevApp(scripted(1), settings_store=settings_at(tmp_path, chart_animation=False))
    for n in range(2, 31):
        app.open_session(scripted(n))
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: all(s.last_state == "idle" for s in app.sessions))
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.transcript_screen.sidebar.has_focus)
        await pilot.press("end", "enter")
        await until(pilot, lambda: app.current is app.sessions[29] and app.screen is app.sessions[29].screen)
        lines = lambda: [line[:33] for line in screen_text(app).splitlines()]  # noqa: E731 (the sidebar's)
        await until(pilot, lambda: "30 idle  on screen" in lines()[-3])
        assert lines()[-2].startswith("    Fix the flaky test")  # its second line, above the footer
        await app.action_quit()
