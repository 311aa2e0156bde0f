"""``validate``, ``guidance`` and ``mcp``: the rich-output contract from the command line."""

from __future__ import annotations

import argparse
import json
import os

from kandev_tui.cli.common import EXIT_OK, EXIT_USAGE, _fail, _read_json, _unreadable, _workspace


def cmd_validate(args: argparse.Namespace) -> int:
    data, problem = _read_json(args.file)
    if problem:
        if _unreadable(problem):
            return _fail(f"kandev-tui validate: {problem}", EXIT_USAGE)
        return _fail(problem)
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
    from kandev_tui.mcp_server import call_show_rich_output

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
    from kandev_tui.mcp_server import Reporter, serve

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
