"""Which process runs a stored session, so that a session left ``running`` by a process that no longer exists (it was
killed with SIGKILL, the machine lost power) reads as interrupted, and one that another kandev-tui still runs is
said to run there.

A process is named by its host, its pid and, on Linux, when it started (the boot's id and the start time in clock
ticks, from ``/proc``), so that a pid used again by another process is not taken for the one that ran the session.
"""

from __future__ import annotations

import os
import socket
from functools import lru_cache


def _started(pid: int) -> str:
    """When process ``pid`` started, as a token ("" where ``/proc`` cannot tell; None-like when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return f"{_boot()}.{int(fields[19])}"
    except (OSError, IndexError, ValueError):
        return ""


@lru_cache(maxsize=1)
def _boot() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            return handle.read().strip()[:8]
    except OSError:
        return "?"


@lru_cache(maxsize=1)
def _host() -> str:
    return socket.gethostname() or "localhost"


def this_process() -> str:
    """This process as a session's owner: ``host:pid:started``."""
    pid = os.getpid()
    return f"{_host()}:{pid}:{_started(pid)}"


def _parts(owner: str | None) -> tuple[str, int, str] | None:
    try:
        host, pid, started = str(owner).rsplit(":", 2)
        return host, int(pid), started
    except ValueError:
        return None


def owner_pid(owner: str | None) -> int | None:
    parts = _parts(owner)
    return parts[1] if parts else None


def owner_alive(owner: str | None) -> bool | None:
    """Whether the process ``owner`` names still runs: None when that cannot be told (another host; no owner, as
    for a session stored before owners were kept)."""
    parts = _parts(owner) if owner else None
    if parts is None or parts[0] != _host():
        return None
    _host_name, pid, started = parts
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # the pid is another user's process now: not the one that ran the session
        return False
    if not started:  # where /proc cannot tell, a live pid is taken for the same process
        return True
    return _started(pid) == started
