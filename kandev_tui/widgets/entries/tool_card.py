"""A call drawn by a registered renderer, with the generic display as its safety net.

Unless a renderer says it draws every state itself, the host gives every card the
same lifecycle: a skeleton (tool name and key argument) while the call is pending or
running, the renderer's card on completion, a compact error on failure, and a minimal
card (name and a check mark) when the call completed with an empty result.
"""

from __future__ import annotations

import logging
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static

from kandev_tui.renderers.registry import ResultShapeError, leaf_name
from kandev_tui.transcript.items import Item

from kandev_tui.widgets.entries.base import EntryWidget, mount_into, safe_text
from kandev_tui.widgets.entries.tool_call import ToolCallView, call_title, key_argument, status_mark

EMPTY: tuple[Any, ...] = (None, "", [], {})


def lifecycle_state(item: Item) -> str:
    """``skeleton``, ``error``, ``cancelled``, ``empty`` or ``card``."""
    if item.status in ("pending", "in_progress", None):
        return "skeleton"
    if item.status == "error":
        return "error"
    if item.status == "cancelled":
        return "cancelled"
    output = item.payload.get("output")
    if output in EMPTY or (isinstance(output, dict) and set(output) == {"content"} and output["content"] in EMPTY):
        return "empty"
    return "card"


def _error_text(item: Item) -> str:
    from kandev_tui.presentation.stored import error_text

    return error_text(item.payload.get("output"))


class StateRow(Static):
    """The host's compact rows: skeleton, error, cancelled, empty."""

    DEFAULT_CSS = """
    StateRow { height: auto; padding: 0 1; color: $text-muted; }
    StateRow.error { color: $text; border-left: thick $error; }
    """

    def show(self, item: Item, state: str) -> None:
        title = name = call_title(item.payload)
        if name.startswith("mcp__") or (" " not in name and ("/" in name or "." in name)):
            name = leaf_name(name)  # mcp__fleet__get_entity / fleet/get_entity → get_entity
        mark, style = status_mark(item.status)
        self.set_class(state == "error", "error")
        if state == "skeleton":
            key = key_argument(item.payload)
            self.update(Text.assemble((f"{mark} ", style), (name, "bold"), ("  " + key if key and key not in (name, title) else "", "dim")))
        elif state == "error":
            self.update(Text.assemble(("✖ ", "bold red"), (name, "bold"), ": ", safe_text(_error_text(item))[:500]))
        elif state == "cancelled":
            self.update(Text.assemble(("⊘ ", "dim"), (name, "dim"), (" cancelled", "dim")))
        else:
            self.update(Text.assemble((name, "bold"), " ", ("✔", "green")))

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
        self.failed = False  # the renderer raised: a bug, logged with its traceback
        self.fallback = False  # the renderer did not understand the result
        self._item = item
        self.inner: EntryWidget | ToolCallView | None = None
        self.row: StateRow | None = None

    def compose(self) -> ComposeResult:
        self.row = StateRow()
        yield self.row
        if self.renderer.draws_all_states or lifecycle_state(self._item) == "card":
            self._make_inner()
            if self.inner is not None:
                yield self.inner
        self._show_state()

    @property
    def state(self) -> str:
        return "card" if self.renderer.draws_all_states else lifecycle_state(self._item)

    def _make_inner(self) -> None:
        try:
            self.inner = self.renderer.widget(self._item)
        except ResultShapeError as exc:
            self._fall_back(exc)
        except Exception:  # noqa: BLE001
            self._fail("building")

    def _show_state(self) -> None:
        state = self.state
        if self.row is not None:
            self.row.display = state != "card"
            if state != "card":
                self.row.show(self._item, state)
        if self.inner is not None:
            self.inner.display = state == "card"

    def _fall_back(self, exc: ResultShapeError) -> None:
        log.info("renderer %s does not understand the result of %s (%s); using the generic display",
                 self.renderer.id, self._item.key, str(exc).splitlines()[0] if str(exc) else "no detail")
        self.fallback = True
        self.inner = ToolCallView(self._item)

    def _fail(self, when: str) -> None:
        log.exception("renderer %s failed while %s %s; using the generic display", self.renderer.id, when, self._item.key)
        self.failed = True
        self.inner = ToolCallView(self._item)

    def update_item(self, item: Item) -> None:
        self._item = item
        if self.inner is None:
            if self.state == "card" and self.is_mounted:
                self._make_inner()
                if self.inner is not None:
                    mount_into(self, self.inner)
            self._show_state()
            return
        self._show_state()
        try:
            self.inner.update_item(item)
        except Exception as exc:  # noqa: BLE001
            old = self.inner
            if isinstance(exc, ResultShapeError):
                self._fall_back(exc)
            else:
                self._fail("updating")
            if old is not None and old.is_mounted:
                old.remove()
            mount_into(self, self.inner)

    @property
    def searchable_text(self) -> str:
        return getattr(self.inner, "searchable_text", "") or str(self._item.payload.get("title") or "")
