"""Every field rule and message of contract v1 (spec §1-§3)."""

from __future__ import annotations

import copy

import pytest

from kandev_tui.presentation import ChartBlock, PresentationError, encoded_size, parse_tool_input


def reject(obj) -> str:
    with pytest.raises(PresentationError) as info:
        parse_tool_input(obj)
    return str(info.value)


def test_spec_example_validates_and_round_trips(doc):
    presentation = parse_tool_input(doc)
    assert presentation.to_json() == doc
    assert presentation.csv_block_indexes == [1]
    assert isinstance(presentation.blocks[2], ChartBlock)


def test_field_path_and_rule_in_messages(doc):
    doc["blocks"][2]["labels"] = ["a", "b", "c", "d"]
    doc["blocks"][2]["series"][0]["values"] = [1, 2, 3]
    assert reject(doc) == "blocks[2].series[0].values: 3 values for 4 labels"


def test_metric_label_length_message(doc):
    doc["blocks"][0]["items"].append({"label": "", "value": "1"})
    assert reject(doc) == "blocks[0].items[2].label: must be 1-120 characters"


@pytest.mark.parametrize(
    ("field", "lo", "hi"),
    [("title", 1, 120), ("description", 0, 500)],
)
def test_root_string_bounds(doc, field, lo, hi):
    doc[field] = "x" * hi
    parse_tool_input(doc)
    doc[field] = "x" * (hi + 1)
    assert reject(doc).startswith(f"{field}: must be")
    if lo:
        doc[field] = ""
        assert reject(doc) == f"{field}: must be {lo}-{hi} characters"


def test_lengths_count_code_points_not_bytes(doc):
    doc["title"] = "📈" * 120  # 480 bytes of UTF-8
    parse_tool_input(doc)
    doc["title"] = "📈" * 121
    assert reject(doc) == "title: must be 1-120 characters"


def test_required_root_fields(doc):
    for field in ("version", "title", "blocks"):
        d = copy.deepcopy(doc)
        del d[field]
        assert reject(d) == f"{field}: is required"


def test_description_null_is_an_error(doc):
    doc["description"] = None
    assert reject(doc) == "description: must be a string"


@pytest.mark.parametrize("version", [2, 0, "1", True, None, 1.5, [1]])
def test_unknown_versions_rejected_alone(doc, version):
    doc["version"] = version
    doc["title"] = ""  # a second problem must not hide the version one
    assert reject(doc) == "version: unknown version; only version 1 is supported"


def test_version_one_point_zero_accepted(doc):
    doc["version"] = 1.0
    assert parse_tool_input(doc).version == 1


CLOSED_PLACES = {
    "color": lambda d: d,
    "blocks[0].color": lambda d: d["blocks"][0],
    "blocks[0].items[0].color": lambda d: d["blocks"][0]["items"][0],
    "blocks[1].color": lambda d: d["blocks"][1],
    "blocks[1].csv.color": lambda d: d["blocks"][1]["csv"],
    "blocks[1].csv.series[0].color": lambda d: d["blocks"][1]["csv"]["series"][0],
    "blocks[2].color": lambda d: d["blocks"][2],
    "blocks[2].series[0].color": lambda d: d["blocks"][2]["series"][0],
    "blocks[3].color": lambda d: d["blocks"][3],
}


@pytest.mark.parametrize("path", sorted(CLOSED_PLACES))
def test_closed_objects_everywhere(doc, path):
    CLOSED_PLACES[path](doc)["color"] = "red"
    assert reject(doc) == f"{path}: unknown field (objects are closed in version 1)"


def test_blocks_count(doc):
    doc["blocks"] = []
    assert reject(doc) == "blocks: must hold 1-4 blocks (found 0)"
    doc["blocks"] = [copy.deepcopy(SPEC_BLOCK)] * 5
    assert reject(doc) == "blocks: must hold 1-4 blocks (found 5)"
    doc["blocks"] = [copy.deepcopy(SPEC_BLOCK)] * 4
    parse_tool_input(doc)


SPEC_BLOCK = {"type": "metrics", "items": [{"label": "a", "value": "1"}]}


