"""Session control: logging in, modes and models, slash commands, continuing a session, the guidance out of titles,
and calling the user's attention; with the real demo agent process (modes, a model option, commands, a login) and
headless runs of the real command line. The real adapters' side is in tests/system/test_real_agents.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kandev_tui.acp import AgentOptions
from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.demo import agent_command, prepare_workspace
from kandev_tui.screens.choices import ChoicesScreen
from kandev_tui.screens.login import LoginScreen
from kandev_tui.session.controls import Controls
from kandev_tui.sources import LiveSource
from kandev_tui.transcript import Store
from kandev_tui.ui.textual_hooks import screen_text
from kandev_tui.widgets.entries.permission import PermissionRequest

from ..support import AGENTS
from ..support.app_helpers import ready, settings_at, until
from ..support.cli import KANDEV, headless

# -- the app, over the real demo agent ---------------------------------------------------------------------------

def demo_app(tmp_path, *agent_args: str, choices=None, env=None, asked=frozenset(),
             prompt=None) -> tuple[KandevApp, Store]:
    store = Store(tmp_path / "s.db")
    options = AgentOptions(command=[*agent_command(), *agent_args], workspace=prepare_workspace(tmp_path / "ws"),
                           env=env)
    settings = settings_at(tmp_path, chart_animation=False)
    app = KandevApp(LiveSource(options, store, choices=choices,
                                                          asked=asked),
                    settings_store=settings, initial_prompt=prompt)
    app.animation_level = "none"
    return app, store


async def test_the_status_line_shows_the_mode_and_model_and_the_picker_changes_them(tmp_path, monkeypatch):
    """ctrl+o lists the agent's modes and models; the choice goes to the agent, shows in the status line, is
    remembered for the agent's next sessions, and does what it says (Write: no permission asked)."""
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    app, store = demo_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        status = app.transcript_screen.status
        await until(pilot, lambda: app.source.state == "idle" and status.choices == "Ask · Standard")
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, ChoicesScreen) and app.screen.options.highlighted is not None)
        await pilot.press("down", "enter")  # from the current mode (Ask) to Write
        await until(pilot, lambda: status.choices == "Write · Standard")
        assert app.settings_store.agent_choices(app.source.agent_command) == {"mode": "write"}
        assert SettingsStoreReloaded(app).agent_choices(app.source.agent_command) == {"mode": "write"}  # on disk
        app.transcript_screen.prompt.focus()
        await pilot.press(*"Check the build", "enter")
        await until(pilot, lambda: app.source.state == "idle" and app.session.settled and app.view.entries
                    and app.view.entries[-1].key.startswith("turn_end"))
        assert not list(app.view.query(PermissionRequest))  # the agent wrote without asking, as chosen
        await app.action_quit()


def SettingsStoreReloaded(app):  # noqa: N802 - a fresh read of the file the app saved
    from kandev_tui.base.settings import SettingsStore

    return SettingsStore(app.settings_store.path)


async def test_a_choice_the_agent_does_not_offer_is_said_and_its_own_stays(tmp_path, monkeypatch):
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    notices = []
    app, _ = demo_app(tmp_path, choices={"mode": "yolo", "model": "demo-thorough"})
    app.notify = lambda message, **kwargs: notices.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.source.state == "idle" and app.transcript_screen.status.choices)
        await until(pilot, lambda: app.transcript_screen.status.choices == "Ask · Thorough")  # the model taken
        assert any("mode 'yolo' was not chosen" in n and "it offers: ask, write" in n for n in notices)
        await app.action_quit()


@pytest.mark.parametrize("asked", [True, False])
async def test_a_first_prompt_is_held_when_the_mode_asked_for_is_not_offered(tmp_path, monkeypatch, asked):
    """run --mode yolo --prompt …: the agent offers no such mode. The prompt is not sent in a mode the user did not
    ask for: it waits in the prompt box, and the transcript says why (a toast that vanished was all there was). A
    mode remembered from an earlier session, not asked for now, only says so, and the prompt goes."""
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    notices = []
    app, store = demo_app(tmp_path, choices={"mode": "yolo"}, asked=frozenset({"mode"} if asked else ()),
                          prompt="Check the build")
    app.notify = lambda message, **kwargs: notices.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: any("mode 'yolo' was not chosen" in n for n in notices))
        if asked:
            await until(pilot, lambda: "Your first prompt was not sent: mode 'yolo' was not chosen" in
                        screen_text(app) and app.source.state == "idle")
            assert app.transcript_screen.prompt.text == "Check the build"
            assert not [i for i in app.view.model.items.values() if i.kind == "user_message"]
        else:
            await until(pilot, lambda: any(i.kind == "user_message" for i in app.view.model.items.values()))
        await app.action_quit()


