"""Property tests: nothing but the contract's own errors escapes the contract's functions."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest
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

from ..support.documents import SPEC_DOCUMENT
from ..support.strategies import documents, json_values, stored_outputs

EXAMPLES = int(os.environ.get("KANDEV_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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
