"""Client terminals: ``terminal/create``, ``output``, ``wait_for_exit``, ``kill`` and ``release``.

An agent may ask the client to run a command for it (ACP's ``terminal`` capability). Each command runs in a
pseudo-terminal (so it prints as it would for a person: colours, line buffering), in a session and process group of
its own, with its working directory inside the session's workspace and the environment variables the agent asked for
(only the child gets them). What it prints is kept for the agent, bounded by its ``outputByteLimit``
(:data:`KEEP_BY_DEFAULT` without one, :data:`KEEP_AT_MOST` at most): past the limit the output is cut from the start,
at a character boundary, and the answer says ``truncated``. The agent gets plain text (escape sequences removed,
CRLF as LF).

The transcript sees the output through ``local`` frames (``{"event": "terminal", "terminal": id, ...}``): one when
the command starts (its command line and directory), its output at most every :data:`FLUSH_EVERY` seconds (at most
:data:`FRAME_AT_MOST` bytes each, the newest, saying how many were skipped: a command printing 200 MB costs the
store a bounded trickle), and one when it ends. The normaliser puts them into the tool call whose content embeds
the terminal. ``kill`` ends the command's process group and every process still in its session; cancel, quit and
the agent's exit do that for every terminal (:meth:`Terminals.end_all`).
"""

from __future__ import annotations

import asyncio
import codecs
import collections
import fcntl
import os
import pty
import re
import shutil
import signal
import struct
import termios
from pathlib import Path
from typing import Any, Callable

from kandev_tui.base.pacing import TERMINAL_FLUSH_EVERY  # seconds between the transcript's output frames
from kandev_tui.base.shutdown import forget_group, register_group, session_members, signal_session
from kandev_tui.transcript.frames import LOCAL, Frame

from .files import INTERNAL_ERROR, INVALID_PARAMS, ClientFiles, FileRequestError

KEEP_BY_DEFAULT = 1024 * 1024  # bytes of output kept for the agent when it sets no limit
KEEP_AT_MOST = 8 * 1024 * 1024  # and when it sets a larger one (the answer must fit in one message)
FRAME_AT_MOST = 64 * 1024  # bytes of output one frame carries (the newest)
READ_AT_MOST = 256 * 1024  # bytes read from one terminal before the event loop gets a turn
KILL_GRACE = 1.0  # seconds between SIGTERM and SIGKILL
COLUMNS, ROWS = 120, 40
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -/]*[0-~]?")


def plain(text: str) -> str:
    """What the agent reads of terminal output: escape sequences removed, CRLF as LF."""
    return _ESCAPES.sub("", text).replace("\r\n", "\n")


def _exit_status(returncode: int) -> dict[str, Any]:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = str(-returncode)
        return {"exitCode": None, "signal": name}
    return {"exitCode": returncode, "signal": None}


def _char_start(data: bytes) -> bytes:
    """``data`` from its first character boundary (a cut may leave UTF-8 continuation bytes at the start)."""
    skip = 0
    while skip < min(len(data), 3) and 0x80 <= data[skip] < 0xC0:
        skip += 1
    return data[skip:]


