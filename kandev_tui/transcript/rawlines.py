"""Lines the agent wrote that are not JSON-RPC: those in a row are one error item.

A debugger's banner or a stray ``print`` between an agent's frames is a line or two; a command that is no ACP agent
at all (``ls``, ``yes``, a CLI printing its help) writes nothing else, and one item per line made ``yes`` tens of
thousands of items in a few seconds. The item is patched while the lines come and is final once another item
follows (from a frame that is JSON-RPC, or kandev-tui's own word on the agent's end). It counts the lines and their
bytes and keeps the first :data:`KEPT` of them, each its first :data:`SHOWN` characters, as one line's item kept
them before (a recording keeps them whole).
"""

from __future__ import annotations

from typing import Any, Callable

from .items import ERROR
from .items import Item

KEPT = 50  # lines of a run kept in its item; the rest are counted
SHOWN = 200  # characters of each


class RawLines:
    def __init__(self, next_key: Callable[[str], str], kept: str) -> None:
        """``next_key(prefix)``: the normaliser's keys; ``kept``: where the lines are kept whole, said in the
        message ("; it is kept in the recording"), or ""."""
        self._next = next_key
        self._kept = kept
        self.open: Item | None = None  # the run's item while its lines come

    def add(self, line: str, size: int, turn: int) -> Item:
        """One more line (``size``: its full size in bytes): the run's item as it is now."""
        item = self.open
        if item is None:
            payload = {"bytes": size, "lines": 1, "preview": line[:SHOWN], "first": [line[:SHOWN]]}
            self.open = Item(self._next("error"), ERROR, turn, {"message": self._message(payload), **payload})
            return self.open
        old = item.payload
        first = old["first"] if len(old["first"]) >= KEPT else [*old["first"], line[:SHOWN]]
        payload = {"bytes": old["bytes"] + size, "lines": old["lines"] + 1, "preview": old["preview"], "first": first}
        self.open = item.but(payload={"message": self._message(payload), **payload})
        return self.open

    def end(self) -> list[Item]:
        """The run is over: its item, final ([] when no run is open)."""
        item, self.open = self.open, None
        return [] if item is None else [item.but(final=True)]

    def _message(self, payload: dict[str, Any]) -> str:
        count, size = payload["lines"], payload["bytes"]
        if count == 1:
            return f"The agent wrote a line that is not JSON-RPC ({size} bytes; the first {SHOWN} are below){self._kept}."
        return f"The agent wrote {count:,} lines that are not JSON-RPC ({size:,} bytes; the first are below){self._kept}."
