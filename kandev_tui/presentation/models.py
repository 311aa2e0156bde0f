"""Pydantic v2 models of the rich-output contract v1 (spec §1).

Every object is closed (``extra="forbid"``); string lengths count code points;
``null`` is never accepted where the contract wants a string. Each constrained
type raises a ``PydanticCustomError`` whose message is the rule in the words an
agent reads (``must be 1-120 characters``); :mod:`.validate` turns the error's
location into a field path.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PlainValidator, model_validator
from pydantic_core import PydanticCustomError

from .paths import path_problem

MAX_ARGUMENT_BYTES = 65_536
MAX_SNAPSHOT_BYTES = 65_536
MAX_CSV_BYTES = 262_144
MAX_CSV_ROWS = 100
MAX_BLOCKS = 4
MAX_SERIES = 4
MAX_LABELS = 100
MAX_METRICS = 6


_SURROGATE = re.compile("[\ud800-\udfff]")


def _clean_surrogates(value: str) -> str:
    """Lone surrogates (from JSON ``"\\ud800"``) become U+FFFD, as Go's decoder does."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", value)


def _text(lo: int, hi: int, then: Any = None) -> PlainValidator:
    """A string of ``lo``-``hi`` code points, optionally checked further by ``then``; an explicit null is refused
    (an optional text field is absent or a string)."""
    rule = f"must be {lo}-{hi} characters" if lo else f"must be at most {hi} characters"

    def check(value: Any) -> str:
        if not isinstance(value, str):
            raise PydanticCustomError("kt_type", "must be a string")
        if not lo <= len(value) <= hi:
            raise PydanticCustomError("kt_length", rule)
        value = _clean_surrogates(value)
        return str(then(value)) if then else value

    return PlainValidator(check)


def _list(lo: int, hi: int, what: str) -> AfterValidator:
    """A length rule for an already-validated list (types are checked first)."""

    def check(value: list[Any]) -> list[Any]:
        if not lo <= len(value) <= hi:
            raise PydanticCustomError("kt_count", f"must hold {lo}-{hi} {what} (found {len(value)})")
        return value

    return AfterValidator(check)


def _list_type(value: Any) -> Any:
    if not isinstance(value, list):
        raise PydanticCustomError("kt_type", "must be an array")
    return value


