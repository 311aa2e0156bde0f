"""The fleet cards' widget: one bordered card that draws a validated result.

The host (:class:`kandev_tui.widgets.entries.tool_card.ToolCard`) draws the skeleton, error
and empty states; this widget is only built for a completed call, validates the
result against the renderer's model and raises ``ResultShapeError`` when it does
not fit, so the host falls back to the generic display.
"""

from __future__ import annotations

from typing import Any, Callable

from pydantic import BaseModel, ValidationError
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Static

from kandev_tui.renderers import ResultShapeError, tool_result
from kandev_tui.renderers.registry import leaf_name
from kandev_tui.transcript.items import Item

from . import draw as D
from .models import EntityListResult, without_surrogates


def parse(model: type[BaseModel], item: Item) -> BaseModel:
    """The call's result as ``model``, or ``ResultShapeError`` saying what did not fit."""
    result = tool_result(item.payload)
    if not isinstance(result, dict):
        raise ResultShapeError(f"expected a JSON object, got {type(result).__name__}")
    try:
        return model.model_validate(without_surrogates(result))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "result"
        raise ResultShapeError(f"{where}: {first['msg']}") from None


def _words(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for inner in value.values():
            _words(inner, out)
    elif isinstance(value, (list, tuple)):
        for inner in value:
            _words(inner, out)


class FleetCard(Static):
    """A completed fleet call: a rounded card titled with the tool, its body drawn by ``draw``."""

    DEFAULT_CSS = """
    FleetCard { height: auto; border: round $accent 50%; border-title-color: $text-muted; padding: 0 1; }
    FleetCard:focus { border: round $accent; }
    """

    def __init__(self, item: Item, model: type[BaseModel], drawer: Callable[..., Any], renderer_id: str) -> None:
        super().__init__(classes=f"fleet {renderer_id}")
        self.model_type = model
        self.drawer = drawer
        self.renderer_id = renderer_id
        self.result = parse(model, item)
        self.item = item
        self.border_title = Content(self._title(item))  # Content, not str: a str title is parsed as markup
        self._text = ""

    @staticmethod
    def _title(item: Item) -> str:
        """The tool's own name: an MCP call's name, else the leaf of a title such as ``mcp__fleet__get_entity``."""
        payload = item.payload
        name = payload.get("name") if payload.get("mcp") else None
        if not isinstance(name, str) or not name.strip():
            name = payload.get("title") if isinstance(payload.get("title"), str) else payload.get("name")
        return D.plain(leaf_name(name.strip()) if isinstance(name, str) and name.strip() else "tool", 60)

    def on_mount(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        self.update(self.drawer(self.result))

    def update_item(self, item: Item) -> None:
        result = parse(self.model_type, item)  # ResultShapeError: the host takes over
        self.item = item
        if result != self.result:
            self.result = result
            self.redraw()

    @property
    def searchable_text(self) -> str:
        words: list[str] = []
        _words(self.result.model_dump(mode="json"), words)
        return D.plain(" ".join(words), 4000)


class EntityTableCard(FleetCard):
    """The entity table, sortable from the keyboard: ``s`` picks the next column, ``r`` reverses."""

    can_focus = True
    BINDINGS = [Binding("s", "sort", "Sort column"), Binding("r", "reverse", "Reverse sort")]

    def __init__(self, item: Item, model: type[BaseModel], drawer: Callable[..., Any], renderer_id: str) -> None:
        super().__init__(item, model, drawer, renderer_id)
        self.column = "slug"
        self.descending = False

    def redraw(self) -> None:
        assert isinstance(self.result, EntityListResult)
        empty = self.result.is_empty
        self.border_subtitle = Content("" if empty else f"by {D.sort_label(self.column, self.descending)} · s sort · "
                                       "r reverse")
        self.update(self.drawer(self.result, self.column, self.descending))

    def action_sort(self) -> None:
        columns = D.ENTITY_COLUMNS
        self.column = columns[(columns.index(self.column) + 1) % len(columns)]
        self.descending = False
        self.redraw()

    def action_reverse(self) -> None:
        self.descending = not self.descending
        self.redraw()
