"""What the suite leaves behind, checked when it ends: processes it started that still run (agents, their helpers,
tmux servers, browsers), the demo's workspace copies, tmux's socket files and checkpoints (``refs/kandev-tui/*``) in
the checkout's own repository. A leftover fails the run, named, and is
then cleaned up, so that a test that leaks fails on the machine where it leaks."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

from . import CHECKOUT
from .tmux import socket_dir


def _ticks_now() -> int:
    """Clock ticks since boot (what /proc/PID/stat's start time counts)."""
    return int(float(Path("/proc/uptime").read_text().split()[0]) * os.sysconf("SC_CLK_TCK"))


class Leftovers:
    def __init__(self) -> None:
        self.basetemp: Path | None = None  # the session's temporary root, once known (every test's tmp_path in it)
        self.started = time.time()
        self.started_ticks = _ticks_now() if Path("/proc/uptime").exists() else None
        self.mine = {os.getpid(), *self._ancestors()}
        self.refs_before = self._checkpoint_refs()

    @staticmethod
    def _checkpoint_refs() -> set[str]:
        """kandev-tui's checkpoint refs in the checkout's repository (none when it is no repository)."""
        import subprocess

        try:
            done = subprocess.run(["git", "for-each-ref", "--format=%(refname)", "refs/kandev-tui/"], cwd=CHECKOUT,
                                  capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return set()
        return set(done.stdout.split()) if done.returncode == 0 else set()

    def refs(self) -> list[str]:
        """Checkpoint refs made in the checkout's repository since the suite began."""
        return sorted(self._checkpoint_refs() - self.refs_before)

    @staticmethod
    def _ancestors() -> set[int]:
        found, pid = set(), os.getppid()
        while pid > 1:
            found.add(pid)
            try:
                pid = int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                break
        return found

    def processes(self) -> dict[int, str]:
        """Live processes the suite started that still run: this process's descendants, and those left to init that
        name the session's temporary root (in their command line or working directory), started since it began. (A
        suite running beside this one has its own root and its own processes.)"""
        if self.started_ticks is None:
            return {}
        table: dict[int, tuple[int, bytes, bytes]] = {}  # pid: (parent, command line, working directory)
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) in self.mine:
                continue
            try:
                fields = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()
                if fields[0] == b"Z" or int(fields[19]) < self.started_ticks:
                    continue
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
                cwd = os.readlink(f"/proc/{entry}/cwd").encode()
            except (OSError, IndexError, ValueError):
                continue
            table[int(entry)] = (int(fields[1]), cmdline, cwd)
        root = str(self.basetemp).encode() if self.basetemp is not None else None
        found = {}
        for pid, (_parent, cmdline, cwd) in table.items():
            if self._descends(pid, table) or (root is not None and (root in cmdline or cwd.startswith(root))):
                found[pid] = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()[:160]
        return found

    @staticmethod
    def _descends(pid: int, table: dict[int, tuple[int, bytes, bytes]]) -> bool:
        """Whether ``pid`` is a descendant of this process (through processes started since the suite began)."""
        me = os.getpid()
        for _ in range(64):
            parent = table[pid][0] if pid in table else 0
            if parent == me:
                return True
            if parent not in table:
                return False
            pid = parent
        return False

    def files(self) -> list[Path]:
        """The demo's workspace copies and tmux sockets made since the suite began."""
        candidates = [*Path(tempfile.gettempdir()).glob("kandev-demo-*"), *socket_dir().glob("kandev-test-*")]
        found = []
        for path in candidates:
            try:
                if path.lstat().st_mtime >= self.started - 1:
                    found.append(path)
            except OSError:
                continue
        return found

    def check(self, grace: float | None = None, *, processes: bool = True, files: bool = True) -> list[str]:
        """What is still left after ``grace`` seconds (processes end a moment after their test), then removed.
        ``processes``/``files``: what to look for (a worker of ``pytest -n`` looks for its own processes; the files
        are the machine's, looked for once every worker is done)."""
        look_for_processes, look_for_files = processes, files
        if grace is None:  # KANDEV_LEFTOVERS_GRACE: a run that leaks on purpose (tests/system/test_leftovers.py) waits less
            grace = float(os.environ.get("KANDEV_LEFTOVERS_GRACE") or 20.0)
        deadline = time.monotonic() + grace
        while True:
            processes = self.processes() if look_for_processes else {}
            files = self.files() if look_for_files else []
            if not (processes or files) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        refs = self.refs() if look_for_files else []
        said = [f"process {pid}: {line}" for pid, line in sorted(processes.items())]
        said += [f"file {path}" for path in files]
        said += [f"checkpoint {ref} in the checkout's repository {CHECKOUT}" for ref in refs]
        for ref in refs:
            import subprocess

            subprocess.run(["git", "update-ref", "-d", ref], cwd=CHECKOUT, capture_output=True, timeout=30)
        for pid in processes:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for path in files:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        return said
