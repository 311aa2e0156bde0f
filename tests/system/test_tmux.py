"""A real terminal: ``kandev-tui demo`` and ``kandev-tui attach`` in tmux, read back with capture-pane."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

from ..support.hostile_corpus import CORPUS
from ..support.tmux import hostile_recording, seen_while_scrolling
from ..support.tmux import Tmux, demo_agent_run, sent_prompts

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
KANDEV = str(Path(sys.executable).with_name("kandev-tui"))


@pytest.mark.parametrize("size", [(120, 40), (45, 30)], ids=["120x40", "45x30"])
def test_demo_in_a_real_terminal(tmp_path, size):
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "KANDEV_DEMO_DELAY": "0.005", "PYTHONHASHSEED": "0"}
    tmux = Tmux(*size, f"{KANDEV} demo", env)
    try:
        tmux.wait_for("Allow once")
        tmux.keys("1")
        tmux.wait_for("end of turn")
        end = tmux.stable_screen()
        history = seen_while_scrolling(tmux, pages=16)
        seen = end + history  # the last screen and those above it (at 40 rows the last one holds the metric group)
        # the invalid presentation's card: on the last screen or just above it, depending on how far
        # the closing message pushed it up
        assert "Visual output failed" in seen or "3 values for 4 labels" in seen
        assert "Test results by area" in seen  # a chart card
        assert "┤" in seen and "api" in seen  # axes with tick values
        assert "Passed" in seen and "412" in seen  # the metric group
        assert "4 tools: read" in seen  # the tool group (the edit is a card of its own: "… · 1 card", wrapped at 45)
        assert "1 file changed" in seen  # the demo's copy is a git repository: the turn's changes card
        for line in (end + history).splitlines():
            assert len(line) <= size[0]  # nothing wider than the screen
        # drawn at the pane's size, not at a size the environment names (COLUMNS, LINES): the prompt box spans it
        box = next(line.rstrip() for line in end.splitlines() if "Message the agent" in line)
        assert box.endswith("╮") and len(box) >= size[0] - 2, end
        tmux.quit()
    finally:
        tmux.close()


def test_alt_enter_from_a_real_terminal_is_a_new_line_never_a_send(tmp_path):
    """tmux sends alt+enter as ESC CR, as xterm, GNOME Terminal and Terminal.app do: a new line in the prompt, like
    ctrl+j; only enter sends, and the prompt goes out whole."""
    tmux = demo_agent_run(tmp_path)
    try:
        tmux.keys("line one")
        tmux.keys("C-j")
        tmux.keys("line two")
        tmux.keys("M-Enter")
        tmux.keys("line three")
        screen = tmux.wait_for("line three")
        assert "line one" in screen and "line two" in screen  # still in the box: nothing was sent
        assert sent_prompts(tmp_path / "s.db") == []
        tmux.keys("Enter")
        tmux.wait_for("Allow once")  # the demo's turn asks before it writes
        assert sent_prompts(tmp_path / "s.db") == ["line one\nline two\nline three"]
    finally:
        tmux.close()


def test_a_prompt_typed_in_one_burst_or_pasted_is_sent_whole(tmp_path):
    """Text and Enter in one send-keys (one read of the terminal, as scripts send it), then a bracketed paste of two
    lines and Enter: each prompt goes out whole, nothing is left in the box."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "KANDEV_DEMO_DELAY": "0", "PYTHONHASHSEED": "0", "TMPDIR": str(scratch)}
    tmux = Tmux(120, 40, f"{KANDEV} demo; echo exit-status-$?", env)
    try:
        tmux.wait_for("Allow once")
        tmux.keys("1")
        tmux.wait_for("end of turn")
        tmux.keys("Say hi there", "Enter")
        screen = tmux.wait_for("3. there")  # the demo charts the words of the prompt: all three, in one prompt
        assert "1. Say" in screen and "2. hi" in screen
        tmux.wait_for("Anything else?")
        tmux.run("set-buffer", "Pasted first\nand second")
        tmux.run("paste-buffer", "-p", "-t", "t")  # bracketed: the app asked for it
        tmux.keys("Enter")
        screen = tmux.wait_for("4. second")  # the demo charts the words of the prompt: all four, in one prompt
        assert "1. Pasted" in screen and "2. first" in screen
        assert "Say hi there" not in tmux.screen().split("Message the agent")[-1]  # the box is empty
        assert [p.name.startswith("kandev-demo-") for p in scratch.iterdir()] == [True]  # the workspace's copy
        tmux.keys("C-q")
        assert "exit-status-0" in tmux.wait_for("exit-status-")
        assert not list(scratch.iterdir())  # removed on exit
    finally:
        tmux.close()