def test_block_type(doc):
    doc["blocks"][0]["type"] = "table"
    assert reject(doc) == 'blocks[0].type: must be "chart", "metrics" or "file"'
    del doc["blocks"][0]["type"]
    assert reject(doc) == "blocks[0].type: is required (one of chart, metrics, file)"
    doc["blocks"][0] = "metrics"
    assert reject(doc) == "blocks[0]: must be an object"


def test_chart_type(doc):
    doc["blocks"][2]["chart_type"] = "pie"
    assert reject(doc) == 'blocks[2].chart_type: must be "line" or "bar"'


def test_chart_title_and_summary(doc):
    doc["blocks"][2]["summary"] = ""
    assert reject(doc) == "blocks[2].summary: must be 1-500 characters"
    doc["blocks"][2]["summary"] = "s" * 500
    doc["blocks"][2]["title"] = "t" * 121
    assert reject(doc) == "blocks[2].title: must be 1-120 characters"


def test_exactly_one_data_source(doc):
    both = copy.deepcopy(doc)
    both["blocks"][1]["labels"] = ["a"]
    assert reject(both) == "blocks[1]: use exactly one data source: inline labels and series, or csv, not both"
    neither = copy.deepcopy(doc)
    del neither["blocks"][2]["labels"], neither["blocks"][2]["series"]
    assert reject(neither) == "blocks[2]: needs data: inline labels and series, or csv"
    no_series = copy.deepcopy(doc)
    del no_series["blocks"][2]["series"]
    assert reject(no_series) == "blocks[2].series: is required with labels"
    no_labels = copy.deepcopy(doc)
    del no_labels["blocks"][2]["labels"]
    assert reject(no_labels) == "blocks[2].labels: is required with series"


def test_labels_and_series_counts(doc):
    chart = doc["blocks"][2]
    chart["labels"] = [f"l{i}" for i in range(100)]
    chart["series"] = [{"label": f"s{j}", "values": [j] * 100} for j in range(4)]
    parse_tool_input(doc)
    chart["labels"].append("l100")
    assert reject(doc) == "blocks[2].labels: must hold 1-100 labels (found 101)"
    chart["labels"] = chart["labels"][:100]
    chart["series"].append({"label": "s4", "values": [1] * 100})
    assert reject(doc) == "blocks[2].series: must hold 1-4 series (found 5)"
    chart["series"] = []
    assert reject(doc) == "blocks[2].series: must hold 1-4 series (found 0)"


def test_label_lengths(doc):
    doc["blocks"][2]["labels"][1] = "x" * 121
    assert reject(doc) == "blocks[2].labels[1]: must be 1-120 characters"
    doc["blocks"][2]["labels"][1] = ""
    assert reject(doc) == "blocks[2].labels[1]: must be 1-120 characters"


@pytest.mark.parametrize("bad", ["1", True, float("nan"), float("inf"), -float("inf"), 10**400, [1], {"v": 1}])
def test_values_must_be_finite_numbers_or_null(doc, bad):
    doc["blocks"][2]["series"][0]["values"][1] = bad
    assert reject(doc) == "blocks[2].series[0].values[1]: must be a finite number or null"


def test_values_accept_gaps_ints_and_extremes(doc):
    doc["blocks"][2]["series"][0]["values"] = [1.7976931348623157e308, None]
    assert parse_tool_input(doc).blocks[2].series[0].values == [1.7976931348623157e308, None]
    doc["blocks"][2]["series"][0]["values"] = [-5e-324, 0]
    parse_tool_input(doc)


def test_metrics_rules(doc):
    items = doc["blocks"][0]["items"]
    items[:] = [{"label": "a", "value": "v" * 200, "detail": "d" * 500}] * 6
    parse_tool_input(doc)
    items.append({"label": "a", "value": "1"})
    assert reject(doc) == "blocks[0].items: must hold 1-6 items (found 7)"
    items[:] = [{"label": "a", "value": "v" * 201}]
    assert reject(doc) == "blocks[0].items[0].value: must be 1-200 characters"
    items[:] = [{"label": "a", "value": 38}]
    assert reject(doc) == "blocks[0].items[0].value: must be a string"
    items[:] = [{"label": "a", "value": "1", "detail": "d" * 501}]
    assert reject(doc) == "blocks[0].items[0].detail: must be at most 500 characters"
    items[:] = [{"label": "a"}]
    assert reject(doc) == "blocks[0].items[0].value: is required"


