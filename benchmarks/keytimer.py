"""Key-to-screen latency, as the benchmarks measure it: a key delivered as the terminal driver delivers one, and
the time until the first frame the app writes for the screen that shows its effect (the help for F1, the
transcript again for escape), through kandev_tui.ui.textual_hooks' watch_frames and send_as_terminal."""

from __future__ import annotations

import asyncio
import time

from textual import events

from kandev_tui.ui.textual_hooks import send_as_terminal, watch_frames


class KeyTimer:
    def __init__(self, app, help_screen: type) -> None:
        self.app = app
        self.help_screen = help_screen
        self.frames = {"help_drawn": None, "transcript_drawn": None}
        self.count = 0  # frames drawn
        watch_frames(app, self._frame)

    def _frame(self, screen) -> None:
        self.count += 1
        key = "help_drawn" if isinstance(screen, self.help_screen) else "transcript_drawn"
        if self.frames[key] is None:
            self.frames[key] = time.perf_counter()

    def send_key(self, key: str) -> None:
        send_as_terminal(self.app, events.Key(key, None))

    async def key_to_screen(self, key: str, drawn: str, limit: float = 60) -> float | None:
        """Deliver ``key``; the seconds until a frame shows its effect (None past ``limit``)."""
        self.frames[drawn] = None
        pressed = time.perf_counter()
        self.send_key(key)
        while self.frames[drawn] is None:
            if time.perf_counter() - pressed > limit:
                return None
            await asyncio.sleep(0.0005)
        return self.frames[drawn] - pressed

    async def help_and_back(self) -> tuple[float | None, float | None]:
        """F1 (the help drawn), then escape (the transcript drawn again)."""
        opened = await self.key_to_screen("f1", "help_drawn")
        while not isinstance(self.app.screen, self.help_screen):
            await asyncio.sleep(0.001)
        closed = await self.key_to_screen("escape", "transcript_drawn")
        return opened, closed
