"""The live processes of this machine, read from ``/proc``, for the tests that check what ran and what is left; and
waiting on a condition (never on a fixed sleep)."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import Callable


def live_pids(matches: Callable[[int, bytes], bool], *, read: str = "cmdline") -> list[int]:
    """Pids of the live processes (not zombies: nobody may reap them) for which ``matches(pid, text)`` holds, where
    text is the process's ``/proc/PID/{read}`` (``cmdline`` or ``environ``: NUL-separated)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/{read}").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != b"Z" and matches(int(entry), text):
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def wait_until(condition: Callable[[], object], seconds: float = 60, what: str = "") -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what or 'the condition'} did not happen within {seconds} s"
        time.sleep(0.1)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port} after {timeout} s")