async def test_the_demos_summary_and_release_commands_do_what_they_offer(tmp_path, monkeypatch):
    """/summary was offered and not done (it charted its own name); /release asks a question (a form), so that a
    newcomer can try one: the answer reaches the agent, which says it."""
    from textual.widgets import Button, Input

    from kandev_tui.widgets.entries.elicitation import ElicitationCard

    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    app, store = demo_app(tmp_path, choices={"mode": "write"})  # its turns write without asking
    summary = tmp_path / "ws" / "reports" / "summary.md"
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.transcript_screen
        await until(pilot, lambda: app.source.state == "idle" and screen.prompt.commands)
        screen.prompt.focus()
        await pilot.press(*"/summary", "enter")
        await until(pilot, lambda: "Done: reports/summary.md holds the build summary." in screen_text(app)
                    and app.source.state == "idle")
        assert summary.read_text() == "# Build summary\n\n3 failing tests.\n"
        assert not [i for i in app.view.model.items.values() if i.kind == "tool_call"
                    and "show_rich_output" in str(i.payload.get("name"))]  # no chart of the word "/summary"
        screen.prompt.focus()
        await pilot.press(*"/release", "enter")
        await until(pilot, lambda: any(card.answerable for card in app.query(ElicitationCard)))
        await until(pilot, lambda: isinstance(app.focused, Input))
        await pilot.press(*"v1.4.0")
        while not (isinstance(app.focused, Button) and app.focused.id == "review"):
            await pilot.press("tab")
        await pilot.press("enter")
        await until(pilot, lambda: "Send this answer?" in screen_text(app))
        await pilot.press("enter")  # Send has the focus
        await until(pilot, lambda: "I would cut v1.4.0 on the beta channel" in screen_text(app))
        await app.action_quit()


async def test_slash_commands_are_offered_filtered_and_completed_then_sent_as_text(tmp_path, monkeypatch):
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    app, store = demo_app(tmp_path, choices={"mode": "write"})  # its first turn asks for nothing
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.transcript_screen
        await until(pilot, lambda: app.source.state == "idle" and screen.prompt.commands)
        screen.prompt.focus()
        await pilot.press("/")
        await until(pilot, lambda: screen.command_menu.open)
        assert [c.name for c in screen.command_menu.commands] == ["chart", "summary", "release"]
        await pilot.press("c")
        assert [c.name for c in screen.command_menu.commands] == ["chart"]
        await pilot.press("tab")
        assert screen.prompt.text == "/chart " and not screen.command_menu.open
        assert screen.prompt.border_subtitle == "some words"  # what the command takes
        app.current.show_state(app.session.state_change(app.source.state, ""))  # the session's state, said again meanwhile
        await pilot.pause()
        assert screen.prompt.border_subtitle == "some words"  # the hint stays (a busy machine's late state cleared it)
        await pilot.press(*"tests pass", "enter")
        await until(pilot, lambda: any(e.key.startswith("turn_end") for e in app.view.entries))
        sent = [i for i in app.view.model.items.values() if i.kind == "user_message"]
        assert sent[-1].payload["text"] == "/chart tests pass"  # as text, as the protocol says
        (chart,) = [i for i in app.view.model.items.values() if i.kind == "tool_call"
                    and (i.payload.get("input") or {}).get("title") == "Your message"]
        labels = chart.payload["input"]["blocks"][0]["labels"]
        assert labels == ["1. tests", "2. pass"]  # the words after the command, not the command itself
        await pilot.press("/", "escape")  # escape hides the menu and leaves the text
        assert not screen.command_menu.open and screen.prompt.text == "/"
        assert screen.prompt.border_subtitle == ""  # the menu's keys are gone with it
        await app.action_quit()


