"""Agent faults seen from the app: a flood of chunks, a tool call that never ends, an agent that ignores
cancel. The UI keeps answering keys during each, the mounted window stays bounded, and the store keeps
everything the agent sent. Real processes (tests/support/agents/fault_agent.py), the real app, real SQLite."""

from __future__ import annotations

import sys

import pytest

from kandev_tui.acp import AgentOptions
from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.screens.help import HelpScreen
from kandev_tui.session.window import WINDOW_MAX
from kandev_tui.sources import LiveSource
from kandev_tui.transcript import Store

from ..support import AGENTS
from ..support.app_helpers import ready, settings_at, until
from ..support.app_helpers import press

AGENT = [sys.executable, str(AGENTS / "fault_agent.py")]


def fault_app(tmp_path, *mode: str, **options) -> tuple[KandevApp, Store]:
    store = Store(tmp_path / "s.db")
    agent = AgentOptions(command=[*AGENT, *mode], workspace=tmp_path, inject_guidance=False, **options)
    app = KandevApp(LiveSource(agent, store),
                    settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    return app, store


async def keys_answered(pilot) -> bool:
    """F1 opens help and escape closes it, each within a few turns of the event loop."""
    app = pilot.app
    press(app, "f1")
    opened = await until(pilot, lambda: isinstance(app.screen, HelpScreen), rounds=40, fail=False)
    press(app, "escape")
    closed = await until(pilot, lambda: not isinstance(app.screen, HelpScreen), rounds=40, fail=False)
    return opened and closed


def stored_text(store: Store) -> str:
    items = store.items(store.sessions()[0]["id"])
    return "".join(i.payload.get("text", "") for i in items if i.kind == "agent_message")


async def send(pilot, text: str) -> None:
    app = pilot.app
    await until(pilot, lambda: ready(app))
    app.transcript_screen.prompt.focus()
    await pilot.press(*text, "enter")


@pytest.mark.reliability("Agent faults", "a flood of chunks as fast as the pipe takes them", cases=100_000,
                         held="keys answered while streaming; window bounded; every chunk stored in order")
async def test_a_flood_of_chunks_keeps_the_ui_answering_and_loses_nothing(tmp_path):
    count = 100_000  # as fast as the pipe takes them: faster than any agent streams; and on until the keys were
    # pressed (a fast machine took 100,000 before the first key)
    release = tmp_path / "release"
    app, store = fault_app(tmp_path, "flood", str(count), str(release))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "flood")
        await until(pilot, lambda: app.source.state == "running")
        for _ in range(3):
            assert await keys_answered(pilot)  # while the flood is still arriving
        assert app.source.state == "running"
        release.touch()
        await until(pilot, lambda: ready(app))
        await until(pilot, lambda: not app.session.batch)
        assert len(app.view.widgets) <= WINDOW_MAX
        assert await keys_answered(pilot)
        await app.action_quit()
    text = stored_text(store)
    sent = text.count(" ")
    assert sent >= count and text == "".join(f"c{i} " for i in range(sent))  # every chunk, in order
@pytest.mark.reliability("Agent faults", "a tool call that never ends", cases=1,
                         held="keys answered; escape cancels; the call ends as cancelled")
async def test_a_tool_call_that_never_ends_can_be_cancelled(tmp_path):
    app, store = fault_app(tmp_path, "hang-tool")
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "migrate")
        await until(pilot, lambda: any(e.kind == "group" for e in app.view.entries))
        for _ in range(3):
            assert await keys_answered(pilot)  # the call runs on; the app does not wait for it
        assert app.source.state == "running"
        await pilot.press("escape")
        await until(pilot, lambda: ready(app))
        await app.action_quit()
    items = store.items(store.sessions()[0]["id"])
    assert items[-1].kind == "turn_end" and items[-1].payload["stop_reason"] == "cancelled"
    call = next(i for i in items if i.kind == "tool_call")
    assert call.status == "cancelled"  # not shown as running forever
@pytest.mark.reliability("Agent faults", "an agent that ignores cancel", cases=1,
                         held="stopped after the grace period; keys answered; no chunk lost")
async def test_an_agent_that_ignores_cancel_is_stopped_and_its_output_kept(tmp_path):
    app, store = fault_app(tmp_path, "ignore-cancel", cancel_grace=1.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await until(pilot, lambda: "still going 3" in stored_text(store))
        await pilot.press("escape")
        assert await keys_answered(pilot)  # during the grace period
        await until(pilot, lambda: app.source.state in ("idle", "ended", "error"))
        await until(pilot, lambda: "ignored cancel for 1 s and was stopped" in " ".join(
            getattr(w, "searchable_text", "") for w in app.view.widgets.values()))
        assert await keys_answered(pilot)
        pid = app.source.client.process.pid
        await app.action_quit()
    with pytest.raises(ProcessLookupError):  # quitting while the stop was under way: the agent is gone all the same
        __import__("os").kill(pid, 0)
    text = stored_text(store)
    chunks = text.split("still going ")[1:]
    assert [int(c) for c in chunks] == list(range(len(chunks))) and len(chunks) > 10  # nothing lost, no gap
async def test_an_agent_killed_mid_turn_is_said_once_by_its_signal_and_the_app_exits_non_zero(tmp_path):
    from kandev_tui.transcript.items import ERROR

    app, store = fault_app(tmp_path, "killed-mid-turn")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: ready(app))
        app.transcript_screen.prompt.focus()
        await pilot.press(*"go", "enter")
        await until(pilot, lambda: app.source.state == "error")
        await app.action_quit()
    assert app.return_code == 1 and app.life.failures() == ["the agent was ended by SIGKILL (signal 9) during the turn"]
    session = store.sessions()[0]
    errors = [i for i in store.items(session["id"]) if i.kind == ERROR]
    assert [e.payload["message"] for e in errors] == ["The agent was ended by SIGKILL (signal 9) during the turn."]
    assert "exit_code" not in errors[0].payload and session["state"] == "failed"
    store.close()


