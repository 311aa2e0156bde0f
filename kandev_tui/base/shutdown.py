"""Ending well when the operating system asks: a hang-up (the terminal or the SSH connection went away), a ``kill``
(SIGTERM) and SIGINT take the path a quit takes, so that the agents stop, what came is stored, the session is
marked and the terminal is given back. In the app ``ctrl+c`` is a key, not a signal: SIGINT only comes from outside
(``kill -INT``, a supervisor).

Two things live here, below everything that starts a process:

- :class:`EndingSignals`: while installed (in the main thread), each of :data:`ENDING_SIGNALS` calls ``on_signal``
  on the event loop. A hang-up first points the terminal's file descriptors at ``/dev/null``: the terminal is gone,
  and a write to it would fail (``EIO``) in whatever thread draws, leaving that thread dead and its writers blocked.
  A second SIGTERM or SIGINT while the first signal is being handled ends the process at once, once every process
  group registered below has been ended (a hang-up often comes twice, from the kernel and from the terminal, and
  is taken once).
- the process groups kandev-tui started (agents, client terminals), registered while they run, so that the last
  resort (:func:`end_groups`) leaves none behind.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

log = logging.getLogger("kandev_tui.base.shutdown")

ENDING_SIGNALS = (signal.SIGHUP, signal.SIGTERM, signal.SIGINT)
ENDING_GRACE = 30.0  # seconds an ending may take (closing an agent takes at most about 10) before it is forced
_groups: set[int] = set()
_lock = threading.Lock()


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def exit_status(signum: int) -> int:
    """What a process ended by ``signum`` exits with, as a shell reports it (128 + the signal's number)."""
    return 128 + int(signum)


def ending_reason(signum: int) -> str:
    """Why kandev-tui is ending, in the words of the session's closing note."""
    if signum == signal.SIGHUP:
        return "the terminal hung up (SIGHUP)"
    return f"kandev-tui was asked to stop ({signal_name(signum)})"


# -- the process groups kandev-tui started --------------------------------------------------------------------------

def register_group(pgid: int) -> None:
    """A process group kandev-tui started (a process made with ``start_new_session``: its pid)."""
    with _lock:
        _groups.add(pgid)


def forget_group(pgid: int) -> None:
    with _lock:
        _groups.discard(pgid)


def live_groups() -> set[int]:
    with _lock:
        return set(_groups)


def session_members(session: int) -> list[int]:
    """Pids of the live processes in session ``session`` (Linux ``/proc``; empty elsewhere): a process started with
    ``start_new_session`` leads one, and what it forks stays in it even in process groups of their own."""
    members = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 3 and fields[0] != b"Z" and int(fields[3]) == session:  # state, ppid, pgrp, session
            members.append(int(entry))
    return members


def signal_session(leader: int, sig: int) -> None:
    """Signal the process group ``leader`` leads and every other process left in its session."""
    try:
        os.killpg(leader, sig)
    except (ProcessLookupError, PermissionError):
        pass
    for member in session_members(leader):
        try:
            os.kill(member, sig)
        except (ProcessLookupError, PermissionError):
            pass


def end_groups(sig: int = signal.SIGKILL) -> None:
    """Signal every registered process group and its session (the last resort: a second signal, a close that never
    finished)."""
    for pgid in live_groups():
        signal_session(pgid, sig)


_scratch: set[str] = set()  # directories of kandev-tui's own to remove even when the process is ended at once


def remove_even_if_forced(path: str | os.PathLike[str]) -> None:
    """A directory kandev-tui made for itself (the demo's copy of its workspace): removed by its owner as usual, and
    by :func:`force_exit` when the process has to end at once (its owner's ``finally`` never runs then)."""
    with _lock:
        _scratch.add(os.fspath(path))


def forget_scratch(path: str | os.PathLike[str]) -> None:
    with _lock:
        _scratch.discard(os.fspath(path))


@contextmanager
def scratch_directory(prefix: str) -> Iterator[Path]:
    """A directory kandev-tui makes for itself for the block (the demo's copy of its workspace), removed however the
    process ends: at the block's end, or by an ending signal at any moment of it. The app takes the ending signals
    while it runs (a quit's path) and gives them back when it ends; a signal after that (a terminal closed, a
    ``kill`` while the app is still giving the terminal back) would end the process before the block's end, so the
    block takes them too, and ends the process at once, the directory removed (:func:`force_exit`)."""
    import shutil
    import tempfile

    path = Path(tempfile.mkdtemp(prefix=prefix))
    remove_even_if_forced(path)
    previous: dict[int, object] = {}
    if threading.current_thread() is threading.main_thread():
        for ending in ENDING_SIGNALS:
            try:
                previous[ending] = signal.signal(ending, lambda received, _frame: force_exit(exit_status(received)))
            except (ValueError, OSError):  # not the main interpreter
                continue
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        forget_scratch(path)
        for number, handler in previous.items():
            signal.signal(number, handler)  # type: ignore[arg-type]


def force_exit(status: int) -> None:
    """End the process now (a second signal, an ending past its grace): every registered process group ended, every
    scratch directory removed, then ``os._exit``."""
    import shutil

    end_groups(signal.SIGKILL)
    with _lock:
        doomed = list(_scratch)
    for path in doomed:
        shutil.rmtree(path, ignore_errors=True)
    os._exit(status)


# -- the signals ------------------------------------------------------------------------------------------------------

def terminal_alive() -> bool:
    """Whether standard output is a terminal that has not hung up (a hung-up one refuses its ioctls with EIO)."""
    try:
        if not os.isatty(1):
            return False
        import termios

        termios.tcgetattr(1)
    except (OSError, ImportError):
        return False
    return True


def detach_terminal() -> None:
    """Point standard input, output and error at ``/dev/null`` (the terminal hung up): reads end, writes vanish."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return
    try:
        for fd in (0, 1, 2):
            try:
                os.dup2(null, fd)
            except OSError:
                pass
    finally:
        os.close(null)


class EndingSignals:
    """Route :data:`ENDING_SIGNALS` to ``on_signal(signum)`` on ``loop`` while installed (see the module's text)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_signal: Callable[[int], None]) -> None:
        self.loop = loop
        self.on_signal = on_signal
        self.received: int | None = None
        self._previous: dict[int, object] = {}
        self._deadline: threading.Timer | None = None

    def install(self) -> bool:
        """Take the signals (only the main thread can): False when it could not."""
        if threading.current_thread() is not threading.main_thread():
            return False
        for signum in ENDING_SIGNALS:
            try:
                self._previous[signum] = signal.signal(signum, self._handle)
            except (ValueError, OSError):  # not the main interpreter, or no such signal here
                continue
        return bool(self._previous)

    def uninstall(self) -> None:
        """Give the signals back (and drop a deadline: what was ending has ended)."""
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        for signum, previous in self._previous.items():
            try:
                signal.signal(signum, previous)  # type: ignore[arg-type]
            except (ValueError, OSError, TypeError):
                pass
        self._previous.clear()

    def end_within(self, seconds: float) -> None:
        """Should the process still be here ``seconds`` from now, end it then (every registered group first)."""
        status = exit_status(self.received or signal.SIGTERM)

        def force() -> None:
            log.error("ending took longer than %g s: forced", seconds)
            force_exit(status)

        if self._deadline is None:
            self._deadline = threading.Timer(seconds, force)
            self._deadline.daemon = True
            self._deadline.start()

    def _handle(self, signum: int, _frame: object) -> None:
        # runs in the main thread between two bytecodes: only what is safe there (no locks the interrupted code
        # may hold); the rest is handed to the loop
        if signum == signal.SIGHUP and not terminal_alive():  # hung up: nothing may be written there; a SIGHUP
            detach_terminal()  # sent to a terminal still open (kill -HUP) ends as SIGTERM does, its modes given back
        if self.received is not None:  # asked again while ending: a hang-up again changes nothing, a kill is now
            if signum == signal.SIGHUP:
                return
            force_exit(exit_status(self.received))
        self.received = signum
        try:
            self.loop.call_soon_threadsafe(self.on_signal, signum)
        except RuntimeError:  # the loop has closed: nothing is left to end well
            force_exit(exit_status(signum))
