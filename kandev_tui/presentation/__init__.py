"""The rich-output contract v1, headless (no Textual import).

Public API:

- :func:`parse_tool_input` — full v1 validation of a tool call's arguments;
  raises :class:`PresentationError` naming the field path and the rule.
- :func:`resolve_csv` — reads each CSV source once (through
  :class:`kandev_tui.workspace.reads.Workspace`) and returns the bounded snapshot.
- :func:`read_stored_call` — the trust boundary for stored calls; returns a
  :class:`StoredPresentation` in one of the :class:`State` values.
- :func:`format_x_ticks`, :func:`format_y_tick` — axis text per spec §7.
- :data:`GUIDANCE`, :func:`guidance`, :data:`INPUT_SCHEMA` — what agents are told.
"""

from importlib import import_module
from typing import Any

# light (no pydantic), and eager: the submodule's name is also the function's
from .guidance import GUIDANCE, INPUT_SCHEMA, TOOL_DESCRIPTION, guidance

# each name loads its own module on first use (PEP 562): the app draws its first frame without pydantic
_HOMES = {
    "format_x_ticks": "axis", "format_y_tick": "axis",
    "CsvSourceError": "csvsnap", "parse_csv": "csvsnap", "parse_number": "csvsnap", "resolve_csv": "csvsnap",
    "PresentationError": "errors",
    "ChartBlock": "models", "FileBlock": "models", "MetricsBlock": "models", "Presentation": "models",
    "Snapshot": "models",
    "State": "stored", "StoredPresentation": "stored", "TOOL_NAME": "names", "is_rich_output_name": "names",
    "read_stored_call": "stored", "read_tool_call": "stored", "is_rich_output_call": "names",
    "encoded_size": "validate", "parse_tool_input": "validate",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


__all__ = [
    "ChartBlock", "CsvSourceError", "FileBlock", "GUIDANCE", "INPUT_SCHEMA", "MetricsBlock",
    "Presentation", "PresentationError", "Snapshot", "State", "StoredPresentation", "TOOL_DESCRIPTION",
    "TOOL_NAME", "encoded_size", "format_x_ticks", "format_y_tick", "guidance", "is_rich_output_call",
    "is_rich_output_name", "parse_csv", "parse_number", "parse_tool_input", "read_stored_call", "read_tool_call",
    "resolve_csv",
]
