"""An edit drawn as a unified diff: the path and ``+N −M``, hunks with context and old/new line numbers, syntax
colour by file type, added and removed lines marked by sign and colour (so ``NO_COLOR`` still reads), long lines
wrapped; a new file is all added, a deletion all removed; binary text is said to be."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from rich.cells import cell_len
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text

from kandev_tui.base.sanitize import visible
from kandev_tui.transcript.diffs import FileDiff, diff_blocks, file_diff, first_lines
from kandev_tui.ui.user_input import GIVE_WAY_EVERY, give_way

COMPACT_LINES = 12  # diff lines a compact view shows ("m: N more lines")
ADDED = Style(color="green")
REMOVED = Style(color="red")


@dataclass(frozen=True)
class Look:
    """How a call draws in the theme: its diff's added and removed line shades, and the token colours of its code
    (Rich's ANSI syntax themes, which Textual maps to the theme's own ANSI colours: no background of their own)."""

    added: Style
    removed: Style
    dark: bool = True

    @property
    def syntax_theme(self) -> str:
        return "ansi_dark" if self.dark else "ansi_light"


DARK_LOOK = Look(Style(bgcolor="#12361b"), Style(bgcolor="#3c1618"))  # outside an app (a test's parts)


def look_for(theme: Any) -> Look:
    """A Textual theme's look. The diff's shades are its success and error colours, faint over its background: dark
    shades under a dark theme's light text, light ones under a light theme's dark text, so either stays readable
    where a terminal of 16 colours rounds them to black or white (fixed dark shades under a light theme were black on
    black there)."""
    from textual.color import Color

    background = Color.parse(theme.background or ("#121212" if theme.dark else "#efefef"))
    mix = 0.22 if theme.dark else 0.18

    def faint(colour: str | None, fallback: str) -> Style:
        return Style(bgcolor=background.blend(Color.parse(colour or fallback), mix).hex)

    return Look(faint(theme.success, "#4ebf71"), faint(theme.error, "#ba3c5b"), bool(theme.dark))


BIG_CHARS = 200_000  # a diff of texts longer than this is computed in a thread, never on the event loop
FULL_LINES = 2_000  # diff lines an expanded view shows at most (the rest: o opens the file)
_done: "OrderedDict[tuple, FileDiff]" = OrderedDict()  # computed diffs, by their texts (strings keep their hash)
_lock = threading.Lock()


def big_diff(block: dict[str, Any]) -> bool:
    return max(len(block.get("oldText") or ""), len(block.get("newText") or "")) > BIG_CHARS


def file_diffs(content: Any, locations: Any = None, *, wait: bool = True) -> list[FileDiff] | None:
    """The call's diffs, each computed once (the same call is drawn again on every update and expand), numbered
    from the lines ``locations`` gives. ``wait=False`` (the event loop): None when a big one is not computed yet;
    :func:`compute_diffs`, in a thread, computes it."""
    blocks = diff_blocks(content)
    out = []
    for block, line in zip(blocks, first_lines(blocks, locations)):
        key = (block["path"], block.get("oldText"), block.get("newText"), line)
        with _lock:
            known = _done.get(key)
        if known is None:
            if not wait and big_diff(block):
                return None
            known = file_diff(block["path"], block.get("oldText"), block.get("newText"), first_line=line)
            with _lock:
                _done[key] = known
                while len(_done) > 64:
                    _done.popitem(last=False)
        out.append(known)
    return out


def compute_diffs(content: Any, locations: Any = None) -> None:
    """Compute (in the calling thread) what :func:`file_diffs` would wait for."""
    file_diffs(content, locations, wait=True)


def _lexer(path: str) -> str:
    try:
        return Syntax.guess_lexer(path, code="")
    except Exception:  # noqa: BLE001 - Pygments knows no such file type
        return "text"


class Header(Text):
    """A file's header, on one line: where it does not fit, the start of its path gives way (``…/workspace/app.py``),
    never what follows it. Wrapped, a long absolute path split "(new file)" and the counts over two lines. A Text
    all the same: the search marks its words."""

    path_length = 0  # the path's characters, at the start

    def __rich_console__(self, console, options):
        over = self.cell_len - options.max_width
        if over <= 0 or self.path_length <= 1:
            yield from super().__rich_console__(console, options)
            return
        cut, gone = 0, 0
        while cut < self.path_length - 1 and gone <= over:  # the cells of the path's start, and one for "…"
            gone += cell_len(self.plain[cut])
            cut += 1
        yield from (Text("…", style="bold") + self[cut:]).__rich_console__(console, options)


def workspace_relative(path: str, root: str | None) -> str:
    """An agent's path (``./x``, or absolute inside the workspace's folder ``root``) relative to the workspace, as a
    diff's header shows it and the file viewer reads it (agents send absolute paths: "/home/me/src/app/src/main.py"
    is "src/main.py" there); an absolute path outside it is returned as it is."""
    clean = path.replace("\\", "/")
    if root:
        for folder in dict.fromkeys((root, _resolved(root))):  # (an agent may send the folder's real path)
            prefix = folder.rstrip("/") + "/"
            if clean.startswith(prefix) and len(clean) > len(prefix):
                clean = clean[len(prefix):]
                break
    return str(PurePosixPath(clean)) if clean and not clean.startswith("/") else clean


@lru_cache(maxsize=16)
def _resolved(folder: str) -> str:
    return str(Path(folder).resolve())


def diff_header(diffs: list[FileDiff], root: str | None = None) -> Text:
    """One file's header: its path (relative to the workspace's folder ``root`` when inside it), new or deleted, and
    ``+N −M`` over all its hunks."""
    first = diffs[0]
    what = " (new file)" if first.new_file else " (deleted)" if first.deleted else ""
    path = visible(workspace_relative(first.path, root), keep_newlines=False)
    header = Header()
    for part, style in ((path, "bold"), (what, ""), ("  ", ""), (f"+{sum(d.added for d in diffs)}", ADDED), (" ", ""),
                        (f"−{sum(d.removed for d in diffs)}", REMOVED)):
        header.append(part, style)
    header.path_length = len(path)
    return header


def by_file(diffs: list[FileDiff]) -> list[list[FileDiff]]:
    """Consecutive diffs of one path together (Claude sends a finished edit as one block per hunk)."""
    groups: list[list[FileDiff]] = []
    for diff in diffs:
        if groups and groups[-1][0].path == diff.path:
            groups[-1].append(diff)
        else:
            groups.append([diff])
    return groups


class Hanging:
    """A diff line whose code, when it wraps, goes on beside its gutter (line numbers and sign), not back under it
    (the review at 45 columns): the first ``indent`` cells of ``line`` stand once, the rest wraps in the width
    left."""

    def __init__(self, line: Text, indent: int) -> None:
        self.line = line
        self.indent = indent

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.segment import Segment

        indent = min(self.indent, max(0, options.max_width - 8))  # a sliver of a screen: the code keeps 8 columns
        head, body = self.line.divide([indent]) if indent else (Text(), self.line)
        lines = console.render_lines(body, options.update(width=max(1, options.max_width - indent)), pad=False,
                                     new_lines=False)
        blank = Segment(" " * indent)
        for number, segments in enumerate(lines):
            if number == 0:
                yield from head.render(console)
            else:
                yield blank
            yield from segments
            yield Segment.line()

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement

        return Measurement(min(options.max_width, self.indent + 1), min(options.max_width, self.line.cell_len))


def gutter_width(diff: FileDiff) -> int:
    """The cells :func:`diff_lines` puts before a line's code: its old and new numbers and its sign."""
    digits = len(str(max((n for h in diff.hunks for line in h.lines for n in (line.old, line.new) if n), default=1)))
    return 2 * digits + 2 + 2


