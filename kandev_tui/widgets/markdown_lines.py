"""Markdown drawn as lines by one widget, the agent's messages (:mod:`kandev_tui.widgets.agent_message`).

Textual's ``Markdown`` widget mounts one widget per block, parses in a thread and holds every frame back
(``batch_update``) while it mounts them: a transcript that streams thousands of chunks spends its frames on
that. Here a message is one widget that draws Rich's Markdown, and keeps what it drew:

- the lines are kept per width and theme, so a frame, a scroll or a layout pass draws nothing again;
- while a message streams, the text before its last block is split off once (markdown-it says where the last
  top-level block starts) and drawn once: only the last block is drawn again as chunks arrive. A paragraph
  that grows past :data:`SPLIT_PARAGRAPH_AT` characters is split too, at a line end or a space (while it
  streams, that line ends early), so that a flood into one paragraph costs no more per chunk as it grows;
- once the message is final, it is drawn whole, exactly as a replay of the stored message draws it.

Links: only http(s) links become terminal hyperlinks; any other link keeps its text and loses its target.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Iterator

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions
    from textual.theme import Theme as TextualTheme

SAFE_SCHEMES = ("http://", "https://")
SPLIT_PARAGRAPH_AT = 8192  # characters of one streaming paragraph drawn again per update, at most about


@lru_cache(maxsize=1)
def _parser():
    """One parser for every message (making one costs more than parsing a short message)."""
    from markdown_it import MarkdownIt

    return MarkdownIt().enable("strikethrough").enable("table")  # what rich.markdown parses with


def preload() -> None:
    """Load markdown-it and Rich's Markdown and make the shared parser (the app does this in a thread after its
    first frame, so the agent's first message is not drawn behind 60 ms of imports)."""
    _parser()
    _markdown_class()


def rich_theme(theme: TextualTheme | None):
    """Rich's Markdown styles in the colours of the app's theme (Rich's own put black behind code); one per set of
    colours, shared by every message."""
    primary = getattr(theme, "primary", None) or "cyan"
    accent = getattr(theme, "accent", None) or primary
    secondary = getattr(theme, "secondary", None) or primary
    return _rich_theme(primary, accent, secondary)


@lru_cache(maxsize=16)
def _rich_theme(primary: str, accent: str, secondary: str):
    from rich.theme import Theme

    def style(**kwargs) -> Style:
        try:
            return Style(**kwargs)
        except Exception:  # noqa: BLE001 - a colour Rich cannot parse (a custom theme): keep the emphasis only
            kwargs.pop("color", None)
            return Style(**kwargs)

    return Theme({
        "markdown.code": style(bold=True, color=accent),
        "markdown.code_block": Style(),
        "markdown.block_quote": style(color=secondary, italic=True),
        "markdown.list": style(color=primary),
        "markdown.item.bullet": style(bold=True, color=accent),
        "markdown.item.number": style(color=accent),
        "markdown.h1": style(bold=True, underline=True, color=primary),
        "markdown.h2": style(bold=True, color=primary),
        "markdown.h3": style(bold=True, color=secondary),
        "markdown.h4": style(bold=True, italic=True),
        "markdown.link": style(color=primary, underline=True),
        "markdown.link_url": style(color=primary, underline=True),
        "markdown.table.border": style(color=primary),
        "markdown.table.header": style(bold=True, color=primary),
    })


# where code is broken when no space is left on the line: between a path's parts, an option and its value, before
# breaking a name at its dot or its dash (``reports/build.`` + ``json`` split a file's name)
BREAK_AFTER = (frozenset("/=,:;>|&+"), frozenset("-.([{)]}"))


