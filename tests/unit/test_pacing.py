"""The timing constants' table (kandev_tui/base/pacing.py): every constant has its row with its value, the table names no
constant that is not there, and no other module defines one of them again."""

from __future__ import annotations

import ast
import re
from fractions import Fraction
from pathlib import Path

import pytest

from kandev_tui.base import pacing

PACKAGE = Path(pacing.__file__).parent
ROW = re.compile(r"^``([A-Z_]+)``\s+(\S+)(?: (ms|s|frames|items))?\s", re.M)


def table() -> dict[str, float]:
    """constant → the value its row says (seconds, a count, a share)."""
    rows = {}
    for name, number, unit in ROW.findall(pacing.__doc__ or ""):
        value = float(Fraction(number))
        rows[name] = value / 1000 if unit == "ms" else value
    return rows


def constants() -> dict[str, float]:
    return {name: value for name, value in vars(pacing).items()
            if name.isupper() and isinstance(value, (int, float)) and name != "LONG_TEXT"}  # a length, in its row's text


def test_every_timing_constant_has_its_row_and_the_row_says_its_value():
    rows = table()
    assert len(rows) >= 20
    assert rows.keys() == constants().keys()
    for name, value in constants().items():
        assert rows[name] == pytest.approx(value), name


def test_no_other_module_defines_a_timing_constant_again():
    names = set(constants())
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "pacing.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found += [(path.name, t.id) for t in targets if isinstance(t, ast.Name) and t.id in names]
    assert not found


def test_work_in_a_thread_gives_way_at_its_points_only_inside_the_block_and_only_while_told():
    """give_way() pauses the work of a thread inside giving_way() while the hook says the user's input is on its way,
    looking again until it is not; outside the block it asks nothing and never pauses."""
    from kandev_tui.ui.user_input import give_way, giving_way

    asked: list[int] = []

    def on_its_way() -> bool:
        asked.append(1)
        return len(asked) < 4  # drawn at the fourth look

    give_way()
    assert asked == []
    with giving_way(on_its_way):
        give_way()
        assert len(asked) == 4
        with giving_way(lambda: False):  # nested: the inner hook, then the outer one again
            give_way()
        assert len(asked) == 4
    give_way()
    assert len(asked) == 4
