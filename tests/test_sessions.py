"""Several live sessions in one app (real agent processes: the demo agent twice, the dialect kit's scripted agent):
each streams and stores while another is on screen, the list says who waits, f4 goes there, ctrl+w closes one
and the others go on, quitting leaves no agent behind."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from kandev_tui.acp import AgentOptions
from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.demo import agent_command, prepare_workspace
from kandev_tui.screens.sessions import SessionsScreen
from kandev_tui.session import SessionState
from kandev_tui.sources import LiveSource
from kandev_tui.ui.textual_hooks import screen_text
from kandev_tui.transcript import Store
from kandev_tui.widgets.permission import PermissionRequest

from .app_helpers import settings_at, until
from .procs import live_pids

KIT = [sys.executable, str(Path(__file__).resolve().parent / "agents" / "dialect_agent.py")]


def source(store: Store, options: AgentOptions):
    return LiveSource(options, store)


def demo_asking(tmp_path: Path, monkeypatch) -> tuple[Store, KandevApp]:
    """The demo agent in the app, sent its first prompt, whose turn asks for a permission (and waits for it)."""
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    store = Store(tmp_path / "s.db")
    app = KandevApp(source(store, AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp_path / "a"))),
                    settings_store=settings_at(tmp_path, chart_animation=False), initial_prompt="Check the build")
    app.animation_level = "none"
    return store, app


def of_this_test(tmp_path: Path):
    """The agents this test started: their command line or environment names its folder."""
    mark = str(tmp_path).encode()
    return lambda: live_pids(lambda pid, text: mark in text and pid != os.getpid(), read="environ") + \
        live_pids(lambda pid, text: mark in text and pid != os.getpid())


async def test_three_live_sessions_stream_wait_switch_and_close_in_one_app(tmp_path, monkeypatch):
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    monkeypatch.setenv("KANDEV_TEST_FOLDER", str(tmp_path))  # in every agent's environment: found after the quit
    store = Store(tmp_path / "s.db")
    (tmp_path / "kit").mkdir()
    kit_env = {**os.environ, "DIALECT": json.dumps({"steps": [{"op": "say", "text": "The kit's answer, off screen."}]})}
    app = KandevApp(source(store, AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp_path / "a"))),
                    settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    first = app.sessions[0]
    # the demo's "Check the build" turn asks for permission: it does so while the first session is on screen
    second = app.open_session(source(store, AgentOptions(command=agent_command(),
                                                         workspace=prepare_workspace(tmp_path / "b"))),
                              "Check the build")
    third = app.open_session(source(store, AgentOptions(command=KIT, workspace=tmp_path / "kit", env=kit_env)),
                             "Hello, kit")
    async with app.run_test(size=(100, 30)) as pilot:
        turn_ended = lambda s: s.source.session_id and any(  # noqa: E731
            i.kind == "turn_end" for i in store.items(s.source.session_id))
        await until(pilot, lambda: second.last_state == SessionState.WAITING and turn_ended(third)
                    and first.last_state == SessionState.IDLE)
        assert app.current is first
        # what came off screen is stored as it came (the model shows it once the session is on screen)
        stored = {row["id"]: row for row in store.sessions()}
        kit_texts = [i.payload.get("text") for i in store.items(third.source.session_id) if i.kind == "agent_message"]
        assert kit_texts == ["The kit's answer, off screen."] and len(stored) == 3
        await until(pilot, lambda: "+2 · 1 waiting f4" in screen_text(app).splitlines()[0])  # (within 50 ms)

        await pilot.press("ctrl+s")  # the list: who waits is marked
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        text = screen_text(app)
        assert "? 2 waiting for you" in text and "○ 3 idle" in text and "○ 1 idle" in text
        assert "1 waiting for you (f4)" in text
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is first.screen)

        await pilot.press("f4")  # the one waiting, at once, with its request answerable
        await until(pilot, lambda: app.current is second and app.screen is second.screen)
        await until(pilot, lambda: any(w.answerable for w in second.view.query(PermissionRequest)))
        request = second.view.query_one(PermissionRequest)
        await until(pilot, lambda: request.has_focus)
        await pilot.press("1")
        await until(pilot, lambda: second.last_state == SessionState.IDLE)
        assert second.waiting_since is None

        await pilot.press("ctrl+w")  # once: it says what a second press does
        assert app.current is second
        await pilot.press("ctrl+w")
        await until(pilot, lambda: second.closed and app.current is not second)
        await until(pilot, lambda: second.source.state == SessionState.ENDED)
        assert first.source.state == SessionState.IDLE and third.source.state == SessionState.IDLE
        await app.action_quit()
    assert not of_this_test(tmp_path)()  # no agent (nor its MCP server) left behind
    rows = {row["id"]: row for row in store.sessions()}
    items = store.items(second.source.session_id)
    assert next(i for i in items if i.kind == "permission").payload["answer"]["option_id"] == "allow"
    assert [i.kind for i in items].count("turn_end") == 1
    assert [i.payload["text"] for i in store.items(third.source.session_id) if i.kind == "user_message"] == \
        ["Hello, kit"]
    assert all(row["state"] == "ended" for row in rows.values())
    store.close()


async def test_a_session_whose_agent_cannot_start_fails_and_the_others_go_on(tmp_path, monkeypatch):
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    store = Store(tmp_path / "s.db")
    app = KandevApp(source(store, AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp_path / "a"))),
                    settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    broken = app.open_session(source(store, AgentOptions(command=["no-such-agent-anywhere"], workspace=tmp_path)))
    also = app.open_session(source(store, AgentOptions(command=[sys.executable, "-c", "raise SystemExit(3)"],
                                                       workspace=tmp_path)))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: broken.last_state == SessionState.ERROR and also.last_state == SessionState.ERROR
                    and app.sessions[0].last_state == "idle")
        row = broken.row()
        assert row.activity == "failed" and "no-such-agent-anywhere" in row.detail
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        assert "✖ 2 failed" in screen_text(app)
        await app.action_quit()
    assert app.exit_code == 1 and [f[:11] for f in app.life.failures()] == ["session 2: ", "session 3: "]  # each said
    store.close()


def test_a_hostile_title_agent_and_workspace_are_inert_in_a_row():
    from kandev_tui.session.row import SessionRow
    from kandev_tui.widgets.sessions_sidebar import row_text

    evil = "\x1b]2;pwned\x07\x1b[31mred\x1b[0m\r\nnext\u202e"
    row = SessionRow(1, evil, evil, evil, evil, SessionState.WAITING, "waiting for you", evil, 1.0, 3, "", False)
    text = row_text(row, 60).plain
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text and "\u202e" not in text
    assert text.count("\n") == 1  # its two lines, whatever the title holds


def test_presets_from_the_settings_file_and_what_is_wrong_with_them(tmp_path):
    from kandev_tui.base.settings import SettingsStore

    config = tmp_path / "config.toml"
    config.write_text('theme = "nord"\n\n[presets.mine]\ncommand = ["my-agent", "--acp"]\nenv = { A = "1" }\n'
                      'workspace = "~/src"\n\n[presets.codex]\ncommand = ["codex-acp"]\n\n'
                      '[presets.nocommand]\nenv = { A = "1" }\n\n[presets."bad name!"]\ncommand = ["x"]\n\n'
                      '[presets.typo]\ncommand = ["x"]\nenvs = { A = "1" }\n')
    store = SettingsStore(config)
    presets, warnings = store.presets()
    assert not store.warnings  # the presets table is known
    assert presets["mine"].command == ("my-agent", "--acp") and presets["mine"].env == {"A": "1"}
    assert presets["mine"].workspace == "~/src"
    assert presets["codex"].command == ("codex-acp",) and not presets["codex"].builtin  # the file's wins
    assert presets["demo"].builtin and {"claude", "gemini", "opencode"} <= set(presets)
    assert "nocommand" not in presets and "typo" not in presets and "bad name!" not in presets
    assert len(warnings) == 3 and any("nocommand" in w and "command = " in w for w in warnings)
    assert any("typo" in w and "envs" in w for w in warnings)
    store.update(theme="gruvbox")  # saving keeps the presets
    assert "[presets.mine]" in config.read_text() and SettingsStore(config).presets()[0]["mine"].env == {"A": "1"}


async def test_beside_the_transcript_at_120_columns_the_sidebar_switches_sessions(tmp_path):
    """Three replayed sessions at 120x40: the sidebar stands beside the transcript, ctrl+s focuses it, enter on a row
    shows that session, as a click does (the row under the mouse is marked); ctrl+b hides it; at 100 columns there is
    none (ctrl+s opens the list screen instead)."""
    from kandev_tui.sources import ReplaySource

    from .app_helpers import FIXTURES, replay_app

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

    from .app_helpers import FIXTURES, replay_app

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
    from kandev_tui.widgets.sessions_sidebar import SessionsSidebar

    from .app_helpers import ScriptedSource, message_item

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
            await session.source.send("go")
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

    from .app_helpers import ScriptedSource, message_item

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
    from .app_helpers import ScriptedSource, message_item

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
    from .app_helpers import ScriptedSource, message_item

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

    from .app_helpers import ScriptedSource, message_item

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
        await waiting[0].source.send("an answer from elsewhere")  # it no longer waits: not called
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
    from .app_helpers import ScriptedSource, message_item

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


@pytest.mark.system
async def test_a_message_sent_during_a_turn_is_queued_and_reaches_the_agent_when_it_ends(tmp_path, monkeypatch):
    """The demo's turn asks for permission; meanwhile the prompt takes two messages: queued, shown under the
    transcript, ↑ takes the last back; typing in the prompt keeps the focus when the session's state changes (a
    waiting request does not take the keys); once the turn ends the queued one is sent, as the store says."""

    store, app = demo_asking(tmp_path, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.source.state == SessionState.WAITING and app.view.query(PermissionRequest))
        request = app.view.query_one(PermissionRequest)
        await until(pilot, lambda: request.has_focus)  # the prompt was empty: the request took the focus
        app.current.show_state(app.session.state_change(app.source.state, ""))  # the state said again: it keeps it
        await pilot.pause()
        assert request.has_focus
        prompt = app.transcript_screen.prompt
        assert not prompt.disabled and "enter queues" in str(prompt.border_subtitle)
        await pilot.press("tab")  # from the request straight to the prompt (its buttons are for the mouse)
        await until(pilot, lambda: prompt.has_focus)
        await pilot.press(*"Plot my words", "enter", *"Never mind", "enter")
        await until(pilot, lambda: app.current.prompts.queue == ["Plot my words", "Never mind"])
        assert "2 queued: Plot my words" in screen_text(app)
        await pilot.press("up")  # the last one back in the prompt: removed from the queue
        await until(pilot, lambda: prompt.text == "Never mind" and app.current.prompts.queue == ["Plot my words"])
        app.current.show_state(app.session.state_change(app.source.state, ""))  # the state said again
        await pilot.pause()
        assert prompt.has_focus  # typing: the waiting request did not take the keys
        prompt.clear()
        request.focus()
        await pilot.press("1")
        await until(pilot, lambda: len([i for i in store.items(app.source.session_id) if i.kind == "turn_end"]) == 2)
        await until(pilot, lambda: app.source.state == SessionState.IDLE and not app.current.prompts.queue)
        assert not app.transcript_screen.queued.display
        await app.action_quit()
    sent = [i.payload["text"] for i in store.items(app.source.session_id) if i.kind == "user_message"]
    assert sent == ["Check the build", "Plot my words"]
    store.close()


@pytest.mark.system
async def test_a_message_queued_when_the_agent_dies_is_given_back_and_said_at_the_exit(tmp_path, monkeypatch):
    """The agent dies (SIGKILL) while a message waits in the queue: the message is put back in the prompt box, and
    when the app quits without it being sent it is among the messages said on stderr (it was lost there)."""
    import signal

    store, app = demo_asking(tmp_path, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.source.state == SessionState.WAITING)
        app.current.submit("Also check the docs")
        await until(pilot, lambda: app.current.prompts.queue == ["Also check the docs"])
        os.kill(app.source.client.process.pid, signal.SIGKILL)
        prompt = app.transcript_screen.prompt
        await until(pilot, lambda: app.current.last_state == SessionState.ERROR and "Also check the docs" in prompt.text)
        assert not app.current.prompts.queue and app.life.unsent() == [(1, "Also check the docs")]
        prompt.text = ""  # taken out by the user: not said
        assert app.life.unsent() == []
        prompt.text = "Also check the docs"
        await app.action_quit()
    assert app.life.unsent() == [(1, "Also check the docs")]
    store.close()


@pytest.mark.system
async def test_a_request_left_waiting_while_the_user_typed_says_ctrl_g_and_ctrl_g_gives_it_the_keys(tmp_path, monkeypatch):
    """The demo's turn asks for permission and its request has the keys; the user types a message (the letters go on
    to the prompt) and queues it: the prompt keeps the keys (↑ takes the message back), so a digit would be typed there.
    The request says so (f4 first) and the footer offers f4; f4 gives the request the keys, and 1 answers
    it: its turn ends and the queued message goes (the store says so)."""
    store, app = demo_asking(tmp_path, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.source.state == SessionState.WAITING and app.view.query(PermissionRequest))
        request = app.view.query_one(PermissionRequest)
        await until(pilot, lambda: request.has_focus and "1-9 or click to answer" in screen_text(app))
        assert "Next waiting" not in screen_text(app)
        prompt = app.transcript_screen.prompt
        await pilot.press(*"Plot my words")
        await until(pilot, lambda: prompt.text == "Plot my words" and prompt.has_focus)
        await pilot.press("enter")
        await until(pilot, lambda: app.current.prompts.queue == ["Plot my words"])
        await until(pilot, lambda: "f4 then 1-9, or click, to answer" in screen_text(app))
        assert prompt.has_focus and "Next waiting" in screen_text(app)
        await pilot.press("f4")
        await until(pilot, lambda: request.has_focus and "1-9 or click to answer" in screen_text(app))
        await pilot.press("1")
        await until(pilot, lambda: app.source.state == SessionState.IDLE and not app.current.prompts.queue and len(
            [i for i in store.items(app.source.session_id) if i.kind == "turn_end"]) == 2)
        await app.action_quit()
    sent = [i.payload["text"] for i in store.items(app.source.session_id) if i.kind == "user_message"]
    assert sent == ["Check the build", "Plot my words"]
    assert not [i for i in store.items(app.source.session_id) if i.kind == "user_message" and "1" in i.payload["text"]]
    store.close()


def test_messages_queued_when_the_app_quits_are_said_on_stderr(tmp_path):
    """A real terminal (tmux): while the demo's turn runs two messages are queued, ctrl+q quits before it ends: both
    are printed in the terminal once the app's screen is gone, nothing typed is lost."""
    from .tmux import Tmux

    kandev = str(Path(sys.executable).with_name("kandev-tui"))
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "KANDEV_DEMO_DELAY": "0.5", "PYTHONHASHSEED": "0"}  # a turn that lasts
    tmux = Tmux(100, 30, f"{kandev} demo", env)
    try:
        tmux.wait_for("a turn is running · enter queues")  # the demo sent its first prompt: typing goes on
        tmux.keys("-l", "first queued")
        tmux.keys("Enter")
        tmux.keys("-l", "second queued")
        tmux.keys("Enter")
        tmux.wait_for("2 queued: first queued")
        tmux.keys("C-q")
        screen = tmux.wait_for("session 1:\nsecond queued".split("\n")[1] + "\n")
    finally:
        tmux.close()
    lines = [line.rstrip() for line in screen.splitlines()]
    said = lines.index("kandev-tui: never sent to its agent, session 1:")
    assert lines[said + 1] == "first queued" and lines[said + 3] == "second queued"