def _number(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PydanticCustomError("kt_type", "must be a finite number or null")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise PydanticCustomError("kt_finite", "must be a finite number or null")
    return number


def _version(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != 1:
        raise PydanticCustomError("kt_version", "unknown version; only version 1 is supported")
    return 1


def _relative_path(value: str) -> str:
    problem = path_problem(value)
    if problem:
        raise PydanticCustomError("kt_path", problem)
    return value


def _csv_path(value: str) -> str:
    _relative_path(value)
    if not value.lower().endswith(".csv"):
        raise PydanticCustomError("kt_path", "must end in .csv")
    return value


def _chart_type(value: Any) -> str:
    if value not in ("line", "bar") or not isinstance(value, str):
        raise PydanticCustomError("kt_enum", "must be \"line\" or \"bar\"")
    return value


Text120 = Annotated[str, _text(1, 120)]
Text500 = Annotated[str, _text(1, 500)]
Text200 = Annotated[str, _text(1, 200)]
Opt120 = Annotated[str | None, _text(0, 120)]  # None: absent
Opt500 = Annotated[str | None, _text(0, 500)]  # None: absent
Opt255 = Annotated[str | None, _text(0, 255)]  # None: absent
Opt128 = Annotated[str | None, _text(0, 128)]  # None: absent
Number = Annotated[float | None, PlainValidator(_number)]
Version = Annotated[int, PlainValidator(_version)]
ChartType = Annotated[str, PlainValidator(_chart_type)]
FilePath = Annotated[str, _text(1, 1024, _relative_path)]
CsvPath = Annotated[str, _text(1, 1024, _csv_path)]


# an array field is Annotated[list[...], LIST, _list(lo, hi, what)]: a JSON array, then its length
LIST = BeforeValidator(_list_type)


def _one_value_per_label(labels: list[str], series: list["Series"]) -> None:
    """Each series has exactly one value per label (``series[1].values: 3 values for 4 labels``)."""
    for index, one in enumerate(series):
        if len(one.values) != len(labels):
            raise PydanticCustomError(
                "kt_sub",
                "{sub}: " + f"{len(one.values)} values for {len(labels)} labels",
                {"sub": f"series[{index}].values"},
            )


class Closed(BaseModel):
    """A closed, immutable contract object."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    def to_json(self) -> dict[str, Any]:
        """The object as plain JSON data, optional fields left out when absent."""
        return self.model_dump(mode="json", exclude_none=True)


class Series(Closed):
    label: Text120
    values: Annotated[list[Number], LIST, _list(0, MAX_LABELS, "values")]  # count checked against labels


class CsvSeries(Closed):
    column: Text120
    label: Annotated[str | None, _text(1, 120)] = None  # absent: the column names it; an explicit null is refused

    @property
    def display_label(self) -> str:
        return self.label if self.label is not None else self.column


class CsvSource(Closed):
    path: CsvPath
    repo: Opt255 = None
    x_column: Text120
    series: Annotated[list[CsvSeries], LIST, _list(1, MAX_SERIES, "series")]


class FileBlock(Closed):
    type: Literal["file"]
    path: FilePath
    repo: Opt255 = None
    title: Opt120 = None
    caption: Opt500 = None
    mime_type: Opt128 = None


class MetricItem(Closed):
    label: Text120
    value: Text200
    detail: Opt500 = None


class MetricsBlock(Closed):
    type: Literal["metrics"]
    items: Annotated[list[MetricItem], LIST, _list(1, MAX_METRICS, "items")]


class ChartBlock(Closed):
    type: Literal["chart"]
    chart_type: ChartType
    title: Text120
    summary: Text500
    labels: Annotated[list[Text120] | None, LIST, _list(1, MAX_LABELS, "labels")] = None  # LIST refuses a null
    series: Annotated[list[Series] | None, LIST, _list(1, MAX_SERIES, "series")] = None
    csv: CsvSource = None  # type: ignore[assignment]  # absent; an explicit null is refused (strict)

    @model_validator(mode="after")
    def _one_data_source(self) -> "ChartBlock":
        inline = self.labels is not None or self.series is not None
        if self.csv is not None and inline:
            raise PydanticCustomError(
                "kt_source", "use exactly one data source: inline labels and series, or csv, not both"
            )
        if self.csv is None:
            if not inline:
                raise PydanticCustomError(
                    "kt_source", "needs data: inline labels and series, or csv"
                )
            if self.labels is None:
                raise PydanticCustomError("kt_sub", "{sub}: is required with series", {"sub": "labels"})
            if self.series is None:
                raise PydanticCustomError("kt_sub", "{sub}: is required with labels", {"sub": "series"})
            _one_value_per_label(self.labels, self.series)
        return self

    @property
    def is_csv(self) -> bool:
        return self.csv is not None


Block = Annotated[Union[ChartBlock, MetricsBlock, FileBlock], Field(discriminator="type")]


class Presentation(Closed):
    """A validated rich-output document (contract v1)."""

    version: Version
    title: Text120
    description: Opt500 = None
    blocks: Annotated[list[Block], LIST, _list(1, MAX_BLOCKS, "blocks")]

    @property
    def csv_block_indexes(self) -> list[int]:
        return [i for i, b in enumerate(self.blocks) if isinstance(b, ChartBlock) and b.is_csv]


# --- the resolved CSV snapshot (spec §4) ---------------------------------


class ResolvedChart(Closed):
    block_index: Annotated[int, PlainValidator(lambda v: _block_index(v))]
    labels: Annotated[list[Text120], LIST, _list(1, MAX_LABELS, "labels")]
    series: Annotated[list[Series], LIST, _list(1, MAX_SERIES, "series")]

    @model_validator(mode="after")
    def _counts(self) -> "ResolvedChart":
        _one_value_per_label(self.labels, self.series)
        return self


def _block_index(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_BLOCKS:
        raise PydanticCustomError("kt_index", "must be an integer from 0 to 3")
    return value


class Snapshot(Closed):
    """The bounded result of resolving a presentation's CSV charts."""

    version: Version
    resolved_charts: Annotated[list[ResolvedChart], LIST, _list(1, MAX_BLOCKS, "resolved charts")]
