"""Transcript core, headless: frames, the normaliser, items, the session store.

No Textual import here (enforced by a test).
"""

from .frames import IN, LOCAL, OUT, Frame, RecordingError, RecordingWriter, read_recording
from .items import Item
from .normalize import Normalizer
from .store import Store, StoreError, default_db_path

__all__ = ["Frame", "IN", "Item", "LOCAL", "Normalizer", "OUT", "RecordingError", "RecordingWriter", "Store",
           "StoreError", "default_db_path", "read_recording"]
