"""ACP elicitation: the restricted schema read into fields (or refused with its reason), each field's checks, the
URL's host as it must be shown, and the transcript's items through a request's life (headless, no agent)."""

from __future__ import annotations

import pytest

from kandev_tui.transcript import elicitation as E
from kandev_tui.transcript.frames import IN, OUT, Frame
from kandev_tui.transcript.normalize import Normalizer

SCHEMA = {"type": "object", "required": ["name", "count"], "properties": {
    "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 10},
    "mail": {"type": "string", "format": "email"},
    "site": {"type": "string", "format": "uri"},
    "day": {"type": "string", "format": "date"},
    "when": {"type": "string", "format": "date-time"},
    "count": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
    "ratio": {"type": "number", "minimum": 0, "maximum": 1},
    "ok": {"type": "boolean", "default": True},
    "color": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]},
    "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"], "default": "m"},
    "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
             "minItems": 1, "maxItems": 1},
}}


def test_the_restricted_schema_reads_into_fields_in_order():
    fields, problem = E.parse_form(SCHEMA)
    assert problem == ""
    kinds = {f.name: f.kind for f in fields}
    assert list(kinds) == list(SCHEMA["properties"])
    assert kinds == {"name": E.TEXT, "mail": E.TEXT, "site": E.TEXT, "day": E.TEXT, "when": E.TEXT, "count": E.INTEGER,
                     "ratio": E.NUMBER, "ok": E.BOOLEAN, "color": E.CHOICE, "size": E.CHOICE, "tags": E.CHOICES}
    by = {f.name: f for f in fields}
    assert by["name"].required and by["count"].required and not by["mail"].required
    assert by["size"].options == (("s", "Small"), ("m", "Medium")) and E.initial(by["size"]) == "m"
    assert E.initial(by["count"]) == "2" and E.initial(by["ok"]) is True and E.initial(by["tags"]) == []


@pytest.mark.parametrize("schema, reason", [
    ({"type": "object", "properties": {"a": {"type": "object", "properties": {}}}}, "nested object"),
    ({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}}, "$ref"),
    ({"type": "object", "$defs": {}, "properties": {}}, "$ref"),
    ({"type": "object", "properties": {"a": {"type": "_vendor"}}}, "cannot ask for"),
    ({"type": "object", "properties": {"a": {"type": "string", "format": "ipv4"}}}, "cannot check"),
    ({"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}}, "not a regular expression"),
    ({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "number"}}}}, "other than choices"),
    ({"type": "object", "properties": {"a": {"type": "string", "enum": []}}}, "no options"),
    ({"type": "array"}, "not an object"),
    ("nonsense", "no schema"),
])
def test_schemas_outside_the_subset_are_refused_with_their_reason(schema, reason):
    fields, problem = E.parse_form(schema)
    assert fields == [] and reason in problem


def test_an_enum_of_500_values_is_a_field():
    schema = {"type": "object", "properties": {"v": {"type": "string", "enum": [f"v{n}" for n in range(500)]}}}
    (field,), problem = E.parse_form(schema)
    assert problem == "" and len(field.options) == 500


@pytest.mark.parametrize("name, raw, value, problem", [
    ("name", "", None, "required"),
    ("name", "a", None, "at least 2 characters"),
    ("name", "x" * 11, None, "at most 10 characters"),
    ("name", "Ada", "Ada", ""),
    ("mail", "", None, ""),
    ("mail", "not-mail", None, "email address"),
    ("mail", "a@b.io", "a@b.io", ""),
    ("site", "nowhere", None, "URI"),
    ("site", "https://example.com/x", "https://example.com/x", ""),
    ("day", "2026-13-01", None, "a date"),
    ("day", "2026-12-04", "2026-12-04", ""),
    ("when", "yesterday", None, "date and time"),
    ("when", "2026-12-04T09:30:00Z", "2026-12-04T09:30:00Z", ""),
    ("count", "2.5", None, "whole number"),
    ("count", "9", None, "at most 5"),
    ("count", "0", None, "at least 1"),
    ("count", " 3 ", 3, ""),
    ("ratio", "nan", None, "a number"),
    ("ratio", "0.25", 0.25, ""),
    ("ok", False, False, ""),
    ("color", "x", None, "choose one"),
    ("color", "g", "g", ""),
    ("tags", [], None, ""),
    ("tags", ["a", "b"], None, "at most 1"),
    ("tags", ["b"], ["b"], ""),
])
def test_each_field_is_checked_as_its_schema_says(name, raw, value, problem):
    field = next(f for f in E.parse_form(SCHEMA)[0] if f.name == name)
    got, said = E.check(field, raw)
    assert got == value and problem in said and bool(said) == bool(problem)


