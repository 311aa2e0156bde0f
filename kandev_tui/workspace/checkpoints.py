"""Checkpoints of a git workspace, for what each turn changed: the working tree as it is (tracked files and untracked
ones git does not ignore) recorded as a commit object under a private ref, ``refs/kandev-tui/<session>/<turn>-start``
and ``-end``, and the difference between two of them.

Nothing the user has is touched: the commit is made with a temporary index (a copy of the user's, so that git's
stat cache spares hashing unchanged files; for a repository mid-merge, from HEAD), and only objects and the private
ref are written. Files above :data:`MAX_FILE_BYTES` are left as they were in the index and counted. Every call runs
git as a subprocess and blocks: callers run it off the UI thread. Problems are :class:`Unavailable` with a reason
said as it is (not a repository, git missing, a read-only ``.git``…), never a traceback.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from kandev_tui.workspace.gitrun import run_git

MAX_FILE_BYTES = 50 * 1024 * 1024  # a file larger than this is not recorded (it keeps its indexed state)
MAX_TAKE_BYTES = 256 * 1024 * 1024  # bytes of changed and untracked files one checkpoint hashes; the rest not recorded
MAX_FILES_LISTED = 2000  # files of one turn's changes listed (all are counted)
REF_ROOT = "refs/kandev-tui"
GIT_TIMEOUT = 120.0
IDENTITY = {"GIT_AUTHOR_NAME": "kandev-tui", "GIT_AUTHOR_EMAIL": "kandev-tui@localhost",
            "GIT_COMMITTER_NAME": "kandev-tui", "GIT_COMMITTER_EMAIL": "kandev-tui@localhost"}


class Unavailable(Exception):
    """Checkpoints cannot be taken here: the reason, as a user reads it."""


@dataclass(frozen=True)
class Checkpoint:
    commit: str
    ref: str
    skipped: int = 0  # files above MAX_FILE_BYTES, or past MAX_TAKE_BYTES, not recorded


@dataclass(frozen=True)
class FileChange:
    path: str
    status: str  # added, modified, deleted, renamed, copied, type changed
    added: int = 0
    removed: int = 0
    binary: bool = False
    old_path: str = ""  # a rename's or copy's source

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"path": self.path, "status": self.status, "added": self.added,
                                   "removed": self.removed}
        if self.binary:
            data["binary"] = True
        if self.old_path:
            data["old_path"] = self.old_path
        return data


@dataclass(frozen=True)
class Changes:
    files: list[FileChange] = field(default_factory=list)  # the first MAX_FILES_LISTED
    count: int = 0  # every file changed
    added: int = 0
    removed: int = 0


STATUS = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "C": "copied", "T": "type changed"}


def _git(root: Path, *args: str, env: dict[str, str] | None = None, data: bytes | None = None) -> bytes:
    """``git args`` in ``root``: its output, or :class:`Unavailable` with git's own first line of complaint."""
    done = run_git(args, root, error=Unavailable, missing="git is not installed", timeout=GIT_TIMEOUT,
                   env={"GIT_OPTIONAL_LOCKS": "0", **(env or {})}, input=data)
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = next((line for line in said if line.startswith(("fatal:", "error:"))), said[0] if said else "")
        if "Permission denied" in done.stderr.decode("utf-8", "replace") or "Read-only" in reason:
            raise Unavailable("the repository cannot be written (its .git is read-only)")
        raise Unavailable(f"git {args[0]} failed: {reason.removeprefix('fatal: ').removeprefix('error: ')[:200]}")
    output: bytes = done.stdout  # (no text=: bytes)
    return output


def repository(workspace: Path) -> Path:
    """The root of the git work tree ``workspace`` is in; :class:`Unavailable` when there is none."""
    if shutil.which("git") is None:
        raise Unavailable("git is not installed")
    try:
        top = _git(workspace, "rev-parse", "--show-toplevel").decode("utf-8", "surrogateescape").strip()
    except Unavailable:
        raise Unavailable("the workspace is not in a git repository") from None
    if not top:
        raise Unavailable("the workspace is not in a git work tree (a bare repository)")
    return Path(top)


