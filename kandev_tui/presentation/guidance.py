"""What agents are told: the tool's input schema, description and guidance."""

from __future__ import annotations

from typing import Any

from .names import TOOL_NAME

INLINE_CHART_EXAMPLE: dict[str, Any] = {
    "version": 1,
    "title": "Failed requests",
    "blocks": [
        {
            "type": "chart",
            "chart_type": "bar",
            "title": "Failed requests by service",
            "summary": "API failures doubled in the latest interval.",
            "labels": ["api", "billing", "web"],
            "series": [
                {"label": "Previous", "values": [21, 27, 3]},
                {"label": "Latest", "values": [42, 25, None]},
            ],
        }
    ],
}

CSV_CHART_EXAMPLE: dict[str, Any] = {
    "version": 1,
    "title": "Build health",
    "description": "Latest local verification",
    "blocks": [
        {"type": "metrics", "items": [{"label": "Passed", "value": "38"}, {"label": "Duration", "value": "12.4s", "detail": "Warm cache"}]},
        {
            "type": "chart",
            "chart_type": "line",
            "title": "Runtime by run",
            "summary": "Runtime fell across the last five runs.",
            "csv": {"path": "reports/build-times.csv", "x_column": "started_at", "series": [{"column": "seconds", "label": "Seconds"}]},
        },
        {"type": "file", "path": "reports/build.json", "title": "Raw report", "mime_type": "application/json"},
    ],
}

TOOL_DESCRIPTION = (
    "Show results to the user as native charts, metric panels and file previews in the host's "
    "transcript. Call it when numbers, trends or comparisons are clearer as a chart or metrics than "
    "as prose. Never draw ASCII, SVG or HTML charts instead: the host owns axes, legends, colours "
    "and layout. Up to 4 blocks; every string is plain text. For data in a workspace CSV file "
    "(up to 100 rows), pass a csv source instead of copying values."
)


def _s(lo: int, hi: int) -> dict[str, Any]:
    return {"type": "string", "minLength": lo, "maxLength": hi}


_NUMBER_OR_GAP = {"type": ["number", "null"]}
_SERIES = {
    "type": "object",
    "additionalProperties": False,
    "required": ["label", "values"],
    "properties": {"label": _s(1, 120), "values": {"type": "array", "maxItems": 100, "items": _NUMBER_OR_GAP}},
}
_CHART_COMMON = {
    "type": {"const": "chart"},
    "chart_type": {"enum": ["line", "bar"]},
    "title": _s(1, 120),
    "summary": _s(1, 500),
}

INPUT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Rich output v1",
    "type": "object",
    "additionalProperties": False,
    "required": ["version", "title", "blocks"],
    "properties": {
        "version": {"const": 1},
        "title": _s(1, 120),
        "description": _s(0, 500),
        "blocks": {
            "type": "array",
            "minItems": 1,
            "maxItems": 4,
            "items": {
                "oneOf": [
                    {
                        "title": "Inline chart (one value per label per series; null is a gap)",
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["type", "chart_type", "title", "summary", "labels", "series"],
                        "properties": {
                            **_CHART_COMMON,
                            "labels": {"type": "array", "minItems": 1, "maxItems": 100, "items": _s(1, 120)},
                            "series": {"type": "array", "minItems": 1, "maxItems": 4, "items": _SERIES},
                        },
                    },
                    {
                        "title": "CSV chart (a workspace CSV, resolved once when called)",
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["type", "chart_type", "title", "summary", "csv"],
                        "properties": {
                            **_CHART_COMMON,
                            "csv": {
                                "type": "object",
                                "additionalProperties": False,
                                "required": ["path", "x_column", "series"],
                                "properties": {
                                    "path": {**_s(1, 1024), "pattern": "(?i)\\.csv$"},
                                    "repo": _s(0, 255),
                                    "x_column": _s(1, 120),
                                    "series": {
                                        "type": "array",
                                        "minItems": 1,
                                        "maxItems": 4,
                                        "items": {
                                            "type": "object",
                                            "additionalProperties": False,
                                            "required": ["column"],
                                            "properties": {"column": _s(1, 120), "label": _s(1, 120)},
                                        },
                                    },
                                },
                            },
                        },
                    },
                    {
                        "title": "Metric group",
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["type", "items"],
                        "properties": {
                            "type": {"const": "metrics"},
                            "items": {
                                "type": "array",
                                "minItems": 1,
                                "maxItems": 6,
                                "items": {
                                    "type": "object",
                                    "additionalProperties": False,
                                    "required": ["label", "value"],
                                    "properties": {"label": _s(1, 120), "value": _s(1, 200), "detail": _s(0, 500)},
                                },
                            },
                        },
                    },
                    {
                        "title": "Workspace file preview (read only when the user opens it)",
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["type", "path"],
                        "properties": {
                            "type": {"const": "file"},
                            "path": _s(1, 1024),
                            "repo": _s(0, 255),
                            "title": _s(0, 120),
                            "caption": _s(0, 500),
                            "mime_type": _s(0, 128),
                        },
                    },
                ]
            },
        },
    },
    "examples": [INLINE_CHART_EXAMPLE, CSV_CHART_EXAMPLE],
}

_RULES = (
    "Rules: version 1; 1-4 blocks; every object is closed (no extra keys); every string is plain text "
    "(no Markdown, HTML, escapes or colours); titles 1-120 characters, summaries 1-500; a chart takes "
    "inline labels and series (1-100 labels, 1-4 series, exactly one finite number or null per label) "
    "or a csv source, never both; CSV paths are workspace-relative, end in .csv, hold at most 100 rows "
    "and 256 KiB; the whole call is at most 64 KiB. Never draw ASCII/SVG/HTML charts: the host owns "
    "axes, legends, colours and layout. Keep small tables as Markdown in your message."
)

PROFILES = ("task", "office", "config", "external")
RICH_OUTPUT_PROFILES = ("task", "office")


def guidance(profile: str = "task") -> str:
    """The compact guidance paragraph for agents of a profile (task or office).

    It holds one inline-chart, one CSV-chart and one metric-group recipe, each
    exactly once, and the rules of spec §5.
    """
    if profile not in RICH_OUTPUT_PROFILES:
        raise ValueError(f"profile {profile!r} has no rich output; use task or office")
    audience = "while you work on the task" if profile == "task" else "for the people you report to"
    return (
        f"To show results {audience}, call the {TOOL_NAME} tool instead of describing numbers in prose. "
        'Inline chart: {"version":1,"title":"Failures","blocks":[{"type":"chart","chart_type":"bar",'
        '"title":"Failures by service","summary":"API failures doubled.","labels":["api","web"],'
        '"series":[{"label":"Failures","values":[42,7]}]}]}. '
        'CSV chart: {"version":1,"title":"Runtime","blocks":[{"type":"chart","chart_type":"line",'
        '"title":"Runtime by run","summary":"Runtime fell.","csv":{"path":"reports/times.csv",'
        '"x_column":"started_at","series":[{"column":"seconds","label":"Seconds"}]}}]}. '
        'Metric group: {"version":1,"title":"Build","blocks":[{"type":"metrics","items":'
        '[{"label":"Passed","value":"38"},{"label":"Duration","value":"12.4s","detail":"Warm cache"}]}]}. '
        + _RULES
    )


GUIDANCE = guidance("task")
