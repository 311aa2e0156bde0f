"""The result shapes the fleet renderers accept (pydantic v2, headless).

Each model is what one operations tool returns (its ``__renderer`` id in
brackets). Unknown keys are ignored, so a tool may return more than a card
shows; a missing or mistyped required key rejects the result and the generic
display shows it instead. Health words outside ``healthy / degraded / down /
unknown`` (any case) read as ``unknown``. Datetimes are ISO 8601; a time with no
zone is UTC.

- ``EntityResult`` [entity_card]: ``slug``, ``type``, ``health``, ``state``,
  ``attributes`` (a flat object of scalars), ``last_checked``, ``as_of``
  (the tool's own clock: "last checked" is measured from it when given).
- ``HealthSummaryResult`` [health_summary]: ``healthy``, ``degraded``, ``down``
  (counts), optional ``unknown``.
- ``LxcListResult`` [lxc_list]: ``lxcs``: ``[{name, host, ip, health, status}]``.
- ``EntityListResult`` [entity_table]: ``entities``: ``[{slug, type, health, state}]``.
- ``KnowledgeResult`` [knowledge_results]: ``results``: ``[{title, excerpt, tags}]``.
- ``MetricSeriesResult`` [metric_chart]: ``metric``, ``unit``,
  ``buckets``: ``[{t, value}]`` (``value`` may be null for a gap).
- ``BlastRadiusResult`` [blast_radius]: ``root``, ``impacted``: ``[{slug, type,
  health, hops}]`` (``hops`` 0 is a direct dependant).
- ``ChangeLogResult`` [change_log]: ``entries``: ``[{at, summary, actor, entity}]``.
- ``FleetSnapshotResult`` [fleet_snapshot]: ``healthy``, ``degraded``,
  ``down``, ``unknown``, ``drift``, ``taken_at``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated, Any, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

HEALTHS = ("healthy", "degraded", "down", "unknown")
MAX_ROWS = 500


def without_surrogates(value: Any, depth: int = 0) -> Any:
    """``value`` with lone surrogates (JSON ``"\\ud800"``, invalid UTF-8 on the way in) as U+FFFD, which
    pydantic would otherwise refuse as "not a valid string"."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in value)
    if depth > 50:
        return value
    if isinstance(value, dict):
        return {without_surrogates(k, depth + 1): without_surrogates(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [without_surrogates(v, depth + 1) for v in value]
    return value


def _health(value: Any) -> str:
    if value is None:
        return "unknown"
    if not isinstance(value, str):
        raise ValueError("health must be a string")
    word = value.strip().lower()
    return word if word in HEALTHS else "unknown"


def _utc(value: Any) -> Any:
    if isinstance(value, datetime) and value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value


Health = Annotated[str, BeforeValidator(_health)]
Name = Annotated[str, Field(min_length=1, max_length=500)]
Text = Annotated[str, Field(max_length=20_000)]
Count = Annotated[int, Field(ge=0, le=10**12)]
Scalar = Union[str, int, float, bool, None]


class Shape(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, str_strip_whitespace=False)

    @property
    def is_empty(self) -> bool:
        return False


class _Timed(Shape):
    @field_validator("*", mode="after")
    @classmethod
    def _zone(cls, value: Any) -> Any:
        return _utc(value)


class EntityResult(_Timed):
    slug: Name
    type: Name = "entity"
    health: Health = "unknown"
    state: Annotated[str, Field(max_length=200)] | None = None
    attributes: dict[Annotated[str, Field(max_length=200)], Scalar] = Field(default_factory=dict, max_length=200)
    last_checked: datetime | None = None
    as_of: datetime | None = None


class HealthSummaryResult(Shape):
    healthy: Count
    degraded: Count
    down: Count
    unknown: Count = 0

    @property
    def total(self) -> int:
        return self.healthy + self.degraded + self.down + self.unknown

    @property
    def is_empty(self) -> bool:
        return self.total == 0


class Lxc(Shape):
    name: Name
    host: Annotated[str, Field(max_length=200)] = ""
    ip: Annotated[str, Field(max_length=200)] = ""
    health: Health = "unknown"
    status: Annotated[str, Field(max_length=200)] = ""


class LxcListResult(Shape):
    lxcs: list[Lxc] = Field(max_length=MAX_ROWS)

    @property
    def is_empty(self) -> bool:
        return not self.lxcs


class EntityRow(Shape):
    slug: Name
    type: Annotated[str, Field(max_length=200)] = ""
    health: Health = "unknown"
    state: Annotated[str, Field(max_length=200)] = ""


class EntityListResult(Shape):
    entities: list[EntityRow] = Field(max_length=MAX_ROWS)

    @property
    def is_empty(self) -> bool:
        return not self.entities


class Knowledge(Shape):
    title: Name
    excerpt: Text = ""
    tags: list[Annotated[str, Field(max_length=100)]] = Field(default_factory=list, max_length=50)


class KnowledgeResult(Shape):
    results: list[Knowledge] = Field(max_length=MAX_ROWS)

    @property
    def is_empty(self) -> bool:
        return not self.results


class Bucket(_Timed):
    t: datetime
    value: Annotated[float, Field(allow_inf_nan=False, ge=-1e300, le=1e300)] | None = None


class MetricSeriesResult(Shape):
    metric: Name
    unit: Annotated[str, Field(max_length=40)] = ""
    buckets: list[Bucket] = Field(max_length=2_000)

    @property
    def values(self) -> list[float]:
        return [b.value for b in self.buckets if b.value is not None]

    @property
    def is_empty(self) -> bool:
        return not self.values


class Impacted(Shape):
    slug: Name
    type: Annotated[str, Field(max_length=200)] = ""
    health: Health = "unknown"
    hops: Annotated[int, Field(ge=0, le=100)] = 0


class BlastRadiusResult(Shape):
    root: Name
    impacted: list[Impacted] = Field(max_length=MAX_ROWS)

    @property
    def is_empty(self) -> bool:
        return not self.impacted


class Change(_Timed):
    at: datetime
    summary: Text
    actor: Annotated[str, Field(max_length=200)] = ""
    entity: Annotated[str, Field(max_length=500)] = ""


class ChangeLogResult(Shape):
    entries: list[Change] = Field(max_length=MAX_ROWS)

    @property
    def is_empty(self) -> bool:
        return not self.entries


class FleetSnapshotResult(_Timed):
    healthy: Count
    degraded: Count
    down: Count
    unknown: Count = 0
    drift: Count = 0
    taken_at: datetime | None = None

    @property
    def is_empty(self) -> bool:
        return self.healthy + self.degraded + self.down + self.unknown == 0


def relative_time(then: datetime, now: datetime) -> str:
    """``42s ago``, ``3m ago``, ``5h ago``, ``2d ago``; ``just now`` for under 5 s or a clock ahead of ``now``."""
    seconds = (_utc(now) - _utc(then)).total_seconds()
    if seconds < 5:
        return "just now"
    if seconds < 60:
        return f"{int(seconds)}s ago"
    if seconds < 2 * 3_600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 2 * 86_400:
        return f"{int(seconds // 3_600)}h ago"
    return f"{int(seconds // 86_400)}d ago"
