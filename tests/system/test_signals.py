"""A hang-up (a terminal window closed, an SSH connection dropped), a ``kill`` and SIGINT from outside end kandev-tui
as ctrl+q does: the agent's whole process tree ends, what came is stored, the session is marked interrupted (its
pending calls and requests cancelled, never left ``○``), the terminal's modes are given back and the demo's copy of
its workspace is removed. Each is tried in a real terminal (tmux) with an agent launcher that starts a helper and
then ``exec``s the agent."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kandev_tui.transcript import Store

from ..support.procs import alive, live_pids, wait_until
from ..support.tmux import Tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
KANDEV = str(Path(sys.executable).with_name("kandev-tui"))


def launcher(tmp_path: Path) -> tuple[Path, str]:
    """An agent launcher as users have them (a wrapper script that starts a helper, then ``exec``s the agent), and
    the token that names its helper's process."""
    token = str(random.randrange(10**8, 10**9))
    script = tmp_path / "launcher.sh"
    script.write_text(f'#!/bin/sh\nsleep {token} &\nexec "{sys.executable}" -m kandev_tui.demo.agent "$@"\n')
    script.chmod(0o755)
    return script, token


def processes_with(token: str) -> list[int]:
    """Live processes whose command line holds ``token``."""
    return live_pids(lambda _pid, cmdline: token.encode() in cmdline)


def kandev_pid(tmux: Tmux) -> int:
    """kandev-tui's pid: the child of the pane's shell."""
    shell = tmux.show("#{pane_pid}")
    children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def env_for(tmp_path: Path) -> dict[str, str]:
    return {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
            "TERM": "xterm-256color", "KANDEV_DEMO_DELAY": "0.005", "PYTHONHASHSEED": "0"}


def assert_closed_as_interrupted(db: Path, reason: str) -> None:
    store = Store(db, create=False)
    try:
        (session,) = store.sessions()
        assert session["state"] == "interrupted"
        items = store.items(session["id"])
    finally:
        store.close()
    kinds = [item.kind for item in items]
    assert kinds[-2:] == ["note", "turn_end"], kinds
    assert reason in items[-2].payload["text"]
    assert items[-1].payload["stop_reason"] == "interrupted"
    calls = [item for item in items if item.kind in ("tool_call", "permission")]
    assert calls and all(item.status not in (None, "pending", "in_progress") for item in calls)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=["SIGTERM", "SIGINT", "SIGHUP"])
def test_a_kill_ends_the_agents_tree_stores_the_session_and_gives_the_terminal_back(tmp_path, sig):
    """SIGHUP too when the terminal is still there (kill -HUP): its modes are given back (a hang-up with the terminal
    gone writes nothing to it: test_a_hang_up_…)."""
    script, token = launcher(tmp_path)
    status = tmp_path / "status"
    tmux = Tmux(100, 30, f"{KANDEV} run --prompt 'check the build' -- {script}; echo $? > {status}", env_for(tmp_path))
    try:
        tmux.wait_for("Allow once")  # a turn runs, its request waits
        assert tmux.show("#{alternate_on} #{mouse_any_flag}") == "1 1"
        assert processes_with(token)  # the launcher's helper
        os.kill(kandev_pid(tmux), sig)
        wait_until(lambda: status.exists() and status.read_text().strip(), 60, "the app's end")
        assert status.read_text().strip() == str(128 + sig)  # as a process ended by the signal, as the shell sees
        assert tmux.show("#{alternate_on} #{mouse_any_flag} #{mouse_sgr_flag} #{mouse_button_flag}") == "0 0 0 0"
        wait_until(lambda: not processes_with(token), 20, "the agent's helper's end")
    finally:
        tmux.close()
    assert_closed_as_interrupted(tmp_path / "s.db", f"({sig.name})")


def test_a_hang_up_ends_the_agents_tree_and_stores_the_session(tmp_path):
    script, token = launcher(tmp_path)
    tmux = Tmux(100, 30, f"{KANDEV} run --prompt 'check the build' -- {script}", env_for(tmp_path))
    try:
        tmux.wait_for("Allow once")
        pid = kandev_pid(tmux)
        assert processes_with(token)
        tmux.kill_pane()  # the terminal goes away: SIGHUP, and nothing can be written to it any more
        wait_until(lambda: not alive(pid), 60, "kandev-tui's end")
        wait_until(lambda: not processes_with(token), 20, "the agent's helper's end")
    finally:
        tmux.close()
    assert_closed_as_interrupted(tmp_path / "s.db", "the terminal hung up (SIGHUP)")
    log = (tmp_path / "logs" / "kandev-tui.log").read_text()
    assert "ending: the terminal hung up (SIGHUP)" in log
    assert "Traceback" not in log  # nothing failed on the way out (an answer the stopped agent cannot read is dropped)