@pytest.mark.system
async def test_queued_messages_are_stored_taken_out_and_sent_now(tmp_path, monkeypatch):
    """While the demo's turn waits for a permission, three messages are queued: the store has them; ctrl+t takes the
    next one out (back in the empty prompt); ctrl+r cancels the turn and sends the next one at once: the agent
    receives it (the store says so) and the one left stays queued, stored, until it is sent after that turn."""
    store, app = demo_asking(tmp_path, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.source.state == SessionState.WAITING and app.view.query(PermissionRequest))
        stored = lambda: next(r for r in store.sessions() if r["id"] == app.source.session_id)["queued"]  # noqa: E731
        prompt = app.transcript_screen.prompt
        request = app.view.query_one(PermissionRequest)
        await until(pilot, lambda: request.has_focus)  # it takes the focus once placed: then tab to the prompt
        await pilot.press("tab")
        await until(pilot, lambda: prompt.has_focus)
        await pilot.press(*"first", "enter", *"second", "enter", *"third", "enter")
        await until(pilot, lambda: app.current.prompts.queue == ["first", "second", "third"]
                    and stored() == ["first", "second", "third"])
        assert "ctrl+r sends it now" in screen_text(app)
        await pilot.press(*"typed")
        await pilot.press("ctrl+t")  # the next one out, back in the prompt after what is typed there
        await until(pilot, lambda: app.current.prompts.queue == ["second", "third"] and stored() == ["second", "third"])
        assert prompt.text == "typed\n\nfirst"
        prompt.clear()
        await pilot.press("ctrl+r")  # "second" now: the waiting turn is cancelled first; "third" follows its turn
        await until(pilot, lambda: not app.current.prompts.queue and stored() == [])
        await until(pilot, lambda: app.source.state == SessionState.IDLE and len(
            [i for i in store.items(app.source.session_id) if i.kind == "turn_end"]) == 3)
        await app.action_quit()
    items = store.items(app.source.session_id)
    assert [i.payload["text"] for i in items if i.kind == "user_message"] == ["Check the build", "second", "third"]
    assert [i.payload.get("stop_reason") for i in items if i.kind == "turn_end"][0] == "cancelled"
    store.close()