def wrap_code_line(line, width: int) -> list:
    """One line of highlighted code (a Rich ``Text``) in pieces of at most ``width`` cells.

    A line is broken after a space where it can be, else after the punctuation that separates parts (``/``, ``=``,
    ``:``…), else after a dot or a dash, and only a token longer than the whole width is cut inside; the pieces after the first keep the line's indentation and
    two cells more, so a wrapped line reads as one. Nothing is dropped: the pieces, less the added indentation,
    are the line.
    """
    from rich.cells import cell_len

    plain = line.plain
    if cell_len(plain) <= width:
        return [line]
    indent = len(plain) - len(plain.lstrip(" "))
    hang = min(indent + 2, width // 2)
    pieces = []
    start, room = 0, width
    while cell_len(plain[start:]) > room:
        end, cells = start, 0
        while end < len(plain) and cells + cell_len(plain[end]) <= room:
            cells += cell_len(plain[end])
            end += 1
        floor = max(start, indent if not pieces else start) + 1  # never a piece of indentation alone
        cut = next((i + 1 for i in range(end - 1, floor - 1, -1) if plain[i] == " "), None)
        for marks in BREAK_AFTER if cut is None else ():
            cut = next((i + 1 for i in range(end - 1, floor - 1, -1) if plain[i] in marks), None)
            if cut is not None:
                break
        if cut is None or cut <= start:
            cut = max(end, start + 1)  # a token wider than the line: cut where the line ends
        piece = line[start:cut]
        piece.rstrip()
        pieces.append(piece if not pieces else _indented(piece, hang))
        start, room = cut, max(1, width - hang)
    pieces.append(line[start:] if not pieces else _indented(line[start:], hang))
    return pieces


def _indented(piece, cells: int):
    from rich.text import Text

    return Text(" " * cells) + piece


@lru_cache(maxsize=1)
def _markdown_class():
    from rich.markdown import Markdown

    from rich.markdown import CodeBlock
    from rich.syntax import Syntax

    class ShadedCodeBlock(CodeBlock):
        """A code block on its own shade, as Textual's Markdown draws it (Rich's ANSI themes have none)."""

        @classmethod
        def create(cls, markdown, token):
            block = super().create(markdown, token)
            block.background = getattr(markdown, "code_background", None)
            return block

        def __rich_console__(self, console, options):
            from rich.padding import Padding
            from rich.text import Text

            code = str(self.text).rstrip()
            syntax = Syntax(code, self.lexer_name, theme=self.theme, background_color=self.background)
            width = max(1, options.max_width - 2)
            highlighted = syntax.highlight(code)
            highlighted.rstrip()  # highlight() ends the code with a newline
            lines = [piece for line in highlighted.split("\n", allow_blank=True)
                     for piece in wrap_code_line(line, width)]
            body = Text("\n").join(lines)
            body.no_wrap = True
            shade = Style(bgcolor=self.background) if self.background else Style()
            yield Padding(body, (1, 1), style=shade, expand=True)

    class SharedParserMarkdown(Markdown):
        """Rich's Markdown, parsed by the shared parser: Rich's own ``__init__`` makes a parser per document,
        which costs more than drawing a short message. The attributes are those ``Markdown.__init__`` sets."""

        elements = {**Markdown.elements, "fence": ShadedCodeBlock, "code_block": ShadedCodeBlock}

        def __init__(self, text: str, code_theme: str, code_background: str | None) -> None:  # noqa: D107 - no
            self.code_background = code_background  # super(): see the docstring
            self.markup = text
            self.parsed = _parser().parse(text)
            self.code_theme = code_theme
            self.justify = None
            self.style = "none"
            self.hyperlinks = True
            self.inline_code_lexer = None
            self.inline_code_theme = code_theme

    return SharedParserMarkdown


def rich_markdown(text: str, dark: bool, code_background: str | None = None):
    """Rich's Markdown of ``text``, with links other than http(s) made plain text."""
    document = _markdown_class()(text, "ansi_dark" if dark else "ansi_light", code_background)
    _drop_unsafe_links(document.parsed)
    return document


def _drop_unsafe_links(tokens) -> None:
    for token in tokens:
        if not token.children:
            continue
        kept, dropping = [], 0
        for child in token.children:
            if child.type == "link_open":
                href = str(child.attrs.get("href", "") or "")
                if dropping or not href.lower().startswith(SAFE_SCHEMES):
                    dropping += 1
                    continue
            elif child.type == "link_close" and dropping:
                dropping -= 1
                continue
            kept.append(child)
        token.children = kept
        _drop_unsafe_links(token.children)


class MarkdownLines:
    """A Markdown text and the lines it draws, per width and theme (a Rich renderable).

    ``update`` says whether anything changed. See the module docstring for how a streamed text is split.
    """

    def __init__(self, text: str = "") -> None:
        self.text = ""
        self._sealed: list[tuple[str, bool]] = []  # the text before the last block, in pieces drawn once each
        # (and whether the piece's paragraph goes on in the next piece: no blank line between them)
        self._sealed_chars = 0  # how much of ``text`` the pieces cover
        self._tail = ""  # the rest: the last block, drawn again whenever it grows
        self._lines: dict[tuple, list[Strip]] = {}  # (piece index or "tail", width, theme) → its lines
        self._joined: tuple[tuple, list[Strip]] | None = None  # ((width, theme), every line)
        self.theme_key: tuple[str, bool, str | None] = ("", True, None)
        self.rich_theme = None
        self.update(text, final=True)

    def update(self, text: str, final: bool = False) -> bool:
        if text == self.text and not (final and self._sealed):
            return False
        if final or not text.startswith(self.text) or not self.text:
            self._sealed, self._sealed_chars, self._tail = [], 0, text  # drawn whole
            self._lines.clear()
        else:
            old_tail, sealed = self._tail.rstrip("\n"), len(self._sealed)
            self._tail = text[self._sealed_chars:]
            self._split_paragraph(self._split_tail())
            drawn_tail = {key: lines for key, lines in self._lines.items() if key[0] == "tail"}
            self._lines = {key: lines for key, lines in self._lines.items() if key[0] != "tail"}
            for index in range(sealed, len(self._sealed)):
                if self._sealed[index] == (old_tail, False):  # the last block as it was drawn: keep its lines
                    for (_, width, theme), lines in drawn_tail.items():
                        self._lines[(index, width, theme)] = lines
        self._joined = None
        self.text = text
        return True

    def _split_tail(self) -> list | None:
        """Split off the blocks before the tail's last top-level block: they are complete. Returns the tail's tokens
        when nothing was split off (still the tail's), else None."""
        tokens = _parser().parse(self._tail)
        starts = [token.map[0] for token in tokens if token.level == 0 and token.map is not None and token.nesting >= 0]
        if len(starts) < 2 or starts[-1] == 0:
            return tokens
        lines = self._tail.splitlines(keepends=True)
        self._seal(len("".join(lines[:starts[-1]])), joined=False)
        return None

    def _split_paragraph(self, tokens: list | None) -> None:
        """A long streaming paragraph: split off all but its last line (or words), drawn once."""
        if len(self._tail) < SPLIT_PARAGRAPH_AT:
            return
        if tokens is None:
            tokens = _parser().parse(self._tail)
        if not tokens or tokens[0].type != "paragraph_open" or any(t.level == 0 and t.nesting == 1 for t in tokens[3:]):
            return  # not one paragraph alone (a code block, a list, a table: drawn whole)
        tail, at = self._tail, len(self._tail) - SPLIT_PARAGRAPH_AT // 4
        while at > 0:  # a space or line end before a letter or digit: the rest still reads as the same paragraph
            at = max(tail.rfind("\n", 0, at), tail.rfind(" ", 0, at))
            if at > 0 and tail[at + 1:at + 2].isalnum():
                self._seal(at + 1, joined=True)
                return

    def _seal(self, length: int, joined: bool) -> None:
        done = self._tail[:length]
        if done.strip():
            self._sealed.append((done.rstrip("\n").rstrip(" ") if joined else done.rstrip("\n"), joined))
        self._sealed_chars += length
        self._tail = self._tail[length:]

    def set_theme(self, name: str, dark: bool, theme: TextualTheme | None, code_background: str | None = None) -> None:
        if (name, dark, code_background) != self.theme_key:
            self.theme_key = (name, dark, code_background)
            self.rich_theme = rich_theme(theme)
            self._joined = None

    def strips(self, console: Console, options: ConsoleOptions) -> list[Strip]:
        """Every line at ``options``' width: the pieces' lines (kept) and the tail's, a blank line between pieces
        (unless a paragraph goes on). The list is kept until the text, the width or the theme changes."""
        width = options.max_width
        joined_key = (width, self.theme_key)
        if self._joined is not None and self._joined[0] == joined_key:
            return self._joined[1]
        out: list[Strip] = []
        goes_on = False  # the last piece's paragraph goes on in the next one
        for key, (text, joined) in [*enumerate(self._sealed), ("tail", (self._tail, False))]:
            if not text.strip():
                continue
            cache_key = (key, width, self.theme_key)
            lines = self._lines.get(cache_key)
            if lines is None:
                lines = self._lines[cache_key] = self._draw(text, console, options)
            if out and lines and not goes_on:
                out.append(Strip.blank(0))
            out.extend(lines)
            goes_on = joined
        self._joined = (joined_key, out)
        return out

    def _draw(self, text: str, console: Console, options: ConsoleOptions) -> list[Strip]:
        document = rich_markdown(text, dark=self.theme_key[1], code_background=self.theme_key[2])
        if self.rich_theme is not None:
            console.push_theme(self.rich_theme)
        try:
            lines = console.render_lines(document, options.update(height=None), pad=False)
        finally:
            if self.rich_theme is not None:
                console.pop_theme()
        while lines and not "".join(segment.text for segment in lines[-1]).strip():
            lines.pop()  # the blank line Rich leaves after some blocks: the widget's margin spaces entries
        return [Strip(line) for line in lines]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        newline = Segment.line()
        for strip in self.strips(console, options):
            yield from strip
            yield newline
