"""Files named in a prompt with ``@`` (``@src/app.py``, ``@docs/shot.png``), sent with it as the agent takes them.

Each mention is a path of the workspace (or of a repo beside it), checked as the files the agent reads through
kandev-tui are (nothing outside the workspace, no path that leads out of it). A text file goes as an embedded
resource where the agent's ``promptCapabilities.embeddedContext`` allows (its content in the prompt), else as a
``resource_link``; an image goes as an image block where ``promptCapabilities.image`` allows, else as a link, and
kandev-tui says that the agent takes no images. A mention that names no file is left as typed, and said.
"""

from __future__ import annotations

import base64
import mimetypes
import re
from typing import Any

from .files import ClientFiles, FileRequestError

# @ at the start or after a space, then a path (a backslash keeps a space in it); trailing punctuation is not part
MENTION = re.compile(r"(?:(?<=\s)|^)@((?:\\ |[^\s@])+)")
TRAILING = ".,;:!?)]}'\""
IMAGES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
          ".webp": "image/webp"}
MAX_EMBEDDED = 1 << 20  # bytes of text embedded; a longer file goes as a link
MAX_IMAGE = 5 << 20


def mentioned(text: str) -> list[str]:
    """The paths ``text`` mentions with ``@``, in order, each once."""
    paths = []
    for match in MENTION.finditer(text):
        path = match.group(1).replace("\\ ", " ").rstrip(TRAILING)
        if path and path not in paths:
            paths.append(path)
    return paths


def mention_blocks(text: str, files: ClientFiles, prompt_caps: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """(the content blocks of the files ``text`` mentions, what to tell the user about them)."""
    blocks: list[dict[str, Any]] = []
    notes: list[str] = []
    for path in mentioned(text):
        try:
            relative, target = files.existing_file(path)
        except FileRequestError as exc:
            notes.append(f"@{path[:200]} was not sent: {exc}")
            continue
        uri = target.resolve().as_uri()
        kind = IMAGES.get(target.suffix.lower())
        if kind is not None:
            if prompt_caps.get("image") and target.stat().st_size <= MAX_IMAGE:
                data = base64.b64encode(target.read_bytes()).decode("ascii")
                blocks.append({"type": "image", "mimeType": kind, "data": data, "uri": uri})
                continue
            if not prompt_caps.get("image"):
                notes.append(f"The agent takes no images: @{path[:200]} was sent as a link to the file.")
            blocks.append({"type": "resource_link", "uri": uri, "name": relative, "mimeType": kind})
            continue
        mime = mimetypes.guess_type(target.name)[0] or "text/plain"
        if prompt_caps.get("embeddedContext") and target.stat().st_size <= MAX_EMBEDDED:
            try:
                content = target.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                content = None
            if content is not None:
                blocks.append({"type": "resource", "resource": {"uri": uri, "mimeType": mime, "text": content}})
                continue
        blocks.append({"type": "resource_link", "uri": uri, "name": relative, "mimeType": mime})
    return blocks, notes
