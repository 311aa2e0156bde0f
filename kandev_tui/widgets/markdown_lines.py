"""Markdown drawn as lines by one widget, the agent's messages (:mod:`kandev_tui.widgets.entries.agent_message`).

Textual's ``Markdown`` widget mounts one widget per block, parses in a thread and holds every frame back
(``batch_update``) while it mounts them: a transcript that streams thousands of chunks spends its frames on
that. Here a message is one widget that draws Rich's Markdown, and keeps what it drew:

- the lines are kept per width and theme, so a frame, a scroll or a layout pass draws nothing again;
- while a message streams, the text before its last block is split off once (markdown-it says where the last
  top-level block starts; where a line-by-line reading is sure of it, :mod:`.markdown_cuts`, it says so without a
  parse) and drawn once: only the last block is drawn again as chunks arrive. A paragraph
  that grows past :data:`SPLIT_PARAGRAPH_AT` characters is split too, at a line end or a space (while it
  streams, that line ends early), so that a flood into one paragraph costs no more per chunk as it grows; the lines
  of the pieces are joined once (:class:`Joined`), so a frame of a growing message costs what its tail draws, not
  what the whole message holds;
- a piece draws as its blocks draw within the whole text (the empty lines Rich puts around a block alone are
  dropped, one is put between pieces), so once the message is final its pieces stay: a replay of the stored
  message, drawn whole, draws the same lines. Where that cannot be so (a long paragraph split at a space, a
  reference definition that may name a link in an earlier piece), the final message is drawn whole again.

Links: only http(s) links become terminal hyperlinks; any other link keeps its text and loses its target (how
Rich draws the Markdown: :mod:`.markdown_rich`).
"""

from __future__ import annotations

import itertools
import re
import time
from typing import TYPE_CHECKING, Iterable, Iterator

from rich.segment import Segment
from textual.strip import Strip

from kandev_tui.widgets.joined_lines import BLANK, Joined, Lines, standing_in
from kandev_tui.widgets.markdown_cuts import block_cuts
from kandev_tui.widgets.markdown_rich import _blocks, rich_markdown, rich_theme

__all__ = ["BLANK", "Joined", "Lines", "MarkdownLines"]

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions
    from textual.theme import Theme as TextualTheme

REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:", re.MULTILINE)  # a link reference definition
PIECE_CHARS = 256  # the blocks split off at once are kept in pieces of about this size, each drawn on its own
DIGEST_AT_ONCE = 4096  # characters of a long addition split into blocks at once (see MarkdownLines.append)
QUICK_AT_ONCE = 16384  # ... or read for sure block starts at once, without parsing (markdown_cuts.py: about 30 times
# faster than markdown-it; a flood of a long report outran markdown-it's 1 µs a character: stream.py long)
SPLIT_PARAGRAPH_AT = 8192  # characters of one streaming paragraph drawn again per update, at most about


