"""The one path by which agent or workspace text becomes safe to show.

Agent text is plain text. Shown in a terminal it must not be able to move the
cursor, set the title, write the clipboard (OSC 52) or reorder what the user
reads. :func:`visible` replaces every C0/C1 control (newline and tab kept only
when asked), DEL, bidi controls and other invisible format characters with a
visible stand-in such as ``␛`` or ``<U+202E>``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# C0 controls have Unicode "control pictures" (U+2400 + code); ESC shows as ␛.
_C0_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)}
_C0_PICTURES[0x7F] = "\u2421"  # ␡
_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x200E, 0x200F, 0x061C}
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]|[\ud800-\udfff]")


def _replacement(ch: str, keep_newlines: bool) -> str:
    code = ord(ch)
    if code in (0x0A, 0x09) and keep_newlines:
        return ch
    if code in _C0_PICTURES:
        return _C0_PICTURES[code]
    if 0x80 <= code <= 0x9F:
        return f"<U+{code:04X}>"
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    if code in _BIDI or unicodedata.category(ch) in {"Cf", "Zl", "Zp"}:
        return f"<U+{code:04X}>"
    return ch


@lru_cache(maxsize=8192)
def _visible_cached(text: str, keep_newlines: bool) -> str:
    pattern = _UNSAFE if keep_newlines else _UNSAFE_ALL
    return pattern.sub(lambda m: _replacement(m.group(0), keep_newlines), text)


_UNSAFE_ALL = re.compile(_UNSAFE.pattern.replace(r"\x00-\x08\x0b-\x1f", r"\x00-\x1f"))


def visible(text: str, keep_newlines: bool = True) -> str:
    """``text`` with every control and invisible format character made visible."""
    if not isinstance(text, str):
        text = str(text)
    if len(text) > 4096:
        pattern = _UNSAFE if keep_newlines else _UNSAFE_ALL
        return pattern.sub(lambda m: _replacement(m.group(0), keep_newlines), text)
    return _visible_cached(text, keep_newlines)


# -- secrets --------------------------------------------------------------------------------------------------------
# The secrets this process hands out (each session's MCP hub secret), kept out of every text it stores, logs or shows:
# a secret an agent echoes comes back in pieces (chunks of a message, lines of its stderr), so each text that is put
# together from pieces is scrubbed whole, not only piece by piece.
REDACTED = "[kandev-tui secret]"
SECRET_REACH = 128  # characters of text before new ones that a secret may have started in (a secret is shorter)
_SECRETS: set[str] = set()


def register_secret(secret: str) -> None:
    _SECRETS.add(secret)


def forget_secret(secret: str) -> None:
    _SECRETS.discard(secret)


def holds_secret(text: str) -> bool:
    return any(secret in text for secret in tuple(_SECRETS))


def scrub_secrets(text: str) -> str:
    """``text`` with every secret of this process replaced (``text`` itself when it holds none)."""
    for secret in tuple(_SECRETS):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text
