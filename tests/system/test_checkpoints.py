"""Checkpoints and the changes card, on real git repositories (git from Debian): what a turn changed, through the
agent's tool and through a shell command, counted; the user's index, HEAD and stash untouched; and the bad input
(a merge in progress, a detached HEAD, a submodule, a 200 MB file, 10,000 files, a file become a folder, paths with
newlines and escapes, a workspace that stops being a repository, no git, a read-only .git)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kandev_tui.workspace import checkpoints
from kandev_tui.workspace.checkpoints import Unavailable

from ..support.cli import KANDEV
from ..support.kit import KIT
from ..support.git import ENV, content, git, repo, turn

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def users_state(root: Path) -> tuple[str, str, str, str]:
    """What the user has: the index (as git lists it, stages included), HEAD, the branches, the stash."""
    return (git(root, "ls-files", "-s"), git(root, "rev-parse", "HEAD"), git(root, "for-each-ref", "refs/heads"),
            git(root, "stash", "list"))


def test_a_turn_is_recorded_without_touching_the_users_index_head_or_stash(tmp_path):
    root = repo(tmp_path / "r", {"a.txt": "one\n", "keep.txt": "k\n"})
    (root / ".gitignore").write_text("*.log\n")
    (root / "staged.txt").write_text("staged\n")
    git(root, "add", "staged.txt")
    git(root, "stash", "list")
    (root / "a.txt").write_text("one\ntwo\n")  # modified, not staged
    state = users_state(root)

    def change():
        (root / "a.txt").write_text("one\ntwo\nthree\n")
        (root / "new.py").write_text("print('x')\n")
        (root / "keep.txt").unlink()
        (root / "debug.log").write_text("ignored\n")

    found = turn(root, change)
    assert {(f.path, f.status, f.added, f.removed) for f in found.files} == {
        ("a.txt", "modified", 1, 0), ("new.py", "added", 1, 0), ("keep.txt", "deleted", 0, 1)}
    assert (found.count, found.added, found.removed) == (3, 2, 1)
    assert users_state(root) == state  # index (staged.txt still staged alone), HEAD, branches, stash
    assert [r[0] for r in checkpoints.refs(root, "test")] == ["refs/kandev-tui/test/t-end",
                                                              "refs/kandev-tui/test/t-start"]
    checkpoints.remove(root, [r[0] for r in checkpoints.refs(root, "test")])
    assert checkpoints.refs(root) == []


def test_restoring_a_turn_deletes_its_new_files_and_the_folders_they_alone_filled(tmp_path):
    """The turn wrote reports/2026/summary.md into a new folder and src/new.py beside a file: restoring the state
    before it removes both files, and the folders left empty (no reports/ left behind), never a folder that still
    holds something (src/, logs/ with an ignored file)."""
    root = repo(tmp_path / "r", {"a.txt": "one\n", "src/old.py": "x = 1\n", ".gitignore": "*.log\n"})
    (root / "logs").mkdir()
    (root / "logs" / "run.log").write_text("ignored\n")
    before = checkpoints.take(root, "refs/kandev-tui/test/t-start")
    (root / "reports" / "2026").mkdir(parents=True)
    (root / "reports" / "2026" / "summary.md").write_text("# Summary\n")
    (root / "src" / "new.py").write_text("y = 2\n")
    (root / "logs" / "notes.txt").write_text("n\n")
    (root / "a.txt").write_text("two\n")
    checkpoints.restore(root, before.commit, None, "refs/kandev-tui/test/t-undo")
    assert not (root / "reports").exists()
    assert sorted(p.name for p in (root / "src").iterdir()) == ["old.py"]
    assert sorted(p.name for p in (root / "logs").iterdir()) == ["run.log"]
    assert (root / "a.txt").read_text() == "one\n"


def test_a_change_in_the_second_the_index_was_written_is_recorded(tmp_path):
    """Racy git: a file changed to the same size in the second its index entry records has the stat the entry
    records (git, built without USE_NSEC as Debian's is, compares seconds and sizes); git reads its content only
    because the index file says it was written in that second. The checkpoint's copy of the index had the time of the
    copy, the change was missed, and a restore left the file as the turn had made it (a loaded CI run saw it)."""
    root = repo(tmp_path / "r", {"a.txt": "one\n"})
    past = time.time_ns() - 30 * 10**9  # the second the entry and the index say (ctimes stay now: the same second)
    (root / "a.txt").write_text("one\n")
    os.utime(root / "a.txt", ns=(past, past))
    git(root, "add", "a.txt")
    os.utime(root / ".git" / "index", ns=(past, past))  # the index written in that second
    before = checkpoints.take(root, "refs/kandev-tui/test/r-start")
    (root / "a.txt").write_text("two\n")  # the same size, the same second as far as the entry can tell
    os.utime(root / "a.txt", ns=(past, past))
    after = checkpoints.take(root, "refs/kandev-tui/test/r-end")
    assert [f.path for f in checkpoints.changes(root, before.commit, after.commit).files] == ["a.txt"]


def test_a_merge_in_progress_a_detached_head_and_a_submodule(tmp_path):
    root = repo(tmp_path / "r", {"a.txt": "base\n"})
    git(root, "checkout", "-q", "-b", "other")
    (root / "a.txt").write_text("other\n")
    git(root, "commit", "-q", "-am", "other")
    git(root, "checkout", "-q", "main")
    (root / "a.txt").write_text("main\n")
    git(root, "commit", "-q", "-am", "main")
    subprocess.run(["git", "merge", "other"], cwd=root, capture_output=True, env={**os.environ, **ENV})
    assert "UU a.txt" in git(root, "status", "--short")  # mid-merge, a conflict in the index
    state = users_state(root)
    found = turn(root, lambda: (root / "b.txt").write_text("during the merge\n"), "merge")
    assert ("b.txt", "added") in {(f.path, f.status) for f in found.files}
    assert users_state(root) == state and (root / ".git" / "MERGE_HEAD").exists()  # still merging, as it was
    git(root, "merge", "--abort")
    git(root, "checkout", "-q", "--detach", "HEAD~1")
    found = turn(root, lambda: (root / "a.txt").write_text("detached\n"), "detached")
    assert [(f.path, f.status) for f in found.files] == [("a.txt", "modified")]
    sub = repo(tmp_path / "sub", {"s.txt": "s\n"})
    git(root, "checkout", "-q", "-f", "main")
    git(root, "-c", "protocol.file.allow=always", "submodule", "-q", "add", str(sub), "sub")
    git(root, "commit", "-q", "-m", "sub")
    found = turn(root, lambda: (root / "sub" / "s.txt").write_text("changed inside\n"), "sub")
    assert found.count == 0  # the submodule's own files are its repository's: its commit did not move


def test_a_big_file_is_skipped_and_counted_and_a_file_become_a_folder(tmp_path):
    root = repo(tmp_path / "r", {"a.txt": "a\n", "thing": "a file\n"})

    def change():
        with open(root / "huge.bin", "wb") as big:  # 200 MB, sparse: made at once
            big.truncate(200 * 1024 * 1024)
        (root / "thing").unlink()
        (root / "thing").mkdir()
        (root / "thing" / "inside.txt").write_text("now a folder\n")

    before = checkpoints.take(root, "refs/kandev-tui/test/big-start")
    change()
    after = checkpoints.take(root, "refs/kandev-tui/test/big-end")
    assert after.skipped == 1
    found = checkpoints.changes(root, before.commit, after.commit)
    assert {(f.path, f.status) for f in found.files} == {("thing", "deleted"), ("thing/inside.txt", "added")}


@pytest.mark.reliability("Checkpoints", "untracked files past the bytes one checkpoint takes (a stray dump)", cases=1,
                         held="the first recorded up to the cap, the rest counted as skipped and said on the card")
def test_untracked_files_past_the_checkpoints_byte_cap_are_counted_not_hashed(tmp_path):
    root = repo(tmp_path / "r", {"a.txt": "a\n"})
    before = checkpoints.take(root, "refs/kandev-tui/test/cap-start")
    for name in ("1.bin", "2.bin", "3.bin"):
        (root / name).write_bytes(b"x" * 4096)
    after = checkpoints.take(root, "refs/kandev-tui/test/cap-end", max_total=10_000)
    assert after.skipped == 1
    found = checkpoints.changes(root, before.commit, after.commit)
    assert sorted(f.path for f in found.files) == ["1.bin", "2.bin"]  # the first two: 8 KiB of the 10 KB
    from kandev_tui.transcript import Item
    from kandev_tui.widgets.entries.changes_card import changes_text

    card = Item("changes:1", "changes", 1, {"state": "ready", "files": [], "count": 2, "skipped": 1})
    assert "1 file not compared (over 50 MB, or past the 256 MB" in changes_text(card).plain


def test_ten_thousand_changed_files_and_paths_with_newlines_and_escapes(tmp_path):
    root = repo(tmp_path / "r")
    hostile = "evil\n\x1b[31mred\x1b]0;title\x07.txt"

    def change():
        for n in range(10_000):
            (root / f"f{n:05}.txt").write_text(f"{n}\n")
        (root / hostile).write_text("x\n")

    found = turn(root, change, "many")
    assert found.count == 10_001 and len(found.files) == checkpoints.MAX_FILES_LISTED
    found = checkpoints.changes(root, *[c for _n, c, _t in reversed(checkpoints.refs(root, "test"))], limit=20_000)
    assert hostile in {f.path for f in found.files}
    from kandev_tui.transcript.items import Item
    from kandev_tui.widgets.entries.changes_card import changes_text

    item = Item("changes:1", "changes", 1, {"state": "ready", "count": 1, "added": 1, "removed": 0,
                                            "files": [{"path": hostile, "status": "added", "added": 1, "removed": 0}]})
    drawn = changes_text(item).plain
    assert "\x1b" not in drawn and "\x07" not in drawn and "\n  A evil" in drawn  # inert, on its one line


def test_what_cannot_be_tracked_says_why(tmp_path, monkeypatch):
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(Unavailable, match="^the workspace is not in a git repository$"):
        checkpoints.repository(plain)
    root = repo(tmp_path / "r")
    before = checkpoints.take(root, "refs/kandev-tui/test/gone-start")
    shutil.rmtree(root / ".git")  # the workspace stops being a repository mid-session
    with pytest.raises(Unavailable):
        checkpoints.take(root, "refs/kandev-tui/test/gone-end")
    assert before.commit
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))  # git not installed
    with pytest.raises(Unavailable, match="^git is not installed$"):
        checkpoints.repository(root)


def test_a_read_only_git_folder_says_so(tmp_path):
    """The .git of the workspace mounted read-only (a mount namespace of its own): the checkpoint is refused with
    the reason, and nothing else breaks."""
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode:
        pytest.skip("mount namespaces are not available here")
    root = repo(tmp_path / "r")
    code = ("import sys; from pathlib import Path; from kandev_tui.workspace import checkpoints as c\n"
            "try:\n    c.take(Path(sys.argv[1]), 'refs/kandev-tui/test/ro-start')\n"
            "except c.Unavailable as e:\n    print('UNAVAILABLE', e)\n")
    done = subprocess.run(["unshare", "-m", "sh", "-c", 'mount --bind "$1/.git" "$1/.git" && '
                           'mount -o remount,bind,ro "$1/.git" && exec "$2" -c "$3" "$1"', "sh", str(root),
                           sys.executable, code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("UNAVAILABLE ") and "read-only" in done.stdout, done.stdout


def headless(workspace: Path, steps: list[dict], db: Path) -> list[dict]:
    env = {**os.environ, "DIALECT": json.dumps({"steps": steps})}
    done = subprocess.run([KANDEV, "run", "--headless", "--db", str(db), "--workspace", str(workspace), "--prompt",
                           "change things", "--permission", "allow-once", "--", *KIT],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_headless_a_turn_that_edits_through_its_tool_and_a_command_prints_its_changes_card(tmp_path):
    root = repo(tmp_path / "w", {"a.txt": "one\n", "b.txt": "b\n"})
    state = users_state(root)
    items = headless(root, [{"op": "write", "path": "a.txt", "content": "one\ntwo\n"},
                            {"op": "command", "line": "sed -i s/b/bee/ b.txt && echo new > c.txt",
                             "exit_in": "terminal"},
                            {"op": "say", "text": "done"}], tmp_path / "s.db")
    kinds = [i["kind"] for i in items]
    assert kinds[-1] == "turn_end" and kinds.index("changes") > kinds.index("agent_message")
    (card,) = [i for i in items if i["kind"] == "changes"]
    payload = card["payload"]
    assert payload["state"] == "ready" and payload["count"] == 3 and not payload["overlapped"]
    assert {(f["path"], f["status"]) for f in payload["files"]} == {
        ("a.txt", "modified"), ("b.txt", "modified"), ("c.txt", "added")}  # the tool's edit and the command's
    assert users_state(root) == state
    assert len(checkpoints.refs(root, payload["session"])) == 2
    from kandev_tui.transcript import Store
    from kandev_tui.transcript.export import session_markdown

    store = Store(tmp_path / "s.db")
    (session,) = store.sessions()
    exported = session_markdown(session, store.items(session["id"]))
    assert "**3 files changed** +3 −1" in exported and "| c.txt | added (no tool call named it) | 1 | 0 |" in exported
    assert "| a.txt | modified | 1 | 0 |" in exported  # the tool's write: named
def test_headless_outside_a_repository_says_once_that_changes_are_not_tracked(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    items = headless(plain, [{"op": "say", "text": "hi"}], tmp_path / "s.db")
    (card,) = [i for i in items if i["kind"] == "changes"]
    assert card["payload"] == {"state": "unavailable", "reason": "the workspace is not in a git repository"}
    assert [i["kind"] for i in items][-1] == "turn_end"


def review_of(tmp_path: Path, files: dict[str, str], changed: dict[str, str], name: str) -> dict:
    """A changes card's payload (what the review is opened with) for a turn that changed ``files`` to ``changed``
    in a real repository, between two real checkpoints."""
    root = repo(tmp_path / "w", files)
    before = checkpoints.take(root, f"refs/kandev-tui/test/{name}-start")
    for path, text in changed.items():
        (root / path).write_text(text)
    after = checkpoints.take(root, f"refs/kandev-tui/test/{name}-end")
    found = checkpoints.changes(root, before.commit, after.commit)
    return {"files": [f.to_json() for f in found.files], "count": found.count, "added": found.added,
            "removed": found.removed, "before": before.commit, "after": after.commit, "repository": str(root)}


async def test_in_the_app_the_card_follows_the_turn_and_enter_reviews_each_files_diff(tmp_path):
    from kandev_tui.acp import AgentOptions
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.screens.review import ReviewScreen
    from kandev_tui.screens.transcript import TranscriptScreen
    from kandev_tui.sources import LiveSource
    from kandev_tui.transcript import Store
    from kandev_tui.ui.textual_hooks import screen_text
    from kandev_tui.widgets.entries.changes_card import ChangesCard

    from ..support.app_helpers import settings_at, until

    root = repo(tmp_path / "w", {"a.py": "def one():\n    return 1\n", "old_name.txt": "kept\n"})
    steps = [{"op": "write", "path": "a.py", "content": "def one():\n    return 2\n"},
             {"op": "command", "line": "git mv old_name.txt new_name.txt && printf 'x\\n' > added.txt",
              "exit_in": "terminal"},
             {"op": "say", "text": "Changed three files."}]
    store = Store(tmp_path / "s.db")
    env = {**os.environ, "DIALECT": json.dumps({"steps": steps})}
    options = AgentOptions(command=KIT, workspace=root, env=env)
    app = KandevApp(LiveSource(options, store),
                    settings_store=settings_at(tmp_path, chart_animation=False), initial_prompt="change them")
    app.animation_level = "none"
    async with app.run_test(size=(100, 40)) as pilot:
        from kandev_tui.widgets.entries.permission import PermissionRequest

        await until(pilot, lambda: any(w.answerable and w.has_focus for w in app.query(PermissionRequest)))
        await pilot.press("1")  # the edit asks first: allowed
        await until(pilot, lambda: "✎ 3 files changed" in screen_text(app))
        text = screen_text(app)
        assert text.index("Changed three files.") < text.index("✎ 3 files changed")
        # the edit's file listed; the command's two summed up (no tool call named them), all three in the review
        assert "M a.py  +1 −1" in text and "A added.txt" not in text, text
        assert "+ 2 files no tool call named: added.txt, new_name.txt (the agent's own state, or a" in text
        app.query_one(ChangesCard).focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReviewScreen) and "return 2" in screen_text(app))
        text = screen_text(app)
        assert "-     return 1" in text and "+     return 2" in text and "@@ -1,2 +1,2 @@" in text  # a.py's hunk
        # r: a.py as it was before the turn (confirmed), the transcript says so; u: back, the same bytes
        from kandev_tui.screens.confirm import ConfirmScreen

        edited = (root / "a.py").read_bytes()
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: content(root / "a.py") == b"def one():\n    return 1\n")
        session_id = app.current.status.session_id
        # one file: "it", and the list marks it
        await until(pilot, lambda: any("“a.py” put back as it was before this turn. The agent's memory did not go "
                                       "back: it may still think it changed." in i.payload.get("text", "")
                                       for i in store.items(session_id) if i.kind == "note"))
        await until(pilot, lambda: "M a.py  +1 −1  ↺ restored" in screen_text(app))
        assert (root / "added.txt").exists() and "a.py" not in git(root, "diff", "--cached", "--name-only")
        await until(pilot, lambda: app.screen.check_action("undo_restore", ()) is True)
        await pilot.press("u")
        await until(pilot, lambda: content(root / "a.py") == edited)
        # undone: said so (not "put back as they were… u undoes it"), the mark gone, nothing more to undo
        await until(pilot, lambda: any("The restore is undone: “a.py” is as the turn left it." == i.payload.get("text")
                                       for i in store.items(session_id) if i.kind == "note"))
        await until(pilot, lambda: "↺ restored" not in screen_text(app) and not app.screen.check_action("undo_restore", ()))
        await pilot.press("n")
        await until(pilot, lambda: "added.txt  (new file)" in screen_text(app))
        assert "A added.txt  +1 −0  no tool call named it" in screen_text(app)
        await pilot.press("n")
        await until(pilot, lambda: "new_name.txt  (renamed from old_name.txt)" in screen_text(app))
        await pilot.press("r")  # a rename put back: named as the rename, not by the file it removes
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: content(root / "old_name.txt") == b"kept\n" and not (root / "new_name.txt").exists())
        await until(pilot, lambda: any(i.payload.get("text", "").startswith("“old_name.txt → new_name.txt” put back as "
                                                                            "it was before this turn.")
                                       for i in store.items(session_id) if i.kind == "note"))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TranscriptScreen))
        await app.action_quit()


async def test_a_diff_read_that_lands_after_the_list_moved_on_is_dropped(tmp_path):
    """Each file's diff is read in a thread and set when it lands; a read for a file no longer chosen (it finished
    after the next one's, as after a restore and n at once) must not put the old file back on screen."""
    from kandev_tui.screens.review import ReviewScreen, read_diff
    from kandev_tui.ui.textual_hooks import screen_text

    from ..support.app_helpers import stored_app, until

    payload = review_of(tmp_path, {"a.py": "one = 1\n", "b.py": "two = 2\n"},
                        {"a.py": "one = 10\n", "b.py": "two = 20\n"}, "late")
    app = stored_app(tmp_path, [])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = ReviewScreen(payload)
        await app.push_screen(screen)
        await until(pilot, lambda: "+ one = 10" in screen_text(app))
        await pilot.press("n")
        await until(pilot, lambda: "+ two = 20" in screen_text(app))
        first = screen.files[0]
        screen._shown(first, read_diff(payload, first))  # the late read's delivery, as call_from_thread makes it
        await pilot.pause()
        assert "+ two = 20" in screen_text(app) and "+ one = 10" not in screen_text(app)
        assert screen.files_list.highlighted == 1
        await pilot.press("p")  # the file chosen again: its read is drawn
        await until(pilot, lambda: "+ one = 10" in screen_text(app))


async def test_at_45_columns_a_long_diff_line_wraps_beside_its_gutter(tmp_path):
    """The review at 45 columns wrapped a long changed line back to the first column, under the line numbers: the
    code goes on beside them, each wrapped piece under the code's first character."""
    from kandev_tui.screens.review import ReviewScreen
    from kandev_tui.ui.textual_hooks import screen_text

    from ..support.app_helpers import stored_app, until

    long = "value = compute(" + ", ".join(f"argument_{n}" for n in range(12)) + ")\n"
    payload = review_of(tmp_path, {"a.py": "x = 1\n"}, {"a.py": "x = 1\n" + long}, "wrap")
    app = stored_app(tmp_path, [])
    async with app.run_test(size=(45, 30)) as pilot:
        await app.push_screen(ReviewScreen(payload))
        await until(pilot, lambda: "+ value = compute(" in screen_text(app))
        lines = screen_text(app).splitlines()
        first = next(n for n, line in enumerate(lines) if "+ value = compute(" in line)
        code_at = lines[first].index("value")
        rest = [line for line in lines[first + 1:first + 6] if "argument_" in line]
        assert len(rest) >= 2, "\n".join(lines)  # it wraps, at 45 columns
        for line in rest:  # beside the gutter: nothing under the numbers, the code from the code's column
            assert not line[:code_at].strip(" ▎▊│"), "\n".join(lines)
            assert line[code_at] != " ", "\n".join(lines)


def test_old_checkpoints_are_pruned_but_never_the_sessions_own_and_a_deleted_session_takes_its_own(tmp_path):
    import asyncio
    import time

    from kandev_tui.sources.launch import Launcher
    from kandev_tui.transcript import Store

    from ..support.app_helpers import settings_at

    root = repo(tmp_path / "r")
    for ref in ("old/1-start", "mine/1-start", "other/1-start"):
        checkpoints.take(root, f"refs/kandev-tui/{ref}")
    later = time.time() + 40 * 86400  # forty days on
    assert checkpoints.prune(root, 30, "mine", now=later) == 2
    assert [n for n, _c, _t in checkpoints.refs(root)] == ["refs/kandev-tui/mine/1-start"]
    assert checkpoints.prune(root, 30, "someone", now=time.time()) == 0  # not old yet
    store = Store(tmp_path / "s.db")
    session = store.create_session(title="t", agent_command=[], workspace=str(root), state="ended")
    checkpoints.take(root, f"refs/kandev-tui/{session}/1-start")
    checkpoints.take(root, f"refs/kandev-tui/{session}/1-end")
    launcher = Launcher(store, settings_at(tmp_path))
    said = asyncio.run(launcher.delete(store.session(session)))
    assert said == "deleted here; its 2 checkpoints removed"
    assert [n for n, _c, _t in checkpoints.refs(root)] == ["refs/kandev-tui/mine/1-start"]


def test_the_checkpoints_command_lists_a_sessions_turns_with_what_each_changed(tmp_path, capsys):
    """``kandev-tui checkpoints ID``: the session's checkpoints in its workspace, oldest first, each end with what
    its turn changed; without ID, every session's in the repository of --workspace; --json for scripts. In the
    test's own process (main), on a real repository and a real store."""
    from kandev_tui.cli import main
    from kandev_tui.transcript import Store

    root = repo(tmp_path / "r", {"a.txt": "one\n"})
    db = tmp_path / "s.db"
    store = Store(db)
    session = store.create_session(title="Fix the \x1b[31mflaky\x1b[0m test", agent_command=["x"],
                                   workspace=str(root), state="ended")
    other = store.create_session(title="Other", agent_command=["x"], workspace=str(root), state="ended")
    from kandev_tui.transcript import Item

    store.upsert_items(session, [Item("user:1", "user_message", 1, {"text": "Add b.txt and a \x1b[31msecond\x1b[0m line"},
                                      final=True)])
    store.close()
    checkpoints.take(root, f"refs/kandev-tui/{session}/1-start")
    (root / "a.txt").write_text("one\ntwo\n")
    (root / "b.txt").write_text("new\n")
    checkpoints.take(root, f"refs/kandev-tui/{session}/1-end")
    checkpoints.take(root, f"refs/kandev-tui/{other}/1-start")

    assert main(["checkpoints", "--db", str(db), session[:6]]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"Checkpoints in {root}"
    rows = [line.split() for line in lines[2:4]]
    assert [row[:3] for row in rows] == [[session[:12], "1", "start"], [session[:12], "1", "end"]]
    assert "2 files +2 −0  (Add b.txt and a ␛[31msecond␛[0m line)" in lines[3] and "\x1b" not in out  # its prompt, inert
    checkpoints.take(root, f"refs/kandev-tui/{session}/2-start")  # a turn whose prompt is not stored: the title
    (root / "b.txt").write_text("newer\n")
    checkpoints.take(root, f"refs/kandev-tui/{session}/2-end")
    assert main(["checkpoints", "--db", str(db), session[:6]]) == 0
    assert "1 file +1 −1  (Fix the ␛[31mflaky␛[0m test)" in capsys.readouterr().out
    assert other not in out and "To go back:" in out

    assert main(["checkpoints", "--db", str(db), "--workspace", str(root), "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # session by session (the two began in the same second here: in either order), each in its own order
    assert sorted({r["session"] for r in listed}) == sorted({session, other}) and len(listed) == 5
    mine = [r for r in listed if r["session"] == session]
    assert [(r["turn"], r["kind"]) for r in mine] == [("1", "start"), ("1", "end"), ("2", "start"), ("2", "end")]
    assert listed.index(mine[1]) == listed.index(mine[0]) + 1  # together
    assert (mine[1]["files"], mine[1]["added"], mine[1]["removed"]) == (2, 2, 0)
    assert mine[1]["commit"] == dict((n, c) for n, c, _t in checkpoints.refs(root))[f"refs/kandev-tui/{session}/1-end"]


def test_the_checkpoints_command_says_in_one_line_why_there_are_none(tmp_path, capsys):
    from kandev_tui.cli import main
    from kandev_tui.transcript import Store

    Store(tmp_path / "s.db").close()
    plain = tmp_path / "plain"
    plain.mkdir()
    assert main(["checkpoints", "--db", str(tmp_path / "s.db"), "--workspace", str(plain)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not in a git repository" in err[0] and "keeps checkpoints in git repositories" in err[0]
    root = repo(tmp_path / "r")
    assert main(["checkpoints", "--db", str(tmp_path / "s.db"), "--workspace", str(root)]) == 0
    assert capsys.readouterr().out.strip() == f"No checkpoints in {root}."
    assert main(["checkpoints", "--db", str(tmp_path / "s.db"), "nope"]) == 1
    assert "no session 'nope'" in capsys.readouterr().err
    assert main(["checkpoints", "--workspace", str(tmp_path / "gone")]) == 2  # as every --workspace says it
    assert capsys.readouterr().err == f"kandev-tui checkpoints: --workspace {tmp_path / 'gone'}: no such directory\n"