class MarkdownLines:
    """A Markdown text and the lines it draws, per width and theme (a Rich renderable).

    ``update`` says whether anything changed. See the module docstring for how a streamed text is split.
    """

    def __init__(self, text: str = "", final: bool = True) -> None:
        """``final``: the text is whole (drawn as one); else it streams on (split into blocks as it grows)."""
        self._texts: list[str] = []  # the text, in the pieces it came in (joined when read: :attr:`text`)
        self._sealed: list[tuple[str, bool]] = []  # the text before the last block, in pieces drawn once each
        # (and whether the piece's paragraph goes on in the next piece: no blank line between them)
        self._sealed_chars = 0  # how much of ``text`` the pieces cover
        self._tail = ""  # the rest: the last block, drawn again whenever it grows
        self._backlog = ""  # what came after the tail and is not split into blocks yet (see :meth:`append`)
        self._lines: dict[tuple, list[Strip]] = {}  # (piece index or "tail", width, theme) → its lines
        self._fresh: list[tuple] = []  # the keys of the pieces' lines drawn since the pieces were last joined
        self._tail_keys: set[tuple] = set()  # the keys of the tail's lines in it
        self._joined: tuple[tuple, Lines] | None = None  # ((width, theme), every line)
        self._head: Joined | None = None  # the pieces' lines before the tail, joined (extended as pieces come)
        self.theme_key: tuple[str, bool, str | None] = ("", True, None)
        self.rich_theme = None
        self.update(text, final=final)

    @property
    def text(self) -> str:
        if len(self._texts) > 1:
            self._texts = ["".join(self._texts)]
        return self._texts[0] if self._texts else ""

    def update(self, text: str, final: bool = False) -> bool:
        """The text is now ``text``; drawn whole when ``final``, or when it is not the text so far with more after it."""
        held = self.text
        if text.startswith(held) and (self._sealed or not final):  # it goes on (streamed: kept in pieces)
            grew = self.append(text[len(held):])
            return self.finish() or grew if final else grew
        if text == held:
            return False
        self._whole(text)
        return True

    def _whole(self, text: str) -> None:
        self._sealed, self._sealed_chars, self._tail, self._backlog = [], 0, text, ""  # drawn whole
        self._lines.clear()
        self._tail_keys.clear()
        self._texts = [text]
        self._joined = self._head = None

    def finish(self) -> bool:
        """The text is whole: its pieces stay where they draw what the whole text draws, else it is drawn whole
        (which says it changed)."""
        while self._digest():
            pass
        if not self._sealed or self._draws_as_whole():
            return False
        self._whole(self.text)
        return True

    def _draws_as_whole(self) -> bool:
        """The pieces draw what the text drawn whole draws: Markdown blocks split where one starts (a block once
        followed by another does not change), with no long paragraph split at a space and no reference definition
        (``[x]: url``, which may name a link in a piece before it)."""
        return not any(joined for _, joined in self._sealed) and not REFERENCE.search(self.text)

    def append(self, more: str) -> bool:
        """``more`` came after the text (a streaming message's new chunks): only the last block is drawn again. Of a
        long ``more`` (a flood's batch), :data:`DIGEST_AT_ONCE` characters are split into blocks now, and the rest
        a slice at a time as lines are asked for (it is not shown until then: the message grows a little later)."""
        if not more:
            return False
        self._texts.append(more)
        self._backlog += more
        return self._digest()

    @property
    def backlog(self) -> int:
        """Characters of the text not split into blocks yet (not shown yet)."""
        return len(self._backlog)

    def _digest(self) -> bool:
        """Some of the backlog split into blocks: up to the last block start the quick reading sees for sure in the
        next :data:`QUICK_AT_ONCE` characters (:mod:`.markdown_cuts`: no parse), else :data:`DIGEST_AT_ONCE`
        characters into the tail, which markdown-it splits."""
        if not self._backlog:
            return False
        old_tail, sealed = self._tail.rstrip("\n"), len(self._sealed)
        if not self._split_quickly():
            self._tail += self._backlog[:DIGEST_AT_ONCE]
            self._backlog = self._backlog[DIGEST_AT_ONCE:]
            self._split_paragraph(self._split_tail())
        drawn_tail = {key: self._lines.pop(key) for key in self._tail_keys if key in self._lines}
        self._tail_keys.clear()
        for index in range(sealed, len(self._sealed)):
            if self._sealed[index] == (old_tail, False):  # the last block as it was drawn: keep its lines
                for (_, width, theme), lines in drawn_tail.items():
                    self._lines[(index, width, theme)] = lines
        self._joined = None
        return True

    def _split_quickly(self) -> bool:
        """The tail and the backlog up to the last sure block start in the tail and the next :data:`QUICK_AT_ONCE`
        characters of the backlog, sealed in pieces of :data:`PIECE_CHARS` or so at sure block starts; the tail is
        then empty (the backlog goes on at a block start). False, and nothing done, when there is none past the
        tail (markdown-it splits what comes: the last block of a text always goes that way)."""
        tail = self._tail
        window = tail + self._backlog[:QUICK_AT_ONCE]
        cuts = block_cuts(window)
        if not cuts or cuts[-1] <= len(tail):
            return False
        last = cuts[-1]
        start = 0
        for cut in cuts:
            if cut - start >= PIECE_CHARS or cut == last:
                self._seal_piece(window[start:cut], joined=False)
                start = cut
        self._sealed_chars += last
        self._backlog = self._backlog[last - len(tail):]
        self._tail = ""
        return True

    def _split_tail(self) -> list | None:
        """Split off the blocks before the tail's last top-level block: they are complete. Returns the tail's tokens
        when nothing was split off (still the tail's), else None."""
        tokens = _blocks().parse(self._tail)
        starts = [token.map[0] for token in tokens if token.level == 0 and token.map is not None and token.nesting >= 0]
        if len(starts) < 2 or starts[-1] == 0:
            return tokens
        ends = [0, *itertools.accumulate(len(line) for line in self._tail.splitlines(keepends=True))]
        cut, last = 0, ends[starts[-1]]
        for start in starts[1:]:  # the blocks before the last, in pieces of PIECE_CHARS or so (a flood's batch can
            at = ends[start]  # hold hundreds of them: each piece is drawn on its own, when it is in view)
            if at - cut >= PIECE_CHARS or at == last:
                self._seal_piece(self._tail[cut:at], joined=False)
                cut = at
        self._sealed_chars += cut
        self._tail = self._tail[cut:]
        return None

    def _split_paragraph(self, tokens: list | None) -> None:
        """A long streaming paragraph: split off all but its last line (or words), drawn once."""
        if len(self._tail) < SPLIT_PARAGRAPH_AT:
            return
        if tokens is None:
            tokens = _blocks().parse(self._tail)
        if not tokens or tokens[0].type != "paragraph_open" or any(t.level == 0 and t.nesting == 1 for t in tokens[3:]):
            return  # not one paragraph alone (a code block, a list, a table: drawn whole)
        tail, at = self._tail, len(self._tail) - SPLIT_PARAGRAPH_AT // 4
        while at > 0:  # a space or line end before a letter or digit: the rest still reads as the same paragraph
            at = max(tail.rfind("\n", 0, at), tail.rfind(" ", 0, at))
            if at > 0 and tail[at + 1:at + 2].isalnum():
                self._seal(at + 1, joined=True)
                return

    def _seal(self, length: int, joined: bool) -> None:
        self._seal_piece(self._tail[:length], joined)
        self._sealed_chars += length
        self._tail = self._tail[length:]

    def _seal_piece(self, done: str, joined: bool) -> None:
        if done.strip():
            self._sealed.append((done.rstrip("\n").rstrip(" ") if joined else done.rstrip("\n"), joined))

    def set_theme(self, name: str, dark: bool, theme: TextualTheme | None, code_background: str | None = None) -> None:
        if (name, dark, code_background) != self.theme_key:
            self.theme_key = (name, dark, code_background)
            self.rich_theme = rich_theme(theme)
            self._joined = None

    def strips(self, console: Console, options: ConsoleOptions, budget: float | None = None,
               wanted: Iterable[int] = (), rest: bool = True) -> Lines:
        """Every line at ``options``' width: the pieces' lines (kept) and the tail's, a blank line between pieces
        (unless a paragraph goes on). Kept until the text, the width or the theme changes.

        With a ``budget`` (seconds), the pieces not drawn yet at this width are drawn only while it lasts: the tail
        first, then those holding the ``wanted`` lines (the ones in view), then from the end back (what a following
        transcript shows; not with ``rest`` false). The others stand as blank lines of about their height
        (:attr:`Lines.pending` counts them), to be drawn by a later call."""
        width = options.max_width
        joined_key = (width, self.theme_key)
        joined = self._joined
        if joined is not None and joined[0] == joined_key and not (joined[1].pending and budget != 0):
            return joined[1]
        ends = time.perf_counter() + (budget or 0.0)
        while self._backlog and (budget is None or time.perf_counter() < ends):
            self._digest()
        sealed = self._sealed
        self._drawn("tail", (self._tail, False), console, options)
        if budget is None:
            for index, piece in enumerate(sealed):
                self._drawn(index, piece, console, options)
        else:  # those in view first, then those not drawn yet from the end back (all of them: at a new width)
            in_view = joined[1].pieces_at(wanted) if joined is not None and joined[0] == joined_key else []
            head = self._head if self._head is not None and self._head.key == joined_key else None
            undrawn: Iterable[int] = () if not rest else range(len(sealed) - 1, -1, -1) if head is None else (
                itertools.chain(range(len(sealed) - 1, head.pieces - 1, -1), reversed(head.pending)))
            for index in itertools.chain(in_view, undrawn):
                if time.perf_counter() >= ends:
                    break
                if index < len(sealed):
                    self._drawn(index, sealed[index], console, options)
        head = self._joined_pieces(width)
        tail: list[list[Strip]] = []
        owners: list[int] = []
        pending = len(head.pending)
        text = self._tail
        if text.strip():
            lines = self._lines.get(("tail", width, self.theme_key))
            if lines is None:
                pending += 1
                lines = standing_in(text, width)
            end = len(lines)  # the blank rows after the last block (a code block's shaded one): the widget's margin
            while end and not lines[end - 1].text.strip():  # spaces entries
                end -= 1
            lines = lines[:end]
            if head.starts[-1] and lines and not head.goes_on:
                tail.append([BLANK])
                owners.append(-1)
            tail.append(lines)
            owners.append(len(self._sealed))
        result = Lines(head, tail, owners, pending + bool(self._backlog))
        self._joined = (joined_key, result)
        return result

    def _joined_pieces(self, width: int) -> Joined:
        """The lines of the pieces before the tail at ``width``: those joined before (with the lines of those that
        stood blank and were drawn since), and the pieces split off since; joined anew when the width or the theme
        changed."""
        key = (width, self.theme_key)
        head = self._head
        fresh, self._fresh = self._fresh, []
        if head is None or head.key != key or len(self._sealed) < head.pieces:
            head = self._head = Joined(key)
        elif head.pending and fresh:
            drawn = {index: self._lines[cache_key] for cache_key in fresh
                     if cache_key[1:] == (width, self.theme_key) and (index := cache_key[0]) < head.pieces
                     and cache_key in self._lines}
            if not all(drawn.values()):  # a piece that draws no line has no blank line before it either
                head = self._head = Joined(key)
            elif drawn:
                head = self._head = head.redrawn(drawn)
        for index in range(head.pieces, len(self._sealed)):
            text, joins = self._sealed[index]  # (a piece is never blank: _seal_piece)
            lines = self._lines.get((index, width, self.theme_key))
            if lines is None:
                head.pending.append(index)
                lines = standing_in(text, width)
            head.add(lines, index, joins)
        head.pieces = len(self._sealed)
        return head

    def _drawn(self, key: int | str, piece: tuple[str, bool], console: Console, options: ConsoleOptions) -> None:
        cache_key = (key, options.max_width, self.theme_key)
        if cache_key in self._lines or (key == "tail" and not piece[0].strip()):  # (a sealed piece is never blank)
            return
        self._lines[cache_key] = self._draw(piece[0], console, options)
        if key == "tail":
            self._tail_keys.add(cache_key)
        else:
            self._fresh.append(cache_key)

    def _draw(self, text: str, console: Console, options: ConsoleOptions) -> list[Strip]:
        """The lines of ``text`` as Rich draws Markdown, less the empty lines Rich puts around a block alone (one is
        put between pieces, as Rich puts one between blocks)."""
        document = rich_markdown(text, dark=self.theme_key[1], code_background=self.theme_key[2])
        if self.rich_theme is not None:
            console.push_theme(self.rich_theme)
        try:
            lines = console.render_lines(document, options.update(height=None), pad=False)
        finally:
            if self.rich_theme is not None:
                console.pop_theme()
        def text_of(line: list[Segment]) -> str:
            return "".join(segment.text for segment in line)

        start = 0
        while start < len(lines) and not text_of(lines[start]):
            start += 1
        while len(lines) > start and not text_of(lines[-1]):
            lines.pop()
        return [Strip(line) for line in lines[start:]]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        newline = Segment.line()
        for strip in self.strips(console, options):
            yield from strip
            yield newline