def test_a_command_that_echoes_is_said_not_to_speak_acp(tmp_path):
    import subprocess

    result = subprocess.run([sys.executable, "-m", "kandev_tui", "run", "--headless", "--prompt", "hi", "--db",
                             str(tmp_path / "s.db"), "--", "cat"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "kandev-tui run: cat does not speak ACP: it sent kandev-tui's own initialize back" in result.stderr


def test_a_command_that_ends_without_a_word_is_asked_whether_it_is_an_acp_agent_and_a_crash_says_its_last_words(
        tmp_path):
    """``true`` (or a script that does something else) ended at once, silent and with status 0: "The agent failed
    during initialize: the agent closed the connection" said nothing of a command that is no agent. An agent that
    crashes (status 3, a line on stderr) still says so, with its last words."""
    import subprocess

    def run(*command: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "kandev_tui", "run", "--headless", "--prompt", "hi", "--db",
                               str(tmp_path / "s.db"), "--", *command], capture_output=True, text=True, timeout=60)

    silent = run("true")
    assert silent.returncode == 1
    assert silent.stderr.strip().splitlines()[-1] == ("kandev-tui run: true ended without writing a line on its output, "
                                                      "before it answered initialize (is it an ACP agent, or the command "
                                                      "that starts one?)")
    crashed = run(sys.executable, "-c", "import sys; sys.stderr.write('no module named agent_core\\n'); sys.exit(3)")
    assert crashed.returncode == 1
    assert crashed.stderr.strip().splitlines()[-1] == ("kandev-tui run: The agent failed during initialize: the agent "
                                                       "closed the connection (its last words: no module named "
                                                       "agent_core)")


async def test_pick_with_an_agent_that_lists_no_sessions_says_so_without_a_retry_and_quitting_fails(tmp_path):
    from kandev_tui.screens.session_picker import SessionPickerScreen

    store = Store(tmp_path / "s.db")
    agent = AgentOptions(command=[*AGENT, "exit-mid-turn"], workspace=tmp_path, inject_guidance=False)
    app = KandevApp(LiveSource(agent, store, pick=True),
                    settings_store=settings_at(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and app.screen.failure)
        said = str(app.screen.status.render())
        assert "This agent does not list its sessions" in said and "Error" not in said and "r to try again" not in said
        await pilot.press("escape")
        await until(pilot, lambda: app.return_code is not None)
    assert app.return_code == 1 and "does not list its sessions" in app.life.failures()[0]
    store.close()


async def test_attach_with_no_backend_to_list_from_exits_non_zero(tmp_path):
    from kandev_tui.screens.session_picker import SessionPickerScreen
    from kandev_tui.sources import KandevSource

    from ..support.procs import free_port

    url = f"ws://127.0.0.1:{free_port()}/ws"  # nothing listens there
    app = KandevApp(KandevSource(url, None),
                    settings_store=settings_at(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and app.screen.failure)
        assert "r to try again" in str(app.screen.status.render())  # a backend may come: trying again can help
        await pilot.press("escape")
        await until(pilot, lambda: app.return_code is not None)
    assert app.return_code == 1
async def test_the_toast_of_a_failure_on_screen_says_its_start_and_the_transcript_says_it_whole(tmp_path):
    """``ls`` as the agent, at 45 columns: the toast (22 columns wide there) said the whole reason in 14 rows over the
    transcript, which says it whole too. It now says its start; the transcript, all of it."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "alpha.py").write_text("")
    store = Store(tmp_path / "s.db")
    agent = AgentOptions(command=["ls"], workspace=workspace, inject_guidance=False)
    app = KandevApp(LiveSource(agent, store),
                    settings_store=settings_at(tmp_path, chart_animation=False))
    async with app.run_test(size=(45, 30), notifications=True) as pilot:
        def said() -> list[str]:
            return [" ".join(str(toast.render()).split()) for toast in app.screen.query("Toast")]

        await until(pilot, lambda: bool(said()))
        whole = 'ls wrote only lines that are not JSON-RPC (the first: "alpha.py"), and ended without answering'
        assert said()[0].startswith("The agent stopped ls wrote only lines that are not JSON-RPC")
        assert said()[0].endswith("… (see the transcript)") and "does not speak ACP" not in said()[0]
        await until(pilot, lambda: any(whole in getattr(w, "searchable_text", "") and "does not speak ACP" in
                                       w.searchable_text for w in app.view.widgets.values()))
