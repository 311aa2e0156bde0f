"""The app's screenshot SVG (Textual's ``export_screenshot``) made fit to keep and to rasterise: nothing fetched when
it is viewed (:func:`offline`), and a character per cell for a rasteriser that knows neither its font nor
``textLength`` (:func:`monospaced`). ``kandev-tui snapshot`` and the palette's Screenshot use these."""

from __future__ import annotations

import html
import re

_FONT_FACE = re.compile(r"\s*@font-face\s*\{[^}]*\}")
_TEXT = re.compile(r'(<text\b[^>]*?\bx=")([0-9.]+)("[^>]*?\btextLength=")([0-9.]+)("[^>]*>)([^<]*)(</text>)')


def offline(svg: str) -> str:
    """The screenshot SVG with nothing to fetch: Textual's names a web font on a third-party host (cdnjs), which a
    viewer asks for each time the picture is opened; the font stays named, used where it is installed, else the
    viewer's monospace."""
    return _FONT_FACE.sub("", svg)


def monospaced(svg: str) -> str:
    """The SVG for a rasteriser that neither knows the font nor honours ``textLength`` (cairosvg takes the first
    family named, and fontconfig puts a proportional font in place of a missing one: labels under the wrong bars, a
    broken frame): the system's monospace font (scaled so that its advance is one cell: blocks join), and every
    character placed at its own cell (its x given), so the columns line up whatever the font's advances. A span with
    characters that font lacks (braille dots in DejaVu Sans Mono) has those drawn in the system's sans-serif, still a
    character per cell."""
    from rich.cells import cell_len

    font = _MatrixFont(svg)
    svg = svg.replace("font-family: Fira Code, monospace;", "font-family: monospace;")
    svg = svg.replace(f"font-size: {font.size:g}px;", f"font-size: {font.fitted:.2f}px;", 1)

    def placed(found: re.Match[str]) -> str:
        text = html.unescape(found.group(6))
        cells = cell_len(text)
        if not cells:
            return found.group(0)
        x, step = float(found.group(2)), float(found.group(4)) / cells  # the span's start and one cell's width
        runs: list[tuple[bool, list[str], list[str]]] = []  # (the font has them, x of each, the characters)
        for char in text:
            covered = font.covers(char)
            if not runs or runs[-1][0] != covered:
                runs.append((covered, [], []))
            runs[-1][1].append(f"{x:.2f}")
            runs[-1][2].append(char)
            x += step * cell_len(char)
        drawn = []
        for covered, xs, chars in runs:
            head = found.group(1) + " ".join(xs) + found.group(3) + found.group(4) + found.group(5)
            if not covered:
                head = head[:-1] + ' style="font-family: sans-serif">'
            drawn.append(head + html.escape("".join(chars), quote=False) + found.group(7))
        return "".join(drawn)

    return _TEXT.sub(placed, svg)


class _MatrixFont:
    """The screenshot's text font as cairo will draw it: its size in the SVG, the size at which the system's
    monospace font advances one cell, and whether that font has a glyph for each character of a text."""

    def __init__(self, svg: str) -> None:
        import cairocffi

        size = re.search(r"font-size: ([0-9.]+)px;\s*line-height", svg)
        cell = re.search(r'textLength="([0-9.]+)"[^>]*>[^<&]</text>', svg)  # a one-character span: one cell
        self.size = float(size.group(1)) if size else 20.0
        face = cairocffi.ToyFontFace("monospace")
        self._font = cairocffi.ScaledFont(face, cairocffi.Matrix(xx=self.size, yy=self.size))
        advance = self._font.text_extents("M")[4]
        self._covered: dict[str, bool] = {}
        self.fitted = self.size * float(cell.group(1)) / advance if cell and advance else self.size

    def covers(self, char: str) -> bool:
        if char not in self._covered:
            glyphs = self._font.text_to_glyphs(0, 0, char, False)
            self._covered[char] = bool(glyphs) and all(glyph[0] != 0 for glyph in glyphs)
        return self._covered[char]
