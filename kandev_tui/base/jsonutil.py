"""JSON text that can always be written as UTF-8.

Agents may send JSON string escapes for lone surrogates (``"\\ud800"``); Python decodes them
into strings that cannot be encoded as UTF-8. :func:`dumps` keeps non-ASCII text readable and
falls back to ASCII escapes only for such values, so they are stored and printed exactly
(``json.loads`` gives the same string back) instead of failing.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, TypeVar


def dumps(value: Any, **options: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, **options)
    return text


def json_object(text: Any) -> dict[str, Any] | None:
    """The JSON object a text holds (an agent's result sent as JSON text), or None when it holds none."""
    if not isinstance(text, str):
        return None
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return None
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


Kind = TypeVar("Kind")
Default = TypeVar("Default")


def of_type(obj: Mapping[str, Any], key: str, kind: type[Kind], default: Default) -> Kind | Default:
    """``obj[key]`` when it is there and a ``kind`` (an agent's JSON may hold anything anywhere), else ``default``."""
    value = obj.get(key)
    return value if isinstance(value, kind) else default
