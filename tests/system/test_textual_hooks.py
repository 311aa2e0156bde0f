"""Each use of Textual's private names (kandev_tui/ui/textual_hooks.py) fails here when an upgrade breaks it."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from ..support import FIXTURES, SUPPORT
from ..support.app_helpers import message_item, settle, stored_app


async def test_a_desktop_notification_is_written_through_the_driver_and_through_tmux(tmp_path, monkeypatch):
    """notify_desktop writes OSC 777 and OSC 9 (printable text, no field separator) through the app's driver; inside
    tmux each goes through its passthrough (every ESC doubled)."""
    from kandev_tui.ui.textual_hooks import notify_desktop

    app = stored_app(tmp_path, [message_item(1, "Hello.")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        written = []
        app._driver.write = written.append  # the driver's own write: what reaches the terminal
        monkeypatch.delenv("TMUX", raising=False)
        assert notify_desktop(app, "kandev-tui: waiting", "session 2; \x1b]0;evil\x07 fix")
        assert written == ["\x1b]777;notify;kandev-tui: waiting;session 2, ]0,evil fix\x07"
                           "\x1b]9;kandev-tui: waiting: session 2, ]0,evil fix\x07"]
        monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
        written.clear()
        assert notify_desktop(app, "t", "b")
        assert written == ["\x1bPtmux;\x1b\x1b]777;notify;t;b\x07\x1b\\\x1bPtmux;\x1b\x1b]9;t: b\x07\x1b\\"]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("hooked", [False, True], ids=["textual", "repaired"])
def test_what_left_the_screen_while_the_full_map_was_out_of_date_is_painted_over(hooked):
    """repaint_what_a_rebuilt_map_moved, in a real terminal: a plain Textual app scrolls a list, then hides a box over
    it and looks up a line scrolled off (the full map rebuilt), then says DONE. With the repair the box is painted
    over; Textual 8.2 alone leaves it on the terminal. When Textual alone paints it over, this test fails for
    "textual": the hook can go."""
    import sys

    from ..support.tmux import Tmux

    app = SUPPORT / "stale_region_app.py"
    tmux = Tmux(40, 12, f"{sys.executable} {app}{' --hook' if hooked else ''}", {"TERM": "xterm-256color"})
    try:
        screen = tmux.wait_for("DONE", 30)
    finally:
        tmux.close()
    assert "line 150" in screen and "line 160" in screen  # scrolled
    assert ("THE BOX" in screen) is not hooked
    assert ("line 157" in screen) is hooked  # what the box stood over
def test_textual_is_mended_when_an_app_runs_not_when_one_is_made():
    """A user's pytest that imports kandev_tui.testing, or makes an app, keeps Textual as it is; a running app mends
    it before its driver starts (so alt+enter is read from the first key)."""
    code = """
import asyncio, sys
from pathlib import Path
from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.sources.replay import ReplaySource
from kandev_tui.ui.textual_hooks import textual_mended
import kandev_tui.testing
app = KandevApp(ReplaySource(Path(sys.argv[1])))
print(textual_mended())
async def run():
    async with app.run_test():
        print(textual_mended())
asyncio.run(run())
"""
    recording = FIXTURES / "recordings" / "demo-turn.jsonl"
    done = subprocess.run([sys.executable, "-c", code, str(recording)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]
