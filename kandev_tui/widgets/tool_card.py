"""A call drawn by a registered renderer, with the generic display as its safety net."""

from __future__ import annotations

import logging

from textual.app import ComposeResult

from kandev_tui.transcript.items import Item

from .base import EntryWidget
from .tool_call import ToolCallView

log = logging.getLogger("kandev_tui.renderers")


class ToolCard(EntryWidget):
    """Hosts a renderer's widget; if the renderer raises, the generic display takes over and the error is logged."""

    DEFAULT_CSS = """
    ToolCard { height: auto; margin: 1 0 0 0; }
    """

    def __init__(self, item: Item, renderer) -> None:
        super().__init__(classes="entry card")
        self.key = item.key
        self.renderer = renderer
        self.failed = False
        self._item = item
        self.inner: EntryWidget | ToolCallView | None = None

    def compose(self) -> ComposeResult:
        try:
            self.inner = self.renderer.widget(self._item)
        except Exception:  # noqa: BLE001
            self._fail("building")
        yield self.inner

    def _fail(self, when: str) -> None:
        log.exception("renderer %s failed while %s %s; using the generic display", self.renderer.id, when, self._item.key)
        self.failed = True
        self.inner = ToolCallView(self._item)

    def update_item(self, item: Item) -> None:
        self._item = item
        if self.inner is None:
            return
        try:
            self.inner.update_item(item)
        except Exception:  # noqa: BLE001
            old = self.inner
            self._fail("updating")
            if old is not None and old.is_mounted:
                old.remove()
            self.mount(self.inner)

    @property
    def searchable_text(self) -> str:
        return getattr(self.inner, "searchable_text", "") or str(self._item.payload.get("title") or "")