@pytest.mark.parametrize("url, host, refused", [
    ("https://example.com/login?x=1", "example.com", ""),
    ("http://example.com:8080/", "example.com:8080", ""),
    ("https://bank.example@evil.example/", "evil.example", ""),
    ("https://pаypal.com/", "xn--pypal-4ve.com", ""),  # a Cyrillic а: shown as punycode
    ("javascript:alert(1)", "", "only http and https"),
    ("file:///etc/passwd", "", "only http and https"),
    ("https:///nohost", "", "no host"),
    ("", "", "no URL"),
])
def test_a_urls_host_is_shown_plainly_or_the_url_is_refused(url, host, refused):
    shown, problem = E.url_target(url)
    assert shown == host and (refused in problem if refused else problem == "")


def test_the_link_is_shown_with_its_real_host_and_what_it_hides_is_said():
    shown, note = E.url_shown("https://github.com@gíthub.example/login?next=1")
    assert shown == "https://xn--gthub-zsa.example/login?next=1"
    assert "'github.com' before its host" in note
    assert E.url_shown("https://example.com/a#b") == ("https://example.com/a#b", "")


def _feed(normalizer: Normalizer, direction: str, msg: dict) -> list:
    return normalizer.feed(Frame.now(direction, msg))


def test_a_form_request_is_an_item_pending_until_answered_and_the_turns_end_cancels_another():
    normalizer = Normalizer()
    _feed(normalizer, OUT, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
    _feed(normalizer, IN, {"jsonrpc": "2.0", "id": 1, "result": {"agentInfo": {"name": "kit", "title": "Kit Agent"}}})
    _feed(normalizer, OUT, {"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
                            "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}})
    (asked,) = [i for i in _feed(normalizer, IN, {"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {
        "sessionId": "s", "mode": "form", "message": "Your name?", "requestedSchema": SCHEMA}}) if i.kind == "elicitation"]
    assert asked.status == E.PENDING and asked.payload["agent"] == "Kit Agent" and asked.payload["scope"] == "session"
    assert normalizer.pending_elicitation_key() == asked.key
    (answered,) = _feed(normalizer, OUT, {"jsonrpc": "2.0", "id": 7, "result": {"action": "accept",
                                                                              "content": {"name": "Ada", "count": 3}}})
    assert answered.key == asked.key and answered.status == E.ACCEPTED and answered.final
    assert answered.payload["answer"] == {"action": "accept", "content": {"name": "Ada", "count": 3}}
    _feed(normalizer, IN, {"jsonrpc": "2.0", "id": 8, "method": "elicitation/create", "params": {
        "sessionId": "s", "mode": "form", "message": "Again?", "requestedSchema": SCHEMA}})
    ended = _feed(normalizer, IN, {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}})
    (cancelled,) = [i for i in ended if i.kind == "elicitation"]
    assert cancelled.status == E.CANCELLED and normalizer.pending_elicitation_key() is None


def test_a_url_request_stays_open_after_consent_until_its_completion_and_a_stray_completion_is_ignored():
    normalizer = Normalizer()
    (asked,) = _feed(normalizer, IN, {"jsonrpc": "2.0", "id": 3, "method": "elicitation/create", "params": {
        "sessionId": "s", "mode": "url", "message": "Log in", "url": "https://example.com/auth", "elicitationId": "e1"}})
    assert asked.payload["host"] == "example.com" and asked.payload["elicitation_id"] == "e1"
    assert _feed(normalizer, IN, {"jsonrpc": "2.0", "method": "elicitation/complete",
                                  "params": {"elicitationId": "unknown"}}) == []
    (opened,) = _feed(normalizer, OUT, {"jsonrpc": "2.0", "id": 3, "result": {"action": "accept"}})
    assert opened.status == E.ACCEPTED and not opened.final
    (done,) = _feed(normalizer, IN, {"jsonrpc": "2.0", "method": "elicitation/complete",
                                     "params": {"elicitationId": "e1"}})
    assert done.status == E.COMPLETED and done.final
    assert _feed(normalizer, IN, {"jsonrpc": "2.0", "method": "elicitation/complete",
                                  "params": {"elicitationId": "e1"}}) == []  # once


def test_a_request_answered_with_an_error_reads_as_withdrawn():
    normalizer = Normalizer()
    (asked,) = _feed(normalizer, IN, {"jsonrpc": "2.0", "id": 4, "method": "elicitation/create", "params": {
        "requestId": 1, "mode": "form", "message": "m", "requestedSchema": {"type": "object", "properties": {}}}})
    assert asked.payload["scope"] == "request"
    (gone,) = _feed(normalizer, OUT, {"jsonrpc": "2.0", "id": 4, "error": {"code": -32800, "message": "cancelled"}})
    assert gone.status == E.WITHDRAWN
