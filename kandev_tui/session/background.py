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


class RunsInBackground:
    """A source whose I/O runs on a :class:`Background` loop of its own, made when first needed."""

    _background: Background | None = None
    background_name = "kandev-tui source"

    async def _there(self, coroutine: Any) -> Any:
        """Run ``coroutine`` on the source's loop and await its result here (once the loop has been stopped, the
        coroutine is dropped and None returned: the source is closed)."""
        if self._background is None:
            self._background = Background(self.background_name)
        if not self._background.running:
            coroutine.close()
            return None
        return await self._background.run(coroutine)

    def _soon_there(self, callback: Callable[..., Any], *args: Any) -> None:
        """Call ``callback(*args)`` on the source's loop, soon (not at all once it has been stopped)."""
        if self._background is not None:
            self._background.call(callback, *args)

    def _stop_background(self) -> None:
        if self._background is not None:
            self._background.stop()

    closing_reason = ""

    async def close(self, reason: str = "") -> None:
        """Close what the source started (:meth:`_close`, on its loop, which finds ``reason`` in
        :attr:`closing_reason`), then end the loop."""
        self.closing_reason = reason
        if self._background is None:
            return
        try:
            await self._there(self._close())
        finally:
            self._stop_background()

    async def _close(self) -> None:
        """What closing the source does on its own loop."""
