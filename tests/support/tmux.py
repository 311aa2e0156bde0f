"""A real terminal for the tests: tmux on a server of its own, read back with capture-pane. Closing it ends the server
and removes its socket (tmux leaves the file behind)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

from kandev_tui.base.shutdown import ENDING_GRACE

from .hostile_corpus import CORPUS

KANDEV = str(Path(sys.executable).with_name("kandev-tui"))


class Tmux:
    """``command`` in a ``width`` x ``height`` pane (run by the pane's shell, which then sleeps a while, so that the
    last screen can be read), with ``env`` exported."""

    def __init__(self, width: int, height: int, command: str, env: dict[str, str]) -> None:
        self.socket = f"kandev-test-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        # without COLUMNS and LINES: pytest imports readline, which exports the size of no terminal (80x24) into the
        # environment every child inherits, and an app that finds them there (shutil.get_terminal_size) takes them
        # over the pane's own size
        self.run("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height),
                  f"env -u COLUMNS -u LINES {exports} {command}; sleep 30")
        self.socket_path = self.run("display-message", "-p", "-t", "t", "#{socket_path}").strip()

    def run(self, *args: str) -> str:
        """``tmux ARGS`` on this server (its output): what a user types at a shell beside the pane."""
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30).stdout

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "t", *keys)

    def option(self, name: str, value: str) -> None:
        """A tmux option of this server (``mouse on``), as a user's ``.tmux.conf`` sets it."""
        self.run("set-option", "-g", name, value)

    def resize(self, width: int, height: int) -> None:
        """The window resized, as a user drags a terminal's corner (the app gets SIGWINCH)."""
        self.run("resize-window", "-t", "t", "-x", str(width), "-y", str(height))

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "t")

    def show(self, fmt: str) -> str:
        """A tmux format of the pane (``#{pane_pid}``, ``#{alternate_on}``…)."""
        return self.run("display-message", "-p", "-t", "t", fmt).strip()

    def stable_screen(self, tries: int = 20) -> str:
        """A capture that two reads 0.3 s apart agree on (not one taken while the app repaints)."""
        last = self.screen()
        for _ in range(tries):
            time.sleep(0.3)
            now = self.screen()
            if now == last:
                return now
            last = now
        return last

    def wait_for(self, text: str, seconds: float = 40) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{self.screen()}")

    def quit(self, key: str = "C-q", seconds: float = ENDING_GRACE + 15) -> None:
        """Press the app's quit ``key`` and wait until the app has exited: the pane's shell then runs the ``sleep``
        after the command (it ran the command as its child until then). The app may take up to ``ENDING_GRACE`` to
        end its agents before it forces them (a loaded CI run's Gemini CLI took over 30 s): longer than that."""
        self.keys(key)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.show("#{pane_current_command}") == "sleep":
                return
            time.sleep(0.1)
        raise AssertionError(f"the app did not exit within {seconds} s of {key}; the screen was:\n{self.screen()}")

    def kill_pane(self) -> None:
        """Close the pane as a closed terminal window or a dropped SSH connection does: its processes get SIGHUP."""
        self.run("kill-pane", "-t", "t")

    def close(self) -> None:
        self.run("kill-server")
        if self.socket_path:
            Path(self.socket_path).unlink(missing_ok=True)


def socket_dir() -> Path:
    """Where tmux keeps its sockets for this user (what ``-L`` names)."""
    return Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"


def sent_prompts(db: Path) -> list[str]:
    """The user's messages the app in the pane has stored in its first session, in order (the database opened and
    closed again: the app goes on writing it)."""
    from kandev_tui.transcript import Store

    store = Store(db, create=False)
    try:
        return [i.payload["text"] for i in store.items(store.sessions()[0]["id"]) if i.kind == "user_message"]
    finally:
        store.close()


def demo_agent_run(tmp_path: Path, **env: str) -> Tmux:
    """``kandev-tui run`` of the demo agent in a 100x30 pane (its store and settings in ``tmp_path``, no demo delay,
    ``env`` added), once its prompt takes text."""
    base = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
            "TERM": "xterm-256color", "KANDEV_DEMO_DELAY": "0", "PYTHONHASHSEED": "0"}
    tmux = Tmux(100, 30, f"{KANDEV} run --workspace {tmp_path} -- {sys.executable} -m kandev_tui.demo.agent",
                {**base, **env})
    try:
        tmux.wait_for("⏎ Send")
    except BaseException:
        tmux.close()
        raise
    return tmux


def seen_while_scrolling(tmux: Tmux, pages: int = 12) -> str:
    seen = []
    for _ in range(pages):
        tmux.keys("PageUp")
        seen.append(tmux.stable_screen())
    return "\n".join(seen)


def hostile_recording(path: Path) -> Path:
    """The demo recording with every escape-family string of the corpus streamed as Markdown, a thought and a tool title."""
    import json

    from .app_helpers import DEMO_RECORDING

    lines = DEMO_RECORDING.read_text().splitlines()
    end = next(i for i, line in enumerate(lines) if '"stopReason"' in line)
    extra = []
    for n, (name, text) in enumerate(CORPUS.items()):
        if len(text) > 2000:
            continue
        updates = [{"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"\n\n{name}: {text}"}},
                   {"sessionUpdate": "tool_call", "toolCallId": f"h{n}", "title": text[:200] or "t", "kind": "execute",
                    "status": "completed", "rawInput": {"command": text}, "rawOutput": {"stdout": text}}]
        for update in updates:
            extra.append(json.dumps({"t": 1790000004.5, "dir": "in", "msg": {
                "jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "demo-1", "update": update}}}))
    extra.append(json.dumps({"t": 1790000004.6, "dir": "in", "msg": {"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": "demo-1", "update": {"sessionUpdate": "agent_message_chunk",
                                          "content": {"type": "text", "text": "\n\nHOSTILE-DONE"}}}}}))
    path.write_text("\n".join(lines[:end] + extra + lines[end:]) + "\n")
    return path
