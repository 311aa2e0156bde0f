"""Worktree sessions on real git repositories: made on a new branch beside the user's checkout (which is never
touched), refused with a clear line where they cannot be made, removed on close when nothing is uncommitted and
kept (and said) otherwise; and ctrl+n opening one in the app, with the demo agent writing into it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.base.settings import SettingsStore
from kandev_tui.screens.new_session import NewSessionScreen
from kandev_tui.session import SessionState
from kandev_tui.sources.launch import Launcher
from kandev_tui.transcript import Store
from kandev_tui.ui.textual_hooks import screen_text
from kandev_tui.widgets.entries.permission import PermissionRequest
from kandev_tui.workspace.reads import Workspace
from kandev_tui.workspace.worktree import WorktreeError, close, create, current_branch, suggest_branch

from ..support.app_helpers import home_app, new_session_dialog, settings_at, until


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("KANDEV_TUI_WORKTREES", str(tmp_path / "worktrees"))
    for key, value in (("GIT_AUTHOR_NAME", "t"), ("GIT_AUTHOR_EMAIL", "t@e"), ("GIT_COMMITTER_NAME", "t"),
                       ("GIT_COMMITTER_EMAIL", "t@e")):
        monkeypatch.setenv(key, value)
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=root)
    (root / "src" / "a.py").write_text("print('a')\n")
    git("add", ".", cwd=root)
    git("commit", "-q", "-m", "first", cwd=root)
    (root / "notes.txt").write_text("the user's own uncommitted work\n")  # never touched
    return root


def test_a_worktree_is_made_on_a_new_branch_and_removed_when_clean(repo):
    worktree = create(repo / "src", "kandev/demo-1")
    assert worktree.path.is_dir() and worktree.workspace == worktree.path / "src"
    assert (worktree.workspace / "a.py").read_text() == "print('a')\n"
    assert current_branch(worktree.path) == "kandev/demo-1"
    assert current_branch(repo) == "main" and (repo / "notes.txt").exists()  # the user's checkout as it was
    assert git("status", "--porcelain", cwd=repo) == "?? notes.txt"
    assert suggest_branch(repo, "demo") == "kandev/demo-2"  # the first is taken now
    said = close(worktree)
    assert "removed" in said and not worktree.path.exists()
    assert "kandev/demo-1" not in git("branch", "--list", cwd=repo)  # it never moved: deleted with it
    assert git("status", "--porcelain", cwd=repo) == "?? notes.txt"


def test_a_worktree_with_uncommitted_work_is_kept_and_a_committed_branch_stays(repo):
    worktree = create(repo, "feature/x")
    (worktree.path / "new.py").write_text("x = 1\n")
    said = close(worktree)
    assert worktree.path.is_dir() and f"kept at {worktree.path}" in said and "1 uncommitted change" in said
    git("add", ".", cwd=worktree.path)
    git("commit", "-q", "-m", "agent's work", cwd=worktree.path)
    said = close(worktree)
    assert not worktree.path.exists() and "branch feature/x kept (1 new commit)" in said
    assert git("log", "-1", "--format=%s", "feature/x", cwd=repo) == "agent's work"


@pytest.mark.parametrize("case, expected", [
    ("not a repository", "is not in a git repository"),
    ("taken branch", "exists already"),
    ("bad branch", "does not take"),
    ("hostile branch", "control characters"),
    ("no commit", "has no commit yet"),
])
def test_what_cannot_be_a_worktree_is_said_in_one_line(repo, tmp_path, case, expected):
    folder, branch = repo, "kandev/ok"
    if case == "not a repository":
        folder = tmp_path / "plain"
        folder.mkdir()
    elif case == "taken branch":
        branch = "main"
    elif case == "bad branch":
        branch = "two..dots"
    elif case == "hostile branch":
        branch = "x\x1b]2;pwned\x07"
    elif case == "no commit":
        folder = tmp_path / "empty"
        folder.mkdir()
        git("init", "-q", cwd=folder)
    with pytest.raises(WorktreeError) as caught:
        create(folder, branch)
    assert expected in str(caught.value) and "\n" not in str(caught.value)


def test_without_git_a_worktree_is_refused_clearly(repo, monkeypatch):
    monkeypatch.setenv("PATH", str(repo))  # no git on it
    with pytest.raises(WorktreeError, match="git is not installed"):
        create(repo, "kandev/x")
    assert current_branch(repo) == ""  # the list just shows no branch


async def test_ctrl_n_opens_a_demo_session_in_a_new_worktree_and_closing_it_keeps_its_work(repo, tmp_path,
                                                                                         monkeypatch):
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    store = Store(tmp_path / "s.db")
    settings = settings_at(tmp_path, chart_animation=False)
    launcher = Launcher(store, settings)
    from kandev_tui.demo import agent_command

    app = KandevApp(launcher.factory(agent_command(), Workspace(repo)), settings_store=settings, launcher=launcher)
    app.animation_level = "none"
    async with app.run_test(size=(100, 34), notifications=True) as pilot:
        await until(pilot, lambda: app.sessions[0].last_state == SessionState.IDLE)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: isinstance(app.screen, NewSessionScreen))
        dialog = app.screen
        assert dialog.query_one("#workspace").value == str(repo.resolve())  # the session on screen's folder
        assert dialog.query_one("#preset").value == "demo"  # its agent's preset
        dialog.query_one("#worktree").value = True
        dialog.query_one("#branch").value = "main"  # taken: said, and the dialog stays
        dialog.query_one("#prompt").focus()
        await pilot.press("enter")
        await until(pilot, lambda: "exists already" in str(dialog.query_one("#new-session-error").render()))
        assert app.screen is dialog and len(app.sessions) == 1
        dialog.query_one("#branch").value = ""  # suggested: kandev/demo-1
        dialog.query_one("#prompt").value = "Add a tiny helper"
        dialog.query_one("#prompt").focus()
        await pilot.press("enter")
        await until(pilot, lambda: len(app.sessions) == 2 and app.current is app.sessions[1])
        second = app.sessions[1]
        assert second.worktree is not None and second.worktree.branch == "kandev/demo-1"
        assert Path(second.model.source.workspace) == second.worktree.path.resolve()
        # the demo's first turn asks to write reports/summary.md in its workspace: allowed, it writes it there
        await until(pilot, lambda: any(w.answerable for w in second.view.query(PermissionRequest)))
        request = second.view.query_one(PermissionRequest)
        await until(pilot, lambda: request.has_focus)
        await pilot.press("1")
        await until(pilot, lambda: second.model.source.session_id and any(
            i.kind == "turn_end" for i in store.items(second.model.source.session_id)))
        assert (second.worktree.path / "reports" / "summary.md").is_file()
        assert not (repo / "reports").exists()
        assert git("status", "--porcelain", cwd=repo) == "?? notes.txt"  # the user's checkout untouched
        assert [r.branch for r in app.lists.rows()] == ["main", "kandev/demo-1"]
        # each session's header says its branch too (only the list said it): the worktree's, and the checkout's
        assert "⎇ kandev/demo-1" in str(second.screen.status.render())
        assert "⎇ main" in str(app.sessions[0].screen.status.render())
        await pilot.press("ctrl+w", "ctrl+w")
        await until(pilot, lambda: second.closed and second.closing_note and app.current is app.sessions[0])
        assert f"worktree kept at {second.worktree.path}" in second.closing_note
        assert second.worktree.path.is_dir()  # its uncommitted work kept
        await until(pilot, lambda: any("worktree kept" in str(toast.render()) for toast in app.screen.query("Toast")))
        await app.action_quit()
    assert app.life.closing_notes() == [f"session 2: {second.closing_note}"]
    store.close()


def test_the_worktree_home_can_be_set(monkeypatch, tmp_path):
    from kandev_tui.workspace.worktree import worktrees_dir

    monkeypatch.setenv("KANDEV_TUI_WORKTREES", str(tmp_path / "w"))
    assert worktrees_dir() == tmp_path / "w"
    monkeypatch.delenv("KANDEV_TUI_WORKTREES")
    assert worktrees_dir().name == "worktrees" and "kandev-tui" in str(worktrees_dir())
    assert os.sep in str(worktrees_dir())


async def test_a_preset_that_cannot_start_or_a_missing_folder_is_said_in_the_dialog(tmp_path, monkeypatch):
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    (tmp_path / "config.toml").write_text('[presets.ghost]\ncommand = ["no-such-agent-kandev"]\n\n'
                                          '[presets.notacp]\ncommand = ["true"]\n')
    settings = SettingsStore(tmp_path / "config.toml")
    store = Store(tmp_path / "s.db")
    launcher = Launcher(store, settings, init_timeout=5)
    from kandev_tui.demo import agent_command

    app = KandevApp(launcher.factory(agent_command(), Workspace(tmp_path)), settings_store=settings, launcher=launcher)
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.sessions[0].last_state == SessionState.IDLE)
        await pilot.press("ctrl+n")
        await until(pilot, lambda: isinstance(app.screen, NewSessionScreen))
        dialog = app.screen
        error = lambda: str(dialog.query_one("#new-session-error").render())  # noqa: E731
        dialog.query_one("#preset").value = "ghost"
        dialog.query_one("#prompt").focus()
        await pilot.press("enter")
        await until(pilot, lambda: "no-such-agent-kandev: not found on PATH" in error())
        dialog.query_one("#preset").value = "demo"
        dialog.query_one("#workspace").value = str(tmp_path / "nowhere")
        await pilot.press("enter")
        await until(pilot, lambda: "no such directory" in error())
        # a program that is not an ACP agent starts, and its session fails with the reason; the first goes on
        dialog.query_one("#preset").value = "notacp"
        dialog.query_one("#workspace").value = str(tmp_path)
        await pilot.press("enter")
        await until(pilot, lambda: len(app.sessions) == 2 and app.sessions[1].last_state == SessionState.ERROR)
        assert app.sessions[1].detail and app.sessions[0].last_state == SessionState.IDLE
        await pilot.press("escape")  # nothing else is open: escape does no harm
        await app.action_quit()
    store.close()


async def test_the_dialog_names_the_branch_an_empty_field_gives_or_why_the_folder_takes_no_worktree(repo, tmp_path):
    """Ticked, the box's empty branch field names the branch Start would make (it said "kandev/PRESET-N"); a folder
    outside git says why at once, where Start would say it, and the word goes when the folder or the box changes (a
    folder still being typed, not there yet, gets none: Start says so if it still is not there)."""
    from textual.widgets import Input

    plain = tmp_path / "plain"
    plain.mkdir()
    app, store = home_app(tmp_path)
    async with app.run_test(size=(100, 34)) as pilot:
        dialog = await new_session_dialog(pilot)
        branch = dialog.query_one("#branch", Input)
        error = lambda: str(dialog.query_one("#new-session-error").render())  # noqa: E731
        dialog.query_one("#workspace").value = str(repo)
        dialog.query_one("#preset").value = "demo"
        dialog.query_one("#worktree").value = True
        await until(pilot, lambda: branch.placeholder == "branch (empty: kandev/demo-1)")
        git("branch", "kandev/demo-1", cwd=repo)  # taken meanwhile: the next look names the next one
        dialog.query_one("#workspace").value = str(plain)
        await until(pilot, lambda: "is not in a git repository" in error() and branch.placeholder == "branch")
        dialog.query_one("#workspace").value = str(tmp_path / "pla")  # a folder being typed: not one yet, no word
        await until(pilot, lambda: not error())
        dialog.query_one("#workspace").value = str(repo)
        await until(pilot, lambda: branch.placeholder == "branch (empty: kandev/demo-2)" and not error())
        dialog.query_one("#workspace").value = str(plain)
        await until(pilot, lambda: "is not in a git repository" in error())
        dialog.query_one("#worktree").value = False
        await until(pilot, lambda: not error())
        await app.action_quit()
    store.close()


async def test_a_dialog_closed_while_its_worktree_is_made_leaves_nothing_behind(repo, tmp_path, monkeypatch):
    """Escape right after Start: the check goes on off the UI's thread and makes the worktree, finds the dialog
    gone, and removes it (and its branch) again; the app goes on, no session opened."""
    app, store = home_app(tmp_path)
    async with app.run_test(size=(100, 34)) as pilot:
        dialog = await new_session_dialog(pilot)
        dialog.query_one("#workspace").value = str(repo)
        dialog.query_one("#worktree").value = True
        dialog.query_one("#branch").value = "kandev/left"
        dialog.start()
        dialog.dismiss(None)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.is_running and not app.sessions
        assert "kandev/left" not in git("branch", "--list", cwd=repo)
        assert not [p for p in (tmp_path / "worktrees").rglob("*") if p.is_dir() and (p / ".git").exists()]
        await app.action_quit()
    store.close()


async def test_sessions_editing_one_folder_say_so_in_their_rows_and_a_worktree_session_does_not(repo, tmp_path,
                                                                                                monkeypatch):
    """Demo agents 1 and 3 in one folder, 2 in another: rows 1 and 3 name each other, in the sidebar too; then 4 in a
    worktree of that folder's repository and 5 in the folder itself: 5 joins 1 and 3, 4 shares with none; once 3
    is closed, the others no longer name it. No notice stands over the transcript for it."""
    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    from kandev_tui.demo import agent_command
    from kandev_tui.workspace.worktree import create

    store = Store(tmp_path / "s.db")
    settings = settings_at(tmp_path, chart_animation=False)
    launcher = Launcher(store, settings)
    other = tmp_path / "other"
    other.mkdir()
    app = KandevApp(launcher.factory(agent_command(), Workspace(repo)), settings_store=settings, launcher=launcher)
    app.open_session(launcher.factory(agent_command(), Workspace(other)))
    app.open_session(launcher.factory(agent_command(), Workspace(repo)))
    app.animation_level = "none"

    def shared() -> list[tuple[int, ...]]:
        return [row.shares_with for row in app.lists.rows()]

    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await until(pilot, lambda: all(s.last_state == SessionState.IDLE for s in app.sessions))
        assert shared() == [(3,), (), (1,)]
        sidebar = app.current.screen.sidebar
        beside = lambda: "\n".join(line[:34] for line in screen_text(app).splitlines()[:2])  # noqa: E731 (row 1)
        await until(pilot, lambda: sidebar.display and "same folder as 3" in beside())
        tree = create(repo, "kandev/apart")
        app.open_session(launcher.factory(agent_command(), Workspace(tree.workspace)), worktree=tree)
        app.open_session(launcher.factory(agent_command(), Workspace(repo)))
        await until(pilot, lambda: len(app.sessions) == 5 and all(s.last_state == SessionState.IDLE
                                                                   for s in app.sessions))
        assert shared() == [(3, 5), (), (1, 5), (), (1, 3)]
        await until(pilot, lambda: "same folder as 3 and 5" in beside())
        await app.sessions[2].close()
        assert shared() == [(5,), (), (), (), (1,)]
        assert not any("share" in str(toast.render()) for toast in app.screen.query("Toast"))
        await app.action_quit()
    store.close()


def test_run_worktree_bad_input_is_one_line_and_leaves_nothing_behind(repo, tmp_path):
    """--worktree with --headless or --resume is refused; in a folder outside any repository it is said in one line
    before the app opens; when the second preset's worktree cannot be made, the first one made is removed again."""
    import subprocess as sp
    import sys

    plain = tmp_path / "plain"
    plain.mkdir()
    config = tmp_path / "config.toml"
    config.write_text(f'[presets.here]\ncommand = ["python", "-m", "kandev_tui.demo.agent"]\nworkspace = "{repo}"\n'
                      f'[presets.plain]\ncommand = ["python", "-m", "kandev_tui.demo.agent"]\nworkspace = "{plain}"\n')
    env = {**os.environ, "KANDEV_TUI_CONFIG": str(config), "KANDEV_TUI_DB": str(tmp_path / "s.db"),
           "KANDEV_TUI_FORCE_APP": "1"}  # as in a terminal: the worktrees are made before the app would open

    def run(*args: str) -> sp.CompletedProcess:
        return sp.run([sys.executable, "-m", "kandev_tui", "run", *args], capture_output=True, text=True, env=env,
                      timeout=60, stdin=sp.DEVNULL)

    headless = run("--worktree", "--headless", "--prompt", "hi", "--preset", "demo")
    assert headless.returncode == 2 and "--worktree starts sessions in the app, not with --headless" in headless.stderr
    resume = run("--worktree", "--resume", "--preset", "demo")
    assert resume.returncode == 2 and "not in a new --worktree" in resume.stderr
    outside = run("--worktree", "--preset", "demo", "--workspace", str(plain))
    assert outside.returncode == 2 and "Traceback" not in outside.stderr
    assert outside.stderr.strip() == (f"kandev-tui run: --worktree: {plain} is not in a git repository (a worktree "
                                      "needs one: start without a worktree, or git init it first)")
    second = run("--worktree", "--preset", "here", "--preset", "plain")
    assert second.returncode == 2 and f"{plain} is not in a git repository" in second.stderr
    assert git("worktree", "list", cwd=repo).count("\n") == 0  # the first one's worktree was removed again
    assert git("branch", "--list", "kandev/*", cwd=repo) == ""
    assert not list((tmp_path / "worktrees").rglob("*.py"))