async def test_up_in_the_empty_prompt_recalls_what_was_said_in_the_session_and_enter_sends_it_again(tmp_path,
                                                                                                   monkeypatch):
    """The session's first prompt came from the command line (``run --prompt``), the second was typed: ↑ in the
    empty prompt brings back the typed one, then the first; ↓ comes back, then to the empty prompt; enter sends a
    recalled one again, and the agent receives it (the store says so)."""
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    store = Store(tmp_path / "s.db")
    options = AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp_path / "ws"))
    app = KandevApp(LiveSource(options, store,
                                                          choices={"mode": "write"}),  # its turns ask for nothing
                    settings_store=settings_at(tmp_path, chart_animation=False), initial_prompt="Check the build")

    def turns() -> int:
        return len([i for i in store.items(app.source.session_id) if i.kind == "turn_end"])

    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.transcript_screen
        await until(pilot, lambda: app.source.session_id is not None and turns() == 1 and app.source.state == "idle")
        screen.prompt.focus()
        await pilot.press(*"Plot my words", "enter")
        await until(pilot, lambda: turns() == 2 and app.source.state == "idle")
        shown = []
        for key in ("up", "up", "up", "down", "down"):
            await pilot.press(key)
            shown.append(screen.prompt.text)
        assert shown == ["Plot my words", "Check the build", "Check the build", "Plot my words", ""]
        await pilot.press("up", "up", "enter")
        await until(pilot, lambda: turns() == 3)
        sent = [i.payload["text"] for i in store.items(app.source.session_id) if i.kind == "user_message"]
        assert sent == ["Check the build", "Plot my words", "Check the build"]
        await app.action_quit()
    store.close()


async def test_a_slash_typed_before_the_agent_said_its_commands_is_offered_them_when_they_come(tmp_path):
    """Claude and OpenCode say their commands seconds after the session is ready: a "/" typed meanwhile offered
    nothing until the next key. It is offered them as they come; the same commands said again (a new title) do not
    open the menu the user hid."""
    from kandev_tui.app.snapshot import deterministic_app
    from kandev_tui.transcript import Item

    from ..support.app_helpers import ScriptedSource

    app = deterministic_app(ScriptedSource([Item("session_info", "session_info", 1, {"title": "first"})]), tmp_path / "config.toml")
    commands = [{"name": "review", "description": "review changes"}, {"name": "init", "description": "AGENTS.md"}]
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.transcript_screen
        await until(pilot, lambda: app.source.state == "idle")
        screen.prompt.focus()
        await pilot.press("/")
        await pilot.pause()
        assert not screen.command_menu.open  # no command yet
        app.source.on_items([Item("session_info", "session_info", 1, {"title": "first", "commands": commands})])
        await until(pilot, lambda: screen.command_menu.open)
        assert [c.name for c in screen.command_menu.commands] == ["review", "init"]
        await pilot.press("escape")
        assert not screen.command_menu.open
        app.source.on_items([Item("session_info", "session_info", 1, {"title": "second", "commands": commands})])
        await until(pilot, lambda: screen.status.title == "second")
        assert not screen.command_menu.open and screen.prompt.text == "/"
        await app.action_quit()


async def test_login_with_the_agents_own_method_then_the_session_starts(tmp_path, monkeypatch):
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    app, _ = demo_app(tmp_path, "--needs-login")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LoginScreen))
        assert app.transcript_screen.status.state == "login" and app.transcript_screen.prompt.disabled
        assert [m["id"] for m in app.screen.methods] == ["demo-login", "demo-token", "demo-terminal"]
        await pilot.press("1")
        await until(pilot, lambda: app.source.state == "idle" and not isinstance(app.screen, LoginScreen))
        assert not app.transcript_screen.prompt.disabled and app.session.exit_code == 0
        await app.action_quit()


