"""A long message's lines as :class:`~kandev_tui.widgets.markdown_lines.MarkdownLines` keeps them: the lines of
the pieces split off before its tail, joined once per width and theme (:class:`Joined`, which only grows), and read
with the tail's by index without being copied into one list (:class:`Lines`)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from typing import Iterable, Iterator, overload

from textual.strip import Strip

BLANK = Strip.blank(0)


def standing_in(text: str, width: int) -> list[Strip]:
    """Blank lines for a piece not drawn yet at ``width``: about as many as it will draw."""
    return [BLANK] * max(1, text.count("\n") + len(text) // max(1, width))


class Lines(Sequence[Strip]):
    """A message's lines: its pieces' lines one after the other, read by index without being copied into one list.
    ``pending``: pieces not drawn yet (their lines are blank, about as many as they will draw).

    The lines of the pieces before the tail come from a :class:`Joined` that later calls extend (it only grows:
    this reads its first ``count`` parts), the tail's are this call's own: a streaming message's update costs what
    its tail and its new pieces draw, not what the whole message does."""

    __slots__ = ("_head", "_count", "_head_total", "_tail", "_tail_owners", "_tail_starts", "_total", "pending")

    def __init__(self, head: Joined, tail: list[list[Strip]], tail_owners: list[int], pending: int) -> None:
        self._head, self._count = head, len(head.parts)
        self._head_total = head.starts[-1]
        self._tail, self._tail_owners, self.pending = tail, tail_owners, pending
        self._tail_starts = [self._head_total, *itertools.accumulate((len(part) for part in tail),
                                                                      initial=self._head_total)][1:]
        self._total = self._tail_starts[-1]

    def __len__(self) -> int:
        return self._total

    @overload
    def __getitem__(self, index: int) -> Strip: ...

    @overload
    def __getitem__(self, index: slice) -> list[Strip]: ...

    def __getitem__(self, index: int | slice) -> Strip | list[Strip]:
        if isinstance(index, slice):
            return [self[at] for at in range(*index.indices(self._total))]
        if index < 0:
            index += self._total
        if not 0 <= index < self._total:
            raise IndexError(index)
        parts, starts, at = self._where(index)
        return parts[at][index - starts[at]]

    def _where(self, index: int) -> tuple[list[list[Strip]], list[int], int]:
        if index < self._head_total:
            return self._head.parts, self._head.starts, bisect.bisect_right(self._head.starts, index, 0,
                                                                           self._count + 1) - 1
        return self._tail, self._tail_starts, bisect.bisect_right(self._tail_starts, index) - 1

    def __iter__(self) -> Iterator[Strip]:
        for part in itertools.chain(itertools.islice(self._head.parts, self._count), self._tail):
            yield from part

    def pieces_at(self, rows: Iterable[int]) -> list[int]:
        """The pieces that draw these rows (by their index in the message's pieces, the tail last)."""
        found: dict[int, None] = {}
        for row in rows:
            if 0 <= row < self._total:
                parts, _, at = self._where(row)
                owner = (self._head.owners if parts is self._head.parts else self._tail_owners)[at]
                if owner >= 0:
                    found[owner] = None
        return list(found)


class Joined:
    """The lines of a message's pieces before its tail, at one width and theme, one part per piece (and a blank line
    between pieces where a paragraph does not go on), extended as pieces are split off: it only grows (a
    :class:`Lines` reads the parts it had). A piece not drawn yet stands as blank lines; once some are drawn, a copy
    holds their lines in their parts (:meth:`redrawn`)."""

    __slots__ = ("key", "parts", "owners", "starts", "part_of", "pieces", "pending", "goes_on")

    def __init__(self, key: tuple) -> None:
        self.key = key
        self.parts: list[list[Strip]] = []
        self.owners: list[int] = []  # the piece each part draws (-1: a blank line between pieces)
        self.starts = [0]  # the first line of each part, and the end
        self.part_of: list[int] = []  # each piece's part
        self.pieces = 0  # the pieces joined
        self.pending: list[int] = []  # the pieces joined as blank lines (not drawn yet)
        self.goes_on = False  # the last piece's paragraph goes on in the next one

    def add(self, lines: list[Strip], owner: int, joins: bool) -> None:
        if self.starts[-1] and lines and not self.goes_on:  # a blank line between pieces that draw lines (a piece
            # may draw none: a raw HTML block alone, which Rich's Markdown leaves out, as it does in the whole text)
            self._part([BLANK], -1)
        self.part_of.append(len(self.parts))
        self._part(lines, owner)
        self.goes_on = joins

    def redrawn(self, drawn: dict[int, list[Strip]]) -> Joined:
        """A copy in which these pending pieces have their lines (each has some: a blank line stands before each
        part that has lines, as :meth:`add` puts it). The lists are copied (the :class:`Lines` made from this one
        read it as it is) and the line numbers counted again, at C's speed: a slice that draws a few pieces of a
        message of thousands costs what it draws, not what joining every piece again in Python did."""
        copy = Joined(self.key)
        copy.parts = list(self.parts)
        for piece, lines in drawn.items():
            copy.parts[self.part_of[piece]] = lines
        copy.owners, copy.part_of = list(self.owners), list(self.part_of)
        copy.starts = [0, *itertools.accumulate(map(len, copy.parts))]
        copy.pieces, copy.goes_on = self.pieces, self.goes_on
        copy.pending = [piece for piece in self.pending if piece not in drawn]
        return copy

    def _part(self, lines: list[Strip], owner: int) -> None:
        self.parts.append(lines)
        self.owners.append(owner)
        self.starts.append(self.starts[-1] + len(lines))
