"""The bare ``kandev-tui``: the app opens on the sessions list with the stored sessions; enter opens one read-only,
``c`` continues one with its own agent (a real process that loads its session), ctrl+s comes back to the list (and
escape from it to the session), and closing the last live session does too. Without a terminal the bare command prints its help."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kandev_tui.app.home import HomeApp
from kandev_tui.session import SessionState
from kandev_tui.sources.launch import Launcher
from kandev_tui.transcript import Item, Store
from kandev_tui.ui.textual_hooks import screen_text

from ..support import AGENTS
from ..support.app_helpers import (
    DEMO_RECORDING,
    footer_keys,
    home_app,
    new_session_dialog,
    replay_app,
    settings_at,
    until,
)

KANDEV = str(Path(sys.executable).parent / "kandev-tui")
LOADING_AGENT = [sys.executable, str(AGENTS / "loading_agent.py")]


async def test_the_home_lists_stored_sessions_opens_one_and_continues_another(tmp_path):
    agent = [*LOADING_AGENT, str(tmp_path / "agent-sessions.json")]
    first = subprocess.run([KANDEV, "run", "--headless", "--db", str(tmp_path / "s.db"), "--workspace", str(tmp_path),
                            "--prompt", "first question", "--", *agent], capture_output=True, text=True, timeout=180)
    assert first.returncode == 0, first.stderr
    store = Store(tmp_path / "s.db")
    plain = store.create_session(title="an old \x1b[31mred\x1b[0m session", agent_command=["gone-agent"],
                                 workspace=str(tmp_path), state="ended")
    continued = next(row["id"] for row in store.sessions() if row["id"] != plain)
    app = HomeApp(Launcher(store, settings_at(tmp_path, chart_animation=False)),
                  settings_store=settings_at(tmp_path, chart_animation=False))
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.home
        await until(pilot, lambda: app.screen is home and len(home.stored) == 2)
        text = screen_text(app)
        assert "No live session: ctrl+n starts one." in text and "Stored sessions (2)" in text
        assert "\x1b" not in text and "c continues" in text  # the loading agent's can be continued; the other not
        assert "ctrl+n" in text
        app.life.look_around()  # its look at the rows and the collector, with no session open yet
        # the plain one: enter opens it read-only
        home.options.highlighted = next(i for i in range(home.options.option_count)
                                        if home.options.get_option_at_index(i).id == f"stored:"
                                        f"{[r['id'] for r in home.stored].index(plain)}")
        assert not app.screen.check_action("continue_stored", ())  # c is not offered on it
        await pilot.press("enter")
        await until(pilot, lambda: len(app.sessions) == 1 and app.current.on_screen
                    and app.current.last_state == SessionState.STORED)
        assert app.current.model.source.session_id == plain and not app.current.model.source.can_prompt
        await pilot.press("ctrl+s")  # home again
        await until(pilot, lambda: app.screen is home and len(home.stored) == 1)  # the open one is live here now
        assert "Sessions  1 in this app  ctrl+n new" in screen_text(app)  # the stored one open here
        home.options.highlighted = next(i for i in range(home.options.option_count)
                                        if (home.options.get_option_at_index(i).id or "").startswith("stored:"))
        await pilot.press("c")  # continued by its agent: session/load, then a new turn
        await until(pilot, lambda: len(app.sessions) == 2 and app.current is app.sessions[1]
                    and app.current.last_state == SessionState.IDLE)
        assert app.current.model.source.session_id == continued
        await pilot.press(*"second question", "enter")
        await until(pilot, lambda: any(i.kind == "turn_end" for i in store.items(continued)[2:]))
        said = [i.payload.get("text") for i in store.items(continued) if i.kind == "agent_message"]
        assert said[-1] == "Answer 2 to: second question"  # the agent remembered its first turn
        await pilot.press("ctrl+s")  # a glance at the list; escape goes back where ctrl+s was pressed
        await until(pilot, lambda: app.screen is home and "Back" in {d for _, d, _ in footer_keys(app)})
        await pilot.press("escape")
        await until(pilot, lambda: app.current is app.sessions[1] and app.current.on_screen)
        await pilot.press("ctrl+w", "ctrl+w")  # the live one closed: the read-only one is shown
        await until(pilot, lambda: app.sessions[1].closed and app.current is app.sessions[0] and app.current.on_screen)
        await pilot.press("ctrl+w", "ctrl+w")  # the last: back to the list, the app still open
        await until(pilot, lambda: app.screen is home)
        assert app.is_running
        await pilot.press("escape")  # nothing to go back to: the session was closed, not left
        await pilot.pause()
        assert app.screen is home and "Back" not in {d for _, d, _ in footer_keys(app)}
        await app.action_quit()
    assert len(store.sessions()) == 2  # nothing was made twice
    store.close()


async def test_c_on_a_stored_session_its_agent_cannot_continue_says_why(tmp_path):
    store = Store(tmp_path / "s.db")
    store.create_session(title="an old session", agent_command=["gone-agent"], workspace=str(tmp_path), state="ended")
    app = HomeApp(Launcher(store, settings_at(tmp_path, chart_animation=False)),
                  settings_store=settings_at(tmp_path, chart_animation=False))
    async with app.run_test(size=(100, 24), notifications=True) as pilot:
        home = app.home
        await until(pilot, lambda: app.screen is home and len(home.stored) == 1)
        home.options.highlighted = next(i for i in range(home.options.option_count)
                                        if (home.options.get_option_at_index(i).id or "").startswith("stored:"))
        await pilot.press("c")
        await until(pilot, lambda: "Not continued: session " in screen_text(app))
        assert "its agent never" in screen_text(app)
        assert not app.sessions and app.screen is home
        await app.action_quit()
    store.close()


async def test_the_lists_footer_offers_enter_and_ctrl_n_where_agents_start(tmp_path):
    """The list's footer says what enter does (an option list hides its key) and, where agents can be started, ctrl+n
    (the app's key, hidden elsewhere: the list said it only in its heading); the sidebar's rows say enter too. A replay
    starts no agent: no ctrl+n. The new-session dialog's footer says its own keys."""
    app, store = home_app(tmp_path)
    store.create_session(title="an old session", agent_command=["gone-agent"], workspace=str(tmp_path), state="ended")
    async with app.run_test(size=(100, 24)) as pilot:
        await until(pilot, lambda: app.screen is app.home and len(app.home.stored) == 1)
        await until(pilot, lambda: {"Open", "New session"} <= {d for _, d, _ in footer_keys(app)})
        await new_session_dialog(pilot)
        # the dialog's own keys, not the list's beneath it ("⏎ Open ^n New session" was shown under the dialog)
        # the preset first (enter opens its list): no "Start" said; in a field, enter starts the session
        await until(pilot, lambda: [d for _, d, _ in footer_keys(app)] == ["Next field", "Cancel"])
        await pilot.press("tab")  # to the folder field
        await until(pilot, lambda: [d for _, d, _ in footer_keys(app)] == ["Start", "Next field", "Cancel"])
        await pilot.press("shift+tab", "shift+tab")  # back past the preset to Start: enter presses it
        await until(pilot, lambda: [d for _, d, _ in footer_keys(app)] == ["Next field", "Cancel"])
        await app.action_quit()
    store.close()
    from kandev_tui.sources import ReplaySource

    replay = replay_app(tmp_path)
    replay.open_session(ReplaySource(DEMO_RECORDING))
    async with replay.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: replay.current.screen.sidebar.display)
        await pilot.press("ctrl+s")  # two sessions at 120 columns: the sidebar beside the transcript takes the focus
        await until(pilot, lambda: "Show" in {d for _, d, _ in footer_keys(replay)})
        await pilot.press("ctrl+b", "ctrl+s")  # the sidebar hidden: the list, full screen
        await until(pilot, lambda: type(replay.screen).__name__ == "SessionsScreen")
        await until(pilot, lambda: "Open" in {d for _, d, _ in footer_keys(replay)})
        assert "New session" not in {d for _, d, _ in footer_keys(replay)}
        await replay.action_quit()


