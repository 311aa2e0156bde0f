"""CSV sources resolved into snapshots (spec §4): read rules, parse rules, the token table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kandev_tui.presentation import CsvSourceError, parse_tool_input, resolve_csv
from kandev_tui.presentation.csvsnap import parse_csv, parse_number
from kandev_tui.workspace.reads import Workspace


def chart_doc(path="data.csv", x="x", series=("y",), labels=None, repo=None) -> dict:
    csv = {"path": path, "x_column": x, "series": [{"column": c} if labels is None else {"column": c, "label": l}
                                                     for c, l in zip(series, labels or series)]}
    if repo is not None:
        csv["repo"] = repo
    return {"version": 1, "title": "t", "blocks": [{"type": "chart", "chart_type": "line", "title": "c", "summary": "s", "csv": csv}]}


def resolve(tmp_path: Path, text: str | bytes, doc: dict | None = None):
    target = tmp_path / "data.csv"
    target.write_bytes(text.encode() if isinstance(text, str) else text)
    return resolve_csv(parse_tool_input(doc or chart_doc()), Workspace(tmp_path))


def error(tmp_path, text, doc=None) -> str:
    with pytest.raises(CsvSourceError) as info:
        resolve(tmp_path, text, doc)
    return str(info.value)


def test_spec_snapshot(workspace_dir, doc):
    snapshot = resolve_csv(parse_tool_input(doc), Workspace(workspace_dir))
    assert snapshot == {"version": 1, "resolved_charts": [
        {"block_index": 1, "labels": ["2026-08-13T10:00:00Z", "2026-08-14T10:00:00Z"],
         "series": [{"label": "Seconds", "values": [18.2, None]}]}]}


def test_no_csv_chart_gives_none(workspace_dir, inline_doc):
    assert resolve_csv(parse_tool_input(inline_doc), Workspace(workspace_dir)) is None


def test_series_label_defaults_to_column_and_x_may_be_a_series(tmp_path):
    doc = chart_doc(series=("x", "y", "y"), labels=None)
    snap = resolve(tmp_path, "x,y\n1,2\n", doc)
    assert snap["resolved_charts"][0]["series"] == [
        {"label": "x", "values": [1]}, {"label": "y", "values": [2]}, {"label": "y", "values": [2]}]


def test_rfc4180_quoting_newlines_crlf_and_blank_lines(tmp_path):
    text = 'x,y\r\n"a, ""quoted""\nlabel",1\r\n\r\n\nb,2\n"c",""\n'
    snap = resolve(tmp_path, text)
    chart = snap["resolved_charts"][0]
    assert chart["labels"] == ['a, "quoted"\nlabel', "b", "c"]
    assert chart["series"][0]["values"] == [1, 2, None]


def test_bare_cr_is_not_a_line_end(tmp_path):
    snap = resolve(tmp_path, "x,y\na\rb,1\n")
    assert snap["resolved_charts"][0]["labels"] == ["a\rb"]


def test_header_trim_and_bom(tmp_path):
    snap = resolve(tmp_path, "\ufeff x ,\ufeffy\n a ,1\n")
    assert snap["resolved_charts"][0]["labels"] == ["a"]


def test_rows_numbered_by_record(tmp_path):
    assert error(tmp_path, 'x,y\n"multi\nline",1\n\nb,2,3\n') == "CSV source data.csv: CSV row 3 is invalid: expected 2 fields, found 3"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "CSV source must contain a header row"),
        ("\n\r\n\n", "CSV source must contain a header row"),
        ("x,,y\n1,2,3\n", "CSV header 2 must not be blank"),
        ("x, \ufeff ,y\n", "CSV header 2 must not be blank"),
        ("x,y,x\n", 'CSV header "x" is duplicated'),
        ("a,y\n1,2\n", 'CSV column "x" was not found'),
        ("x,z\n1,2\n", 'CSV column "y" was not found'),
        ("x,y\n", "CSV source must contain 1 to 100 data rows"),
        ("x,y\n1\n", "CSV row 2 is invalid: expected 2 fields, found 1"),
        ('x,y\na"b,1\n', "CSV row 2 is invalid: a quote inside an unquoted field"),
        ('x,y\n"ab,1\n', "CSV row 2 is invalid: a quoted field is not closed"),
        ('x,y\n"a"b,1\n', "CSV row 2 is invalid: unexpected text after a closing quote"),
        ("x,y\n ,1\n", 'CSV row 2 column "x" must not be blank'),
        ("x,y\n" + "a" * 121 + ",1\n", 'CSV row 2 column "x" exceeds 120 characters'),
        ("x,y\na,12%\n", 'CSV row 2 column "y" must be a finite number or empty'),
    ],
)
def test_parse_errors(tmp_path, text, message):
    assert error(tmp_path, text) == f"CSV source data.csv: {message}"


def test_x_label_of_120_code_points_is_fine(tmp_path):
    snap = resolve(tmp_path, "x,y\n" + "é" * 120 + ",1\n")
    assert snap["resolved_charts"][0]["labels"] == ["é" * 120]


def test_row_limits(tmp_path):
    rows = "".join(f"r{i},{i}\n" for i in range(100))
    assert len(resolve(tmp_path, "x,y\n" + rows)["resolved_charts"][0]["labels"]) == 100
    assert error(tmp_path, "x,y\n" + rows + "r100,1\n") == "CSV source data.csv: CSV source must contain at most 100 data rows"


def test_size_limit_exactly_256_kib(tmp_path):
    body = "x,y,pad\n" + "".join(f"r{i},{i},\n" for i in range(100))
    # pad the last record's third field so that the file is exactly 262,144 bytes
    text = body[:-1] + "p" * (262_144 - len(body.encode()) + 1)
    assert len(text.encode()) == 262_144
    resolve(tmp_path, text)
    assert error(tmp_path, text + "p") == "CSV source exceeds 256 KiB"


def test_utf8_checked_before_size(tmp_path):
    assert error(tmp_path, b"x,y\n\xff,1\n") == "CSV source must be UTF-8 text"
    assert error(tmp_path, b"x,y\n\xff" + b"a" * 300_000) == "CSV source must be UTF-8 text"
    # a multi-byte character cut by the byte bound is not held against the file
    text = ("x,y\n" + "€" * 90_000).encode()
    assert error(tmp_path, text) == "CSV source exceeds 256 KiB"


def test_read_errors(tmp_path):
    workspace = Workspace(tmp_path)
    with pytest.raises(CsvSourceError) as info:
        resolve_csv(parse_tool_input(chart_doc(path="missing.csv")), workspace)
    assert str(info.value) == "could not read CSV source missing.csv: no such file"
    with pytest.raises(CsvSourceError) as info:
        resolve_csv(parse_tool_input(chart_doc(repo="other")), workspace)
    assert str(info.value).startswith("could not read CSV source data.csv: unknown repository 'other'")


def test_each_source_read_once(tmp_path, monkeypatch):
    (tmp_path / "data.csv").write_text("x,y,z\na,1,2\n")
    workspace = Workspace(tmp_path)
    reads = []
    original = workspace.read_bytes
    monkeypatch.setattr(workspace, "read_bytes", lambda *a, **k: reads.append(a) or original(*a, **k))
    doc = chart_doc(series=("y",))
    doc["blocks"] += [json.loads(json.dumps(doc["blocks"][0])) for _ in range(2)]
    doc["blocks"][2]["csv"]["series"] = [{"column": "z", "label": "Zed"}]
    doc["blocks"].append({"type": "metrics", "items": [{"label": "a", "value": "1"}]})
    snap = resolve_csv(parse_tool_input(doc), workspace)
    assert len(reads) == 1
    assert [c["block_index"] for c in snap["resolved_charts"]] == [0, 1, 2]
    assert snap["resolved_charts"][2]["series"] == [{"label": "Zed", "values": [2]}]


def test_repo_roots_select_the_source(tmp_path):
    main, other = tmp_path / "main", tmp_path / "other"
    main.mkdir(), other.mkdir()
    (main / "data.csv").write_text("x,y\nmain,1\n")
    (other / "data.csv").write_text("x,y\nother,2\n")
    workspace = Workspace(main, {"other": other})
    snap = resolve_csv(parse_tool_input(chart_doc(repo="other")), workspace)
    assert snap["resolved_charts"][0]["labels"] == ["other"]
    snap = resolve_csv(parse_tool_input(chart_doc(repo="")), workspace)
    assert snap["resolved_charts"][0]["labels"] == ["main"]


def test_snapshot_limit(tmp_path):
    # 4 charts x 4 series x 100 rows of long labels exceed 64 KiB once encoded
    header = "x,a,b,c,d\n"
    rows = "".join(f"{'L' * 110}{i:03d},1.2345678901234567,2.2345678901234567,3.2345678901234567,4.2345678901234567\n" for i in range(100))
    doc = chart_doc(series=("a", "b", "c", "d"))
    doc["blocks"] = doc["blocks"] * 4
    assert error(tmp_path, header + rows, doc) == "normalized CSV chart snapshot exceeds 64 KiB"


ACCEPTED_TOKENS = {"12": 12.0, "+5": 5.0, ".5": 0.5, "5.": 5.0, "1e3": 1000.0, "-0": -0.0, "00012": 12.0,
                   " 7 ": 7.0, "1E-3": 0.001, "0x1p3": 8.0, "-0X1.8P1": -3.0, "1e-400": 0.0}
REJECTED_TOKENS = ["NaN", "nan", "Inf", "-Infinity", "1e400", "12%", "$5", "1,000", "0x1A", "0x10", "1_000",
                   "abc", "1e", "e3", ".", "+", "--1", "1.2.3", "٣"]


@pytest.mark.parametrize(("token", "value"), sorted(ACCEPTED_TOKENS.items()))
def test_numeric_tokens_accepted(token, value):
    assert parse_number(token) == value


@pytest.mark.parametrize("token", REJECTED_TOKENS)
def test_numeric_tokens_rejected(token):
    with pytest.raises(ValueError):
        parse_number(token)


def test_empty_cell_is_a_gap():
    assert parse_number("") is None
    assert parse_number("   ") is None


def test_parse_csv_table():
    table = parse_csv("a,b\n1,2\n")
    assert table.header == ["a", "b"]
    assert table.records == [(2, ["1", "2"])]


def test_a_column_name_with_a_quote_is_quoted_exactly(tmp_path):
    """The agent looks for the name the message quotes: a quote in it is escaped, never swapped for another."""
    message = error(tmp_path, 'x,y\n1,2\n', chart_doc(series=('say "hi"',)))
    assert message.endswith('CSV column "say \\"hi\\"" was not found')
    message = error(tmp_path, 'x,y\n1,2\n', chart_doc(series=("back\\slash",)))
    assert message.endswith('CSV column "back\\\\slash" was not found')