def test_a_hang_up_in_the_demo_removes_its_workspace_copy(tmp_path):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    tmux = Tmux(100, 30, f"{KANDEV} demo", {**env_for(tmp_path), "TMPDIR": str(scratch)})
    try:
        tmux.wait_for("Allow once")
        assert [p.name for p in scratch.iterdir() if p.name.startswith("kandev-demo-")]
        pid = kandev_pid(tmux)
        tmux.kill_pane()
        wait_until(lambda: not alive(pid), 60, "kandev-tui's end")
    finally:
        tmux.close()
    assert not [p.name for p in scratch.iterdir() if p.name.startswith("kandev-demo-")]
    assert_closed_as_interrupted(tmp_path / "s.db", "the terminal hung up")


def test_a_kill_ends_a_headless_run_as_interrupted_with_the_signals_status(tmp_path):
    script, token = launcher(tmp_path)
    env = {**os.environ, **env_for(tmp_path), "KANDEV_DEMO_DELAY": "0.2"}  # a turn that lasts
    run = subprocess.Popen([KANDEV, "run", "--headless", "--prompt", "check the build", "--", str(script)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert run.stdout.readline()  # the turn has begun (its first item printed)
        assert processes_with(token)
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 128 + signal.SIGTERM
    assert err.strip() == "kandev-tui run: interrupted: kandev-tui was asked to stop (SIGTERM)"
    assert '"stop_reason":"interrupted"' in out.replace(" ", "")
    wait_until(lambda: not processes_with(token), 20, "the agent's helper's end")
    store = Store(tmp_path / "s.db", create=False)
    try:
        assert store.sessions()[0]["state"] == "interrupted"
    finally:
        store.close()


FORCED = r"""
import asyncio, os, signal, sys, tempfile
from kandev_tui.base.shutdown import EndingSignals, remove_even_if_forced

scratch = tempfile.mkdtemp(prefix="kandev-demo-", dir=sys.argv[1])
remove_even_if_forced(scratch)
open(os.path.join(scratch, "copy.txt"), "w").write("the demo's workspace copy")

async def main():
    loop = asyncio.get_running_loop()
    ending = asyncio.Event()
    signals = EndingSignals(loop, lambda signum: ending.set())  # an ending that never finishes (a stuck close)
    signals.install()
    print(scratch, flush=True)
    await ending.wait()
    os.kill(os.getpid(), signal.SIGTERM)  # the second signal: ended at once
    await asyncio.sleep(60)

try:
    asyncio.run(main())
finally:
    print("the finally ran", flush=True)  # it must not: an ending forced skips it
"""


def test_an_ending_forced_by_a_second_signal_still_removes_the_demos_workspace_copy(tmp_path):
    """A second SIGTERM while kandev-tui is ending ends it at once (os._exit: no finally runs); the directories it
    made for itself (the demo's copy of its workspace) are removed first, as every agent's process group is
    ended. (CI found one left behind after a loaded run.)"""
    process = subprocess.Popen([sys.executable, "-c", FORCED, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    scratch = Path(process.stdout.readline().strip())
    assert scratch.is_dir() and scratch.name.startswith("kandev-demo-")
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM and "the finally ran" not in out
    assert not scratch.exists()


LATE = r"""
import os, signal, sys
from kandev_tui.base.shutdown import scratch_directory

with scratch_directory("kandev-demo-") as scratch:
    (scratch / "copy.txt").write_text("the demo's workspace copy")
    print(scratch, flush=True)
    sys.stdin.readline()  # the app has ended and given its signal handlers back; the process is not done yet
    print("still here", flush=True)
    sys.stdin.readline()
print("the block ended", flush=True)
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_after_the_app_has_ended_still_removes_the_demos_workspace_copy(tmp_path, signum):
    """The app takes the ending signals while it runs and gives them back as it ends; the demo's copy of its
    workspace is removed after that, and a signal in between (the terminal closed, a kill) ended the process with the
    copy left behind (CI found one after a loaded run). Its block takes the signals too."""
    process = subprocess.Popen([sys.executable, "-c", LATE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "TMPDIR": str(tmp_path)})
    scratch = Path(process.stdout.readline().strip())
    assert scratch.is_dir() and scratch.name.startswith("kandev-demo-")
    process.stdin.write("\n")
    process.stdin.flush()
    assert process.stdout.readline().strip() == "still here"  # between the app's end and the block's
    process.send_signal(signum)
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 128 + signum and "the block ended" not in out
    assert not scratch.exists() and not list(tmp_path.iterdir())
