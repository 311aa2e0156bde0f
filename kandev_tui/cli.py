"""The ``kandev-tui`` command line.

Only ``argparse`` is imported at start-up: every command imports what it needs
when it runs, so ``kandev-tui --help`` and ``--version`` stay fast (no Textual,
``mcp``, ``acp`` or pydantic import).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from kandev_tui import __version__

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2

DESCRIPTION = """\
A terminal transcript client for coding agents. kandev-tui validates and
renders Kandev rich output (charts, metric groups, file previews) that agents
send through the show_rich_output_kandev MCP tool.
"""

EPILOG = """\
examples:
  kandev-tui validate presentation.json      check a tool call before an agent sends it
  kandev-tui validate --stored call.json     show what a stored call would render
  kandev-tui guidance                        the paragraph agents are given
  kandev-tui mcp --workspace .               run the MCP server (agents start it for you)

Run 'kandev-tui COMMAND --help' for the options of a command.
"""


class _Parser(argparse.ArgumentParser):
    """argparse with errors that end in a hint instead of a bare usage dump."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\nTry '{self.prog} --help' for more.\n")


def _add_workspace_options(parser: argparse.ArgumentParser, default_help: str) -> None:
    parser.add_argument("--workspace", metavar="DIR", default=None, help=default_help)
    parser.add_argument(
        "--repo",
        metavar="NAME=DIR",
        action="append",
        default=[],
        help="an extra named root, selected by a block's 'repo' field (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="kandev-tui",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"kandev-tui {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    validate = commands.add_parser(
        "validate",
        help="check rich-output arguments or a stored call (for agent authors and CI)",
        description=(
            "Without --stored, FILE holds the arguments of a show_rich_output_kandev call: print "
            "exactly what the tool would return (CSV charts resolved against the workspace) and exit 0, "
            "or print the error on stderr and exit 1. With --stored, FILE holds a stored call "
            '{"name","title","status","input","output"}: print the merged presentation that would render '
            "and exit 0, or print its state (e.g. 'pending', 'unavailable: <reason>') on stderr and exit 1. "
            "Usage errors exit 2."
        ),
    )
    validate.add_argument("file", metavar="FILE", help="a JSON file, or - for standard input")
    validate.add_argument("--stored", action="store_true", help="FILE holds a stored tool call")
    _add_workspace_options(validate, "the workspace CSV paths are relative to (default: the current directory)")

    guidance = commands.add_parser(
        "guidance",
        help="print the rich-output guidance paragraph given to agents",
        description="Print the compact paragraph kandev-tui prepends to an agent's first prompt.",
    )
    guidance.add_argument("--profile", choices=["task", "office"], default="task", help="agent profile (default: task)")

    mcp = commands.add_parser(
        "mcp",
        help="run the show_rich_output_kandev MCP server on stdio",
        description=(
            "Serve the show_rich_output_kandev tool over MCP (stdio). Agents start this for you; "
            "run it by hand to try the server with an MCP client."
        ),
    )
    _add_workspace_options(mcp, "the workspace CSV sources are read from (default: the current directory)")
    mcp.add_argument(
        "--profile",
        choices=["task", "office", "config", "external"],
        default="task",
        help="task and office list the tool; config and external list none (default: task)",
    )
    return parser


def _fail(message: str, code: int = EXIT_FAIL) -> int:
    from kandev_tui.sanitize import visible

    print(visible(message), file=sys.stderr)
    return code


def _workspace(args: argparse.Namespace) -> Any:
    """The Workspace of --workspace/--repo, or an error message string."""
    from kandev_tui.workspace import Workspace, parse_repo_option

    root = Path(args.workspace).expanduser() if args.workspace else Path.cwd()
    if not root.is_dir():
        return f"kandev-tui: workspace {root} is not a directory"
    repos = {}
    for option in args.repo:
        try:
            name, directory = parse_repo_option(option)
        except ValueError as exc:
            return f"kandev-tui: {exc}"
        if not directory.is_dir():
            return f"kandev-tui: repository {name}: {directory} is not a directory"
        repos[name] = directory
    return Workspace(root, repos)


def _read_json(file: str) -> tuple[Any, str | None]:
    """(data, None), or (None, message) when the file cannot be read or parsed."""
    try:
        if file == "-":
            text = sys.stdin.read()
        else:
            text = Path(file).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, f"kandev-tui: {file}: no such file"
    except UnicodeDecodeError:
        return None, f"kandev-tui: {file}: not UTF-8 text"
    except OSError as exc:
        return None, f"kandev-tui: {file}: {exc.strerror or exc}"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"
    except RecursionError:
        return None, "invalid JSON: nested too deeply"


def cmd_validate(args: argparse.Namespace) -> int:
    data, problem = _read_json(args.file)
    if problem:
        return _fail(problem, EXIT_USAGE if problem.startswith("kandev-tui:") else EXIT_FAIL)
    if args.stored:
        from kandev_tui.presentation import State, read_stored_call

        if not isinstance(data, dict):
            return _fail("unavailable: a stored call must be a JSON object")
        result = read_stored_call(data.get("name"), data.get("title"), data.get("status"), data.get("input"), data.get("output"))
        if result.state is State.READY:
            assert result.presentation is not None
            print(json.dumps(result.presentation.to_json(), indent=2, ensure_ascii=False))
            return EXIT_OK
        detail = result.reason if result.state is State.UNAVAILABLE else result.error
        return _fail(f"{result.state.value}: {detail}" if detail else result.state.value)
    from kandev_tui.mcp_server import call_show_rich_output

    workspace = _workspace(args)
    if isinstance(workspace, str):
        return _fail(workspace, EXIT_USAGE)
    outcome = call_show_rich_output(data, workspace)
    if outcome.is_error:
        return _fail(outcome.text)
    print(outcome.text)
    return EXIT_OK


def cmd_guidance(args: argparse.Namespace) -> int:
    from kandev_tui.presentation import guidance

    print(guidance(args.profile))
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    workspace = _workspace(args)
    if isinstance(workspace, str):
        return _fail(workspace, EXIT_USAGE)
    from kandev_tui.mcp_server import serve

    return serve(workspace, args.profile)


COMMANDS = {"validate": cmd_validate, "guidance": cmd_guidance, "mcp": cmd_mcp}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return EXIT_OK
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