async def test_a_stored_session_whose_folder_is_gone_says_so_in_its_row_and_when_c_is_pressed(tmp_path):
    """A worktree removed on close takes the session's folder with it: the row says "folder gone" where it said
    "c continues", and c says the session can only be opened read-only."""
    folder = tmp_path / "worktree"
    folder.mkdir()
    agent = [*LOADING_AGENT, str(tmp_path / "agent-sessions.json")]
    ran = subprocess.run([KANDEV, "run", "--headless", "--db", str(tmp_path / "s.db"), "--workspace", str(folder),
                          "--prompt", "first question", "--", *agent], capture_output=True, text=True, timeout=180)
    assert ran.returncode == 0, ran.stderr
    store = Store(tmp_path / "s.db")
    one = store.create_session(title="one", agent_command=["gone-agent"], workspace=str(tmp_path), state="ended")
    store.upsert_items(one, [Item("user:1", "user_message", 1, {"text": "hello"}, final=True)])
    folder.rmdir()
    app = HomeApp(Launcher(store, settings_at(tmp_path, chart_animation=False)),
                  settings_store=settings_at(tmp_path, chart_animation=False))
    async with app.run_test(size=(100, 24), notifications=True) as pilot:
        home = app.home
        await until(pilot, lambda: app.screen is home and len(home.stored) == 2)
        text = screen_text(app)
        assert "folder gone" in text and "c continues" not in text
        assert "  1 item  " in text and "  5 items  " in text
        home.options.highlighted = next(i for i in range(home.options.option_count)
                                        if home.options.get_option_at_index(i).id == "stored:"
                                        f"{[r['title'] for r in home.stored].index('first question')}")
        assert not app.screen.check_action("continue_stored", ())  # c is not offered on it, and says why
        await pilot.press("c")
        await until(pilot, lambda: "Not continued: session " in screen_text(app))
        notice = " ".join(line.split("▌", 1)[1].split("▎")[0].strip() for line in screen_text(app).splitlines()
                          if "▌" in line)
        assert "which is gone: it can only be opened read-only." in notice  # (the notice's lines joined again)
        assert not app.sessions and app.screen is home
        await app.action_quit()
    store.close()