def diff_lines(diff: FileDiff, limit: int | None = None, look: Look = DARK_LOOK) -> tuple[list[Text], int]:
    """The diff's lines as Text (a hunk header, then gutter, sign and highlighted code), at most ``limit`` of
    them; and how many more there are."""
    if diff.note:
        return [Text(diff.note, style="dim italic")], 0
    lexer = _lexer(diff.path)
    syntax = Syntax("", lexer, theme=look.syntax_theme)
    width = len(str(max((n for h in diff.hunks for line in h.lines for n in (line.old, line.new) if n), default=1)))
    out: list[Text] = []
    total = sum(len(h.lines) + 1 for h in diff.hunks)
    for hunk in diff.hunks:
        if limit is not None and len(out) >= limit:
            break
        out.append(Text(hunk.header, style="dim cyan"))
        for line in hunk.lines:
            if limit is not None and len(out) >= limit:
                break
            if len(out) % GIVE_WAY_EVERY == 0:
                give_way()  # (laid out in a thread: the user's input first, user_input.py)
            code = _code(syntax, line.text)
            old = f"{line.old:>{width}}" if line.old else " " * width
            new = f"{line.new:>{width}}" if line.new else " " * width
            sign_style = ADDED if line.sign == "+" else REMOVED if line.sign == "-" else Style(dim=True)
            row = Text.assemble((f"{old} {new} ", "dim"), (line.sign + " ", sign_style + Style(bold=True)), code)
            if line.sign != " ":
                row.stylize(look.added if line.sign == "+" else look.removed)
            out.append(row)
    return out, max(0, total - len(out))