def test_run_worktree_starts_each_preset_in_a_worktree_of_its_own_and_quitting_removes_them(repo, tmp_path):
    """In tmux: two demo agents given one prompt, each in its own worktree on its own branch (the rows say which), the
    user's checkout untouched; quitting removes both worktrees and their branches (nothing was changed in them) and
    says so."""
    import sys

    from ..support.tmux import Tmux

    kandev = str(Path(sys.executable).with_name("kandev-tui"))
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "KANDEV_DEMO_DELAY": "0", "KANDEV_TUI_WORKTREES": str(tmp_path / "worktrees"),
           **{k: v for k, v in os.environ.items() if k.startswith("GIT_")}}
    tmux = Tmux(120, 40, f"{kandev} run --worktree --preset demo --preset demo --workspace {repo} --prompt hello",
                env)
    try:
        # the first session's first turn asks to write a file: rejected, once the request has the keys (on a loaded
        # machine "2 Reject" is drawn a moment before the request takes the focus, and a digit typed then goes to the
        # prompt, as the user's would)
        tmux.wait_for("1-9 or click to answer", 60)
        tmux.keys("2")
        # answered, the turn runs on to its end (with no demo delay "↳ Reject" can scroll out of view before a look);
        # that both answers were rejections the worktrees removed unchanged say below
        tmux.wait_for("○ 1 idle", 30)
        tmux.wait_for("f4 Next waiting", 30)
        tmux.keys("F4")  # the second one's, the same
        tmux.wait_for("1-9 or click to answer", 30)
        tmux.keys("2")
        tmux.wait_for("kandev/demo-2 · ", 60)  # idle, the rows say their branches before their folders
        screen = tmux.wait_for("kandev/demo-1 · ", 30)
        assert "same folder as" not in screen
        trees = git("worktree", "list", "--porcelain", cwd=repo)
        assert "branch refs/heads/kandev/demo-1" in trees and "branch refs/heads/kandev/demo-2" in trees
        tmux.quit()
        screen = tmux.wait_for("session 2: worktree", 30)
    finally:
        tmux.close()
    lines = " ".join(screen.split())  # the notes as the terminal wrapped them
    assert "session 1: worktree" in lines and lines.count("removed (nothing was changed in it)") == 2
    assert git("worktree", "list", cwd=repo).count("\n") == 0 and git("branch", "--list", "kandev/*", cwd=repo) == ""
    assert git("status", "--porcelain", cwd=repo) == "?? notes.txt"