async def test_past_two_hundred_stored_sessions_the_list_says_it_shows_the_newest(tmp_path):
    """The list shows the newest 200 stored sessions; its heading said "Stored sessions (200)" of 205."""
    store = Store(tmp_path / "s.db")
    for n in range(205):
        store.create_session(title=f"task {n}", agent_command=["gone-agent"], workspace=str(tmp_path), state="ended")
    app = HomeApp(Launcher(store, settings_at(tmp_path, chart_animation=False)),
                  settings_store=settings_at(tmp_path, chart_animation=False))
    async with app.run_test(size=(120, 24)) as pilot:
        home = app.home
        await until(pilot, lambda: app.screen is home and len(home.stored) == 200)
        assert "Stored sessions (the newest 200 of 205; kandev-tui sessions lists them all)" in screen_text(app)
        await app.action_quit()
    store.close()


def test_the_bare_command_without_a_terminal_prints_its_help():
    done = subprocess.run([KANDEV], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and "usage: kandev-tui" in done.stdout and "the sessions list" in done.stdout


async def test_messages_left_queued_are_offered_again_when_the_session_is_continued(tmp_path):
    """A session continued with its agent gets back what was queued in it and never sent: shown queued, stored,
    and ctrl+r sends it; the agent answers it."""
    agent = [*LOADING_AGENT, str(tmp_path / "agent-sessions.json")]
    first = subprocess.run([KANDEV, "run", "--headless", "--db", str(tmp_path / "s.db"), "--workspace", str(tmp_path),
                            "--prompt", "first question", "--", *agent], capture_output=True, text=True, timeout=180)
    assert first.returncode == 0, first.stderr
    store = Store(tmp_path / "s.db")
    session_id = store.sessions()[0]["id"]
    store.set_queued(session_id, ["left in the queue"])  # as an app that quit before sending it left it
    app = HomeApp(Launcher(store, settings_at(tmp_path)), settings_store=settings_at(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(app.home.stored) == 1)
        app.home.options.highlighted = next(i for i in range(app.home.options.option_count)
                                            if (app.home.options.get_option_at_index(i).id or "").startswith("stored:"))
        await pilot.press("c")
        await until(pilot, lambda: app.sessions and app.current.last_state == SessionState.IDLE)
        assert app.current.prompts.queue == ["left in the queue"]
        await until(pilot, lambda: "1 queued: left in the queue" in screen_text(app))
        await pilot.press("ctrl+r")
        await until(pilot, lambda: not app.current.prompts.queue and store.sessions()[0]["queued"] == []
                    and any(i.kind == "turn_end" for i in store.items(session_id)[2:]))
        said = [i.payload.get("text") for i in store.items(session_id) if i.kind == "agent_message"]
        assert said[-1] == "Answer 2 to: left in the queue"
        await app.action_quit()
    store.close()


async def test_the_palette_offers_the_sessions_keys_a_browser_keeps_for_itself(tmp_path, monkeypatch):
    """Under serve, a browser takes ctrl+n and ctrl+w: the command palette has New session and Close this session
    (closed at once: chosen, nothing to confirm); at the home the palette opens without a session."""
    from textual.command import CommandPalette

    from kandev_tui.screens.new_session import NewSessionScreen

    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    store = Store(tmp_path / "s.db")
    settings = settings_at(tmp_path, chart_animation=False)
    app = HomeApp(Launcher(store, settings), settings_store=settings)

    async def command(pilot, name: str) -> None:
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*name)
        await until(pilot, lambda: name in screen_text(app))
        await pilot.pause(0.3)  # the palette's search settles on the best match
        await pilot.press("enter")

    async with app.run_test(size=(100, 30)) as pilot:
        await command(pilot, "New session")
        await until(pilot, lambda: isinstance(app.screen, NewSessionScreen))
        app.screen.query_one("#workspace").value = str(tmp_path)
        app.screen.query_one("#prompt").focus()
        await pilot.press("enter")
        await until(pilot, lambda: len(app.sessions) == 1 and app.current.last_state == SessionState.IDLE)
        await command(pilot, "Close this session")
        await until(pilot, lambda: app.sessions[0].closed and app.screen is app.home)
        await app.action_quit()
    assert store.sessions()[0]["state"] == "ended"
    store.close()


async def test_the_new_session_dialog_opens_on_its_first_field_marked_and_typing_starts_the_prompt(tmp_path):
    """It opened on its last field, marked by one shade, and a character typed on a button was dropped. The preset
    has the focus, marked beside it; what is typed while the preset, the checkbox or a button has the focus goes to
    the prompt (space still ticks the checkbox)."""
    from textual.widgets import Button, Checkbox, Input, Select

    app, store = home_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await new_session_dialog(pilot)
        await until(pilot, lambda: isinstance(app.focused, Select) and app.focused.id == "preset")
        await until(pilot, lambda: "▸ Agent preset" in screen_text(app))  # its label marked, not only a shade
        assert dialog.query_one("#preset-label").has_class("-focused")
        await pilot.press(*"Fix")
        prompt = dialog.query_one("#prompt", Input)
        assert app.focused is prompt and prompt.value == "Fix"
        await until(pilot, lambda: "▸ First prompt (optional)" in screen_text(app) and "▸ Agent" not in screen_text(app))
        dialog.query_one("#worktree", Checkbox).focus()
        await pilot.press("space", "i", "t")
        assert dialog.query_one("#worktree", Checkbox).value and prompt.value == "Fixit"
        dialog.query_one("#cancel", Button).focus()
        await pilot.press("!")
        assert app.focused is prompt and prompt.value == "Fixit!"
        await app.action_quit()
    store.close()


async def test_from_the_home_ctrl_g_reaches_the_session_waiting_for_you(tmp_path, monkeypatch):
    from kandev_tui.widgets.entries.permission import PermissionRequest

    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    app, store = home_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await new_session_dialog(pilot)
        app.screen.query_one("#workspace").value = str(tmp_path)
        app.screen.query_one("#prompt").value = "Check the build"  # the demo's turn asks for a permission
        app.screen.query_one("#prompt").focus()
        await pilot.press("enter")
        await until(pilot, lambda: app.sessions and app.sessions[0].waiting_since is not None)
        await pilot.press("ctrl+s")  # home, the session waiting
        await until(pilot, lambda: app.screen is app.home and "waiting for you" in screen_text(app))
        await pilot.press("f4")
        await until(pilot, lambda: app.current.on_screen and app.screen is app.sessions[0].screen
                    and app.sessions[0].view.query(PermissionRequest))
        await app.action_quit()
    store.close()


async def test_the_highlighted_row_stays_on_its_session_when_rows_come_before_it(tmp_path):
    """The list is drawn again at each change (a session opened, a subagent's row): the highlight stays on the
    session it was on, not on the row that now stands at its place (enter opened another session than the one seen
    highlighted)."""
    from ..support.app_helpers import ScriptedSource, message_item

    store = Store(tmp_path / "s.db")
    for title in ("older task", "newer task"):
        store.create_session(title=title, agent_command=["gone-agent"], workspace=str(tmp_path), state="ended")
    app = HomeApp(Launcher(store, settings_at(tmp_path, chart_animation=False)),
                  settings_store=settings_at(tmp_path, chart_animation=False))
    scripted = ScriptedSource([message_item(1, "Here.")])  # noqa: E731
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.home
        await until(pilot, lambda: app.screen is home and len(home.stored) == 2)
        options = home.options
        options.highlighted = next(i for i in range(options.option_count)
                                   if options.get_option_at_index(i).id == "stored:1")
        chosen = home.stored[1]["id"]
        for n in (1, 2):  # the first takes the place of "No live session"; the second is a row more above
            app.open_session(scripted)
            await until(pilot, lambda n=n: sum(1 for i in range(options.option_count)
                                               if (options.get_option_at_index(i).id or "").startswith("live:")) == n)
        assert options.get_option_at_index(options.highlighted).id == "stored:1"
        await pilot.press("enter")
        await until(pilot, lambda: len(app.sessions) == 3 and app.current is app.sessions[2])
        assert app.current.model.source.session_id == chosen