@pytest.mark.system
async def test_a_screen_shown_before_the_first_frame_does_not_hold_the_agent_back(tmp_path, monkeypatch):
    """F1 pressed as the app opens: the help covers the session's screen before its first frame, and the agent starts
    all the same (it used to wait until the help was closed) and starts once."""
    from kandev_tui.screens.help import HelpScreen

    store, app = demo_asking(tmp_path, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        app.action_help()
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await until(pilot, lambda: app.current.last_state == SessionState.WAITING)  # its first prompt asks
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")  # the session's screen refreshes: the callback it held runs now
        refreshed: list[bool] = []
        await until(pilot, lambda: app.screen is app.current.screen)
        app.screen.call_after_refresh(refreshed.append, True)  # after the held callback, in order
        await until(pilot, lambda: refreshed)
        assert app.current.last_state == SessionState.WAITING  # not started again: still asking
        await app.action_quit()
    assert len(store.sessions()) == 1


async def test_ctrl_g_to_a_request_never_gives_the_prompt_the_keys_first(tmp_path, monkeypatch):
    """A session whose request waits, reached with f4: the request takes the keys (1-9 answer it) and the prompt
    never has them on the way. The session's prompt was due the focus when shown (its turn started off screen), and
    f4 gave it the prompt first, then the request once mounted: a "1" typed in between went into the prompt, and a
    Tab meant for the request left it (the real Claude test's flake)."""
    from kandev_tui.widgets.prompt_input import PromptInput

    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    store = Store(tmp_path / "s.db")
    (tmp_path / "kit").mkdir()
    kit_env = {**os.environ, "DIALECT": json.dumps({"steps": [{"op": "say", "text": "The kit's answer."}]})}
    app = KandevApp(source(store, AgentOptions(command=KIT, workspace=tmp_path / "kit", env=kit_env)),
                    settings_store=settings_at(tmp_path, chart_animation=False), initial_prompt="Hello, kit")
    app.animation_level = "none"
    asking = app.open_session(source(store, AgentOptions(command=agent_command(),
                                                         workspace=prepare_workspace(tmp_path / "b"))),
                              "Check the build")
    focused: list[object] = []  # what had the keys on its screen, shown, until the request took them

    def watch(message: object) -> None:  # (every message the app's nodes post: a sample of the focus at each)
        screen = asking.screen
        if pressed and app.screen is screen and not any(isinstance(w, PermissionRequest) for w in focused):
            focused.append(screen.focused)

    pressed = False
    async with app.run_test(size=(100, 30), message_hook=watch) as pilot:
        await until(pilot, lambda: asking.last_state == SessionState.WAITING)
        pressed = True
        await pilot.press("f4")
        await until(pilot, lambda: app.screen is asking.screen and any(
            w.has_focus for w in asking.view.query(PermissionRequest)))
        pressed = False
        assert not any(isinstance(w, PromptInput) for w in focused), focused
        await pilot.press("1")  # answered from the request, not typed into the prompt
        await until(pilot, lambda: asking.last_state == SessionState.IDLE)
        assert asking.screen.prompt.text == ""
        await app.action_quit()
    store.close()


def test_a_call_names_the_sessions_that_need_the_user_in_one_sentence():
    from types import SimpleNamespace

    from kandev_tui.app.attention import Attention, Call

    def call(number: int, state: SessionState, what: str) -> Call:
        session = SimpleNamespace(number=number, status=SimpleNamespace(agent=f"agent \x1b[31m{number}"))
        return Call(session, what, state)  # type: ignore[arg-type]

    login = call(6, SessionState.LOGIN, "needs a login")
    assert Attention._notice([login]) == "Session 6 (agent ␛[31m6) needs a login: f4 goes there."  # inert
    waiting = [call(n, SessionState.WAITING, "waiting for you") for n in (30, 2, 9, 7, 15, 13, 4)]
    assert Attention._notice(waiting[:2] + [login]) == ("Sessions 2 and 30 are waiting for you; session 6 needs a login: "
                                                        "f4 goes to each, the one waiting longest first.")
    assert Attention._notice(waiting).startswith("Sessions 2, 4, 7, 9, 13 and 2 more are waiting for you: ")


def test_a_kandev_task_sessions_row_says_its_time_and_state_as_the_picker_does(monkeypatch):
    """The sessions list's Kandev rows said the backend's raw time and state ("2026-12-06T01:38:46.230257633Z
    waiting_for_input"); they say them as the attach picker does, the time in local time as the stored sessions'."""
    import time

    from kandev_tui.kandev.catalog import SessionEntry
    from kandev_tui.screens.session_picker import when
    from kandev_tui.screens.sessions import remote_text

    entry = SessionEntry(workspace_id="w", workspace="Default Workspace", task_id="t", task="Fix the flaky test",
                         session_id="s1", state="WAITING_FOR_INPUT", updated_at="2026-12-06T01:38:46.230257633Z",
                         agent="mock-fast")
    try:
        monkeypatch.setenv("TZ", "Europe/Paris")
        time.tzset()
        assert remote_text(entry, 100).plain.splitlines()[0] == "◇ 2026-12-06 02:38  waiting for input  mock-fast"
        assert when("2026-12-06 01:38") == "2026-12-06 01:38"  # no zone: as it is
        assert when("yesterday\x1b[31m, late") == "yesterday␛[31m, "  # unread: cut, inert
    finally:
        monkeypatch.undo()
        time.tzset()
    odd = SessionEntry(workspace_id="w", workspace="", task_id="t", task="t", session_id="s2", state="PAUSED_\x1b[2J",
                       updated_at="", agent="a")
    assert remote_text(odd, 100).plain.splitlines()[0] == "◇   paused ␛[2j  a"


def test_a_rows_branch_comes_before_its_folder_which_is_cut_first():
    """A worktree's folder is long (under kandev-tui's data directory): the branch that says which one it is shows
    before it, and what does not fit is the folder's end."""
    from kandev_tui.session.row import SessionRow
    from kandev_tui.widgets.sessions_sidebar import row_text

    folder = "/home/me/.local/share/kandev-tui/worktrees/app-dc64e811/kandev-demo-2"
    row = SessionRow(2, "demo agent", "fix it", folder, "kandev/demo-2", SessionState.IDLE, "idle", "", None, 0, "",
                     False)
    second = row_text(row, 32).plain.splitlines()[1]
    assert second == "    fix it  kandev/demo-2 · /ho…"


def test_in_the_sidebars_columns_a_rows_agent_is_kept_over_its_words_and_in_the_list_all_of_them_show():
    """The sidebar is 33 columns: there, a waiting session's row cut "waiting for you +6 new · on screen" after its
    state and never named its agent, which is what tells one session from the next. The agent is kept: the cost,
    "on screen" and the state's long word give way first. In the list's 80 columns every part shows."""
    from kandev_tui.session.row import SessionRow
    from kandev_tui.widgets.sessions_sidebar import row_text

    def first(agent: str, activity: str, state: SessionState, unseen: int, cost: str, current: bool, width: int):
        row = SessionRow(1, agent, "t", "/w", "", state, activity, "", None, unseen, cost, current)
        return row_text(row, width).plain.splitlines()[0]

    waiting = ("Codex", "waiting for you", SessionState.WAITING, 6, "$0.12", False)
    assert first(*waiting, 78) == "? 1 waiting for you  +6 new · $0.12  Codex"
    assert first(*waiting, 32) == "? 1 waiting  +6  Codex"
    assert first("kandev-tui demo agent", "waiting for you", SessionState.WAITING, 10, "", False, 32) \
        == "? 1 waiting  +10  kandev-tui de…"
    on_screen = ("Claude Agent", "idle", SessionState.IDLE, 0, "$0.00", True)
    assert first(*on_screen, 78) == "○ 1 idle  $0.00 · on screen  Claude Agent"
    assert first(*on_screen, 32) == "○ 1 idle  Claude Agent"
    assert first(*on_screen, 10) == "○ 1 idle …"  # the narrowest a row is drawn: cut, never wider


def test_a_rows_title_is_cut_between_words_and_the_lists_heading_keeps_whole_keys():
    """At 45 and 80 columns a row cut its title mid-word ("bu…") and the heading wrapped its key onto a line of its
    own. A title is cut between two words, a folder where it ends; the heading says whole parts on one line, who
    waits first."""
    from kandev_tui.screens.sessions import heading_text
    from kandev_tui.session.row import SessionRow
    from kandev_tui.widgets.sessions_sidebar import row_text

    row = SessionRow(1, "demo", "Fix the build of billing", "/w/app", "", SessionState.IDLE, "idle", "", None, 0, "",
                     False)
    assert row_text(row, 26).plain.splitlines()[1] == "    Fix the build of…"
    assert row_text(row, 40).plain.splitlines()[1] == "    Fix the build of billing  /w/app"
    assert row_text(row, 34).plain.splitlines()[1] == "    Fix the build of billing  /w/…"  # the folder: its end
    for width in (43, 78, 118):
        heading = heading_text(3, 3, 1, True, width).plain
        assert len(heading) <= width and "(f4)" in heading, heading
        assert heading.startswith("Sessions  1 waiting"), heading
    assert heading_text(3, 3, 1, True, 118).plain == "Sessions  1 waiting for you (f4)  3 in this app · 3 live  " \
                                                     "ctrl+n new"
    assert heading_text(3, 3, 1, True, 43).plain == "Sessions  1 waiting for you (f4)"


@pytest.mark.system
@pytest.mark.parametrize("width", [45, 80])
async def test_the_lists_rows_keep_to_two_lines_at_any_width(tmp_path, width):
    """A row drawn as wide as the list wrapped onto a third line holding only "…" (the list's scrollbar took two
    columns): each row is its two lines, at the width the list has, and again after a resize."""
    from kandev_tui.sources import ReplaySource

    from .app_helpers import DEMO_RECORDING, replay_app

    long = tmp_path / "the build of the billing service and all of its flaky integration tests.jsonl"
    long.write_bytes(DEMO_RECORDING.read_bytes())  # a title that does not fit
    app = replay_app(tmp_path)
    for _ in range(14):  # more rows than fit: the list scrolls
        app.open_session(ReplaySource(long))
    async with app.run_test(size=(width, 24)) as pilot:
        await until(pilot, lambda: len(app.sessions) == 15)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.options.option_count >= 15)
        for size in ((width, 24), (width - 7, 24)):
            await pilot.resize_terminal(*size)
            await until(pilot, lambda wanted=size[0]: app.screen.size.width == wanted)
            await pilot.pause()
            lines = screen_text(app).splitlines()
            assert not [line for line in lines if line.strip(" ▁▂▃▄▅▆▇█▎▊") == "…"], "\n".join(lines)
            assert all(app.screen.options.get_option_at_index(i).prompt.plain.count("\n") == 1
                       for i in range(app.screen.options.option_count)
                       if app.screen.options.get_option_at_index(i).id)
            titles = [line for line in lines if "the build of" in line]
            assert len(titles) >= 5 and all(line.rstrip(" ▁▂▃▄▅▆▇█▎▊").endswith(("…", "jsonl")) for line in titles)
            assert all(len(line.rstrip()) <= size[0] for line in lines), "\n".join(lines)


