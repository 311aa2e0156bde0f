"""An asyncio event loop in a thread of its own, where a source does its I/O: reads its agent, normalises the
frames, stores the items. The UI's loop then only puts merged batches on screen (the session model takes them
there), and a fast agent's frames never queue ahead of a key.

The source's methods stay coroutines on the UI's loop: :meth:`Background.run` runs a coroutine on the background
loop and awaits its result (cancelling the caller cancels it there); :meth:`Background.call` hands a plain call
over. :meth:`Background.stop` ends the loop, cancelling whatever still runs on it, and joins the thread.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Awaitable, Callable, TypeVar

T = TypeVar("T")


class Background:
    def __init__(self, name: str = "kandev-tui source") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            tasks = [task for task in asyncio.all_tasks(self.loop) if not task.done()]
            for task in tasks:
                task.cancel()
            if tasks:
                self.loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and not self.loop.is_closed()

    async def run(self, coroutine: Awaitable[T]) -> T:
        """Run ``coroutine`` on the background loop; its result (or exception) here."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, self.loop))  # type: ignore[arg-type]

    def call(self, callback: Callable[..., Any], *args: Any) -> None:
        """Call ``callback(*args)`` on the background loop, soon."""
        if self.running:
            self.loop.call_soon_threadsafe(callback, *args)

    def stop(self, timeout: float = 10.0) -> None:
        """End the loop (what still runs on it is cancelled) and wait for the thread."""
        if self.running:
            self.loop.call_soon_threadsafe(self.loop.stop)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)


class OwnLoop:
    """A source's :class:`Background` loop, made when first needed (named ``name``: the thread shows it)."""

    def __init__(self, name: str = "kandev-tui source") -> None:
        self.name = name
        self._background: Background | None = None

    async def run(self, coroutine: Any) -> Any:
        """Run ``coroutine`` on the source's loop and await its result here (once the loop has been stopped, the
        coroutine is dropped and None returned: the source is closed)."""
        if self._background is None:
            self._background = Background(self.name)
        if not self._background.running:
            coroutine.close()
            return None
        return await self._background.run(coroutine)

    def soon(self, callback: Callable[..., Any], *args: Any) -> None:
        """Call ``callback(*args)`` on the source's loop, soon (not at all once it has been stopped)."""
        if self._background is not None:
            self._background.call(callback, *args)

    async def close(self, closing: Any) -> None:
        """Run ``closing`` (what closing the source does, a coroutine) on the loop if it was ever made, then end the
        loop."""
        if self._background is None:
            closing.close()
            return
        try:
            await self.run(closing)
        finally:
            self._background.stop()
