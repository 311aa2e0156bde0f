"""Git worktrees for sessions that ask for one (ctrl+n, "in a new git worktree"): the agent works on a branch of its
own in a checkout of its own, beside the user's, so that two agents (or an agent and the user) never edit the same
files.

A worktree is made with ``git worktree add -b BRANCH PATH HEAD`` under :func:`worktrees_dir`
(``<data dir>/worktrees/<repository>-<hash>/<branch>``). When its session closes it is removed only when nothing in
it is uncommitted (untracked files count); otherwise it is kept and the closing says where. Its branch is deleted
with it when it still points where it started, and kept (and said) when the agent committed to it.

Every failure is a :class:`WorktreeError` whose text is one line for the user: git missing, a folder outside any
repository, a repository without a commit, a branch name git refuses or one that is taken. Only the standard library
and the ``git`` program are used; nothing here touches the user's own checkout, index or branches but for the new
branch.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kandev_tui.workspace.gitrun import run_git
from kandev_tui.base.userpaths import private_dir

GIT_TIMEOUT = 60.0  # a repository on a slow disk; far more than a worktree takes


class WorktreeError(Exception):
    """Why a worktree cannot be made (or closed); ``str()`` is one line for the user."""


@dataclass(frozen=True)
class Worktree:
    """A worktree made for a session: where it is, its branch, the commit it started from, and the repository."""

    repository: Path  # the top level of the repository it was made from
    path: Path  # the worktree's own top level
    branch: str
    base: str  # the commit the branch started at
    workspace: Path  # where the agent runs: the folder asked for, inside the worktree


def worktrees_dir() -> Path:
    """Where worktrees go: ``KANDEV_TUI_WORKTREES`` if set, else ``worktrees`` in kandev-tui's data directory."""
    override = os.environ.get("KANDEV_TUI_WORKTREES")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_data_path

    return user_data_path("kandev-tui", appauthor=False) / "worktrees"


