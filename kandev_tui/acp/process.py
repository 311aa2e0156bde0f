"""The agent's process once kandev-tui is done with it: its exit status as soon as it is reaped, and its end (a
moment to exit by itself, then SIGTERM and SIGKILL to its process group and whatever is left in its session)."""

from __future__ import annotations

import asyncio
import signal

from kandev_tui.shutdown import forget_group, session_members, signal_session


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
