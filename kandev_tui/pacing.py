"""The user goes first: for a moment after a key, a click or a wheel turn, the agent's output waits.

A fast agent can keep the event loop busy with its frames and with putting them on screen; a key
pressed meanwhile would wait behind that work. :data:`USER` records the last input (the app calls
:meth:`UserInput.note` for every key and mouse event); for :data:`INPUT_FIRST` seconds after it, the
agent's transport reads no further frame and the transcript applies no batch, so the key's effect
is drawn first. Nothing is dropped: the agent's frames wait in its pipe, the items in the batch; and
input that never stops (a held key) holds the transport at most 3/4 of the time, so the agent is
slowed, never stopped.
"""

from __future__ import annotations

import asyncio
import time

INPUT_FIRST = 0.15  # seconds after an input during which the agent's output waits


class UserInput:
    """When the user last pressed a key, clicked or scrolled (one user per process: the terminal's)."""

    def __init__(self) -> None:
        self.at = float("-inf")

    def note(self) -> None:
        self.at = time.monotonic()

    def holding(self) -> float:
        """Seconds the agent's output still waits for the last input (0 when it need not)."""
        return max(0.0, min(INPUT_FIRST, self.at + INPUT_FIRST - time.monotonic()))

    async def wait_turn(self, limit: float = INPUT_FIRST) -> None:
        """Return once no input is being served (at once, mostly), or after ``limit`` seconds at the latest."""
        deadline = time.monotonic() + limit
        while (left := min(self.holding(), deadline - time.monotonic())) > 0:
            await asyncio.sleep(left)


USER = UserInput()
