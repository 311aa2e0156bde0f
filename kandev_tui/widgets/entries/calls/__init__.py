"""What a tool call shows, one view per kind of call, chosen by one small registry (apart from the card registry).

A call inside a tool group, an inline edit card and a permission request all draw a call through
:func:`call_parts`, so the same call looks the same wherever it is:

- **edit** (ACP ``diff`` content): a unified diff (:mod:`.diff`);
- **execute**, and any call with command output (``rawOutput``, Codex's ``_meta.terminal_output_delta``): the
  command and its output with its colours, and the exit code or signal (:mod:`.output`);
- **read**: the file's excerpt; **search**: its matches (:mod:`.excerpt`), when the result is text;
- **other** content blocks (text as inert Markdown, resource links as paths, images as a line), and
  ``locations`` as ``path:line`` (:mod:`.content`);
- anything else: the arguments and the output as the agent sent them (JSON).

Each view returns Rich renderables; ``compact`` gives a bounded preview and says how much more there is.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any, Callable

from kandev_tui.widgets.entries.calls.content import content_parts, locations_line
from kandev_tui.widgets.entries.calls.excerpt import read_parts, result_text, search_parts
from kandev_tui.transcript.commands import repeats_output
from kandev_tui.transcript.tools import call_output, content_text
from kandev_tui.transcript.diffs import diff_blocks

from kandev_tui.widgets.entries.calls.diff import DARK_LOOK, Look, big_diff, look_for as look_for  # (look_for: for the call widgets)
from kandev_tui.widgets.entries.calls.diff import compute_diffs, diff_parts, file_diffs
from kandev_tui.widgets.entries.calls.output import has_output, output_parts

View = Callable[[dict[str, Any], bool, bool, bool, Look, "str | None"], list[Any] | None]


def _diff(payload: dict[str, Any], compact: bool, wait: bool, side: bool, look: Look,
          root: str | None) -> list[Any] | None:
    return diff_parts(payload.get("content"), compact, payload.get("locations"), wait=wait, side=side,
                      look=look, root=root) or None


def _output(payload: dict[str, Any], compact: bool, wait: bool, side: bool, look: Look,
            root: str | None) -> list[Any] | None:
    return output_parts(payload, compact) if has_output(payload) else None


def _read(payload: dict[str, Any], compact: bool, wait: bool, side: bool, look: Look,
          root: str | None) -> list[Any] | None:
    return read_parts(payload, compact, look.syntax_theme) if payload.get("kind") == "read" and not payload.get("mcp") \
        else None


def _search(payload: dict[str, Any], compact: bool, wait: bool, side: bool, look: Look,
            root: str | None) -> list[Any] | None:
    return search_parts(payload, compact) if payload.get("kind") == "search" and not payload.get("mcp") else None


# in order: the first view that has something to show draws the call's body (command output before a read's
# excerpt: codex-acp calls some commands "read")
VIEWS: list[tuple[str, View]] = [("diff", _diff), ("output", _output), ("read", _read), ("search", _search)]


def call_parts(payload: dict[str, Any], compact: bool, *, wait: bool = True, side: bool = False,
               look: Look = DARK_LOOK, root: str | None = None) -> tuple[str | None, list[Any]]:
    """(the view that drew the body, or None; the parts) of a call: its body view, then its other content blocks and
    its locations. None: no view knew the call (the caller shows its arguments and output as they came).
    ``wait=False`` (the event loop): work that would take long (a big diff) is not done here; see
    :func:`pending_work`. ``side``: a diff's old and new side by side; ``look``: the theme's shades and code colours
    (:func:`look_for`); ``root``: the workspace's folder, which a diff's paths inside it are shown relative to."""
    for name, view in VIEWS:
        parts = view(payload, compact, wait, side, look, root)
        if parts:
            shown = result_text(payload) if name in ("read", "search") else None  # not said twice
            said = partial(repeats_output, shell=payload["shell"]) if name == "output" else None
            extra = content_parts(payload.get("content"), skip_terminal=name == "output", shown=shown, said=said)
            line = locations_line(payload.get("locations"), root) if name != "diff" else None
            return name, parts + extra + ([line] if line is not None else [])
    extra = content_parts(payload.get("content"), said=output_said_again(payload))
    line = locations_line(payload.get("locations"), root)
    return None, extra + ([line] if line is not None else [])


_FENCED = re.compile(r"\A```[^\n`]*\n(.*?)\n?```\Z", re.DOTALL)


def output_said_again(payload: dict[str, Any]) -> Callable[[str], bool] | None:
    """For a call that no view knew, whose output the caller shows as it came
    (:func:`~kandev_tui.transcript.tools.call_output`): what tells whether a text block of its content says that
    output again. Every text block does when the output is the blocks' own text; else one that is the output, in a
    code fence or not (Claude's failed call: the error as ``rawOutput``, and again as a fenced block of its
    content). None when the call shows no output."""
    output = call_output(payload)
    if not isinstance(output, str) or not output.strip():
        return None
    if output == content_text(payload):
        return lambda text: True
    shown = output.strip()

    def says_it(text: str) -> bool:
        said = text.strip()
        fenced = _FENCED.match(said)
        return (fenced.group(1) if fenced else said).strip() == shown

    return says_it


def pending_work(payload: dict[str, Any]) -> bool:
    """Whether drawing the call waits for work to do in a thread (a big diff): then :func:`do_pending_work` there."""
    return diff_blocks(payload.get("content")) != [] and file_diffs(payload.get("content"), payload.get("locations"),
                                                                     wait=False) is None


def do_pending_work(payload: dict[str, Any]) -> None:
    compute_diffs(payload.get("content"), payload.get("locations"))


def heavy_view(payload: dict[str, Any]) -> bool:
    """Whether the call's whole view is big enough to be laid out off the event loop (a diff of a big file)."""
    return any(big_diff(block) for block in diff_blocks(payload.get("content")))
