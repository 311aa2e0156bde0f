"""CSV-backed charts resolved once, at call time, into a bounded snapshot (spec §4)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import PresentationError, SourceReadError, short_quote
from .models import MAX_CSV_BYTES, MAX_CSV_ROWS, MAX_SNAPSHOT_BYTES, ChartBlock, Presentation
from .validate import encoded_size

class FileSource(Protocol):
    """What CSV charts are read from (a :class:`kandev_tui.workspace.reads.Workspace`): ``read_bytes`` returns a read
    with ``data`` and ``truncated``, or raises :class:`SourceReadError`."""

    def read_bytes(self, path: str, limit: int, repo: str | None = None) -> Any: ...


class CsvSourceError(PresentationError):
    """A CSV source could not be read or breaks a CSV rule; the message is the spec's."""


_QUOTED = re.compile(r'"((?:[^"]|"")*)"', re.S)
_UNQUOTED = re.compile(r'[^,"\n]*')
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_HEXFLOAT = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+", re.ASCII)


@dataclass(frozen=True)
class CsvTable:
    """A parsed CSV source: trimmed header names and the raw data records.

    ``records`` holds each data record with its 1-based record number (the
    header is record 1), blank lines skipped.
    """

    header: list[str]
    records: list[tuple[int, list[str]]]


def parse_csv(text: str) -> CsvTable:
    """Parse RFC 4180 text with ``,``: quoted fields may hold commas, ``""`` and
    newlines; blank lines are skipped; CRLF ends a line, a bare CR does not.

    Raises :class:`CsvSourceError` (without the path prefix) for the header and
    record-shape rules 1, 2 and 4 of spec §4.
    """
    records = _split_records(text)
    if not records:
        raise CsvSourceError("CSV source must contain a header row")
    _, raw_header = records[0]
    header = [name.strip().lstrip("\ufeff").strip() for name in raw_header]
    seen: set[str] = set()
    for index, name in enumerate(header, start=1):
        if not name:
            raise CsvSourceError(f"CSV header {index} must not be blank")
        if name in seen:
            raise CsvSourceError(f"CSV header {short_quote(name, 40)} is duplicated")
        seen.add(name)
    return CsvTable(header=header, records=records[1:])


def _split_records(text: str) -> list[tuple[int, list[str]]]:
    rows: list[tuple[int, list[str]]] = []
    if '"' not in text:  # the common case, without a tokenizer
        for line in text.split("\n"):
            if line.endswith("\r"):
                line = line[:-1]
            if line:
                rows.append((len(rows) + 1, line.split(",")))
        return rows
    pos, end = 0, len(text)
    while pos < end:
        number = len(rows) + 1
        fields: list[str] = []
        blank = True
        while True:
            if pos < end and text[pos] == '"':
                blank = False
                m = _QUOTED.match(text, pos)
                if not m:
                    raise CsvSourceError(f'CSV row {number} is invalid: a quoted field is not closed')
                fields.append(m.group(1).replace('""', '"'))
                pos = m.end()
                if pos < end and text[pos] not in ",\n" and not text.startswith("\r\n", pos):
                    raise CsvSourceError(f'CSV row {number} is invalid: unexpected text after a closing quote')
                if text.startswith("\r\n", pos):
                    pos += 1
            else:
                m = _UNQUOTED.match(text, pos)
                assert m is not None  # it matches the empty field too
                field = m.group(0)
                pos = m.end()
                if pos < end and text[pos] == '"':
                    raise CsvSourceError(f'CSV row {number} is invalid: a quote inside an unquoted field')
                if (pos >= end or text[pos] == "\n") and field.endswith("\r"):
                    field = field[:-1]
                if field:
                    blank = False
                fields.append(field)
            if pos < end and text[pos] == ",":
                blank = False
                pos += 1
                continue
            pos += 1  # past "\n" (or beyond the end)
            break
        if not (blank and fields == [""]):
            rows.append((number, fields))
    return rows


def parse_number(cell: str) -> float | None:
    """A numeric cell: trimmed; empty → None (a gap); else a finite float.

    Accepted like Go's ``strconv.ParseFloat`` (``12``, ``+5``, ``.5``, ``5.``,
    ``1e3``, ``-0``, ``00012``, hex with a ``p`` exponent); rejected: ``NaN``,
    ``Inf``, ``1e400``, ``12%``, ``$5``, ``1,000``, hex without an exponent.
    Raises ValueError when rejected.
    """
    cell = cell.strip()
    if not cell:
        return None
    if _DECIMAL.fullmatch(cell):
        value = float(cell)
    elif _HEXFLOAT.fullmatch(cell):
        sign = -1.0 if cell.startswith("-") else 1.0
        try:
            value = sign * float.fromhex(cell.lstrip("+-"))
        except OverflowError:
            value = math.inf
    else:
        raise ValueError(cell)
    if not math.isfinite(value):
        raise ValueError(cell)
    return value


