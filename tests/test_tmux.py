"""A real terminal: ``kandev-tui demo`` in tmux, read back with capture-pane."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
KANDEV = str(Path(sys.executable).with_name("kandev-tui"))


class Tmux:
    def __init__(self, width: int, height: int, command: str, env: dict[str, str]) -> None:
        self.socket = f"kandev-test-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        self._run("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height),
                  f"env {exports} {command}; sleep 30")

    def _run(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30).stdout

    def keys(self, *keys: str) -> None:
        self._run("send-keys", "-t", "t", *keys)

    def screen(self) -> str:
        return self._run("capture-pane", "-p", "-t", "t")

    def wait_for(self, text: str, seconds: float = 40) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{self.screen()}")

    def close(self) -> None:
        self._run("kill-server")


def seen_while_scrolling(tmux: Tmux, pages: int = 12) -> str:
    seen = []
    for _ in range(pages):
        tmux.keys("PageUp")
        time.sleep(0.4)
        seen.append(tmux.screen())
    return "\n".join(seen)


@pytest.mark.parametrize("size", [(120, 40), (45, 30)], ids=["120x40", "45x30"])
def test_demo_in_a_real_terminal(tmp_path, size):
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "KANDEV_DEMO_DELAY": "0.005", "PYTHONHASHSEED": "0"}
    tmux = Tmux(*size, f"{KANDEV} demo", env)
    try:
        tmux.wait_for("Allow once")
        tmux.keys("1")
        end = tmux.wait_for("end of turn")
        history = seen_while_scrolling(tmux)
        # the invalid presentation's card: on the last screen or just above it, depending on how far
        # the closing message pushed it up
        assert "Visual output failed" in end + history or "3 values for 4 labels" in end + history
        assert "Test results by area" in history  # a chart card
        assert "┤" in history and "api" in history  # axes with tick values
        assert "Passed" in history and "412" in history  # the metric group
        assert "5 tools:" in history  # the tool group
        for line in (end + history).splitlines():
            assert len(line) <= size[0]  # nothing wider than the screen
        tmux.keys("C-q")
        time.sleep(1.5)
    finally:
        tmux.close()
