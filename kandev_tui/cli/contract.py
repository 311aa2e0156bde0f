"""``validate``, ``guidance`` and ``mcp``: the rich-output contract from the command line."""

from __future__ import annotations

import argparse
from typing import Any
import json
import os

from kandev_tui.cli.common import EXIT_OK, EXIT_USAGE, BadJson, Unreadable, UsageError, _fail, _workspace, read_json
from kandev_tui.cli.options import _add_workspace_options


def cmd_validate(args: argparse.Namespace) -> int:
    try:
        data = read_json(args.file)
    except Unreadable as exc:
        raise UsageError(f"kandev-tui validate: {exc}") from None
    except BadJson as exc:  # a failed validation (exit 1), said as every other error of the command: with its file
        return _fail(f"kandev-tui validate: {'standard input' if args.file == '-' else args.file}: {exc}")
    if args.stored:
        from kandev_tui.presentation import State, read_tool_call

        if not isinstance(data, dict):
            return _fail("unavailable: a stored call must be a JSON object")
        if "name" not in data and ("blocks" in data or "version" in data):
            return _fail("not-rich-output: FILE holds tool arguments (a presentation), not a stored call "
                         '{"name","title","status","input","output"}: run it without --stored')
        result = read_tool_call(data, data.get("status"))
        if result.state is State.READY:
            assert result.presentation is not None
            print(json.dumps(result.presentation.to_json(), indent=2, ensure_ascii=False))
            return EXIT_OK
        detail = result.reason if result.state is State.UNAVAILABLE else result.error
        return _fail(f"{result.state.value}: {detail}" if detail else result.state.value)
    from kandev_tui.mcp.server import call_show_rich_output

    workspace = _workspace(args)
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
    from kandev_tui.mcp.server import Reporter, serve

    report = None
    if args.report:
        token = os.environ.get("KANDEV_TUI_REPORT_TOKEN", "")
        if not token:
            return _fail("kandev-tui mcp: --report needs the session's secret in $KANDEV_TUI_REPORT_TOKEN", EXIT_USAGE)
        try:
            report = Reporter(args.report, token)
        except ValueError as exc:
            return _fail(f"kandev-tui mcp: {exc}", EXIT_USAGE)
    return serve(workspace, args.profile, report=report)


def add_arguments(commands: Any) -> None:
    """The parsers of 'validate', 'guidance', 'mcp' (``commands``: the top level's subparsers)."""
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
    validate.set_defaults(run=cmd_validate)

    guidance = commands.add_parser(
        "guidance",
        help="print the rich-output guidance paragraph given to agents",
        description="Print the compact paragraph kandev-tui gives agents about rich output: as their system prompt "
                    "where they take one (Codex, Claude Code), else before the first prompt.",
    )
    guidance.add_argument("--profile", choices=["task", "office"], default="task", help="agent profile (default: task)")
    guidance.set_defaults(run=cmd_guidance)

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
    mcp.add_argument(
        "--report", metavar="URL",
        help="tell the kandev-tui session that started this server of each call, at its loopback address "
             "(http://127.0.0.1:PORT/report, the secret in $KANDEV_TUI_REPORT_TOKEN): kandev-tui passes it to the "
             "agents it starts",
    )
    mcp.set_defaults(run=cmd_mcp)
