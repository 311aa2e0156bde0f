"""ACP elicitation (``elicitation/create``, ``elicitation/complete``): an agent asks the user for structured input.

Two modes. **Form**: a restricted JSON Schema, an object of primitive fields (strings, with ``format`` email, uri,
date or date-time; numbers and integers with bounds; booleans; single-choice enums; multi-choice arrays), which
:func:`parse_form` reads into :class:`Field` s or refuses with the reason (a nested object, a ``$ref``, a type it
does not know: such a request is declined, never drawn as something it is not). :func:`check` validates what the
user typed, field by field. **URL**: the agent asks the user to open a URL; :func:`url_target` says what host it
goes to (IDN shown as punycode, user-info tricks named) or why it must not be opened at all.

:class:`~kandev_tui.transcript.elicitations.Elicitations` makes the transcript's items of them: one per request, ``pending`` until answered
(``accepted``, ``declined``, ``cancelled``), ``withdrawn`` when the agent gives up on it, ``completed`` when a URL
interaction it opened is done. Headless: no UI here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from urllib.parse import unquote, urlsplit

from kandev_tui.base.jsonutil import of_type


TEXT, NUMBER, INTEGER, BOOLEAN, CHOICE, CHOICES = "text", "number", "integer", "boolean", "choice", "choices"
FORMATS = ("email", "uri", "date", "date-time")
PENDING, ACCEPTED, DECLINED, CANCELLED, WITHDRAWN, COMPLETED = (
    "pending", "accepted", "declined", "cancelled", "withdrawn", "completed")
ANSWERED = {"accept": ACCEPTED, "decline": DECLINED, "cancel": CANCELLED}
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
MAX_FIELDS = 100  # a form of more is refused: nobody answers it in a terminal
MAX_OPTIONS = 5000


@dataclass(frozen=True)
class Field:
    """One field of a form: ``kind`` is one of TEXT, NUMBER, INTEGER, BOOLEAN, CHOICE, CHOICES; ``options`` the
    (value, title) pairs of a choice."""

    name: str
    kind: str
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    options: tuple[tuple[str, str], ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    format: str | None = None
    min_items: int | None = None
    max_items: int | None = None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _options(spec: dict[str, Any]) -> tuple[tuple[str, str], ...] | str:
    """A choice's options from ``oneOf``/``anyOf`` (titled) or ``enum`` (with ``enumNames``), or why not."""
    titled = spec.get("oneOf") if isinstance(spec.get("oneOf"), list) else spec.get("anyOf")
    if isinstance(titled, list):
        pairs = [(o["const"], _text(o.get("title")) or o["const"]) for o in titled
                 if isinstance(o, dict) and isinstance(o.get("const"), str)]
    elif isinstance(spec.get("enum"), list):
        names = of_type(spec, "enumNames", list, [])
        values = [v for v in spec["enum"] if isinstance(v, str)]
        pairs = [(v, names[i] if i < len(names) and isinstance(names[i], str) else v) for i, v in enumerate(values)]
    else:
        return "it lists no options"
    if not pairs:
        return "it lists no options"
    if len(pairs) > MAX_OPTIONS:
        return f"it lists {len(pairs)} options (at most {MAX_OPTIONS})"
    return tuple(dict(pairs).items())  # one option per value


def _field(name: str, spec: Any, required: bool) -> Field | str:
    if not isinstance(spec, dict):
        return f"field {name!r} is not a schema"
    if "$ref" in spec:
        return f"field {name!r} refers to another schema ($ref)"
    kind = spec.get("type")
    common: dict[str, Any] = {"name": name, "title": _text(spec.get("title")) or name, "description": _text(spec.get("description")),
              "required": required}
    if kind == "string":
        if any(k in spec for k in ("enum", "oneOf", "anyOf")):
            options = _options(spec)
            if isinstance(options, str):
                return f"field {name!r}: {options}"
            default = spec.get("default") if spec.get("default") in dict(options) else None
            return Field(kind=CHOICE, options=options, default=default, **common)
        fmt = spec.get("format")
        if fmt is not None and fmt not in FORMATS:
            return f"field {name!r} has the format {str(fmt)[:40]!r}, which kandev-tui cannot check"
        pattern = of_type(spec, "pattern", str, None)
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error:
                return f"field {name!r} has a pattern that is not a regular expression"
        return Field(kind=TEXT, default=of_type(spec, "default", str, None),
                     min_length=_count(spec.get("minLength")), max_length=_count(spec.get("maxLength")),
                     pattern=pattern, format=fmt, **common)
    if kind in ("number", "integer"):
        default = _number(spec.get("default"))
        if kind == "integer" and default is not None and default != int(default):
            default = None
        return Field(kind=NUMBER if kind == "number" else INTEGER, default=default,
                     minimum=_number(spec.get("minimum")), maximum=_number(spec.get("maximum")), **common)
    if kind == "boolean":
        return Field(kind=BOOLEAN, default=spec.get("default") if isinstance(spec.get("default"), bool) else None,
                     **common)
    if kind == "array":
        items = spec.get("items")
        if not isinstance(items, dict) or (items.get("type") not in (None, "string")):
            return f"field {name!r} is a list of something other than choices"
        options = _options(items)
        if isinstance(options, str):
            return f"field {name!r}: {options}"
        values = dict(options)
        default = spec.get("default")
        default = tuple(v for v in default if v in values) if isinstance(default, list) else None
        return Field(kind=CHOICES, options=options, default=default, min_items=_count(spec.get("minItems")),
                     max_items=_count(spec.get("maxItems")), **common)
    if kind == "object":
        return f"field {name!r} is a nested object"
    return f"field {name!r} has the type {str(kind)[:40]!r}, which kandev-tui cannot ask for"