TMUX_CASES = 2 * sum(1 for text in CORPUS.values() if len(text) <= 2000)  # strings replayed, each as Markdown and as a tool title


@pytest.mark.reliability("Terminal and text", "hostile session replayed in a real terminal (tmux, set-clipboard on)", cases=TMUX_CASES,
                         held="pane title and paste buffer unchanged (a control run shows tmux would take both); F1 still answered")
def test_hostile_replay_leaves_the_terminal_alone(tmp_path):
    """OSC title, OSC 52 clipboard, hyperlinks, DCS… replayed into a real tmux pane: the pane title and the paste
    buffer are unchanged and the app still answers keys. A control run proves tmux would have shown both."""
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "PYTHONHASHSEED": "0"}
    recording = hostile_recording(tmp_path / "hostile.jsonl")
    control = Tmux(80, 24, "sleep 0.5; printf '\\033]2;pwned\\007\\033]52;c;cHduZWQ=\\007'", {})
    try:
        control.run("set-option", "-g", "set-clipboard", "on")
        deadline = time.monotonic() + 30  # the control: tmux obeys such sequences when they reach it unfiltered
        while control.show("#{pane_title}") != "pwned" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert control.run("display", "-p", "-t", "t", "#{pane_title}").strip() == "pwned"
        assert "pwned" in control.run("show-buffer")
    finally:
        control.close()
    tmux = Tmux(100, 30, f"{KANDEV} replay {recording}", env)  # set-clipboard is set long before it draws
    try:
        tmux.run("set-option", "-g", "set-clipboard", "on")
        tmux.run("select-pane", "-t", "t", "-T", "kandev-title")
        tmux.run("set-buffer", "clean-buffer")
        tmux.wait_for("HOSTILE-DONE")
        tmux.stable_screen()  # the replay has drawn all it will: whatever reached tmux has reached it
        assert tmux.run("display", "-p", "-t", "t", "#{pane_title}").strip() == "kandev-title"
        assert tmux.run("show-buffer").strip() == "clean-buffer"
        assert tmux.run("list-buffers").count("\n") == 1
        tmux.keys("F1")
        tmux.wait_for("kandev-tui keys")
        tmux.keys("Escape")
        tmux.quit()
    finally:
        tmux.close()


def test_attach_in_a_real_terminal(tmp_path, backend):
    """kandev-tui attach on a real Kandev backend: pick the session, prompt it, answer its permission request."""
    task_id, session_id = backend.quick_chat("tmux attach")
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "PYTHONHASHSEED": "0"}
    tmux = Tmux(100, 30, f"{KANDEV} attach {backend.url}", env)
    try:
        tmux.wait_for("tmux attach")  # the picker lists the new session (newest first: the first row)
        tmux.keys("Enter")
        tmux.wait_for("○ ready", 60)  # attached; the agent is waiting for input
        # Kandev boots its mock agent around then, and the session can be "running" for a moment (the prompt
        # disabled, keys dropped as a disabled box drops them): type once "ready" has held for a second
        for _ in range(30):
            time.sleep(1.0)
            if "○ ready" in tmux.screen() and "Message the agent" in tmux.screen():
                break
            tmux.wait_for("○ ready", 60)
        tmux.keys("-l", "Show me the build times")
        tmux.wait_for("│ Show me the build times")  # typed, then sent as a person would (not in the same read)
        tmux.keys("Enter")
        tmux.wait_for("Allow once", 60)
        tmux.keys("1")
        tmux.wait_for("Ask me anything else", 60)
        end = tmux.stable_screen()
        history = seen_while_scrolling(tmux, pages=12)
        assert "Build time trend" in history and "┤" in history  # the CSV chart Kandev resolved, with axes
        assert "Visual output failed" in end + history
        for line in (end + history).splitlines():
            assert len(line) <= 100
        tmux.quit()
    finally:
        tmux.close()


@pytest.mark.parametrize("agent", ["/nonexistent/agent", "false"])
def test_an_agent_that_never_started_exits_non_zero(tmp_path, agent):
    """The app shows why the agent did not start; after quitting, the shell sees status 1 and the reason."""
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "PYTHONHASHSEED": "0"}
    tmux = Tmux(100, 30, f"{KANDEV} run -- {agent}; echo exit-status-$?", env)
    try:
        tmux.wait_for("agent could not be started" if agent != "false" else "failed during initialize")
        tmux.keys("C-q")
        screen = tmux.wait_for("exit-status-")
        assert "exit-status-1" in screen
        assert "kandev-tui: " in screen and "Traceback" not in screen
    finally:
        tmux.close()


