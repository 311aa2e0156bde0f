"""Reading stored calls back: the trust boundary (spec §6)."""

from __future__ import annotations

import copy
import json

import pytest

from kandev_tui.presentation import ChartBlock, State, is_rich_output_name, read_stored_call
from kandev_tui.presentation.stored import extract_arguments, extract_result

from ..support.documents import load_fixture


def read(call: dict):
    return read_stored_call(call["name"], call["title"], call["status"], call["input"], call["output"])


@pytest.mark.parametrize(
    ("name", "title", "expected"),
    [
        ("mcp__kandev__show_rich_output_kandev", None, True),
        ("kandev/show_rich_output_kandev", None, True),
        ("mcp.kandev.show_rich_output_kandev", None, True),
        ("show_rich_output_kandev", None, True),
        ("other/show_rich_output_kandev", "mcp__kandev__show_rich_output_kandev", False),
        ("mcp__other__show_rich_output_kandev", None, False),
        ("mcp.other.show_rich_output_kandev", "kandev/show_rich_output_kandev", False),
        ("other", "mcp__kandev__show_rich_output_kandev", True),
        ("other", "mcp.kandev.show_rich_output_kandev", True),
        ("other", "Show rich output", False),
        ("other", "other/show_rich_output_kandev", False),
        ("execute", None, False),
        (None, "kandev/show_rich_output_kandev", True),
        ("kandev/show_rich_output", None, False),
    ],
)
def test_identity(name, title, expected):
    assert is_rich_output_name(name, title) is expected


def test_argument_extraction_order():
    args = {"version": 1}
    assert extract_arguments({"raw_input": {"arguments": args, "server": "kandev"}}) is args
    assert extract_arguments({"raw_input": args}) is args
    assert extract_arguments({"raw_input": {"arguments": "x", "a": 1}}) == {"arguments": "x", "a": 1}
    assert extract_arguments(args) is args
    assert extract_arguments({"raw_input": "text", "version": 1}) == {"raw_input": "text", "version": 1}


def test_result_extraction_order():
    snap = {"version": 1, "resolved_charts": []}
    assert extract_result({"structuredContent": snap, "content": [{"type": "text", "text": "{}"}]}) is snap
    assert extract_result({"structured_content": snap}) is snap
    assert extract_result({"content": [{"type": "text", "text": '{"a":'}, {"type": "text", "text": "1}"}]}) == {"a": 1}
    assert extract_result(' {"a": 1} ') == {"a": 1}
    assert extract_result({"error": None, "result": {"structuredContent": snap}}) is snap
    assert extract_result({"result": '{"a": 2}'}) == {"a": 2}
    assert extract_result("Rich output accepted.") == "Rich output accepted."
    assert extract_result(None) is None


def test_claude_shape_renders_inline():
    result = read(load_fixture("stored/claude-mcp-inline.json"))
    assert result.state is State.READY
    assert result.presentation.title == "Deploy check"
    assert [b.type for b in result.presentation.blocks] == ["metrics", "chart"]


def test_codex_csv_merges_the_snapshot_inline():
    result = read(load_fixture("stored/codex-mcp-csv.json"))
    assert result.state is State.READY
    chart = result.presentation.blocks[1]
    assert isinstance(chart, ChartBlock) and chart.csv is None
    assert chart.labels == ["2026-09-01T10:00:00Z", "2026-09-01T11:00:00Z"]
    assert [s.label for s in chart.series] == ["p95", "p50_ms"]
    assert chart.series[1].values == [90, None]
    assert result.presentation.blocks[0].type == "file"


def test_historic_codex_wrapper_is_read():
    result = read(load_fixture("stored/codex-historic-wrapper.json"))
    assert result.state is State.READY
    assert result.presentation.blocks[1].labels[0] == "2026-09-01T10:00:00Z"


def test_foreign_server_is_not_rich_output():
    assert read(load_fixture("stored/foreign-server.json")).state is State.NOT_RICH_OUTPUT


def test_failed_call_carries_the_tool_error():
    result = read(load_fixture("stored/failed.json"))
    assert result.state is State.FAILED
    assert result.error == "blocks[1].series[0].values: 3 values for 2 labels"
    assert result.presentation is None


