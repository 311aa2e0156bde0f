"""File edits as diffs: ACP ``diff`` content (``{type: "diff", path, oldText, newText}``) made into hunks.

Agents send an edit's old and new text (Claude: the edit's strings when it asks, then one block per hunk with
context when it is done; ``oldText`` null for a new file). :func:`diff_blocks` finds them in a call's content,
:func:`file_diff` computes the unified diff with :mod:`difflib`: hunks with context, old and new line numbers,
the counts of added and removed lines. Text that is binary or undecodable is said to be, not diffed. Headless
(no Textual): the transcript, the export and the headless JSON lines read the same data.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

CONTEXT = 3  # unchanged lines shown around each change
COUNT_LINES_AT_MOST = 20_000  # the normaliser counts +/- for texts up to this many lines (bigger ones in the view)


@dataclass(frozen=True)
class DiffLine:
    sign: str  # " ", "+" or "-"
    old: int | None  # line number in the old text (None for an added line)
    new: int | None  # in the new text (None for a removed line)
    text: str


@dataclass(frozen=True)
class Hunk:
    old_start: int
    new_start: int
    lines: tuple[DiffLine, ...]

    @property
    def header(self) -> str:
        """``@@ -start,count +start,count @@`` as ``diff -u`` writes it: a range of one line is its start alone, and
        an empty one (a new file's old side, a deleted file's new side, a pure insertion's old side) starts at the
        line before it: ``-0,0`` at the file's top."""
        def side(start: int, count: int) -> str:
            return str(start) if count == 1 else f"{start - (count == 0)},{count}"

        olds = sum(1 for line in self.lines if line.sign != "+")
        news = sum(1 for line in self.lines if line.sign != "-")
        return f"@@ -{side(self.old_start, olds)} +{side(self.new_start, news)} @@"


@dataclass(frozen=True)
class FileDiff:
    path: str
    hunks: tuple[Hunk, ...]
    added: int
    removed: int
    new_file: bool = False
    deleted: bool = False
    note: str | None = None  # why there are no hunks to show (binary text, no change)

    @property
    def first_changed_line(self) -> int:
        """The first changed line of the new text (1-based; 1 when none), where ``o`` opens the file."""
        for hunk in self.hunks:
            for line in hunk.lines:
                if line.sign != " ":
                    return line.new or line.old or 1
        return 1


def diff_blocks(content: Any) -> list[dict[str, Any]]:
    """The ``diff`` blocks of a tool call's ``content`` (stored data is not trusted: anything else is skipped)."""
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, dict) and block.get("type") == "diff"
            and isinstance(block.get("path"), str)
            and isinstance(block.get("newText"), (str, type(None))) and isinstance(block.get("oldText"), (str, type(None)))]


def _binary(text: str | None) -> bool:
    return text is not None and ("\x00" in text or text.count("\ufffd") > max(2, len(text) // 1000))


def file_diff(path: str, old: str | None, new: str | None, context: int = CONTEXT, first_line: int = 1) -> FileDiff:
    """The unified diff of one file: ``old`` None for a new file, ``new`` None (or empty, with old text) for a
    deleted one. ``first_line``: the file's line the texts start at (a hunk sent with its context, as Claude
    sends a finished edit: one block per hunk, its line in ``locations``)."""
    if _binary(old) or _binary(new):
        return FileDiff(path, (), 0, 0, new_file=old is None, note="binary or undecodable text: not shown as a diff")
    before = (old or "").splitlines()
    after = (new or "").splitlines()
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    hunks = []
    added = removed = 0
    for group in matcher.get_grouped_opcodes(context):
        lines: list[DiffLine] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [DiffLine(" ", i + first_line, j1 + (i - i1) + first_line, before[i]) for i in range(i1, i2)]
                continue
            if tag in ("replace", "delete"):
                lines += [DiffLine("-", i + first_line, None, before[i]) for i in range(i1, i2)]
                removed += i2 - i1
            if tag in ("replace", "insert"):
                lines += [DiffLine("+", None, j + first_line, after[j]) for j in range(j1, j2)]
                added += j2 - j1
        hunks.append(Hunk(group[0][1] + first_line, group[0][3] + first_line, tuple(lines)))
    note = None if hunks else "no change"
    return FileDiff(path, tuple(hunks), added, removed, new_file=old is None, deleted=new is None and old is not None,
                    note=note)


def placed_line(block: dict[str, Any]) -> int | None:
    """The line kandev-tui found a diff block's old text at, in the file as it was (``_meta.kandevTui.line``)."""
    meta = block.get("_meta")
    ours = meta.get("kandevTui") if isinstance(meta, dict) else None
    line = ours.get("line") if isinstance(ours, dict) else None
    return line if isinstance(line, int) and not isinstance(line, bool) and line >= 1 else None


def first_lines(blocks: list[dict[str, Any]], locations: Any) -> list[int]:
    """The line each diff block starts at: from ``locations`` when it has one entry per block, each with the
    block's path and a ``line`` (Claude's finished edits), else where kandev-tui found the block's old text in the
    file as it was (:func:`placed_line`), else 1."""
    if isinstance(locations, list) and len(locations) == len(blocks):
        lines = []
        for block, location in zip(blocks, locations):
            line = location.get("line") if isinstance(location, dict) else None
            if not (isinstance(line, int) and not isinstance(line, bool) and line >= 1
                    and location.get("path") == block["path"]):
                break
            lines.append(line)
        else:
            return lines
    return [placed_line(block) or 1 for block in blocks]


def diff_summary(content: Any) -> list[dict[str, Any]] | None:
    """What a call's item says of its diffs, beside the ``content`` blocks that hold each one's old and new text:
    the path, whether the file is new, and the counts of added and removed lines (None for texts past
    :data:`COUNT_LINES_AT_MOST` lines, which the view counts off the event loop)."""
    blocks = diff_blocks(content)
    if not blocks:
        return None
    out = []
    for block in blocks:
        old, new = block.get("oldText"), block.get("newText")
        small = max((old or "").count("\n"), (new or "").count("\n")) <= COUNT_LINES_AT_MOST
        counted = file_diff(block["path"], old, new) if small else None
        out.append({"path": block["path"], "new_file": old is None,
                    "added": counted.added if counted else None, "removed": counted.removed if counted else None,
                    **({"note": counted.note} if counted and counted.note else {})})
    return out
