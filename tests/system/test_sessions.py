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
from kandev_tui.transcript import Store
from kandev_tui.ui.textual_hooks import screen_text
from kandev_tui.widgets.entries.permission import PermissionRequest

from ..support import AGENTS
from ..support.app_helpers import settings_at, until
from ..support.procs import live_pids

KIT = [sys.executable, str(AGENTS / "dialect_agent.py")]


def demo_asking(tmp_path: Path, monkeypatch) -> tuple[Store, KandevApp]:
    """The demo agent in the app, sent its first prompt, whose turn asks for a permission (and waits for it)."""
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    store = Store(tmp_path / "s.db")
    app = KandevApp(LiveSource(store=store, options=AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp_path / "a"))),
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
    app = KandevApp(LiveSource(store=store, options=AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp_path / "a"))),
                    settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    first = app.sessions[0]
    # the demo's "Check the build" turn asks for permission: it does so while the first session is on screen
    second = app.open_session(LiveSource(store=store, options=AgentOptions(command=agent_command(),
                                                         workspace=prepare_workspace(tmp_path / "b"))),
                              "Check the build")
    third = app.open_session(LiveSource(store=store, options=AgentOptions(command=KIT, workspace=tmp_path / "kit", env=kit_env)),
                             "Hello, kit")
    async with app.run_test(size=(100, 30)) as pilot:
        turn_ended = lambda s: s.model.source.session_id and any(  # noqa: E731
            i.kind == "turn_end" for i in store.items(s.model.source.session_id))
        await until(pilot, lambda: second.last_state == SessionState.WAITING and turn_ended(third)
                    and first.last_state == SessionState.IDLE)
        assert app.current is first
        # what came off screen is stored as it came (the model shows it once the session is on screen)
        stored = {row["id"]: row for row in store.sessions()}
        kit_texts = [i.payload.get("text") for i in store.items(third.model.source.session_id) if i.kind == "agent_message"]
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
        await until(pilot, lambda: second.model.source.state == SessionState.ENDED)
        assert first.model.source.state == SessionState.IDLE and third.model.source.state == SessionState.IDLE
        await app.action_quit()
    assert not of_this_test(tmp_path)()  # no agent (nor its MCP server) left behind
    rows = {row["id"]: row for row in store.sessions()}
    items = store.items(second.model.source.session_id)
    assert next(i for i in items if i.kind == "permission").payload["answer"]["option_id"] == "allow"
    assert [i.kind for i in items].count("turn_end") == 1
    assert [i.payload["text"] for i in store.items(third.model.source.session_id) if i.kind == "user_message"] == \
        ["Hello, kit"]
    assert all(row["state"] == "ended" for row in rows.values())
    store.close()


async def test_a_session_whose_agent_cannot_start_fails_and_the_others_go_on(tmp_path, monkeypatch):
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    store = Store(tmp_path / "s.db")
    app = KandevApp(LiveSource(store=store, options=AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp_path / "a"))),
                    settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    broken = app.open_session(LiveSource(store=store, options=AgentOptions(command=["no-such-agent-anywhere"], workspace=tmp_path)))
    also = app.open_session(LiveSource(store=store, options=AgentOptions(command=[sys.executable, "-c", "raise SystemExit(3)"],
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
    from ..support.tmux import Tmux

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
    from kandev_tui.widgets.chrome.prompt_input import PromptInput

    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    store = Store(tmp_path / "s.db")
    (tmp_path / "kit").mkdir()
    kit_env = {**os.environ, "DIALECT": json.dumps({"steps": [{"op": "say", "text": "The kit's answer."}]})}
    app = KandevApp(LiveSource(store=store, options=AgentOptions(command=KIT, workspace=tmp_path / "kit", env=kit_env)),
                    settings_store=settings_at(tmp_path, chart_animation=False), initial_prompt="Hello, kit")
    app.animation_level = "none"
    asking = app.open_session(LiveSource(store=store, options=AgentOptions(command=agent_command(),
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


def test_a_kandev_task_sessions_row_says_its_time_and_state_as_the_picker_does(monkeypatch):
    """The sessions list's Kandev rows said the backend's raw time and state ("2026-12-06T01:38:46.230257633Z
    waiting_for_input"); they say them as the attach picker does, the time in local time as the stored sessions'."""
    import time

    from kandev_tui.kandev.catalog import SessionEntry
    from kandev_tui.screens.session_picker import when
    from kandev_tui.screens.session_rows import remote_text

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
    from kandev_tui.widgets.chrome.sessions_sidebar import row_text

    folder = "/home/me/.local/share/kandev-tui/worktrees/app-dc64e811/kandev-demo-2"
    row = SessionRow(2, "demo agent", "fix it", folder, "kandev/demo-2", SessionState.IDLE, "idle", "", None, 0, "",
                     False)
    second = row_text(row, 32).plain.splitlines()[1]
    assert second == "    fix it  kandev/demo-2 · /ho…"
@pytest.mark.parametrize("width", [45, 80])
async def test_the_lists_rows_keep_to_two_lines_at_any_width(tmp_path, width):
    """A row drawn as wide as the list wrapped onto a third line holding only "…" (the list's scrollbar took two
    columns): each row is its two lines, at the width the list has, and again after a resize."""
    from kandev_tui.sources import ReplaySource

    from ..support.app_helpers import DEMO_RECORDING, replay_app

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
