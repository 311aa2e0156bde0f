"""Attaching to a running Kandev backend (``kandev-tui attach``): headless, no Textual."""

from .attach import Attachment
from .connection import DEFAULT_URL, KandevConnection, KandevError, backend_key, normalize_url
from .rows import row_item

__all__ = ["DEFAULT_URL", "Attachment", "KandevConnection", "KandevError", "backend_key", "normalize_url", "row_item"]
