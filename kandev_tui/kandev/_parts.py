"""What :class:`~kandev_tui.kandev.history.History` uses of the
:class:`~kandev_tui.kandev.attach.Attachment` it is a part of, declared for the type checker (the state is set in
``Attachment.__init__``). History names this class as its base only while type checking, so at run time it stays
a plain mixin.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from kandev_tui.transcript.items import Item

from .connection import KandevConnection


class AttachmentParts:
    session_id: str
    store: Any  # kandev-tui's Store, or None (nothing cached)
    page_size: int
    on_items: Callable[[list[Item]], None]
    backend: str
    rows: dict[str, dict[str, Any]]
    revision: int | None
    session_state: str
    connection: KandevConnection | None
    _older_lock: asyncio.Lock
    fetched: int

    def items(self) -> list[Item]: ...
    def merge(self, rows: list[Any]) -> list[Item]: ...
    def _track(self, items: list[Item]) -> None: ...
