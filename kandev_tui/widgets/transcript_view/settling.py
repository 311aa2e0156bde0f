"""The entries of the transcript still being put on screen, counted as they say so (never looked for)."""

from __future__ import annotations

from typing import Any, Iterable


class Settling:
    """The entries built and not mounted yet, and those mounted that are still parsing what they show (a message's
    backlog): the transcript's next batch waits while any is (``session/batch.py``'s ``settling``). An entry is
    added when the window builds it, and each says when it is done, or busy again (:meth:`tell`); one removed before
    it said so is forgotten (:meth:`forget`)."""

    def __init__(self) -> None:
        self._entries: set[Any] = set()

    def built(self, entry: Any) -> None:
        self._entries.add(entry)

    def tell(self, entry: Any, settling: bool) -> None:
        if settling:
            self._entries.add(entry)
        else:
            self._entries.discard(entry)

    def forget(self, entries: Iterable[Any]) -> None:
        self._entries.difference_update(entries)

    def clear(self) -> None:
        self._entries.clear()

    def __bool__(self) -> bool:
        return bool(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