def _json_number(value: float | None) -> float | int | None:
    """Integral floats as ints, so the snapshot's JSON reads ``12`` not ``12.0``."""
    if value is not None and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def chart_from_table(table: CsvTable, block: ChartBlock, block_index: int) -> dict[str, Any]:
    """Rules 3 and 4–7 of spec §4 for one chart; the snapshot entry for it."""
    assert block.csv is not None
    source = block.csv
    width = len(table.header)
    position = {name: index for index, name in enumerate(table.header)}
    columns = [source.x_column] + [s.column for s in source.series]
    for name in columns:
        if name not in position:
            raise CsvSourceError(f"CSV column {short_quote(name, 40)} was not found")
    for number, fields in table.records:
        if len(fields) != width:
            raise CsvSourceError(
                f"CSV row {number} is invalid: expected {width} fields, found {len(fields)}"
            )
    if len(table.records) > MAX_CSV_ROWS:
        raise CsvSourceError("CSV source must contain at most 100 data rows")
    if not table.records:
        raise CsvSourceError("CSV source must contain 1 to 100 data rows")
    x_at = position[source.x_column]
    series_at = [position[s.column] for s in source.series]
    labels: list[str] = []
    values: list[list[float | int | None]] = [[] for _ in series_at]
    x_name = short_quote(source.x_column, 40)
    for number, fields in table.records:
        x = fields[x_at].strip()
        if not x:
            raise CsvSourceError(f"CSV row {number} column {x_name} must not be blank")
        if len(x) > 120:
            raise CsvSourceError(f"CSV row {number} column {x_name} exceeds 120 characters")
        labels.append(x)
        for slot, (at, mapping) in enumerate(zip(series_at, source.series)):
            try:
                values[slot].append(_json_number(parse_number(fields[at])))
            except ValueError:
                raise CsvSourceError(
                    f"CSV row {number} column {short_quote(mapping.column, 40)} must be a finite number or empty"
                ) from None
    return {
        "block_index": block_index,
        "labels": labels,
        "series": [
            {"label": mapping.display_label, "values": series_values}
            for mapping, series_values in zip(source.series, values)
        ],
    }


def decode_csv_bytes(data: bytes, truncated: bool) -> str:
    """The read rules after "missing or unreadable": UTF-8 first, then the size."""
    text = _strict_utf8(data, truncated)
    if text is None:
        raise CsvSourceError("CSV source must be UTF-8 text")
    if truncated:
        raise CsvSourceError("CSV source exceeds 256 KiB")
    return text


def _strict_utf8(data: bytes, truncated: bool) -> str | None:
    """Strict UTF-8 (NUL included); a sequence cut by the byte bound is dropped."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if truncated and exc.reason == "unexpected end of data":
            return data[: exc.start].decode("utf-8")
        return None


def resolve_csv(presentation: Presentation, workspace: FileSource) -> dict[str, Any] | None:
    """Resolve every CSV chart of a validated presentation into the v1 snapshot.

    Each (repo, path) pair is read and parsed once, even when several charts
    use it. Returns ``{"version": 1, "resolved_charts": [...]}`` in block
    order, or None when the presentation has no CSV chart. Raises
    :class:`CsvSourceError` with the spec's message on the first problem; the
    snapshot keeps nothing of a file but the charted labels and values.
    """
    tables: dict[tuple[str, str], CsvTable] = {}
    charts = []
    for index in presentation.csv_block_indexes:
        block = presentation.blocks[index]
        assert isinstance(block, ChartBlock) and block.csv is not None
        source = block.csv
        key = (source.repo or "", source.path)
        table = tables.get(key)
        if table is None:
            try:
                read = workspace.read_bytes(source.path, MAX_CSV_BYTES, source.repo)
            except SourceReadError as exc:
                raise CsvSourceError(f"could not read CSV source {source.path}: {exc}") from None
            text = decode_csv_bytes(read.data, read.truncated)
            try:
                table = tables[key] = parse_csv(text)
            except CsvSourceError as exc:
                raise CsvSourceError(f"CSV source {source.path}: {exc}") from None
        try:
            charts.append(chart_from_table(table, block, index))
        except CsvSourceError as exc:
            raise CsvSourceError(f"CSV source {source.path}: {exc}") from None
    if not charts:
        return None
    snapshot = {"version": 1, "resolved_charts": charts}
    if encoded_size(snapshot) > MAX_SNAPSHOT_BYTES:
        raise CsvSourceError("normalized CSV chart snapshot exceeds 64 KiB")
    return snapshot