class Terminal:
    """One command in a pseudo-terminal."""

    def __init__(self, terminal_id: str, process: asyncio.subprocess.Process, master: int, limit: int,
                 emit: Callable[[dict[str, Any]], None]) -> None:
        self.id = terminal_id
        self.process = process
        self._master: int | None = master
        self._limit = limit
        self._emit = emit
        self._kept: collections.deque[bytes] = collections.deque()
        self._kept_size = 0
        self.truncated = False
        self._pending: list[bytes] = []  # for the transcript's next frame
        self._pending_size = 0
        self._skipped = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.exit: dict[str, Any] | None = None
        self.printed = 0  # bytes read from the terminal in all
        self.released = False
        self._output_closed = asyncio.Event()
        self._flusher: asyncio.TimerHandle | None = None
        self._waiter = asyncio.ensure_future(self._wait())
        asyncio.get_running_loop().add_reader(master, self._readable)

    # -- output -----------------------------------------------------------------

    def _readable(self) -> None:
        read = 0
        while self._master is not None and read < READ_AT_MOST:
            try:
                chunk = os.read(self._master, 65536)
            except BlockingIOError:
                return
            except OSError:  # EIO: every process holding the terminal has closed it
                chunk = b""
            if not chunk:
                self._close_output()
                return
            read += len(chunk)
            self.printed += len(chunk)
            self._keep(chunk)

    def _keep(self, chunk: bytes) -> None:
        self._kept.append(chunk)
        self._kept_size += len(chunk)
        while self._kept_size - len(self._kept[0]) >= self._limit:  # whole chunks no longer needed
            self._kept_size -= len(self._kept.popleft())
            self.truncated = True
        self._pending.append(chunk)
        self._pending_size += len(chunk)
        while self._pending_size - len(self._pending[0]) >= FRAME_AT_MOST:
            dropped = self._pending.pop(0)
            self._pending_size -= len(dropped)
            self._skipped += len(dropped)
        if self._flusher is None:
            self._flusher = asyncio.get_running_loop().call_later(TERMINAL_FLUSH_EVERY, self.flush)

    def flush(self) -> None:
        """Hand the output printed since the last frame to the transcript."""
        self._flusher = None
        if not self._pending:
            return
        data = b"".join(self._pending)
        skipped = self._skipped
        if len(data) > FRAME_AT_MOST:
            skipped += len(data) - FRAME_AT_MOST
            data = data[-FRAME_AT_MOST:]
        if skipped:
            self._decoder.reset()
            data = _char_start(data)
        self._pending, self._pending_size, self._skipped = [], 0, 0
        text = self._decoder.decode(data).replace("\r\n", "\n")
        if text or skipped:
            self._emit({"data": text, **({"skipped": skipped} if skipped else {})})

    def output(self) -> dict[str, Any]:
        """The answer to ``terminal/output``."""
        data = b"".join(self._kept)
        truncated = self.truncated
        if len(data) > self._limit:
            data = data[len(data) - self._limit:]
            truncated = True
        if truncated:
            data = _char_start(data)
        answer: dict[str, Any] = {"output": plain(data.decode("utf-8", "replace")), "truncated": truncated}
        if self.exit is not None:
            answer["exitStatus"] = self.exit
        return answer

    def _close_output(self) -> None:
        if self._master is None:
            return
        loop = asyncio.get_running_loop()
        loop.remove_reader(self._master)
        os.close(self._master)
        self._master = None
        self._output_closed.set()

    # -- the process ------------------------------------------------------------

    async def _wait(self) -> None:
        returncode = await self.process.wait()
        # what it printed just before it exited is still in the terminal: read it (a forked child may keep the
        # terminal open: then not longer than a moment)
        try:
            await asyncio.wait_for(self._output_closed.wait(), timeout=0.5)
        except asyncio.TimeoutError:
            self._readable()
        self.exit = _exit_status(returncode)
        if not session_members(self.process.pid):
            forget_group(self.process.pid)
        self.flush()
        self._emit({"exit_code": self.exit["exitCode"], "signal": self.exit["signal"]})

    async def wait_for_exit(self) -> dict[str, Any]:
        await asyncio.shield(self._waiter)
        assert self.exit is not None
        return dict(self.exit)

    async def kill(self) -> None:
        """End the command's process group and whatever else is left in its session: SIGTERM, then SIGKILL."""
        pid = self.process.pid
        for sig in (signal.SIGTERM, signal.SIGKILL):
            signal_session(pid, sig)
            if sig == signal.SIGTERM:
                try:
                    await asyncio.wait_for(asyncio.shield(self._waiter), timeout=KILL_GRACE)
                except asyncio.TimeoutError:
                    continue
                if not session_members(pid):
                    break
        await asyncio.shield(self._waiter)

    async def release(self) -> None:
        await self.kill()
        forget_group(self.process.pid)
        self.released = True
        self._close_output()
        if self._flusher is not None:
            self._flusher.cancel()
            self._flusher = None


_SHELL_SYNTAX = re.compile(r"[\s|&;<>()$`\\\"'*?~{}\[\]=#]")


def shell_line(command: str, args: list[str], path: str | None, cwd: Path) -> list[str]:
    """What to run for ``terminal/create``: the program and its arguments as given; but a ``command`` with no
    ``args`` that names no program (a whole shell line, ``ls -la | head``, as some agents send it) runs through
    ``/bin/sh -c``, as Zed and other clients run it."""
    if args or not _SHELL_SYNTAX.search(command) or shutil.which(command, path=path) is not None \
            or (cwd / command).exists():
        return [command, *args]  # a program (a name with no space or shell syntax not found is an error)
    return ["/bin/sh", "-c", command]