@pytest.mark.system
@pytest.mark.parametrize("width", [45, 100])
async def test_the_queue_line_says_only_whole_hints_in_its_two_lines(tmp_path, monkeypatch, width):
    """At 45 columns the line under the transcript was cut off by its two-line height after "ctrl+t", a key without
    what it does. It says the queued message, then as many whole hints as its two lines hold (all at 100 columns),
    laid out again when the terminal is resized."""
    from textual.widgets import Static

    store, app = demo_asking(tmp_path, monkeypatch)
    async with app.run_test(size=(width, 30)) as pilot:
        await until(pilot, lambda: app.source.state == SessionState.WAITING and app.view.query(PermissionRequest))
        prompt = app.transcript_screen.prompt
        prompt.focus()
        await pilot.press(*"Plot my words", "enter")
        await until(pilot, lambda: app.current.prompts.queue == ["Plot my words"])
        line = app.transcript_screen.query_one("#queued", Static)

        def said() -> str:
            return " ".join(line.render_line(y).text.strip() for y in range(line.size.height))

        await until(pilot, lambda: "1 queued: Plot my words" in said())
        hints = ["sent when the turn ends", "ctrl+r sends it now", "ctrl+t takes it back",
                 "↑ in the empty prompt takes the last back"]
        shown = [part.strip() for part in said().split("·")[1:]]
        assert shown == hints[:len(shown)] and "…" not in said()  # whole hints only, in their order
        assert (len(shown) == 4) if width == 100 else (1 <= len(shown) < 4)
        if width == 45:
            await pilot.resize_terminal(100, 30)
            await until(pilot, lambda: "takes the last back" in said())
        await app.action_quit()