def side_by_side(diff: FileDiff, limit: int, look: Look = DARK_LOOK) -> tuple[list[Any], int]:
    """The diff's hunks as tables of old and new side by side (removed lines beside the added ones that replace
    them, context on both sides), at most ``limit`` rows in all; and how many rows more there are."""
    from rich.table import Table

    if diff.note:
        return [Text(diff.note, style="dim italic")], 0
    syntax = Syntax("", _lexer(diff.path), theme=look.syntax_theme)

    def cell(line, sign: str) -> Text:
        if line is None:
            return Text("")
        code = _code(syntax, line.text)
        number = line.old if sign == "-" else line.new
        row = Text.assemble((f"{number or '':>5} ", "dim"), (sign + " " if line.sign != " " else "  ",
                                                            ADDED if sign == "+" else REMOVED), code)
        if line.sign != " ":
            row.stylize(look.added if sign == "+" else look.removed)
        return row

    def flush(pairs: list[tuple[Any, Any]], removed: list[Any], added: list[Any]) -> None:
        """The removed and added lines waiting, side by side (the first removed beside the first added…)."""
        for index in range(max(len(removed), len(added))):
            pairs.append((removed[index] if index < len(removed) else None,
                          added[index] if index < len(added) else None))
        removed.clear()
        added.clear()

    parts: list[Any] = []
    rows = more = 0
    for hunk in diff.hunks:
        pairs: list[tuple[Any, Any]] = []
        removed: list[Any] = []
        added: list[Any] = []
        for line in hunk.lines:
            if line.sign == "-":
                removed.append(line)
            elif line.sign == "+":
                added.append(line)
            else:
                flush(pairs, removed, added)
                pairs.append((line, line))
        flush(pairs, removed, added)
        if rows >= limit:
            more += len(pairs)
            continue
        table = Table(show_header=False, box=None, padding=(0, 1, 0, 0), expand=True)
        table.add_column(ratio=1, overflow="fold")
        table.add_column(ratio=1, overflow="fold")
        parts.append(Text(hunk.header, style="dim cyan"))
        for old, new in pairs[:limit - rows]:
            table.add_row(cell(old, "-"), cell(new, "+"))
        shown = min(len(pairs), limit - rows)
        more += len(pairs) - shown
        rows += shown
        parts.append(table)
    return parts, more


def _code(syntax: Syntax, text: str) -> Text:
    """One line of code, inert and highlighted, in token colours only."""
    code = syntax.highlight(visible(text, keep_newlines=False))
    code.rstrip()
    _no_backgrounds(code)
    return code


def _no_backgrounds(code: Text) -> None:
    """Token colours only: a background (the theme's, or the terminal's default) boxed the code on the diff's shading
    and on the card (a box of the terminal's own background in 16 colours)."""
    from rich.text import Span

    code.style = Style.null()
    spans = []
    for span in code.spans:
        style = Style.parse(span.style) if isinstance(span.style, str) else span.style
        if style.bgcolor is not None:
            if style.color is None:
                continue
            style = Style.from_color(style.color)
        spans.append(Span(span.start, span.end, style))
    code.spans = spans


def diff_parts(content: Any, compact: bool, locations: Any = None, *, wait: bool = True,
               side: bool = False, look: Look = DARK_LOOK, root: str | None = None) -> list[Any]:
    """The parts of a call's diffs: per file a header and its lines (compact: the first COMPACT_LINES in all,
    else FULL_LINES at most); ``side``: old and new side by side. ``wait=False``: a big diff not computed yet is
    a line saying so."""
    parts: list[Any] = []
    diffs = file_diffs(content, locations, wait=wait)
    if diffs is None:
        blocks = diff_blocks(content)
        size = sum(len(b.get("oldText") or "") + len(b.get("newText") or "") for b in blocks)
        return [Text.assemble((visible(workspace_relative(str(blocks[0]["path"]), root), keep_newlines=False), "bold"),
                              (f"  computing the diff of {size / 1_000_000:.1f} MB…", "dim italic"))]
    left = COMPACT_LINES if compact else FULL_LINES
    more = 0
    for group in by_file(diffs):
        parts.append(diff_header(group, root))
        for diff in group:
            if left <= 0:
                more += sum(len(h.lines) + 1 for h in diff.hunks)
                continue
            lines, hidden = side_by_side(diff, left, look) if side else diff_lines(diff, left, look)
            parts.extend(lines)
            more += hidden
            left -= sum(len(p.rows) if hasattr(p, "rows") else 1 for p in lines)
    if more:
        hint = "m" if compact else "o opens the file"
        parts.append(Text(f"{hint}: {more:,} more line{'s' if more != 1 else ''}", style="dim italic"))
    return parts