class Terminals:
    """The terminals of one session."""

    def __init__(self, files: ClientFiles, on_frame: Callable[[Frame], object], env: dict[str, str] | None = None) -> None:
        self._files = files  # where a working directory may be
        self._on_frame = on_frame
        self._env = env
        self._terminals: dict[str, Terminal] = {}
        self._count = 0

    @property
    def printed(self) -> int:
        """Bytes the session's terminals (not yet released) printed."""
        return sum(terminal.printed for terminal in self._terminals.values())

    def _terminal(self, params: Any) -> Terminal:
        terminal_id = params.get("terminalId") if isinstance(params, dict) else None
        terminal = self._terminals.get(terminal_id) if isinstance(terminal_id, str) else None
        if terminal is None:
            raise FileRequestError(INVALID_PARAMS, f"unknown terminal {str(terminal_id)[:80]!r} "
                                                   "(never created, or released)")
        return terminal

    def _emit(self, terminal_id: str) -> Callable[[dict[str, Any]], None]:
        def emit(event: dict[str, Any]) -> None:
            self._on_frame(Frame.now(LOCAL, {"event": "terminal", "terminal": terminal_id, **event}))
        return emit

    def _cwd(self, cwd: Any) -> Path:
        if cwd is None:
            return self._files.workspace.root.resolve()
        repo, relative = self._files.locate(cwd, directory=True)
        root = self._files.workspace.root_for(repo).resolve()
        real = (root / relative).resolve()
        if real != root and root not in real.parents:
            raise FileRequestError(INVALID_PARAMS, f"refused cwd {str(cwd)[:200]!r}: it leads outside the workspace")
        if not real.is_dir():
            raise FileRequestError(INVALID_PARAMS, f"refused cwd {str(cwd)[:200]!r}: not a directory")
        return real

    async def create(self, params: Any) -> dict[str, Any]:
        params = params if isinstance(params, dict) else {}
        command, args = params.get("command"), params.get("args") or []
        if not isinstance(command, str) or not command.strip() or "\x00" in command:
            raise FileRequestError(INVALID_PARAMS, "command must be a non-empty string")
        if not isinstance(args, list) or not all(isinstance(a, str) and "\x00" not in a for a in args):
            raise FileRequestError(INVALID_PARAMS, "args must be a list of strings")
        limit = params.get("outputByteLimit")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise FileRequestError(INVALID_PARAMS, "outputByteLimit must be a whole number of bytes")
        limit = KEEP_BY_DEFAULT if limit is None else min(limit, KEEP_AT_MOST)
        env = dict(self._env if self._env is not None else os.environ)
        env.setdefault("TERM", "xterm-256color")
        env.update(COLUMNS=str(COLUMNS), LINES=str(ROWS))
        for variable in params.get("env") or []:
            if not (isinstance(variable, dict) and isinstance(variable.get("name"), str) and variable["name"]
                    and "=" not in variable["name"] and "\x00" not in variable["name"]
                    and isinstance(variable.get("value"), str) and "\x00" not in variable["value"]):
                raise FileRequestError(INVALID_PARAMS, "env must be a list of {name, value} strings")
            env[variable["name"]] = variable["value"]
        cwd = self._cwd(params.get("cwd"))
        program = shell_line(command, args, env.get("PATH"), cwd)
        master, slave = pty.openpty()
        try:
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
            os.set_blocking(master, False)
            process = await asyncio.create_subprocess_exec(
                *program, stdin=slave, stdout=slave, stderr=slave, cwd=str(cwd), env=env,
                start_new_session=True)
        except FileNotFoundError:
            os.close(master)
            raise FileRequestError(INVALID_PARAMS, f"cannot run {command[:200]!r}: command not found") from None
        except OSError as exc:
            os.close(master)
            raise FileRequestError(INTERNAL_ERROR, f"cannot run {command[:200]!r}: "
                                                   f"{exc.strerror or type(exc).__name__}") from None
        finally:
            os.close(slave)
        register_group(process.pid)  # ended however kandev-tui ends (kandev_tui/base/shutdown.py)
        self._count += 1
        terminal_id = f"term-{self._count}"
        emit = self._emit(terminal_id)
        emit({"command": " ".join([command, *args])[:4000], "cwd": str(cwd)})
        self._terminals[terminal_id] = Terminal(terminal_id, process, master, limit, emit)
        return {"terminalId": terminal_id}

    async def output(self, params: Any) -> dict[str, Any]:
        return self._terminal(params).output()

    async def wait_for_exit(self, params: Any) -> dict[str, Any]:
        return await self._terminal(params).wait_for_exit()

    async def kill(self, params: Any) -> dict[str, Any]:
        await self._terminal(params).kill()
        return {}

    async def release(self, params: Any) -> dict[str, Any]:
        terminal = self._terminal(params)
        del self._terminals[terminal.id]
        await terminal.release()
        return {}

    async def kill_all(self) -> None:
        """End every terminal's processes (cancel): the agent may still read their output."""
        await asyncio.gather(*(t.kill() for t in self._terminals.values()), return_exceptions=True)

    async def end_all(self) -> None:
        """End and release every terminal (quit, the agent's exit)."""
        terminals = list(self._terminals.values())
        self._terminals.clear()
        await asyncio.gather(*(t.release() for t in terminals), return_exceptions=True)
