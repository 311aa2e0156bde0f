"""Full v1 validation of tool arguments: :func:`parse_tool_input`."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from .errors import PresentationError, short_quote
from .models import MAX_ARGUMENT_BYTES, Presentation

_BLOCK_TAGS = {"chart", "metrics", "file"}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,40}$")


def encoded_size(obj: Any) -> int:
    """Bytes of ``obj`` as compact UTF-8 JSON: the measure of every size limit.

    ``separators=(",", ":")`` and ``ensure_ascii=False``, so ``<``, ``>`` and
    ``&`` count one byte each and a code point counts its UTF-8 length.
    """
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return len(text.encode("utf-8", "surrogatepass"))


def format_loc(loc: tuple[Any, ...]) -> str:
    """``('blocks', 1, 'chart', 'series', 0)`` → ``blocks[1].series[0]``.

    The discriminator tag pydantic inserts after a block index is dropped, and
    a key that is not a plain identifier is quoted (short and sanitised).
    """
    out = ""
    previous: Any = None
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif previous is not None and isinstance(previous, int) and part in _BLOCK_TAGS and out.startswith("blocks"):
            pass
        else:
            name = part if _IDENT.match(str(part)) else short_quote(str(part))
            out += f".{name}" if out else name
        previous = part
    return out


def _message(error: ErrorDetails) -> tuple[str, str]:
    """Turn one pydantic error into (field path, rule)."""
    loc = tuple(error.get("loc", ()))
    kind = error.get("type", "")
    ctx = error.get("ctx") or {}
    path = format_loc(loc)
    if kind.startswith("kt_"):
        if kind == "kt_sub":
            sub = ctx.get("sub", "")
            rule = error["msg"].split(": ", 1)[1] if ": " in error["msg"] else error["msg"]
            return (f"{path}.{sub}" if path else sub), rule
        return path, error["msg"]
    if kind == "missing":
        return path, "is required"
    if kind == "extra_forbidden":
        return path, "unknown field (objects are closed in version 1)"
    if kind in {"model_type", "model_attributes_type", "dict_type"}:
        return path, "must be an object"
    if kind == "union_tag_invalid":
        return f"{path}.type", 'must be "chart", "metrics" or "file"'
    if kind == "union_tag_not_found":
        return f"{path}.type", "is required (one of chart, metrics, file)"
    if kind == "literal_error":
        return path, "has an unexpected value"
    if kind == "list_type":
        return path, "must be an array"
    return path, "is invalid"


def error_from_validation(exc: ValidationError, prefix: str = "") -> PresentationError:
    """One concise :class:`PresentationError` from a pydantic ``ValidationError``."""
    errors = exc.errors(include_url=False, include_input=False)
    path, rule = _message(errors[0])
    if prefix:
        path = f"{prefix}.{path}" if path else prefix
    if len(errors) > 1:
        rule += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return PresentationError(rule, path)


def parse_tool_input(obj: Any) -> Presentation:
    """Validate a ``show_rich_output_kandev`` call's arguments against contract v1.

    Checks, in order: a JSON object; at most 65,536 bytes as compact UTF-8
    JSON; ``version`` (an unknown version is reported alone, never guessed);
    then every field rule of spec §1 (closed objects, code-point lengths, one
    data source per chart, one value per label, finite numbers, path rules).

    Returns the :class:`Presentation`; raises :class:`PresentationError`
    naming the field path and the rule. Nothing is read from disk here.
    """
    if not isinstance(obj, dict):
        raise PresentationError("arguments must be a JSON object")
    try:
        size = encoded_size(obj)
    except (TypeError, ValueError, RecursionError):
        raise PresentationError("arguments must be plain JSON data") from None
    if size > MAX_ARGUMENT_BYTES:
        raise PresentationError(
            f"arguments are {size:,} bytes; the limit is {MAX_ARGUMENT_BYTES:,} bytes of compact UTF-8 JSON"
        )
    if "version" not in obj:
        raise PresentationError("is required", "version")
    try:
        return Presentation.model_validate(obj)
    except ValidationError as exc:
        for error in exc.errors(include_url=False, include_input=False):
            if error.get("type") == "kt_version" and tuple(error.get("loc", ())) == ("version",):
                raise PresentationError(error["msg"], "version") from None
        raise error_from_validation(exc) from None
    except RecursionError:
        raise PresentationError("arguments are nested too deeply") from None
