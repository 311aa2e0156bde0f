"""Reading a stored tool call back: the trust boundary of spec §6.

A transcript holds tool calls from many agents, live or years old. Nothing in
one is trusted: :func:`read_stored_call` decides whether a call is rich output
at all, extracts the arguments and result from the shapes agents and Kandev
have stored over time, re-validates everything and merges the CSV snapshot.
It never raises: any failure becomes the ``unavailable`` state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import ValidationError

from .errors import PresentationError
from .names import (  # noqa: F401 - re-exported
    KANDEV_NAMES, TOOL_NAME, extract_arguments, is_rich_output_call, is_rich_output_name,
)
from .models import ChartBlock, Presentation, Snapshot
from .validate import error_from_validation, parse_tool_input


class State(str, Enum):
    """What a stored call renders as."""

    READY = "ready"
    PENDING = "pending"
    RUNNING = "running"
    FAILED = "failed"
    CANCELLED = "cancelled"
    UNAVAILABLE = "unavailable"
    NOT_RICH_OUTPUT = "not-rich-output"


STATUS_STATES = {
    "pending": State.PENDING,
    "in_progress": State.RUNNING,
    "running": State.RUNNING,
    "complete": State.READY,
    "completed": State.READY,
    "error": State.FAILED,
    "failed": State.FAILED,
    "cancelled": State.CANCELLED,
    "canceled": State.CANCELLED,
}


@dataclass(frozen=True)
class StoredPresentation:
    """The outcome of reading one stored call.

    ``presentation`` is set only when ``state`` is READY: the validated
    document with every CSV chart replaced by an inline chart from the
    snapshot. ``error`` is the tool's error text for FAILED; ``reason`` an
    internal explanation for logs when UNAVAILABLE (never shown to users).
    """

    state: State
    presentation: Presentation | None = None
    error: str | None = None
    reason: str | None = None

    @property
    def is_rich_output(self) -> bool:
        return self.state is not State.NOT_RICH_OUTPUT


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def _join_text(blocks: list[Any]) -> Any:
    parts = [b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return _parse_json("".join(parts)) if parts else blocks


def extract_result(output: Any, depth: int = 0) -> Any:
    """Spec §6.3: structuredContent first, then joined text content as JSON,
    then a string as JSON, then an ``{error, result}`` wrapper unwrapped."""
    if output is None or depth > 4:
        return None
    if isinstance(output, str):
        stripped = output.strip()
        return _parse_json(stripped) if stripped else None
    if isinstance(output, list):
        return _join_text(output)
    if isinstance(output, dict):
        for key in ("structuredContent", "structured_content"):
            if output.get(key) is not None:
                return output[key]
        if isinstance(output.get("content"), list):
            return _join_text(output["content"])
        if "result" in output and ("error" in output or len(output) == 1):
            return extract_result(output["result"], depth + 1)
        if isinstance(output.get("output"), str) and set(output) <= {"output", "metadata", "title"}:
            return extract_result(output["output"], depth + 1)  # OpenCode's tool result: {output, metadata}
    return output


def error_text(output: Any) -> str:
    """The tool's error message from a failed call's output, as plain text."""
    if isinstance(output, dict):
        error = output.get("error")
        if isinstance(error, str) and error.strip():
            return error
        if isinstance(error, dict) and isinstance(message := error.get("message"), str):
            return message
        if isinstance(output.get("result"), (dict, list)):
            return error_text(output["result"])
        if isinstance(output.get("content"), list):
            return error_text(output["content"])
    if isinstance(output, list):
        parts = [b["text"] for b in output if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if parts:
            return "\n".join(parts)
    if isinstance(output, str) and output.strip():
        return output
    return "The tool reported an error."


def _snapshot_of(result: Any) -> Snapshot | None:
    """The validated snapshot in a result, None when there is none.

    ``Rich output accepted.`` (or no result) means no snapshot; so does the
    empty ``{"version":1,"resolved_charts":[]}`` older Kandev builds returned.
    Anything else that is not a valid snapshot raises PresentationError.
    """
    if result is None or isinstance(result, str):
        return None
    if isinstance(result, dict) and result.get("resolved_charts") == [] and result.get("version") == 1 and len(result) == 2:
        return None
    if isinstance(result, dict) and "resolved_charts" in result:
        try:
            return Snapshot.model_validate(result)
        except ValidationError as exc:
            raise error_from_validation(exc, "snapshot") from None
    raise PresentationError("the result is not a rich-output snapshot")


def merge_snapshot(presentation: Presentation, snapshot: Snapshot | None) -> Presentation:
    """Spec §6.5: every CSV chart becomes an inline chart from its snapshot entry."""
    csv_indexes = presentation.csv_block_indexes
    if not csv_indexes:
        if snapshot is not None:
            raise PresentationError("a snapshot is attached to a presentation with no CSV chart")
        return presentation
    if snapshot is None:
        raise PresentationError("CSV charts have no resolved snapshot")
    entries: dict[int, Any] = {}
    for entry in snapshot.resolved_charts:
        if entry.block_index in entries:
            raise PresentationError(f"the snapshot targets block {entry.block_index} twice")
        if entry.block_index not in csv_indexes:
            raise PresentationError(f"the snapshot targets block {entry.block_index}, which is not a CSV chart")
        entries[entry.block_index] = entry
    missing = [i for i in csv_indexes if i not in entries]
    if missing:
        raise PresentationError(f"the snapshot has no entry for CSV block {missing[0]}")
    blocks = list(presentation.blocks)
    for index in csv_indexes:
        block = blocks[index]
        entry = entries[index]
        assert isinstance(block, ChartBlock) and block.csv is not None
        expected = [s.display_label for s in block.csv.series]
        if [s.label for s in entry.series] != expected:
            raise PresentationError(f"the snapshot's series for block {index} do not match the CSV mapping")
        blocks[index] = ChartBlock.model_validate(
            {
                "type": "chart",
                "chart_type": block.chart_type,
                "title": block.title,
                "summary": block.summary,
                "labels": list(entry.labels),
                "series": [s.to_json() for s in entry.series],
            }
        )
    return presentation.model_copy(update={"blocks": blocks})


def read_reported_call(record: dict[str, Any], status: Any) -> StoredPresentation:
    """A call as kandev-tui's own MCP server saw it (a stored call's ``rich_output``: the arguments it was given and,
    once it answered, its outcome), re-validated as any stored call is. ``status``: the call's, for one the server
    never answered (running, or cancelled once its turn ended). Never raises."""
    try:
        if record.get("phase") != "end":
            state = STATUS_STATES.get(status.strip().lower() if isinstance(status, str) else "")
            return StoredPresentation(State.CANCELLED if state in (State.READY, State.FAILED, State.CANCELLED)
                                      else State.RUNNING)
        if record.get("is_error") is True:
            text = record.get("text")
            return StoredPresentation(State.FAILED, error=text if isinstance(text, str) and text.strip()
                                      else "The tool reported an error.")
        presentation = parse_tool_input(record.get("arguments"))
        structured = record.get("structured")
        snapshot = _snapshot_of(structured if structured is not None else extract_result(record.get("text")))
        return StoredPresentation(State.READY, presentation=merge_snapshot(presentation, snapshot))
    except PresentationError as exc:
        return StoredPresentation(State.UNAVAILABLE, reason=str(exc))
    except (RecursionError, MemoryError, ValueError, TypeError, AttributeError) as exc:
        return StoredPresentation(State.UNAVAILABLE, reason=f"unreadable stored call ({type(exc).__name__})")


def read_stored_call(name: Any, title: Any, status: Any, input: Any, output: Any,  # noqa: A002
                     content: Any = None, reported: Any = None) -> StoredPresentation:
    """Decide how a stored tool call renders (spec §6). Never raises.

    ``name`` is the normalised tool name (``kandev/show_rich_output_kandev``,
    ``other``, …), ``title`` the call's title or None, ``status`` a normalised
    (``pending``, ``in_progress``, ``complete``, ``error``, ``cancelled``) or
    ACP (``completed``, ``failed``) status. Only a completed call renders blocks.
    ``content``: the call's ACP content blocks, the result when there is no ``output`` (Gemini CLI passes an MCP
    result on only as content text). ``reported``: the call as kandev-tui's own server saw it, which is what it
    renders from when given (:func:`read_reported_call`), whatever the agent named it.
    """
    if isinstance(reported, dict):
        return read_reported_call(reported, status)
    try:
        if not is_rich_output_name(name if isinstance(name, str) else None, title if isinstance(title, str) else None):
            return StoredPresentation(State.NOT_RICH_OUTPUT)
        state = STATUS_STATES.get(status.strip().lower() if isinstance(status, str) else "")
        if state is None:
            return StoredPresentation(State.UNAVAILABLE, reason=f"unknown status {str(status)[:40]!r}")
        if state is State.FAILED:
            return StoredPresentation(State.FAILED, error=error_text(output))
        if state is not State.READY:
            return StoredPresentation(state)
        presentation = parse_tool_input(extract_arguments(input))
        if output is None and isinstance(content, list):
            output = {"content": [block.get("content") for block in content if isinstance(block, dict)
                                  and block.get("type") == "content"]}
        snapshot = _snapshot_of(extract_result(output))
        return StoredPresentation(State.READY, presentation=merge_snapshot(presentation, snapshot))
    except PresentationError as exc:
        return StoredPresentation(State.UNAVAILABLE, reason=str(exc))
    except (RecursionError, MemoryError, ValueError, TypeError) as exc:
        return StoredPresentation(State.UNAVAILABLE, reason=f"unreadable stored call ({type(exc).__name__})")


def read_tool_call(call: dict[str, Any], status: Any) -> StoredPresentation:
    """How a stored tool call (an item's payload, of any age or agent) renders: from what kandev-tui's own server saw
    (:func:`read_reported_call`) when it was reached; else by the agent's dialect (:func:`read_stored_call`). Never
    raises."""
    if not isinstance(call, dict) or not is_rich_output_call(call):
        return StoredPresentation(State.NOT_RICH_OUTPUT)
    return read_stored_call(call.get("name"), call.get("title"), status, call.get("input"), call.get("output"),
                            call.get("content"), reported=call.get("rich_output"))