def git(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` in ``cwd``; a :class:`WorktreeError` when git is missing or hangs (a failure is the caller's)."""
    return run_git(args, cwd, error=WorktreeError, missing="git is not installed (a worktree needs it: apt install git)",
                   timeout=GIT_TIMEOUT, text=True)


def _said(result: subprocess.CompletedProcess[str]) -> str:
    """git's own reason, on one line."""
    lines = [line.strip() for line in (result.stderr or result.stdout).splitlines() if line.strip()]
    reason = next((line for line in lines if line.startswith("fatal:")), lines[-1] if lines else "git failed")
    return reason.removeprefix("fatal: ")


def repository_root(folder: Path) -> Path:
    """The top level of the repository ``folder`` is in, or a :class:`WorktreeError` saying it is in none."""
    if not folder.is_dir():
        raise WorktreeError(f"{folder}: no such directory")
    result = git("rev-parse", "--show-toplevel", cwd=folder)
    if result.returncode != 0 or not result.stdout.strip():
        raise WorktreeError(f"{folder} is not in a git repository (a worktree needs one: start without a worktree, "
                            "or git init it first)")
    return Path(result.stdout.strip())


def current_branch(folder: Path) -> str:
    """The branch checked out where ``folder`` is (``detached at abc1234`` for a detached HEAD), or "" when it is in
    no repository or git is missing: for the sessions list, never an error."""
    try:
        result = git("symbolic-ref", "--quiet", "--short", "HEAD", cwd=folder)
        if result.returncode == 0:
            return result.stdout.strip()
        head = git("rev-parse", "--short", "HEAD", cwd=folder)
    except (WorktreeError, ValueError):
        return ""
    return f"detached at {head.stdout.strip()}" if head.returncode == 0 and head.stdout.strip() else ""


def branch_problem(root: Path, branch: str) -> str | None:
    """Why ``branch`` cannot be a new branch of the repository at ``root`` (a name git refuses, or one taken)."""
    if not branch:
        return "the branch needs a name"
    if any(ord(c) < 32 or ord(c) == 127 for c in branch) or branch.startswith("-"):
        return "a branch name cannot hold control characters or start with '-'"
    if git("check-ref-format", "--branch", branch, cwd=root).returncode != 0:
        return f"git does not take {branch!r} as a branch name"
    if git("rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", cwd=root).returncode == 0:
        return f"the branch {branch!r} exists already (choose another name)"
    return None


def suggest_branch(root: Path, stem: str) -> str:
    """The first free ``kandev/STEM-N`` (STEM made of letters, digits, ``-``, ``_`` and ``.``)."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-.") or "session"
    taken = set(git("for-each-ref", "--format=%(refname:short)", "refs/heads/kandev/", cwd=root).stdout.split())
    number = 1
    while f"kandev/{stem}-{number}" in taken:
        number += 1
    return f"kandev/{stem}-{number}"


def create(folder: Path, branch: str) -> Worktree:
    """A new worktree of the repository ``folder`` is in, on the new branch ``branch`` made at its HEAD (a detached
    one too); the agent will run in the same folder inside it."""
    root = repository_root(folder)
    problem = branch_problem(root, branch)
    if problem:
        raise WorktreeError(problem)
    head = git("rev-parse", "--verify", "--quiet", "HEAD^{commit}", cwd=root)
    if head.returncode != 0:
        raise WorktreeError(f"the repository at {root} has no commit yet (a worktree starts from one)")
    base = head.stdout.strip()
    place = worktrees_dir() / f"{root.name}-{hashlib.sha256(str(root).encode()).hexdigest()[:8]}" / branch.replace("/", "-")
    if place.exists():
        raise WorktreeError(f"{place} exists already (a worktree of an earlier session? remove it, or choose another "
                            "branch name)")
    try:
        private_dir(place.parent)  # the user's alone: 0700
    except OSError as exc:
        raise WorktreeError(f"cannot make {place.parent}: {exc.strerror or exc}") from None
    result = git("worktree", "add", "--quiet", "-b", branch, str(place), base, cwd=root)
    if result.returncode != 0:
        raise WorktreeError(f"git worktree add failed: {_said(result)}")
    inside = folder.resolve().relative_to(root.resolve()) if folder.resolve() != root.resolve() else Path()
    return Worktree(root, place, branch, base, place / inside)


def close(worktree: Worktree) -> str:
    """The session of ``worktree`` closed: it is removed when nothing in it is uncommitted, and kept otherwise. Says
    what was done, in one line."""
    if not worktree.path.is_dir():
        return f"worktree {worktree.path} is gone already (branch {worktree.branch} kept)"
    status = git("status", "--porcelain", "--untracked-files=normal", cwd=worktree.path)
    if status.returncode != 0:
        return f"worktree kept at {worktree.path}: git status failed ({_said(status)})"
    if status.stdout.strip():
        changed = len(status.stdout.splitlines())
        return (f"worktree kept at {worktree.path} (branch {worktree.branch}): {changed} uncommitted "
                f"change{'s' if changed != 1 else ''}")
    tip = git("rev-parse", "HEAD", cwd=worktree.path).stdout.strip()
    removed = git("worktree", "remove", str(worktree.path), cwd=worktree.repository)
    if removed.returncode != 0:
        return f"worktree kept at {worktree.path}: git worktree remove failed ({_said(removed)})"
    if tip == worktree.base:
        git("branch", "-D", worktree.branch, cwd=worktree.repository)
        return f"worktree {worktree.path} removed (nothing was changed in it)"
    commits = git("rev-list", "--count", f"{worktree.base}..{tip}", cwd=worktree.repository).stdout.strip() or "?"
    return (f"worktree {worktree.path} removed; branch {worktree.branch} kept ({commits} new "
            f"commit{'s' if commits != '1' else ''})")
