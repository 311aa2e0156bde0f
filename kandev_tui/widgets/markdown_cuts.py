"""Where a Markdown text surely starts a new top-level block, found line by line without parsing it.

A streaming message is split into pieces at top-level block boundaries (:mod:`.markdown_lines`); markdown-it says
where they are at about 1 µs a character, which a flood of a long report outruns. Most boundaries of such a report
are plain to see: a line that starts in the first column after a blank line starts a new top-level block, unless it
goes on a list (a list marker) or stands in a fenced code block or a raw HTML block that the blank line does not end.
Those are the only cuts this module makes:

- a line after a blank line (spaces and tabs only), starting with neither a space nor a tab;
- not a list item's marker (``-``, ``+``, ``*``, ``1.``, ``1)``), which may go on the list before;
- outside a fenced code block opened in the first column (``````` or ``~~~``, as CommonMark reads its opening and
  closing lines) and outside a raw HTML block of the kinds a blank line does not end (``<pre``, ``<script``,
  ``<style``, ``<textarea``, ``<!--``, ``<?``, ``<!X``, ``<![CDATA[``);
- not a link reference definition (markdown-it gives it no block of its own).

Anything it cannot read for sure stops it: a fence or such an HTML block opened one to three spaces in (it may
belong to a list item, which the next unindented line would end, and the two readings part), or one opened after a
line that began with ``<`` and before the next blank line (an HTML block may hold it as text). What it returns is
then only the cuts before that line, and markdown-it splits the rest. Every cut it returns is a top-level block start
markdown-it finds in the same text (``tests/unit/test_markdown_cuts.py`` holds it to that over generated documents).
"""

from __future__ import annotations

import re
from typing import Literal

FENCE = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)$")
HTML_START = re.compile(r" {0,3}<")
REFERENCE = re.compile(r"\[[^\]]*\]:")  # a link reference definition, which markdown-it gives no token of its own
LIST_MARKER = re.compile(r"(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
HTML_RAW = [(re.compile(r"( {0,3})<(?:script|pre|style|textarea)(?:[ \t>]|$)", re.IGNORECASE),
             re.compile(r"</(?:script|pre|style|textarea)>", re.IGNORECASE)),
            (re.compile(r"( {0,3})<!--"), re.compile(r"-->")),
            (re.compile(r"( {0,3})<\?"), re.compile(r"\?>")),
            (re.compile(r"( {0,3})<![A-Za-z]"), re.compile(r">")),
            (re.compile(r"( {0,3})<!\[CDATA\["), re.compile(r"\]\]>"))]


def block_cuts(text: str, start: int = 0, limit: int | None = None) -> list[int]:
    """The offsets in ``text`` (from ``start``, which begins a top-level block, up to ``limit``) of the lines that
    surely start a new top-level block (see the module docstring), in order. A cut is the offset of its line's first
    character; the last line of ``text`` is not looked at unless it ends with a line end (it may still grow)."""
    end = len(text) if limit is None else min(limit, len(text))
    cuts: list[int] = []
    fence: tuple[str, int] | None = None  # the open fence's character and length
    raw_end: re.Pattern[str] | None = None  # the end of the open raw HTML block
    blank_before = False
    maybe_html = False  # a line began with "<" since the last blank line: an HTML block may be open (see _opens)
    at = start
    while at < end:
        line_end = text.find("\n", at, end)
        if line_end < 0:
            break  # the last line may still grow
        line = text[at:line_end].rstrip("\r")
        if fence is not None:
            closing = FENCE.match(line)
            if closing and not closing.group(1) and closing.group(2)[0] == fence[0] \
                    and len(closing.group(2)) >= fence[1] and not closing.group(3).strip(" \t"):
                fence = None
            elif closing and closing.group(1):
                return cuts  # an indented fence line in a fence: whose it is needs the containers
            blank_before = False
        elif raw_end is not None:
            if raw_end.search(line):
                raw_end = None
            blank_before = False
        else:
            blank = not line.strip(" \t")
            if blank_before and not blank and line[0] not in " \t" and not LIST_MARKER.match(line) \
                    and not REFERENCE.match(line):
                cuts.append(at)
            if blank:
                maybe_html = False
            else:
                opened = _opens(line)
                if opened is False or (maybe_html and opened is not None):
                    return cuts
                maybe_html = maybe_html or HTML_START.match(line) is not None
                if isinstance(opened, tuple):
                    fence = opened
                elif opened is not None:
                    raw_end = opened
            blank_before = blank
        at = line_end + 1
    return cuts


def _opens(line: str) -> tuple[str, int] | re.Pattern[str] | Literal[False] | None:
    """What ``line`` opens that a blank line does not end: a fence (its character and length), a raw HTML block (the
    pattern of its end; None if it ends on this line), False when it may open one inside a container (one to three
    spaces in: the reading stops), None when it opens nothing of the kind. (Inside an HTML block that a blank line
    ends, which any line beginning with ``<`` may open, such a line is no fence: the reading stops there too.)"""
    fence = FENCE.match(line)
    if fence and not (fence.group(2)[0] == "`" and "`" in fence.group(3)):  # a backtick fence's info has no backtick
        if fence.group(1):
            return False
        return fence.group(2)[0], len(fence.group(2))
    for opening, closing in HTML_RAW:
        raw = opening.match(line)
        if raw:
            if raw.group(1):
                return False
            return None if closing.search(line, raw.end()) else closing
    return None
