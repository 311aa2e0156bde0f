"""The agent's process once kandev-tui is done with it: its exit status as soon as it is reaped, and its end (a
moment to exit by itself, then SIGTERM and SIGKILL to its process group and whatever is left in its session)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from kandev_tui.base.shutdown import forget_group, session_members, signal_session


async def _exited(process: asyncio.subprocess.Process) -> int:
    """The agent's exit status once it has exited. ``Process.wait()`` also waits for its pipes to close, which a
    child it left behind may hold open for good; its exit status is known as soon as it is reaped."""
    while process.returncode is None:
        waiter = asyncio.ensure_future(process.wait())
        try:
            await asyncio.wait_for(asyncio.shield(waiter), timeout=0.2)
        except asyncio.TimeoutError:
            pass
        finally:
            if not waiter.done():
                waiter.cancel()
    return process.returncode


def _signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return f"signal {number}"


async def _end_agent(process: asyncio.subprocess.Process) -> None:
    """The agent, once its input is closed: a moment to end by itself, then SIGTERM and finally SIGKILL to its process
    group and to whatever else is left in its session (a launcher's children outlive it otherwise). What it still
    writes is read and dropped meanwhile (:func:`_drain`)."""
    drain = asyncio.ensure_future(_drain(process.stdout))
    try:
        if process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), timeout=1.5)
            except asyncio.TimeoutError:
                pass
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if process.returncode is not None and not session_members(process.pid):
                break
            signal_session(process.pid, sig)
            await _gone(process, 3.0)
        forget_group(process.pid)
        await asyncio.wait({drain}, timeout=1.0)  # its pipe's end, once nothing is left to write to it
    finally:
        drain.cancel()


async def _drain(stdout: asyncio.StreamReader | None) -> None:
    """The agent's output read to its end and dropped, once kandev-tui no longer reads it (the connection is
    closed). An agent that filled the pipe (``yes``) otherwise keeps it open: its exit is never known to
    ``Process.wait()``, which also waits for the pipes, and the process's transport is collected after the event loop
    has closed (a traceback on stderr)."""
    if stdout is None:
        return
    try:
        while await stdout.read(1 << 16):
            pass
    except (RuntimeError, ConnectionError, OSError):  # the connection still reads it (its close timed out)
        pass


async def _gone(process: asyncio.subprocess.Process, within: float) -> None:
    """Until the agent has exited and nothing is left in its session, at most ``within`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    try:
        await asyncio.wait_for(process.wait(), timeout=within)
    except asyncio.TimeoutError:
        return
    while session_members(process.pid) and loop.time() < deadline:
        await asyncio.sleep(0.05)


class StderrLog:
    """The agent's stderr copied into its log file (made 0600 in a 0700 folder), with the secrets kandev-tui handed
    out scrubbed (:func:`kandev_tui.base.sanitize.scrub_secrets`): an agent that logs its ``session/new`` would write the
    MCP hub's secret there. Written a line at a time; a line longer than the pipe's read bound in parts, the end of
    each kept back for the next by :data:`~kandev_tui.base.sanitize.SECRET_REACH`, so no secret is cut in two."""

    def __init__(self, path: Path) -> None:
        from kandev_tui.base.userpaths import open_private, private_dir

        private_dir(path.parent)
        self._handle = open_private(path, "ab")
        self._task: asyncio.Task[None] | None = None

    def start(self, reader: asyncio.StreamReader | None) -> None:
        if reader is not None:
            self._task = asyncio.ensure_future(self._copy(reader))

    async def _copy(self, reader: asyncio.StreamReader) -> None:
        from kandev_tui.base.sanitize import SECRET_REACH, scrub_secrets

        held = ""
        try:
            while True:
                whole = True
                try:
                    data = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as exc:
                    data = exc.partial
                except asyncio.LimitOverrunError as exc:
                    data, whole = await reader.read(max(1, exc.consumed)), False
                if not data:
                    break
                text = scrub_secrets(held + data.decode("utf-8", "surrogateescape"))
                text, held = (text, "") if whole else (text[:-SECRET_REACH], text[-SECRET_REACH:])
                self._handle.write(text.encode("utf-8", "surrogateescape"))
                self._handle.flush()
            if held:
                self._handle.write(held.encode("utf-8", "surrogateescape"))
                self._handle.flush()
        except (OSError, ValueError):
            return

    async def settle(self, wait: float) -> None:
        """Wait up to ``wait`` s for what the agent wrote to be in the file (its stderr ends with it, unless a child
        it left holds it open)."""
        if self._task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self._task), timeout=wait)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                pass

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self._handle.close()
