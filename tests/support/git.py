"""Real git repositories for the checkpoint, worktree and hostile-workspace tests: ``git`` (kandev-tui's test
identity, failing loudly), ``plain_git`` (as a user runs it, the control that shows a trap springs), a committed
``repo``, a ``turn`` between two checkpoints, and a file's ``content`` while git rewrites it."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from kandev_tui.workspace import checkpoints

ENV = {"GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u", "GIT_COMMITTER_EMAIL": "u@x"}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True,
                          env={**os.environ, **ENV}).stdout


def repo(path: Path, files: dict[str, str] | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main", ".")
    for name, text in (files or {"a.txt": "one\n"}).items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "init")
    return path


def turn(root: Path, change, ref: str = "t") -> checkpoints.Changes:
    before = checkpoints.take(root, f"refs/kandev-tui/test/{ref}-start")
    change()
    after = checkpoints.take(root, f"refs/kandev-tui/test/{ref}-end")
    return checkpoints.changes(root, before.commit, after.commit)


def content(path: Path) -> bytes | None:
    """A file's bytes, or None while it is missing: git puts a file back by deleting it and writing it anew, and a
    look in between found no file (a restore in the app's worker, watched from the test)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def plain_git(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Plain git, as the user would run it: the control that shows a trap springs."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=60)


def trap(marker: Path) -> str:
    """A shell command that leaves ``marker`` behind, then passes its input through (a filter that works)."""
    return f"touch {shlex.quote(str(marker))}; cat"