def test_file_block_rules(doc):
    block = doc["blocks"][3]
    block.update(repo="r" * 255, title="t" * 120, caption="c" * 500, mime_type="m" * 128, path="p" * 1024)
    parse_tool_input(doc)
    for field, size in (("repo", 256), ("title", 121), ("caption", 501), ("mime_type", 129), ("path", 1025)):
        d = copy.deepcopy(doc)
        d["blocks"][3][field] = "x" * size
        assert reject(d).startswith(f"blocks[3].{field}: must be")
    for field in ("repo", "title", "caption", "mime_type"):
        d = copy.deepcopy(doc)
        d["blocks"][3][field] = ""
        parse_tool_input(d)


def test_csv_source_rules(doc):
    csv = doc["blocks"][1]["csv"]
    csv["path"] = "data/RUNS.CSV"
    parse_tool_input(doc)
    csv["path"] = "data/runs.tsv"
    assert reject(doc) == "blocks[1].csv.path: must end in .csv"
    csv["path"] = "runs.csv"
    csv["series"] = [{"column": f"c{i}"} for i in range(5)]
    assert reject(doc) == "blocks[1].csv.series: must hold 1-4 series (found 5)"
    csv["series"] = [{"column": "c", "label": None}]
    assert reject(doc) == "blocks[1].csv.series[0].label: must be a string"
    csv["series"] = [{"column": ""}]
    assert reject(doc) == "blocks[1].csv.series[0].column: must be 1-120 characters"
    csv["series"] = [{"column": "c"}]
    csv["x_column"] = "x" * 121
    assert reject(doc) == "blocks[1].csv.x_column: must be 1-120 characters"


def _doc_of_exact_size(target: int) -> dict:
    """Two 100-label charts whose labels are padded with 3-byte and 1-byte characters."""
    charts = [
        {"type": "chart", "chart_type": "bar", "title": "t", "summary": "s",
         "labels": [f"{i:03d}" for i in range(100)], "series": [{"label": "s", "values": [0] * 100}]}
        for _ in range(2)
    ]
    doc = {"version": 1, "title": "t", "blocks": charts}
    room = target - encoded_size(doc)
    for chart in charts:
        for i, label in enumerate(chart["labels"]):
            free = 120 - len(label)
            euros = min(free, room // 3)
            chart["labels"][i] = label + "€" * euros
            room -= 3 * euros
            if room < 3 and room > 0 and len(chart["labels"][i]) + room <= 120:
                chart["labels"][i] += "a" * room
                room = 0
    assert encoded_size(doc) == target
    return doc


def test_size_limit_measured_on_compact_utf8_json():
    parse_tool_input(_doc_of_exact_size(65_536))
    assert reject(_doc_of_exact_size(65_537)) == (
        "arguments are 65,537 bytes; the limit is 65,536 bytes of compact UTF-8 JSON"
    )


def test_html_characters_count_one_byte(inline_doc):
    inline_doc["title"] = "<&>"
    assert encoded_size({"t": "<&>"}) == len('{"t":"<&>"}')
    parse_tool_input(inline_doc)


def test_not_an_object():
    assert reject([]) == "arguments must be a JSON object"
    assert reject("x") == "arguments must be a JSON object"
    assert reject(None) == "arguments must be a JSON object"


def test_rejected_values_are_never_echoed(doc):
    secret = "\x1b]52;c;" + "A" * 5000
    doc["blocks"][0]["items"][0][secret] = 1
    message = reject(doc)
    assert len(message) < 120
    assert "\x1b" not in message and "A" * 30 not in message


def test_multiple_problems_are_counted(doc):
    doc["title"] = ""
    doc["blocks"][0]["items"][0]["label"] = ""
    assert reject(doc) == "title: must be 1-120 characters (and 1 more problem)"


def test_lone_surrogates_become_replacement_characters(inline_doc):
    inline_doc["title"] = "a\ud800b"
    assert parse_tool_input(inline_doc).title == "a\ufffdb"
