"""Property tests: nothing but the contract's own errors escapes the contract's functions."""

from __future__ import annotations

import pytest

import csv
import io
import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kandev_tui.presentation import (
    ChartBlock,
    CsvSourceError,
    PresentationError,
    State,
    parse_tool_input,
    read_stored_call,
)
from kandev_tui.presentation.csvsnap import chart_from_table, parse_csv

from .conftest import SPEC_DOCUMENT

EXAMPLES = int(os.environ.get("KANDEV_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=40,
)

# values near the contract's own shapes, so that the fuzzer gets past the first checks
short_text = st.text(max_size=130)
numbers = st.none() | st.floats(allow_nan=True, allow_infinity=True) | st.integers(min_value=-(10**400), max_value=10**400)
series = st.fixed_dictionaries({"label": short_text, "values": st.lists(numbers, max_size=6)})
chart = st.fixed_dictionaries(
    {"type": st.just("chart"), "chart_type": st.sampled_from(["line", "bar", "pie"]), "title": short_text, "summary": short_text},
    optional={
        "labels": st.lists(short_text, max_size=6),
        "series": st.lists(series, max_size=5),
        "csv": st.fixed_dictionaries({"path": st.text(max_size=20), "x_column": short_text,
                                      "series": st.lists(st.fixed_dictionaries({"column": short_text}), max_size=5)}),
    },
)
metrics = st.fixed_dictionaries({"type": st.just("metrics"), "items": st.lists(
    st.fixed_dictionaries({"label": short_text, "value": short_text | st.integers()}), max_size=7)})
file_block = st.fixed_dictionaries({"type": st.just("file"), "path": st.text(max_size=30)},
                                   optional={"repo": short_text, "mime_type": json_values})
block = chart | metrics | file_block | json_values
documents = st.fixed_dictionaries(
    {"version": st.sampled_from([1, 1.0, 2, "1", True]), "title": short_text, "blocks": st.lists(block, max_size=5)},
    optional={"description": st.none() | short_text, "extra": json_values},
)


def _check_parse(value):
    try:
        presentation = parse_tool_input(value)
    except PresentationError as exc:
        assert str(exc)  # a message, always
        assert "\x1b" not in str(exc)
        return
    # what validates survives a JSON round trip unchanged
    again = parse_tool_input(json.loads(json.dumps(presentation.to_json())))
    assert again == presentation


@pytest.mark.reliability("Fuzzing", "any JSON as tool arguments", cases=EXAMPLES,
                         held="only the contract's own errors; what validates round-trips")
@FUZZ
@given(json_values)
def test_parse_any_json(value):
    _check_parse(value)


@pytest.mark.reliability("Fuzzing", "near-valid presentation documents", cases=EXAMPLES,
                         held="only the contract's own errors; what validates round-trips")
@FUZZ
@given(documents)
def test_parse_near_valid_documents(value):
    _check_parse(value)


stored_outputs = json_values | st.fixed_dictionaries(
    {"structuredContent": json_values | st.fixed_dictionaries(
        {"version": st.sampled_from([1, 2]), "resolved_charts": st.lists(json_values, max_size=3)})})


@FUZZ
@given(
    name=st.sampled_from(["kandev/show_rich_output_kandev", "other", "show_rich_output_kandev", None, 3]) | st.text(max_size=20),
    title=st.sampled_from(["mcp__kandev__show_rich_output_kandev", None]) | json_values,
    status=st.sampled_from(["complete", "completed", "pending", "failed", "error", "in_progress"]) | json_values,
    input_=documents | json_values | st.fixed_dictionaries({"raw_input": documents | json_values}),
    output=stored_outputs,
)
@pytest.mark.reliability("Fuzzing", "any stored call (name, title, status, input, output)", cases=EXAMPLES,
                         held="a state, never an exception")
def test_read_stored_call_never_raises(name, title, status, input_, output):
    result = read_stored_call(name, title, status, input_, output)
    assert isinstance(result.state, State)
    if result.state is State.READY:
        assert all(not (isinstance(b, ChartBlock) and b.csv is not None) for b in result.presentation.blocks)


@pytest.mark.reliability("Fuzzing", "arbitrary CSV text", cases=EXAMPLES,
                         held="only CsvSourceError")
@FUZZ
@given(st.text(alphabet=',"\r\n ab1.e-+x\ufeff€', max_size=200))
def test_csv_text_raises_only_its_own_error(text):
    doc = json.loads(json.dumps(SPEC_DOCUMENT))
    doc["blocks"][1]["csv"].update(x_column="a", series=[{"column": "b"}, {"column": "a"}])
    chart_block = parse_tool_input(doc).blocks[1]
    try:
        table = parse_csv(text)
        chart_from_table(table, chart_block, 1)
    except CsvSourceError:
        pass


cells = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=15)


@FUZZ
@given(st.lists(st.tuples(cells, cells), min_size=1, max_size=20))
def test_csv_round_trip_with_a_standard_writer(rows):
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_ALL)
    writer.writerow(["h1", "h2"])
    writer.writerows(rows)
    table = parse_csv(buffer.getvalue())
    assert table.header == ["h1", "h2"]
    assert [fields for _, fields in table.records] == [list(r) for r in rows]