def parse_form(schema: Any) -> tuple[list[Field], str]:
    """The fields of a form's ``requestedSchema``, in its order, and "" — or no fields and why kandev-tui cannot ask
    for it (the request is then declined)."""
    if not isinstance(schema, dict):
        return [], "the form has no schema"
    if "$ref" in schema or "$defs" in schema or "definitions" in schema:
        return [], "the form refers to other schemas ($ref)"
    if schema.get("type", "object") != "object":
        return [], "the form is not an object of fields"
    properties = of_type(schema, "properties", dict, {})
    if len(properties) > MAX_FIELDS:
        return [], f"the form has {len(properties)} fields (at most {MAX_FIELDS})"
    required = {r for r in schema.get("required") or [] if isinstance(r, str)} \
        if isinstance(schema.get("required"), list) else set()
    fields = []
    for name, spec in properties.items():
        field = _field(str(name), spec, name in required)
        if isinstance(field, str):
            return [], field
        fields.append(field)
    return fields, ""


def _bounds(field: Field, number: float) -> str:
    if field.minimum is not None and number < field.minimum:
        return f"at least {field.minimum:g}"
    if field.maximum is not None and number > field.maximum:
        return f"at most {field.maximum:g}"
    return ""


def _text_problem(field: Field, text: str) -> str:
    if field.min_length is not None and len(text) < field.min_length:
        return f"at least {field.min_length} characters"
    if field.max_length is not None and len(text) > field.max_length:
        return f"at most {field.max_length} characters"
    if field.pattern is not None and re.search(field.pattern, text) is None:
        return "not in the form asked for"
    if field.format == "email" and not EMAIL.match(text):
        return "an email address, such as name@example.com"
    if field.format == "uri":
        parts = urlsplit(text)
        if not parts.scheme or not (parts.netloc or parts.path):
            return "a URI, such as https://example.com/"
    if field.format == "date":
        try:
            date.fromisoformat(text)
        except ValueError:
            return "a date, such as 2026-12-04"
    if field.format == "date-time":
        try:
            datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            return "a date and time, such as 2026-12-04T09:30:00Z"
    return ""


def check(field: Field, raw: Any) -> tuple[Any, str]:
    """What the user gave for ``field`` (the text typed, a bool, the values chosen) as the answer's value, and ""
    — or None and what is wrong with it. An optional field left empty is None and ""."""
    empty = raw is None or raw == "" or (field.kind == CHOICES and not raw)
    if empty and field.kind != BOOLEAN:
        return None, ("required" if field.required else "")
    if field.kind == BOOLEAN:
        return bool(raw), ""
    if field.kind == CHOICE:
        return (raw, "") if raw in dict(field.options) else (None, "choose one of the options")
    if field.kind == CHOICES:
        chosen = [v for v in raw if v in dict(field.options)]
        if field.min_items is not None and len(chosen) < field.min_items:
            return None, f"choose at least {field.min_items}"
        if field.max_items is not None and len(chosen) > field.max_items:
            return None, f"choose at most {field.max_items}"
        return chosen, ""
    text = str(raw).strip() if field.kind in (NUMBER, INTEGER) else str(raw)
    if field.kind in (NUMBER, INTEGER):
        try:
            number: float = int(text) if field.kind == INTEGER else float(text)
        except ValueError:
            return None, "a whole number" if field.kind == INTEGER else "a number"
        if number != number or number in (float("inf"), float("-inf")):
            return None, "a number"
        problem = _bounds(field, number)
        return (None, problem) if problem else (number, "")
    problem = _text_problem(field, text)
    return (None, problem) if problem else (text, "")


def initial(field: Field) -> Any:
    """What a field shows at first: its default, else empty (a boolean: false)."""
    if field.kind == BOOLEAN:
        return bool(field.default)
    if field.kind == CHOICES:
        return list(field.default or ())
    if field.default is None:
        return ""
    return field.default if field.kind == CHOICE else (
        f"{field.default:g}" if isinstance(field.default, float) else str(field.default))


