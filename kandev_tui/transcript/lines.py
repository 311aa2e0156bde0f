"""Items as JSON lines: the one format of every command that prints items (``run --headless``, ``attach
--headless``, ``transcript``, ``export --format jsonl``)."""

from __future__ import annotations

import io
import os
from typing import IO, Iterable

from kandev_tui.base.jsonutil import dumps

from .items import Item


def item_line(item: Item) -> str:
    """One item version as one compact JSON line (without its newline)."""
    return dumps(item.to_json(), separators=(",", ":"))


class ItemLines:
    """Prints item versions to ``out``, one line each: a version is printed again only when it differs from the one
    last printed for its key, and ``out`` is flushed after each batch. Once the reader of ``out`` has gone (``|
    head``), nothing more is printed, and the work goes on (what is stored is stored)."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.reader_gone = False
        self._printed: dict[str, str] = {}

    def print(self, items: Iterable[Item]) -> None:
        """Print what changed of ``items``, then flush."""
        text = ""
        for item in items:
            line = item_line(item)
            if self._printed.get(item.key) != line:
                self._printed[item.key] = line
                text += line + "\n"
        self._write(text)

    def _write(self, text: str) -> None:
        if self.reader_gone:
            return
        try:
            if text:
                self.out.write(text)
            self.out.flush()
        except BrokenPipeError:
            self.reader_gone = True
            try:  # the interpreter's own flush at exit would fail on the closed pipe too
                os.dup2(os.open(os.devnull, os.O_WRONLY), self.out.fileno())
            except (OSError, ValueError, io.UnsupportedOperation):
                pass
