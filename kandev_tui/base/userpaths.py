"""Paths the user gives on the command line, checked before any work starts.

Each check returns why the path cannot be used, in a few words that name the real reason ("no such
directory", "… is not a directory", "is a directory", "not writable"), or None. The command line turns
that into one line naming the path. None of this imports anything beyond the standard library.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def not_a_directory(path: Path) -> str | None:
    """Why ``path`` is not a directory to read from (it is missing, or a file), or None."""
    if path.is_dir():
        return None
    return "no such directory" if not path.exists() else "not a directory"


def directory_problem(directory: Path) -> str | None:
    """Why files cannot be made in ``directory`` (which need not exist yet when its parents can hold it), or None.

    The first component that is missing or not a directory is named; a directory that exists is tried for
    writing (``os.access`` says yes to root even on a read-only file system).
    """
    if directory.is_dir():
        return _try_create_in(directory)
    probe = directory
    while not probe.exists():
        if probe.parent == probe:
            return f"no such directory {directory}"
        probe = probe.parent
    if not probe.is_dir():
        return f"{probe} is not a directory"
    return None  # the missing part can be made, if the caller makes directories


def output_problem(path: Path, *, new: bool = False, make_parents: bool = False) -> str | None:
    """Why ``path`` cannot be written (created, or appended to), or None.

    ``new``: the file must not exist yet (a recording is never replaced). ``make_parents``: missing directories
    will be made (the session database), so only a component that is not a directory is a problem.
    """
    if path.is_dir():
        return "is a directory"
    if new and path.exists():
        return "already exists (choose a new file name, or remove the old one first)"
    parent = path.parent
    if not parent.is_dir():
        problem = directory_problem(parent)
        if problem is not None or not make_parents:
            return problem or f"no such directory {parent}"
        return None
    if path.exists():
        try:
            with open(path, "ab"):
                pass
        except OSError as exc:
            return _reason(exc)
        return None
    return _try_create_in(parent)


def _try_create_in(directory: Path) -> str | None:
    probe = directory / f".kandev-tui-write-test-{os.getpid()}"
    try:
        with open(probe, "xb"):
            pass
    except FileExistsError:
        return None
    except OSError as exc:
        return f"{directory} is not writable" if isinstance(exc, PermissionError) else _reason(exc)
    try:
        probe.unlink()
    except OSError:
        pass
    return None


def _reason(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "not writable"
    return (exc.strerror or str(exc)).lower()


# -- private files --------------------------------------------------------------------------------------------------
# What kandev-tui writes of a session (the database, logs, recordings, worktrees) is the user's alone whatever the
# umask: folders are made 0700 and files 0600 (a umask can only take permissions away from those).


def process_umask() -> int:
    """The process's umask, read without changing it (``os.umask`` sets it, for a moment, for every thread: a file
    another thread made then would be world-writable); read once."""
    global _UMASK
    if _UMASK is None:
        try:
            with open("/proc/self/status", encoding="ascii") as status:
                _UMASK = next(int(line.split()[1], 8) for line in status if line.startswith("Umask:"))
        except (OSError, StopIteration, ValueError, IndexError):
            _UMASK = 0o022  # where /proc cannot say: the usual one
    return _UMASK


_UMASK: int | None = None


def private_dir(path: Path, *, tighten: bool = False) -> Path:
    """``path`` made (with its parents) as a folder only the user may enter; ``tighten``: made so if it exists too
    (kandev-tui's own data folder, which older versions made with the umask's permissions)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if tighten:
        try:
            if path.stat().st_mode & 0o077:
                path.chmod(0o700)
        except OSError:
            pass
    return path


def open_private(path: Path, mode: str, **options: object) -> Any:
    """``open(path, mode)`` for a file kandev-tui writes (``"x"``, ``"a"``, ``"ab"``, ``"w"``…): made 0600 when
    it does not exist."""
    flags = os.O_CREAT | (os.O_EXCL if "x" in mode else 0) | (os.O_APPEND if "a" in mode else 0)
    flags |= (os.O_TRUNC if "w" in mode else 0) | (os.O_RDWR if "+" in mode else os.O_WRONLY)
    descriptor = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        return open(descriptor, mode.replace("x", "w"), **options)  # type: ignore[call-overload]
    except BaseException:
        os.close(descriptor)
        raise