def shown(field: Field, value: Any) -> str:
    """A value as the review step and the transcript say it."""
    if value is None:
        return "—"
    if field.kind == BOOLEAN:
        return "yes" if value else "no"
    titles = dict(field.options)
    if field.kind == CHOICE:
        return titles.get(value, str(value))
    if field.kind == CHOICES:
        return ", ".join(titles.get(v, str(v)) for v in value) or "—"
    return f"{value:g}" if isinstance(value, float) else str(value)


WHATWG_TRIMMED = "".join(map(chr, range(0x21)))  # what browsers trim from a URL's ends: C0 controls and space


def _unreadable(url: str) -> str:
    """Why a URL would read one way here and another in a browser, or "": a backslash (browsers take it for ``/``, so
    ``https://evil.example\\@bank.example`` goes to evil.example while a URL parser sees bank.example), whitespace
    or a control character anywhere (browsers drop or keep them where Python does not)."""
    if "\\" in url:
        return "the URL holds a backslash, which browsers read as a slash: it may not go where it seems to"
    if any(char.isspace() or ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in url):
        return "the URL holds whitespace or a control character: it may not go where it seems to"
    return ""


def _ipv4(host: str) -> str | None:
    """The IPv4 address a browser reads in ``host`` by the WHATWG URL standard (its last label a number: parts in
    decimal, ``0x`` hexadecimal or ``0`` octal, the last filling the bytes left), dotted; None when the host is a
    name; "" when it is a number no browser takes (the browser refuses the URL)."""
    labels = host.removesuffix(".").split(".")
    last = labels[-1]
    if not (last.isdigit() or (last[:2].lower() == "0x" and all(c in "0123456789abcdefABCDEF" for c in last[2:]))):
        return None
    numbers = []
    for label in labels:
        try:
            if label[:2].lower() == "0x":
                numbers.append(int(label[2:] or "0", 16))
            elif len(label) > 1 and label.startswith("0"):
                numbers.append(int(label[1:], 8))
            else:
                numbers.append(int(label, 10))
        except ValueError:
            return ""
    if len(numbers) > 4 or any(n > 255 for n in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(numbers)):
        return ""
    value = numbers[-1] + sum(n << (8 * (3 - i)) for i, n in enumerate(numbers[:-1]))
    return ".".join(str((value >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def url_target(url: Any) -> tuple[str, str]:
    """(the host a URL goes to, as it must be shown: IDN as punycode by UTS 46 (as browsers encode it, the WHATWG URL
    standard), lower case, with its port; "" when it must not be opened, with the reason). Only http and https
    open; a URL a browser would read differently is refused (:func:`_unreadable`)."""
    if not isinstance(url, str) or not url.strip(WHATWG_TRIMMED):
        return "", "the request has no URL"
    url = url.strip(WHATWG_TRIMMED)
    problem = _unreadable(url)
    if problem:
        return "", problem
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "", "the URL cannot be read"
    if parts.scheme.lower() not in ("http", "https"):
        return "", f"only http and https links open here, not {parts.scheme[:20] or 'this one'}"
    if not host:
        return "", "the URL names no host"
    if ":" in host:  # an IPv6 address (urlsplit leaves out its brackets)
        import ipaddress

        try:
            shown_host = f"[{ipaddress.IPv6Address(host).compressed}]"
        except ValueError:
            return "", "the URL's host cannot be shown plainly"
    else:
        import idna

        try:
            shown_host = idna.encode(unquote(host), uts46=True, transitional=False).decode("ascii")
        except (idna.IDNAError, UnicodeError, ValueError):
            return "", "the URL's host cannot be shown plainly"
        address = _ipv4(shown_host)  # 0x7f.1, 2130706433, 0177.0.0.1: browsers go to 127.0.0.1
        if address == "":
            return "", "the URL's host is a number no browser reads as an address"
        shown_host = address or shown_host
    if not re.fullmatch(r"[a-z0-9.\-\[\]:_]+", shown_host):
        return "", "the URL's host cannot be shown plainly"
    return shown_host + port, ""


def url_shown(url: Any) -> tuple[str, str]:
    """(the URL as the card shows it, and as it is opened and copied: rebuilt from the parts shown, its host as
    :func:`url_target` gives it, no user-info, the rest as sent; what the link hides, said plainly: a user-info part
    that reads like a site, ``https://bank.example@evil.example``). ("", "") for a URL that must not open."""
    host, problem = url_target(url)
    if problem:
        return "", ""
    parts = urlsplit(url.strip(WHATWG_TRIMMED))
    rest = parts.path + (f"?{parts.query}" if parts.query else "") + (f"#{parts.fragment}" if parts.fragment else "")
    note = ""
    if "@" in parts.netloc:
        trick = parts.netloc.rsplit("@", 1)[0]
        note = f"the link puts {trick[:60]!r} before its host: that is not the site it opens"
    return f"{parts.scheme.lower()}://{host}{rest}", note


def answer_content(fields: list[Field], values: dict[str, Any]) -> dict[str, Any]:
    """The ``content`` of an accept: each field that has a value (an optional one left empty is left out)."""
    return {f.name: values[f.name] for f in fields if values.get(f.name) is not None}