async def test_login_with_a_variable_starts_the_agent_again_with_it(tmp_path, monkeypatch):
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    monkeypatch.delenv("KANDEV_DEMO_TOKEN", raising=False)
    app, _ = demo_app(tmp_path, "--needs-login")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LoginScreen))
        await pilot.press("2")  # the variable's box takes the value first
        await pilot.press(*"secret-demo", "enter")
        await until(pilot, lambda: ready(app))
        assert app.source.options.env["KANDEV_DEMO_TOKEN"] == "secret-demo"
        assert "secret-demo" not in (tmp_path / "s.db").read_bytes().decode("latin-1")  # never stored
        await app.action_quit()


async def test_escape_leaves_the_login_for_later_and_ctrl_l_brings_it_back(tmp_path, monkeypatch):
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    app, _ = demo_app(tmp_path, "--needs-login")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LoginScreen))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, LoginScreen))
        assert "ctrl+l" in str(app.transcript_screen.prompt.border_subtitle)
        await pilot.press("ctrl+l")
        await until(pilot, lambda: isinstance(app.screen, LoginScreen))
        await app.action_quit()
    # quit before logging in: the agent never started a session, and the command says so
    assert app.session.exit_code == 1 and app.life.failures() == ["The agent needs a login: Authentication required (not logged in)"]


def test_headless_lists_the_ways_to_log_in_one_per_line_and_exits_1(tmp_path):
    done = subprocess.run([KANDEV, "run", "--headless", "--prompt", "hi", "--db", str(tmp_path / "s.db"),
                           "--workspace", str(tmp_path), "--", *agent_command(), "--needs-login"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0] == "kandev-tui run: The agent needs a login: Authentication required"
    assert lines[1].startswith("  demo-login: Demo login") and "KANDEV_DEMO_TOKEN" in lines[2]
    printed = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(i["kind"], i["payload"].get("text") or i["payload"].get("agent")) for i in printed] == [
        ("note", "The agent needs a login: Authentication required"),  # said once, as a quiet note
        ("session_info", "kandev-tui demo agent")]  # who it is, as it said it in initialize


def test_headless_mode_and_model_on_the_command_line(tmp_path):
    """--mode write: the demo agent writes without asking; --model chooses its model; an unknown one fails the run
    with what the agent offers."""
    workspace = prepare_workspace(tmp_path / "ws")
    base = [KANDEV, "run", "--headless", "--prompt", "Check the build", "--db", str(tmp_path / "s.db"), "--workspace",
            str(workspace)]
    done = subprocess.run([*base, "--mode", "write", "--model", "demo-thorough", "--", *agent_command()],
                          capture_output=True, text=True, timeout=180, env={**__import__("os").environ,
                                                                            "KANDEV_DEMO_DELAY": "0"})
    assert done.returncode == 0, done.stderr
    items = [json.loads(line) for line in done.stdout.splitlines()]
    assert not [i for i in items if i["kind"] == "permission"] and (workspace / "reports" / "summary.md").exists()
    info = [i for i in items if i["kind"] == "session_info"][-1]["payload"]
    assert Controls(info).summary() == "Write · Thorough"
    wrong = subprocess.run([*base, "--mode", "yolo", "--", *agent_command()], capture_output=True, text=True, timeout=120)
    assert wrong.returncode == 1 and "mode 'yolo' was not chosen" in wrong.stderr and "it offers: ask, write" in wrong.stderr


# -- continuing a session: the agent's own, with session/load (history replayed) or session/resume ----------------

LOADING_AGENT = [sys.executable, str(AGENTS / "loading_agent.py")]


def test_a_session_continued_with_load_shows_nothing_twice(tmp_path):
    """The agent replays the session's history (and 3,000 more chunks) while it loads it: none of it is stored or
    printed again; the new turn follows the stored ones, with keys of its own."""
    agent = [*LOADING_AGENT, str(tmp_path / "agent-sessions.json")]
    first = headless(tmp_path, "--prompt", "first question", "--", *agent)
    assert first.returncode == 0, first.stderr
    listed = subprocess.run([KANDEV, "sessions", "--db", str(tmp_path / "s.db")], capture_output=True, text=True)
    assert "RESUME" in listed.stdout and " load " in listed.stdout  # it can be continued, by session/load
    again = headless(tmp_path, "--resume", "--prompt", "second question", "--", *agent,
                     env={"LOADING_AGENT_EXTRA": "3000"})
    assert again.returncode == 0, again.stderr
    printed = [json.loads(line) for line in again.stdout.splitlines()]
    assert [i["payload"]["text"] for i in printed if i["kind"] == "user_message"] == ["second question"]
    store = Store(tmp_path / "s.db")
    session = store.sessions()[0]
    assert len(store.sessions()) == 1 and session["agent_session_id"] == "L1"  # the same session, continued
    items = store.items(session["id"])
    assert [i.payload["text"] for i in items if i.kind == "user_message"] == ["first question", "second question"]
    assert [i.payload["text"] for i in items if i.kind == "agent_message"] == [
        "Answer 1 to: first question", "Answer 2 to: second question"]
    assert len({i.key for i in items}) == len(items) and not any("r2999" in str(i.payload) for i in items)