def test_a_request_that_waits_while_the_terminal_is_elsewhere_rings_and_says_so_in_the_title(tmp_path):
    """The user is in another tmux window (the app's pane loses focus: tmux passes focus events on with
    focus-events on) when the agent asks for permission: the bell rings (tmux flags the app's window) and the
    terminal's title says what waits; coming back, the title no longer calls."""
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "KANDEV_DEMO_DELAY": "0.02", "PYTHONHASHSEED": "0"}
    tmux = Tmux(100, 30, f"{KANDEV} demo", env)
    try:
        tmux.run("set-option", "-g", "focus-events", "on")
        tmux.run("set-option", "-g", "allow-rename", "on")
        tmux.wait_for("kandev-tui demo agent", 30)
        tmux.stable_screen()  # the app is up and drawn before its pane loses focus
        tmux.run("new-window", "-d", "-t", "t:9", "sleep 60")
        tmux.run("select-window", "-t", "t:9")  # the app's pane loses focus
        deadline = time.monotonic() + 60
        title = ""
        while time.monotonic() < deadline:
            title = tmux.run("display-message", "-p", "-t", "t:0", "#{pane_title}").strip()
            if "waiting for you" in title:
                break
            time.sleep(0.2)
        assert title.startswith("kandev-tui: waiting for you · Check the build health"), title
        assert tmux.run("display-message", "-p", "-t", "t:0", "#{window_bell_flag}").strip() == "1"
        tmux.run("select-window", "-t", "t:0")  # back (a detached tmux has no client to report focus: as one would)
        tmux.run("send-keys", "-t", "t:0", "-l", "\x1b[I")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "waiting for you" in title:
            time.sleep(0.2)
            title = tmux.run("display-message", "-p", "-t", "t:0", "#{pane_title}").strip()
        assert title.startswith("kandev-tui · "), title
        tmux.quit()
    finally:
        tmux.close()


def test_a_login_in_the_terminal_steps_aside_and_comes_back_logged_in(tmp_path):
    """The demo agent's terminal login: kandev-tui hands the terminal over, the command asks its question there, and
    once it ends the app is back and the session starts; ctrl+c in such a command ends it, not kandev-tui."""
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "KANDEV_DEMO_DELAY": "0", "PYTHONHASHSEED": "0",
           "KANDEV_DEMO_LOGIN_FILE": str(tmp_path / "logged-in")}
    agent = f"{sys.executable} -m kandev_tui.demo.agent --needs-login"
    tmux = Tmux(100, 30, f"{KANDEV} run --workspace {tmp_path} -- {agent}", env)
    try:
        tmux.wait_for("needs a login", 30)
        tmux.keys("3")
        tmux.wait_for("Demo login: type yes to log in:", 30)
        tmux.keys("C-c")  # interrupted: back in the app, which says so, still waiting for a login
        tmux.wait_for("ended with status", 30)
        tmux.keys("3")
        tmux.wait_for("Demo login: type yes to log in:", 30)
        tmux.keys("yes", "Enter")
        screen = tmux.wait_for("Ask · Standard", 30)  # the session started: its mode and model in the status line
        assert "○ ready" in screen and (tmp_path / "logged-in").exists()
        tmux.quit()
    finally:
        tmux.close()


def test_the_demo_starts_in_the_mode_last_chosen_for_it(tmp_path):
    """The mode remembered for the demo's agent (the settings' [agents."…"] table, as the picker writes it) is the one
    it starts in, as for any agent: in write mode it asks nothing before it writes."""
    from kandev_tui.base.settings import agent_key
    from kandev_tui.demo import agent_command

    (tmp_path / "c.toml").write_text(f'[agents."{agent_key(agent_command())}"]\nmode = "write"\n')
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "KANDEV_DEMO_DELAY": "0", "PYTHONHASHSEED": "0"}
    tmux = Tmux(120, 40, f"{KANDEV} demo", env)
    try:
        screen = tmux.wait_for("end of turn")
        assert "Write" in screen.splitlines()[0]  # the status line's mode
        assert "Allow once" not in screen
    finally:
        tmux.close()


def test_the_app_takes_its_size_from_the_terminal_not_from_columns_and_lines(tmp_path):
    """A program that started kandev-tui exported COLUMNS=80 and LINES=24 (readline does): the app still draws at the
    pane's 100x30, and at 120x40 once the pane grows (the variables would have pinned it to 80x24)."""
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    tmux = Tmux(100, 30, KANDEV, env)  # the bare kandev-tui: the sessions list, a frame around the whole screen

    def frame() -> tuple[int, int]:
        lines = [line.rstrip() for line in tmux.stable_screen().splitlines()]
        rows = [n for n, line in enumerate(lines) if line.endswith("▎")]
        return (max(len(line) for line in lines), len(rows) and rows[-1] - rows[0] + 1)

    try:
        tmux.wait_for("ctrl+n starts one")
        width, height = frame()
        assert width == 100 and height > 24, tmux.screen()
        tmux.resize(120, 40)
        deadline = time.monotonic() + 30
        while frame()[0] != 120 and time.monotonic() < deadline:
            time.sleep(0.2)
        width, height = frame()
        assert width == 120 and height > 30, tmux.screen()
        tmux.quit()
    finally:
        tmux.close()


