"""Errors raised by the rich-output contract."""

from __future__ import annotations

import unicodedata


class PresentationError(ValueError):
    """A presentation (or a CSV source behind one) breaks the v1 contract.

    ``str(error)`` is one concise line meant for the agent that made the call:
    it names the field path and the rule (``blocks[1].series[0].values: 3 values
    for 4 labels``) and never echoes a rejected value whole.
    """

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        self.rule = message
        super().__init__(f"{path}: {message}" if path else message)


class SourceReadError(Exception):
    """A file behind a presentation (a CSV source) could not be read; ``str()`` says why, for users.

    What reads the files (:class:`kandev_tui.workspace.reads.Workspace`) raises its errors as subclasses of this, so the
    contract reads a workspace without importing it."""


def short_quote(value: object, limit: int = 24) -> str:
    """A short, sanitised, quoted prefix of ``value`` for an error message.

    Control and format characters (escape sequences, bidi overrides) become
    ``?`` so that an error message can never carry terminal control codes.
    A quote or backslash in the value is escaped (``\"``, ``\\``), so that an agent
    reading the message looks for exactly the name it sent.
    """
    text = value if isinstance(value, str) else repr(value)
    clean = "".join(
        "?" if unicodedata.category(ch) in {"Cc", "Cf", "Cs", "Co", "Cn"} else ch
        for ch in text[: limit + 1]
    )
    if len(text) > limit:
        clean = clean[: limit - 1] + "…"
    return '"' + clean.replace("\\", "\\\\").replace('"', '\\"') + '"'