async def test_a_stored_session_its_agent_can_continue_says_the_command_that_does_and_that_command_does(tmp_path):
    """Opened read-only, a session its agent can continue said "start a new one with kandev-tui run": the user left
    it for a new session without its history. It says the command that continues it (this database named), and that
    command as said, with no agent command after it (the session's own), continues it: the agent remembers its first
    turn. Opened from the app's sessions list, it says the key there; a session its agent cannot continue says what
    it said."""
    import re
    import shlex

    from kandev_tui.app.snapshot import deterministic_app
    from kandev_tui.sources import StoredSource

    agent = [*LOADING_AGENT, str(tmp_path / "agent-sessions.json")]
    assert headless(tmp_path, "--prompt", "first question", "--", *agent).returncode == 0
    store = Store(tmp_path / "s.db")
    session = store.sessions()[0]
    app = deterministic_app(StoredSource(store, session),
                            tmp_path / "config.toml")
    async with app.run_test(size=(160, 30), notifications=True) as pilot:
        await until(pilot, lambda: app.source.state == "stored")
        app.view.focus()
        await pilot.press("x")  # typed where nothing is taken: the reason, whole, in a notice
        await until(pilot, lambda: app.screen.query("Toast"))
        said = " ".join(str(app.screen.query_one("Toast").render()).split())
        await app.action_quit()
    found = re.fullmatch(r"Read-only: a stored session is read-only: (kandev-tui .*) continues it with its agent", said)
    assert found, said
    command = shlex.split(found.group(1))
    assert command == ["kandev-tui", "--db", str(tmp_path / "s.db"), "run", "--resume", session["id"]]
    again = subprocess.run([KANDEV, *command[1:], "--headless", "--prompt", "second question"], capture_output=True,
                           text=True, timeout=180)
    assert again.returncode == 0, again.stderr
    answers = [i.payload["text"] for i in store.items(session["id"]) if i.kind == "agent_message"]
    assert answers == ["Answer 1 to: first question", "Answer 2 to: second question"]
    listed = StoredSource(store, session, from_list=True)
    assert listed.read_only_reason == ("a stored session is read-only: c on its row in the sessions list (ctrl+s) "
                                       "continues it with its agent")
    plain = store.session(store.create_session(title="plain", agent_command=["gone-agent"], state="ended"))
    assert StoredSource(store, plain).read_only_reason == \
        "a stored session is read-only; start a new one with kandev-tui run"
    store.close()