@pytest.mark.parametrize(
    ("status", "state"),
    [("pending", State.PENDING), ("in_progress", State.RUNNING), ("cancelled", State.CANCELLED),
     ("error", State.FAILED), ("failed", State.FAILED), ("complete", State.READY), ("completed", State.READY),
     ("weird", State.UNAVAILABLE), (None, State.UNAVAILABLE)],
)
def test_status_decides_first(status, state):
    call = load_fixture("stored/claude-mcp-inline.json")
    call["status"] = status
    assert read(call).state is state


def test_pending_shows_none_of_the_agent_data():
    result = read(load_fixture("stored/pending.json"))
    assert result.state is State.PENDING and result.presentation is None and result.error is None


def _csv_call():
    return load_fixture("stored/codex-mcp-csv.json")


def _unavailable(call) -> str:
    result = read(call)
    assert result.state is State.UNAVAILABLE, result
    assert result.presentation is None
    return result.reason


def test_csv_chart_without_snapshot_never_renders():
    call = _csv_call()
    call["output"] = "Rich output accepted."
    assert _unavailable(call) == "CSV charts have no resolved snapshot"


def test_snapshot_on_inline_only_presentation_fails_closed():
    call = load_fixture("stored/claude-mcp-inline.json")
    call["output"] = {"structuredContent": {"version": 1, "resolved_charts": [
        {"block_index": 1, "labels": ["auth", "billing"], "series": [{"label": "Errors", "values": [3, 17]}]}]}}
    assert _unavailable(call) == "a snapshot is attached to a presentation with no CSV chart"


def test_empty_historic_snapshot_on_inline_presentation_is_no_snapshot():
    call = load_fixture("stored/claude-mcp-inline.json")
    call["output"] = {"error": None, "result": {"structuredContent": {"version": 1, "resolved_charts": []}}}
    assert read(call).state is State.READY


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda s: s["resolved_charts"].append(copy.deepcopy(s["resolved_charts"][0])), "the snapshot targets block 1 twice"),
        (lambda s: s["resolved_charts"][0].update(block_index=0), "the snapshot targets block 0, which is not a CSV chart"),
        (lambda s: s["resolved_charts"][0].update(block_index=3), "the snapshot targets block 3, which is not a CSV chart"),
        (lambda s: s["resolved_charts"][0].update(block_index=4), "snapshot.resolved_charts[0].block_index: must be an integer from 0 to 3"),
        (lambda s: s["resolved_charts"][0].update(block_index=True), "snapshot.resolved_charts[0].block_index: must be an integer from 0 to 3"),
        (lambda s: s["resolved_charts"][0]["series"].pop(), "the snapshot's series for block 1 do not match the CSV mapping"),
        (lambda s: s["resolved_charts"][0]["series"][0].update(label="P95"), "the snapshot's series for block 1 do not match the CSV mapping"),
        (lambda s: s["resolved_charts"][0]["series"][0]["values"].pop(), "snapshot.resolved_charts[0].series[0].values: 1 values for 2 labels"),
        (lambda s: s["resolved_charts"][0]["series"][0]["values"].__setitem__(0, "1"), "snapshot.resolved_charts[0].series[0].values[0]: must be a finite number or null"),
        (lambda s: s.update(version=2), "snapshot.version: unknown version; only version 1 is supported"),
        (lambda s: s.update(extra=1), "snapshot.extra: unknown field (objects are closed in version 1)"),
        (lambda s: s["resolved_charts"].clear(), "CSV charts have no resolved snapshot"),
    ],
)
def test_merge_rules(mutate, reason):
    call = _csv_call()
    mutate(call["output"]["structuredContent"])
    assert _unavailable(call) == reason


def test_a_second_csv_block_needs_its_own_entry():
    call = _csv_call()
    call["input"]["blocks"].append(copy.deepcopy(call["input"]["blocks"][1]))
    assert _unavailable(call) == "the snapshot has no entry for CSV block 2"


def test_invalid_arguments_make_it_unavailable_with_the_reason():
    call = _csv_call()
    call["input"]["blocks"][1]["summary"] = ""
    assert _unavailable(call) == "blocks[1].summary: must be 1-500 characters"
    call["input"]["version"] = 3
    assert _unavailable(call) == "version: unknown version; only version 1 is supported"


def test_result_that_is_not_a_snapshot():
    call = _csv_call()
    call["output"] = {"structuredContent": {"something": "else"}}
    assert _unavailable(call) == "the result is not a rich-output snapshot"


def test_replay_reads_only_what_was_stored(tmp_path):
    # the stored call carries its snapshot: no workspace is involved at all
    call = _csv_call()
    assert read(json.loads(json.dumps(call))).state is State.READY