def _head(root: Path) -> str | None:
    try:
        return _git(root, "rev-parse", "--verify", "-q", "HEAD^{commit}").decode().strip() or None
    except Unavailable:
        return None  # no commit yet


def _split(output: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in output.split(b"\0") if p]


def take(root: Path, ref: str, max_file: int = MAX_FILE_BYTES, max_total: int = MAX_TAKE_BYTES) -> Checkpoint:
    """The work tree of ``root`` as it is now, as a commit kept under ``ref`` (see the module docstring): of the
    files changed or untracked, those over ``max_file`` and, once ``max_total`` bytes are taken, the rest keep their
    indexed state and are counted as skipped (a stray dump or build folder is never hashed twice a turn)."""
    git_dir = Path(_git(root, "rev-parse", "--absolute-git-dir").decode("utf-8", "surrogateescape").strip())
    head = _head(root)
    with tempfile.TemporaryDirectory(prefix="kandev-tui-index-") as folder:
        index = Path(folder) / "index"
        env = {"GIT_INDEX_FILE": str(index)}
        user_index = git_dir / "index"
        copied = False
        if user_index.is_file():
            # its times kept: git takes an entry whose file changed in the second the index was written for
            # unchanged by its stat (same size, same second) unless the index file says when it was written
            # ("racy git"); a copy made later hid such a change, and a restore left the file as the turn made it
            shutil.copy2(user_index, index)
            copied = True
            # mid-merge (or any conflict): the index holds unmerged entries a tree cannot be written from
            if _git(root, "ls-files", "-u", "-z", env=env):
                index.unlink()
                copied = False
        if not copied:
            if head is not None:
                _git(root, "read-tree", head, env=env)
            else:
                _git(root, "read-tree", "--empty", env=env)
        changed = _split(_git(root, "ls-files", "-z", "--modified", "--deleted", "--others", "--exclude-standard",
                              env=env))
        keep, gone, skipped, taken = [], [], 0, 0
        for path in dict.fromkeys(changed):
            path = path.rstrip("/")  # an untracked repository inside: recorded as its commit (a gitlink)
            where = root / path
            if where.is_dir() and not where.is_symlink() and not (where / ".git").exists():
                gone.append(path)  # a file that became a folder: the file is gone, the folder's files are listed
                continue
            try:
                size = where.lstat().st_size if where.is_file() else 0
            except OSError:
                size = 0  # gone meanwhile: recorded as deleted
            if size > max_file or taken + size > max_total:
                skipped += 1
                continue
            taken += size
            keep.append(path)
        for paths, how in ((gone, "--force-remove"), (keep, "--add")):
            if paths:
                _git(root, "update-index", how, "--remove", "--replace", "-z", "--stdin", env=env,
                     data=b"\0".join(p.encode("utf-8", "surrogateescape") for p in paths) + b"\0")
        tree = _git(root, "write-tree", env=env).decode().strip()
    parents = ["-p", head] if head else []
    commit = _git(root, "commit-tree", tree, *parents, "-m", f"kandev-tui checkpoint {ref}",
                  env=IDENTITY).decode().strip()
    _git(root, "update-ref", ref, commit)
    return Checkpoint(commit, ref, skipped)


