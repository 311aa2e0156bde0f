"""Transcript core, headless: frames, the normaliser, items, the session store.

No Textual import here (enforced by a test). The normaliser is imported when it is first asked for (PEP 562): an
app opens its store before its first frame, and normalises the agent's frames only after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .frames import IN, LOCAL, OUT, Frame, RecordingError, RecordingWriter, read_recording
from .items import Item
from .store import Store, StoreError, default_db_path

if TYPE_CHECKING:
    from .normalize import Normalizer

__all__ = ["Frame", "IN", "Item", "LOCAL", "Normalizer", "OUT", "RecordingError", "RecordingWriter", "Store",
           "StoreError", "default_db_path", "read_recording"]


def __getattr__(name: str) -> Any:
    if name == "Normalizer":
        from .normalize import Normalizer

        return Normalizer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
