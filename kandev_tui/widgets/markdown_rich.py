"""Markdown as Rich draws it for kandev-tui: one shared markdown-it parser (and one of the blocks only), Rich's
Markdown styles in the theme's colours, code blocks on their own shade with long lines broken where they read
best, and links other than http(s) made plain text."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from rich.style import Style

if TYPE_CHECKING:
    from rich.text import Text
    from textual.theme import Theme as TextualTheme

SAFE_SCHEMES = ("http://", "https://")


@lru_cache(maxsize=1)
def _parser():
    """One parser for every message (making one costs more than parsing a short message)."""
    from markdown_it import MarkdownIt

    return MarkdownIt().enable("strikethrough").enable("table")  # what rich.markdown parses with


@lru_cache(maxsize=1)
def _blocks():
    """A parser of the blocks only (where each starts and ends): what splitting a streaming text needs, at a quarter
    of a whole parse's cost (the inline parse of every block is the rest)."""
    return _parser().__class__().enable("strikethrough").enable("table").disable("inline")


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
    pieces: list[Text] = []
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