async def test_a_stored_session_names_its_agent_as_the_live_session_did(tmp_path):
    """Live, the status line names the agent as it says it in initialize ("Gemini CLI", "kandev-tui demo agent");
    opened stored, it said its command's name ("gemini", "kandev_tui.demo.agent"), and replayed, "replay": a stored
    session did not draw as it did live. The name is stored with the session's info; a session stored without it
    keeps its command's."""
    from kandev_tui.app.snapshot import deterministic_app
    from kandev_tui.sources import StoredSource
    from kandev_tui.ui.textual_hooks import screen_text

    workspace = prepare_workspace(tmp_path / "ws")
    done = subprocess.run([KANDEV, "run", "--headless", "--prompt", "Check the build", "--db", str(tmp_path / "s.db"),
                           "--workspace", str(workspace), "--mode", "write", "--", *agent_command()],
                          capture_output=True, text=True, timeout=180,
                          env={**__import__("os").environ, "KANDEV_DEMO_DELAY": "0"})
    assert done.returncode == 0, done.stderr
    store = Store(tmp_path / "s.db")
    older = store.create_session(title="older", agent_command=agent_command(), workspace=str(workspace), state="ended")
    for row, name in ((store.sessions()[1], "kandev-tui demo agent"), (store.session(older), "kandev_tui.demo.agent")):
        app = deterministic_app(StoredSource(store, row),
                                tmp_path / "config.toml")
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda app=app: app.source.state == "stored" and app.session.settled)
            await until(pilot, lambda app=app, name=name: name in screen_text(app).splitlines()[0])
            await app.action_quit()
    store.close()
    from ..support.app_helpers import FIXTURES, replay_app

    app = replay_app(tmp_path, FIXTURES / "recordings" / "gemini-real.jsonl")  # a replay: "■ replayed  Gemini CLI"
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.source.state == "replayed" and app.session.settled)
        await until(pilot, lambda: screen_text(app).splitlines()[0].split()[:4] == ["■", "replayed", "Gemini", "CLI"])
        await app.action_quit()


