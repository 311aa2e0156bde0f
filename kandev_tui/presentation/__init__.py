"""The rich-output contract v1, headless (no Textual import).

Public API:

- :func:`parse_tool_input` — full v1 validation of a tool call's arguments;
  raises :class:`PresentationError` naming the field path and the rule.
- :func:`resolve_csv` — reads each CSV source once (through
  :class:`kandev_tui.workspace.Workspace`) and returns the bounded snapshot.
- :func:`read_stored_call` — the trust boundary for stored calls; returns a
  :class:`StoredPresentation` in one of the :class:`State` values.
- :func:`format_x_ticks`, :func:`format_y_tick` — axis text per spec §7.
- :data:`GUIDANCE`, :func:`guidance`, :data:`INPUT_SCHEMA` — what agents are told.
"""

from .axis import format_x_ticks, format_y_tick
from .csvsnap import CsvSourceError, parse_csv, parse_number, resolve_csv
from .errors import PresentationError
from .guidance import GUIDANCE, INPUT_SCHEMA, TOOL_DESCRIPTION, guidance
from .models import ChartBlock, FileBlock, MetricsBlock, Presentation, Snapshot
from .stored import State, StoredPresentation, TOOL_NAME, is_rich_output_name, read_stored_call
from .validate import encoded_size, parse_tool_input

__all__ = [
    "ChartBlock", "CsvSourceError", "FileBlock", "GUIDANCE", "INPUT_SCHEMA", "MetricsBlock",
    "Presentation", "PresentationError", "Snapshot", "State", "StoredPresentation", "TOOL_DESCRIPTION",
    "TOOL_NAME", "encoded_size", "format_x_ticks", "format_y_tick", "guidance", "is_rich_output_name",
    "parse_csv", "parse_number", "parse_tool_input", "read_stored_call", "resolve_csv",
]