def changes(root: Path, before: str, after: str, limit: int = MAX_FILES_LISTED) -> Changes:
    """What changed from checkpoint ``before`` to ``after``: each file (renames found), its lines added and removed."""
    numstat = _git(root, "diff-tree", "-r", "-z", "-M", "--no-ext-diff", "--numstat", before, after).split(b"\0")
    names = _git(root, "diff-tree", "-r", "-z", "-M", "--no-ext-diff", "--name-status", before, after).split(b"\0")
    counts: list[tuple[int, int, bool]] = []
    index = 0
    while index < len(numstat):  # "added\tremoved\tpath" or, for a rename, "added\tremoved\t" then two paths
        entry = numstat[index]
        if not entry:
            index += 1
            continue
        added_text, removed_text, path = entry.split(b"\t", 2)
        binary = added_text == b"-"
        counts.append((0 if binary else int(added_text), 0 if binary else int(removed_text), binary))
        index += 3 if not path else 1
    files: list[FileChange] = []
    total_added = sum(a for a, _r, _b in counts)
    total_removed = sum(r for _a, r, _b in counts)
    index, number = 0, 0
    while index < len(names) and names[index]:
        code = names[index].decode()
        letter = code[:1]
        if letter in ("R", "C"):
            old, new = names[index + 1], names[index + 2]
            index += 3
        else:
            old, new = b"", names[index + 1]
            index += 2
        if len(files) < limit:
            added, removed, binary = counts[number] if number < len(counts) else (0, 0, False)
            files.append(FileChange(new.decode("utf-8", "surrogateescape"), STATUS.get(letter, letter), added,
                                    removed, binary, old.decode("utf-8", "surrogateescape")))
        number += 1
    return Changes(files, number, total_added, total_removed)


def refs(root: Path, session_id: str | None = None) -> list[tuple[str, str, int]]:
    """The checkpoint refs kept in ``root`` (of one session, or all): (ref, commit, its time, Unix seconds)."""
    prefix = f"{REF_ROOT}/{session_id}" if session_id else REF_ROOT
    found = _git(root, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(committerdate:unix)", prefix)
    kept = []
    for line in found.decode("utf-8", "surrogateescape").splitlines():
        name, commit, when = line.split("\0")
        kept.append((name, commit, int(when or 0)))
    return kept


def remove(root: Path, names: list[str]) -> None:
    """Delete checkpoint refs (their objects go with git's own garbage collection)."""
    if names:
        _git(root, "update-ref", "--stdin", "-z",
             data=b"".join(b"delete " + n.encode("utf-8", "surrogateescape") + b"\0\0" for n in names))


def restore(root: Path, source: str, paths: list[str] | None, ref: str) -> Checkpoint:
    """The work tree's files (``paths``, or every file that differs) made as they are in checkpoint ``source``: a
    file it does not have is deleted (and the folders it leaves empty), the others written back. The index and
    HEAD are not touched. The state before is recorded first, under ``ref``: a restore can itself be undone (restore
    from that checkpoint). The checkpoint of the state before is returned."""
    now = take(root, ref)
    differing = changes(root, source, now.commit, limit=1_000_000).files
    wanted = None if paths is None else set(paths)
    back: list[str] = []
    for entry in differing:
        if wanted is not None and entry.path not in wanted and entry.old_path not in wanted:
            continue
        if entry.status in ("added", "copied", "renamed"):  # the file is not in the source (a copy's is)
            target = root / entry.path
            if target.is_file() or target.is_symlink():
                target.unlink()
                _remove_emptied(root, target.parent)
        if entry.status == "renamed":
            back.append(entry.old_path)
        elif entry.status not in ("added", "copied"):
            back.append(entry.path)
    if back:
        _git(root, "--literal-pathspecs", "restore", f"--source={source}", "--worktree", "--", *back)
    return now


def _remove_emptied(root: Path, folder: Path) -> None:
    """The folders a deleted file leaves empty removed, up to ``root`` (as git does when it deletes a file: the turn
    made them for its new file; a folder holding anything else, an ignored file too, stays)."""
    while folder != root and root in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent


def prune(root: Path, days: int, keep_session: str, now: float | None = None) -> int:
    """Checkpoint refs older than ``days`` removed, never those of session ``keep_session``: how many."""
    import time

    limit = (time.time() if now is None else now) - days * 86400
    old = [name for name, _commit, when in refs(root)
           if when < limit and not name.startswith(f"{REF_ROOT}/{keep_session}/")]
    remove(root, old)
    return len(old)
