"""A recording played back (``kandev-tui replay``): its frames through the normaliser, as they came."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from kandev_tui.session.background import OwnLoop
from kandev_tui.session.source import NullSource
from kandev_tui.transcript import Item, read_recording

if TYPE_CHECKING:
    from kandev_tui.transcript.pipeline import Pipeline


class ReplaySource(NullSource):
    """A recording played back through the same normaliser, at full speed or ``speed`` times real time; read and
    normalised on a loop of its own, in a thread (:class:`~kandev_tui.session.background.Background`)."""

    read_only_reason = "a replay is read-only"

    def __init__(self, path: Path, speed: float | None = None) -> None:
        super().__init__()
        self.io = OwnLoop("kandev-tui replay")  # the recording is read on a loop of its own
        self.path = path
        self.speed = speed
        self.title = path.name
        self.agent_name = "replay"
        from kandev_tui.transcript.pipeline import Pipeline  # the normaliser with it, as a live session's core does

        self.pipeline: Pipeline = Pipeline(None, None, listener=self._items, recorded=True)  # every frame replayed is in the file

    def _items(self, items: list[Item]) -> None:
        self.take_title(items)  # before the items are shown: a state shown meanwhile shows the same title
        self.take_agent_name(items)  # "replay" until then (the state says it is replayed)
        self.on_items(items)

    async def start(self) -> None:
        await self.io.run(self._play())

    async def _play(self) -> None:
        self._set_state("running", "replaying")
        previous = None
        batch = []
        def torn(line: int) -> None:
            from kandev_tui.transcript.frames import torn_warning

            self.notify(f"{self.path.name}: {torn_warning(line)}")

        for frame in read_recording(self.path, torn):
            if self.speed and previous is not None and frame.t > previous:
                delay = min(5.0, (frame.t - previous) / self.speed)
                if delay > 0.01:
                    self.pipeline.feed_many(batch)
                    batch = []
                    await asyncio.sleep(delay)
            previous = frame.t
            batch.append(frame)
            if len(batch) >= 200:
                self.pipeline.feed_many(batch)
                batch = []
                await asyncio.sleep(0)
        self.pipeline.feed_many(batch)
        self._set_state("replayed", "end of recording")

    async def close(self, reason: str = "") -> None:
        """The replay stops: its loop ends."""
        async def nothing() -> None:
            return None

        await self.io.close(nothing())
