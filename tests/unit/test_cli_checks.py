"""Every option value kandev-tui checks is checked as argparse reads it (``cli/options.py``'s ``Checked``): before
any work starts, and said in one line, ``kandev-tui CMD: --option VALUE: why``, with exit status 2."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from kandev_tui.cli.parser import build_parser


def test_checked_values_are_given_to_the_command_as_what_they_stand_for():
    parser = build_parser()
    args = parser.parse_args(["run", "--init-timeout", "2.5", "--option", "a=1", "--option", " b = two ", "--",
                              "agent"])
    assert args.init_timeout == 2.5 and args.option == [("a", "1"), ("b", "two")]
    again = parser.parse_args(["run", "--", "agent"])
    assert again.option == [] and again.init_timeout == 30.0  # (the defaults, not shared with the parse before)
    shot = parser.parse_args(["snapshot", "x", "-o", "y.txt", "--size", "80x24", "--at", "12"])
    assert shot.size == (80, 24) and shot.at == "12" and shot.theme == "textual-dark"
    assert parser.parse_args(["snapshot", "x", "-o", "y.txt"]).size == (120, 40)
    assert parser.parse_args(["serve", "--port", "8080"]).port == 8080
    assert parser.parse_args(["mcp", "--repo", "here=."]).repo == [("here", Path("."))]


@pytest.mark.parametrize("command", ["run", "snapshot", "serve", "attach", "replay", "export", "open"])
def test_no_option_is_checked_by_an_argparse_type_that_would_print_its_usage(command):
    """argparse's own ``type`` says a refused value after its usage, in three lines; every check is Checked."""
    parser = build_parser().command_parsers[command]
    typed = [action.option_strings for action in parser._actions
             if action.type is not None and isinstance(action, argparse._StoreAction)]
    assert not typed, f"{command}: {typed} are checked by argparse types; use options.Checked"
