"""Confined, bounded reads from a session's workspace.

Used for CSV sources (at tool-call time) and for file previews (on request).
A :class:`Workspace` has a default root and optional named ``repo`` roots. A
read is refused unless the path passes the contract's path rules, its real path
(symlinks resolved, also through parent directories) lies inside the chosen
root, and it is a regular file: a FIFO, device or socket is never opened for a
blocking read. At most ``limit + 1`` bytes are ever read, so a file of several
gigabytes costs no more than a small one.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from kandev_tui.presentation.errors import SourceReadError
from kandev_tui.presentation.paths import path_problem


class WorkspaceError(SourceReadError):
    """A read the workspace refused or could not do; ``str()`` is for users."""

    reason = "unreadable"


class InvalidPath(WorkspaceError):
    reason = "invalid path"


class UnknownRepo(WorkspaceError):
    reason = "unknown repository"


class WorkspaceGone(WorkspaceError):
    reason = "workspace unavailable"


class OutsideWorkspace(WorkspaceError):
    reason = "outside the workspace"


class FileMissing(WorkspaceError):
    reason = "missing"


class NotRegularFile(WorkspaceError):
    reason = "not a regular file"


class AccessDenied(WorkspaceError):
    reason = "permission denied"


@dataclass(frozen=True)
class FileRead:
    """Bytes read from a workspace file."""

    data: bytes
    truncated: bool  # the file holds more than ``limit`` bytes
    size: int  # the file's size as reported when it was opened


@dataclass(frozen=True)
class TextRead:
    """A bounded text read: ``text`` is None when the content is binary."""

    text: str | None
    truncated: bool
    size: int


def parse_repo_option(value: str) -> tuple[str, Path]:
    """``NAME=DIR`` (the ``--repo`` option) → ``(name, path)``; ValueError if malformed."""
    name, sep, directory = value.partition("=")
    if not sep or not name.strip() or not directory.strip():
        raise ValueError("is not NAME=DIR (e.g. docs=../docs)")
    return name.strip(), Path(directory).expanduser()


class Workspace:
    """The workspace roots one session may read from."""

    def __init__(self, root: str | os.PathLike[str], repos: Mapping[str, str | os.PathLike[str]] | None = None) -> None:
        self.root = Path(root)
        self.repos = {name: Path(path) for name, path in (repos or {}).items()}

    def root_for(self, repo: str | None) -> Path:
        """The root a ``repo`` name selects (``None`` or ``""``: the default root)."""
        if not repo:
            return self.root
        try:
            return self.repos[repo]
        except KeyError:
            known = ", ".join(sorted(self.repos)) or "none configured"
            raise UnknownRepo(f"unknown repository {repo[:40]!r} (known: {known})") from None

    def resolve(self, path: str, repo: str | None = None) -> Path:
        """The real path of ``path`` inside the selected root; raises WorkspaceError."""
        problem = path_problem(path)
        if problem:
            raise InvalidPath(f"path {problem}")
        root = self.root_for(repo)
        try:
            real_root = root.resolve(strict=True)
        except (OSError, RuntimeError):
            raise WorkspaceGone("the workspace is no longer available") from None
        if not real_root.is_dir():
            raise WorkspaceGone("the workspace is no longer available")
        candidate = real_root / path.replace("\\", "/")
        try:
            real = candidate.resolve(strict=True)
        except FileNotFoundError:
            raise FileMissing("no such file") from None
        except PermissionError:
            raise AccessDenied("permission denied") from None
        except (OSError, RuntimeError) as exc:  # symlink loops, name too long, ...
            raise FileMissing(f"cannot resolve the path ({type(exc).__name__})") from None
        if real != real_root and real_root not in real.parents:
            raise OutsideWorkspace("the path leads outside the workspace")
        return real

    def open_regular(self, path: str, repo: str | None = None) -> tuple[int, os.stat_result]:
        """A file descriptor (the caller closes it) and the status of a regular file inside the workspace: opened
        without blocking (a FIFO is refused, never waited on) and checked to be the file the path resolved to."""
        real = self.resolve(path, repo)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(real, flags)
        except FileNotFoundError:
            raise FileMissing("no such file") from None
        except PermissionError:
            raise AccessDenied("permission denied") from None
        except OSError as exc:
            raise FileMissing(f"cannot open the file ({exc.strerror or type(exc).__name__})") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise NotRegularFile("not a regular file")
            self._check_open_file(fd, real)
        except BaseException:
            os.close(fd)
            raise
        return fd, info

    def read_bytes(self, path: str, limit: int, repo: str | None = None) -> FileRead:
        """Read at most ``limit`` bytes of a regular file inside the workspace."""
        fd, info = self.open_regular(path, repo)
        try:
            chunks: list[bytes] = []
            remaining = limit + 1
            while remaining > 0:
                chunk = os.read(fd, min(remaining, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
            data = b"".join(chunks)
        except PermissionError:
            raise AccessDenied("permission denied") from None
        except BlockingIOError:
            raise NotRegularFile("not a regular file") from None
        except OSError as exc:
            raise FileMissing(f"read failed ({exc.strerror or type(exc).__name__})") from None
        finally:
            os.close(fd)
        return FileRead(data=data[:limit], truncated=len(data) > limit, size=info.st_size)

    def _check_open_file(self, fd: int, expected: Path) -> None:
        """Guard against a swap between resolving and opening (Linux ``/proc``)."""
        proc = f"/proc/self/fd/{fd}"
        if os.path.exists(proc):
            try:
                opened = Path(os.readlink(proc))
            except OSError:
                return
            if opened != expected:
                raise OutsideWorkspace("the file changed while it was opened")

    def read_text(self, path: str, limit_bytes: int, repo: str | None = None) -> TextRead:
        """A bounded read decoded as UTF-8; ``text`` is None for binary content.

        Content is binary when it holds a NUL byte or is not valid UTF-8 (an
        incomplete sequence cut by the byte bound is not held against it).
        """
        read = self.read_bytes(path, limit_bytes, repo)
        return TextRead(text=decode_text(read.data, read.truncated), truncated=read.truncated, size=read.size)


def decode_text(data: bytes, truncated: bool) -> str | None:
    """UTF-8 text of ``data`` or None if binary; a sequence cut at the end of a truncated read is dropped."""
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if truncated and exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return data[: exc.start].decode("utf-8", "strict")
        return None


SKIPPED_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache",
                          ".tox", "dist", "build", ".idea", ".cache"})


def workspace_files(root: Path, limit: int = 20_000) -> list[str]:
    """The files of a workspace as the prompt's ``@`` offers them (relative paths, sorted): in a git repository,
    those git knows or would add (``.gitignore`` honoured); elsewhere a walk that leaves out hidden and build
    folders. At most ``limit``."""
    from kandev_tui.workspace.gitrun import run_git

    try:
        done = run_git(("ls-files", "--cached", "--others", "--exclude-standard", "-z"), root, error=OSError,
                       missing="git is not installed", timeout=10)
    except OSError:
        done = None
    if done is not None and done.returncode == 0:
        names = [n for n in done.stdout.decode("utf-8", "replace").split("\0") if n]
        return sorted(set(names))[:limit]
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        base = os.path.relpath(folder, root)
        for name in sorted(files):
            found.append(name if base == "." else f"{base}/{name}")
            if len(found) >= limit:
                return found
    return found


def matching_files(files: list[str], typed: str, limit: int = 32) -> list[str]:
    """The files whose path holds ``typed``'s characters in order (case-insensitive), best first: the file's name
    starting with it, then its path containing it whole, then shorter paths."""
    wanted = typed.casefold()
    scored = []
    for path in files:
        folded = path.casefold()
        position = 0
        for char in wanted:
            position = folded.find(char, position) + 1
            if position == 0:
                break
        else:
            name = folded.rsplit("/", 1)[-1]
            scored.append((not name.startswith(wanted), wanted not in folded, len(path), path))
    return [path for *_, path in sorted(scored)[:limit]]