def test_resume_with_no_agent_command_says_why_when_the_session_keeps_none(tmp_path):
    """``run --resume SESSION`` with no agent command takes the session's own; a session stored without one (not
    started by kandev-tui run) says so in one line, and what to give."""
    store = Store(tmp_path / "s.db")
    kept = store.create_session(title="kept", agent_command=[], workspace=str(tmp_path), state="ended")
    store.update_session(kept, agent_session_id="A1", continues="load")
    store.close()
    done = subprocess.run([KANDEV, "run", "--db", str(tmp_path / "s.db"), "--resume", kept, "--headless", "--prompt",
                           "again"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == (f"kandev-tui run --resume: session {kept} was not started by kandev-tui run: no "
                                   "agent command is stored to start again; give the agent command after --")


def test_a_session_the_agent_no_longer_knows_says_so_and_exits_1(tmp_path):
    agent = [*LOADING_AGENT, str(tmp_path / "agent-sessions.json")]
    assert headless(tmp_path, "--prompt", "hello", "--", *agent).returncode == 0
    (tmp_path / "agent-sessions.json").unlink()  # the agent forgot it
    again = headless(tmp_path, "--resume", "--prompt", "again", "--", *agent)
    assert again.returncode == 1
    assert "could not continue session L1: Resource not found: no session L1 (it may no longer know it)" in again.stderr


def test_resume_of_a_session_whose_folder_is_gone_says_what_to_do(tmp_path):
    """The folder a session ran in was removed (a worktree closed): --resume without --workspace says so and how to
    open or continue it, exit 2; with --workspace it is continued there."""
    folder = tmp_path / "worktree"
    folder.mkdir()
    agent = [*LOADING_AGENT, str(tmp_path / "agent-sessions.json")]
    base = [KANDEV, "run", "--headless", "--db", str(tmp_path / "s.db")]
    first = subprocess.run([*base, "--workspace", str(folder), "--prompt", "hi", "--", *agent], capture_output=True,
                           text=True, timeout=180)
    assert first.returncode == 0, first.stderr
    folder.rmdir()
    session = Store(tmp_path / "s.db").sessions()[0]["id"]
    gone = subprocess.run([*base, "--resume", "--prompt", "again", "--", *agent], capture_output=True, text=True,
                          timeout=180, cwd=tmp_path)
    assert gone.returncode == 2 and gone.stderr.count("\n") == 1, gone.stderr
    assert f"session {session} ran in {folder}, which is gone: open it read-only with kandev-tui open {session}, or " \
           "continue it in another folder with --workspace DIR" in gone.stderr
    elsewhere = headless(tmp_path, "--resume", "--prompt", "again", "--", *agent)
    assert elsewhere.returncode == 0, elsewhere.stderr


def test_resume_says_why_a_session_cannot_be_continued(tmp_path):
    """No stored session of that agent that can be continued; an agent that never started one; one that cannot."""
    agent = [*LOADING_AGENT, str(tmp_path / "agent-sessions.json")]
    nothing = headless(tmp_path, "--resume", "--prompt", "x", "--", *agent)
    assert nothing.returncode == 1 and "no stored session of" in nothing.stderr and "can be continued" in nothing.stderr
    demo = headless(tmp_path, "--prompt", "x", "--", *agent_command())  # the demo agent offers no load or resume
    demo_id = Store(tmp_path / "s.db").sessions()[0]["id"]
    refused = headless(tmp_path, "--resume", demo_id, "--prompt", "x", "--", *agent_command())
    assert demo.returncode in (0, 1) and refused.returncode == 1
    assert "could not continue sessions (it offered neither session/resume nor session/load)" in refused.stderr
    listed = subprocess.run([KANDEV, "sessions", "--db", str(tmp_path / "s.db")], capture_output=True, text=True)
    assert any(demo_id in line and "  no  " in line for line in listed.stdout.splitlines())
    picked = headless(tmp_path, "--pick", "--prompt", "x", "--", *agent)
    assert picked.returncode == 2 and "--pick" in picked.stderr


async def test_a_continued_session_shows_its_history_then_takes_a_prompt(tmp_path):
    agent = [*LOADING_AGENT, str(tmp_path / "agent-sessions.json")]
    assert headless(tmp_path, "--prompt", "first question", "--", *agent).returncode == 0
    store = Store(tmp_path / "s.db")
    row = store.sessions()[0]
    options = AgentOptions(command=agent, workspace=tmp_path, resume=row["agent_session_id"], history_stored=True)
    app = KandevApp(LiveSource(options, store, continuing=row),
                    settings_store=settings_at(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.source.state == "idle" and app.session.settled)
        texts = lambda kind: [i.payload["text"] for i in app.view.model.items.values() if i.kind == kind]  # noqa: E731
        assert texts("user_message") == ["first question"] and texts("agent_message") == ["Answer 1 to: first question"]
        assert app.transcript_screen.status.title == "first question"
        app.transcript_screen.prompt.focus()
        await pilot.press(*"second question", "enter")
        await until(pilot, lambda: texts("agent_message")[-1:] == ["Answer 2 to: second question"])
        assert texts("user_message") == ["first question", "second question"]
        await app.action_quit()
    assert len(store.sessions()) == 1


async def test_pick_lists_the_agents_own_sessions_and_loads_the_chosen_one_with_its_history(tmp_path, monkeypatch):
    """run --pick: the agent's sessions (session/list) to choose from, each's time in local time (the agent says
    it in UTC); the chosen one is loaded, and its replayed history is the transcript (kandev-tui has none of it
    stored)."""
    import time

    from kandev_tui.screens.session_picker import SessionPickerScreen
    from kandev_tui.ui.textual_hooks import screen_text

    agent = [*LOADING_AGENT, str(tmp_path / "agent-sessions.json")]
    assert headless(tmp_path, "--prompt", "older work", "--db", str(tmp_path / "other.db"), "--", *agent).returncode == 0
    store = Store(tmp_path / "s.db")
    options = AgentOptions(command=agent, workspace=tmp_path)
    app = KandevApp(LiveSource(options, store, pick=True),
                    settings_store=settings_at(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and app.screen.entries)
        assert [e.task for e in app.screen.entries] == ["older work"]
        monkeypatch.setenv("TZ", "America/New_York")  # the agent's 2026-12-02T10:00:00Z is 05:00 there
        time.tzset()
        try:
            await pilot.press("r")  # listed again, in that zone
            await until(pilot, lambda: "2026-12-02 05:00 · " in screen_text(app))
        finally:
            monkeypatch.undo()
            time.tzset()
        await pilot.press("enter")
        await until(pilot, lambda: app.source.state == "idle" and app.session.settled)
        texts = [i.payload["text"] for i in app.view.model.items.values() if i.kind == "user_message"]
        assert texts == ["older work"]  # the history the agent replayed
        await app.action_quit()


async def test_keys_answer_while_a_long_session_loads(tmp_path):
    """A load that replays 100,000 updates: read and dropped on the source's own loop, keys answered meanwhile."""
    from kandev_tui.screens.help import HelpScreen

    from ..support.app_helpers import press

    agent = [*LOADING_AGENT, str(tmp_path / "agent-sessions.json")]
    assert headless(tmp_path, "--prompt", "first", "--", *agent).returncode == 0
    store = Store(tmp_path / "s.db")
    row = store.sessions()[0]
    options = AgentOptions(command=agent, workspace=tmp_path, resume=row["agent_session_id"], history_stored=True,
                           env={**__import__("os").environ, "LOADING_AGENT_EXTRA": "100000"})
    app = KandevApp(LiveSource(options, store, continuing=row),
                    settings_store=settings_at(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.source.client is not None and app.source.client.process is not None)
        answered = 0
        while app.source.state == "starting":
            press(app, "f1" if not isinstance(app.screen, HelpScreen) else "escape")
            for _ in range(20):
                await pilot.pause(0.01)
                if isinstance(app.screen, HelpScreen):
                    answered += 1
                    break
        await until(pilot, lambda: ready(app))
        assert answered >= 1  # a key answered while the load went on
        assert len([i for i in app.view.model.items.values() if i.kind == "agent_message"]) == 1
        await app.action_quit()


async def test_attention_rings_and_titles_only_when_the_terminal_is_elsewhere_and_as_the_settings_say(tmp_path,
                                                                                                      monkeypatch):
    from kandev_tui.app import attention as app_module

    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    titles, bells = [], []
    monkeypatch.setattr(app_module, "set_terminal_title", lambda app, text: titles.append(text) or True)
    desktop: list[tuple[str, str]] = []
    monkeypatch.setattr(app_module, "notify_desktop", lambda app, title, body: desktop.append((title, body)) or True)
    app, _ = demo_app(tmp_path)
    app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: ready(app))
        assert not titles and not bells  # in view: nothing calls
        app.app_focus = False  # the terminal reported focus out (a key pressed here would bring it back)
        from kandev_tui.widgets.chrome.prompt_input import PromptInput

        app.transcript_screen.prompt.post_message(PromptInput.Submitted("Check the build"))
        await until(pilot, lambda: app.source.state == "waiting")
        await until(pilot, lambda: titles)
        assert bells == [1] and titles == ["kandev-tui: waiting for you · Check the build"]
        assert desktop == [("kandev-tui: waiting for you", "Check the build")]
        app.actions.change_setting(attention_bell=False, attention_title=False, attention_desktop=False)
        (waiting,) = app.source.waiting_for
        assert app.session.answer(waiting, "allow")  # answered from elsewhere (no key here: still out of view)
        await until(pilot, lambda: ready(app))
        assert not app.app_focus
        assert bells == [1] and len(titles) == 1 and len(desktop) == 1  # the turn ended elsewhere; the settings say no
        await app.action_quit()


def test_the_demos_terminal_login_says_why_it_cannot_keep_a_login(tmp_path):
    """Without KANDEV_DEMO_LOGIN_FILE the demo's terminal login says so before it asks (it asked, and said "Not
    logged in." after a yes); with it, a yes is kept there."""
    import os

    login = [sys.executable, "-m", "kandev_tui.demo.agent", "--needs-login", "--login-in-terminal"]
    env = {k: v for k, v in os.environ.items() if k != "KANDEV_DEMO_LOGIN_FILE"}
    refused = subprocess.run(login, input="yes\n", capture_output=True, text=True, timeout=60, env=env)
    assert refused.returncode == 1 and "type yes" not in refused.stdout
    assert "set KANDEV_DEMO_LOGIN_FILE" in refused.stdout
    kept = subprocess.run(login, input="yes\n", capture_output=True, text=True, timeout=60,
                          env={**env, "KANDEV_DEMO_LOGIN_FILE": str(tmp_path / "login")})
    assert kept.returncode == 0 and (tmp_path / "login").exists()


async def test_a_terminal_login_where_the_terminal_cannot_be_handed_over_says_what_to_run(tmp_path, monkeypatch):
    """In a test's headless app (as under a web browser) Textual cannot suspend: the screen says which command to run
    by hand, and the session keeps waiting for a login."""
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    app, _ = demo_app(tmp_path, "--needs-login")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LoginScreen))
        await pilot.press("3")
        login = app.screen
        await until(pilot, lambda: "yourself" in str(login.status.render()))
        assert "--login-in-terminal" in str(login.status.render()) and app.source.state == "login"
        await app.action_quit()
