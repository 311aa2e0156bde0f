"""What the commands' parsers share: the parser class (errors with a hint, prose wrapped), the common options
(the workspace, the database, the counters) and the checks of their values (``Checked``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, NoReturn

from kandev_tui.cli.common import EXIT_USAGE, UsageError


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs: a paragraph of prose is wrapped to the terminal, a paragraph with indented lines
    (examples) is kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        paragraphs = text.strip("\n").split("\n\n")
        out = []
        for paragraph in paragraphs:
            if any(line.startswith(" ") for line in paragraph.splitlines()):
                out.append(textwrap.indent(paragraph, indent))
            else:
                out.append(textwrap.fill(" ".join(paragraph.split()), width, initial_indent=indent,
                                         subsequent_indent=indent))
        return "\n\n".join(out) + "\n"


class _Parser(argparse.ArgumentParser):
    """argparse with errors that end in a hint instead of a bare usage dump, and help that wraps prose."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["formatter_class"] = _Formatter
        super().__init__(*args, **kwargs)
        self.command_parsers: dict[str, argparse.ArgumentParser] = {}  # the top level's: each command's parser

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\nTry '{self.prog} --help' for more.\n")


def positive_number(noun: str = "a number") -> Callable[[str], float]:
    """The check of a finite number greater than 0 (``noun``: what it is, e.g. "a number of seconds")."""

    def check(text: str) -> float:
        import math

        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"is not {noun}") from None
        if not math.isfinite(number) or number <= 0:
            raise ValueError(f"must be {noun} greater than 0")
        return number

    return check


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """The check of a whole number from ``low`` to ``high``."""

    def check(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            raise ValueError("is not a whole number") from None
        if not low <= number <= high:
            raise ValueError(f"must be between {low} and {high}")
        return number

    return check


def _add_workspace_options(parser: argparse.ArgumentParser, default_help: str) -> None:
    parser.add_argument("--workspace", metavar="DIR", default=None, action=Checked, check=directory,
                        help=default_help)
    parser.add_argument("--repo", metavar="NAME=DIR", default=[], action=Checked, check=repo, append=True,
                        help="an extra named root, selected by a block's 'repo' field (repeatable)")


def directory(text: str) -> str:
    """A directory that is there."""
    from pathlib import Path

    from kandev_tui.base.userpaths import not_a_directory

    problem = not_a_directory(Path(text).expanduser())
    if problem:
        raise ValueError(problem)
    return text


def repo(text: str) -> tuple[str, Any]:
    """``NAME=DIR`` of ``--repo``: the name and the directory (a Path), which is there."""
    from kandev_tui.workspace.reads import parse_repo_option

    name, path = parse_repo_option(text)
    directory(str(path))
    return name, path


def _add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="PATH", help="the session database (default: $KANDEV_TUI_DB, else the platform data directory)")


def _add_app_options(parser: argparse.ArgumentParser) -> None:
    _add_db_option(parser)
    _add_stats_option(parser)


def _add_stats_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stats", metavar="FILE", action=Checked, check=output_file(),
                        help="write work counters (presentations parsed, charts plotted, plot frames) as JSON to FILE "
                             "on exit")


class Checked(argparse.Action):
    """An option whose value is checked as argparse reads it, before any work starts: ``check(text)`` gives the
    value or raises ``ValueError(why)``, said in one line, ``kandev-tui CMD: --option VALUE: why``, with exit status
    2 (a :class:`UsageError`, which :func:`kandev_tui.cli.main` says; ``serve`` checks the command it will serve
    with the same parser). argparse's own ``type`` would print its usage with it; a default is not checked (give it
    as the value it stands for). ``append``: the option may be repeated, its values are a list (argparse's
    ``action="append"``)."""

    def __init__(self, option_strings: list[str], dest: str, check: Callable[[str], Any], append: bool = False,
                 **kwargs: Any) -> None:
        self.check, self.append = check, append
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        try:
            value = self.check(values)
        except ValueError as exc:
            raise UsageError(f"{parser.prog}: {max(self.option_strings, key=len)} {values}: {exc}") from None
        if self.append:  # a new list: the default one is shared by every parse
            value = [*(getattr(namespace, self.dest, None) or []), value]
        setattr(namespace, self.dest, value)


def output_file(new: bool = False, suffixes: tuple[str, ...] = ()) -> Callable[[str], str]:
    """The check of an option naming a file kandev-tui writes: checked before the work (a recording or an export
    that failed at the end would lose the work, and --stats is written only on exit). ``new``: the file must not
    exist yet (a recording is never replaced); ``suffixes``: the kinds of file it can write."""

    def check(text: str) -> str:
        from pathlib import Path

        from kandev_tui.base.userpaths import output_problem

        path = Path(text).expanduser()
        if suffixes and path.suffix.lower() not in suffixes:
            raise ValueError(f"write {', '.join(suffixes[:-1])} or {suffixes[-1]}")
        problem = output_problem(path, new=new)
        if problem:
            raise ValueError(problem)
        return text

    return check


def screen_size(text: str) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` of a screen to draw (``snapshot --size``)."""
    from kandev_tui.app.snapshot import MIN_SIZE

    width, sep, height = text.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit():
        raise ValueError("takes WIDTHxHEIGHT (like 120x40)")
    size = int(width), int(height)
    if size[0] < MIN_SIZE[0] or size[1] < MIN_SIZE[1]:
        raise ValueError(f"is too small to draw the transcript (at least {MIN_SIZE[0]}x{MIN_SIZE[1]})")
    if size[0] > 1000 or size[1] > 1000:
        raise ValueError("is too large (at most 1000x1000)")
    return size


def scroll_place(text: str) -> str:
    """Where a drawn transcript is scrolled (``snapshot --at``): top, end or a row number."""
    if text in ("top", "end") or text.isdigit():
        return text
    raise ValueError("takes top, end or a row number")


def theme(text: str) -> str:
    """One of the app's themes: Textual's own, the list F2 and the settings' warning offer too."""
    from textual.theme import BUILTIN_THEMES

    if text not in BUILTIN_THEMES:
        raise ValueError(f"is not one of {', '.join(sorted(BUILTIN_THEMES))}")
    return text




def agent_option(text: str) -> tuple[str, str]:
    """``ID=VALUE`` of ``run --option``."""
    option_id, equals, value = text.partition("=")
    if not equals or not option_id.strip() or not value.strip():
        raise ValueError("is not ID=VALUE (e.g. collaboration_mode=plan)")
    return option_id.strip(), value.strip()


APP_COMMANDS = ("open", "demo", "replay", "run", "attach")


LOOPBACK = ("127.0.0.1", "::1", "localhost")