def test_the_sessions_list_says_in_a_terminal_what_to_do_with_an_id_and_a_pipe_gets_the_table_alone(tmp_path):
    """``kandev-tui sessions`` in a terminal: the table, then how to read one and how to continue one (with the
    database it was given); piped (a script), the table alone."""
    import subprocess

    from kandev_tui.transcript import Store

    db = tmp_path / "s.db"
    store = Store(db)
    kept = store.create_session(title="fix the flaky test", agent_command=["some-agent"], workspace=str(tmp_path))
    store.close()
    tmux = Tmux(400, 10, f"{KANDEV} sessions --db {db}", {"TERM": "xterm-256color"})
    try:
        screen = tmux.wait_for("continues one")
    finally:
        tmux.close()
    lines = [line.rstrip() for line in screen.splitlines() if line.strip()]
    assert lines[1].startswith(kept) and lines[2] == (f"kandev-tui open ID reads one; kandev-tui run --resume ID "
                                                      f"continues one with its agent (RESUME) (each with --db {db})")
    piped = subprocess.run([KANDEV, "sessions", "--db", str(db)], capture_output=True, text=True, timeout=60)
    assert piped.returncode == 0 and len(piped.stdout.splitlines()) == 2 and "continues" not in piped.stdout


@pytest.mark.reliability("Terminal and text", "markup and an action link in a folder typed into the new-session "
                         "dialog, in a real terminal", cases=1, held="the error line says it as typed; the app runs on")
def test_a_folder_name_holding_markup_is_said_as_typed_in_the_new_session_dialog(tmp_path):
    """In tmux: ctrl+n, a folder that does not exist, named with an unbalanced closing tag and an action link: the
    dialog's error line says it as it was typed (an unbalanced tag there raised MarkupError and ended the app)."""
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color"}
    folder = "/nowhere/[/evil][@click=app.quit]q[/]"
    tmux = Tmux(100, 30, KANDEV, env)
    try:
        tmux.wait_for("ctrl+n starts one")
        tmux.keys("C-n")
        tmux.wait_for("Workspace folder")
        tmux.keys("Tab")  # from the preset (the first field) to the folder
        tmux.keys("C-u")
        tmux.keys("-l", folder)
        tmux.keys("Enter")
        screen = tmux.wait_for(f"{folder}: no such directory")
        assert "Traceback" not in screen and "MarkupError" not in screen
        tmux.keys("Escape")
        tmux.wait_for("ctrl+n starts one")  # the dialog closed; the app runs on
        tmux.quit()
    finally:
        tmux.close()


@pytest.mark.parametrize("mouse", ["off", "on"])
def test_the_mouse_wheel_never_brings_back_an_earlier_prompt(tmp_path, mouse):
    """Terminals send the wheel as ↑/↓ in the alternate screen unless the app asks for the mouse (Codex #36158,
    Gemini #27378: the wheel cycled the prompt's history). kandev-tui asks for it, with tmux's mouse on or off, and a
    wheel turned over the transcript or the prompt scrolls: the empty prompt stays empty."""
    tmux = demo_agent_run(tmp_path)
    try:
        tmux.option("mouse", mouse)
        tmux.keys("the first message", "Enter")
        tmux.wait_for("Allow once")
        tmux.keys("1")
        tmux.wait_for("end of turn")
        assert tmux.show("#{mouse_any_flag}") == "1" and tmux.show("#{mouse_sgr_flag}") == "1"  # the wheel: events
        box = next(row for row, line in enumerate(tmux.screen().splitlines()) if "Message the agent" in line) + 2
        for row in (5, 15, box):  # over the transcript and over the prompt, as the terminal sends them (SGR)
            for button in (64, 64, 65, 64):  # up, up, down, up
                tmux.keys("-l", f"\x1b[<{button};40;{row}M")
        tmux.keys("x")  # something typed after the wheel: the prompt holds it alone
        screen = tmux.wait_for("│ x ")
        prompt = screen.splitlines()[box - 1]
        assert "the first message" not in prompt and prompt.split("│")[1].strip() == "x", screen
        tmux.quit()
    finally:
        tmux.close()
