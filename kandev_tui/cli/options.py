"""What the commands' parsers share: the parser class (errors with a hint, prose wrapped), the common options
(the workspace, the database, the counters) and the argparse types."""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from kandev_tui.cli.common import EXIT_USAGE


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


def _positive_seconds(value: str) -> float:
    """An argparse type: a finite number of seconds greater than 0."""
    import math

    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds") from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds greater than 0, got {value}")
    return seconds


def _add_workspace_options(parser: argparse.ArgumentParser, default_help: str) -> None:
    parser.add_argument("--workspace", metavar="DIR", default=None, help=default_help)
    parser.add_argument(
        "--repo",
        metavar="NAME=DIR",
        action="append",
        default=[],
        help="an extra named root, selected by a block's 'repo' field (repeatable)",
    )


def _add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="PATH", help="the session database (default: $KANDEV_TUI_DB, else the platform data directory)")


def _add_app_options(parser: argparse.ArgumentParser) -> None:
    _add_db_option(parser)
    _add_stats_option(parser)


def _add_stats_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stats", metavar="FILE", help="write work counters (presentations parsed, charts plotted, "
                                                        "plot frames) as JSON to FILE on exit")




def _agent_option(text: str) -> tuple[str, str]:
    """``ID=VALUE`` of ``run --option``."""
    option_id, equals, value = text.partition("=")
    if not equals or not option_id.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not ID=VALUE (e.g. collaboration_mode=plan)")
    return option_id.strip(), value.strip()


APP_COMMANDS = ("open", "demo", "replay", "run", "attach")


LOOPBACK = ("127.0.0.1", "::1", "localhost")
