"""Where a search hit is drawn inside an entry, and marking it there.

The transcript's search finds the item; this finds the words on screen. :func:`mark_texts` reverses the matches in
every ``Static`` of the entry that draws a Rich ``Text`` (a card's title and description, a chart's title, summary
and legend, a metric's label, value and detail, a failed call's row) and puts back what they drew once the hit
moves on; widgets that draw their own lines (an agent's message, a tool call) mark themselves. :func:`display_row`
says on which of a widget's display rows (its text wrapped at its width) a match is drawn, so that the view brings
that row into view instead of the entry's top (:func:`kandev_tui.widgets.entries.base.first_match`).
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

HIT_STYLE = "reverse bold"
_marked: "WeakKeyDictionary[Static, tuple[Any, Text]]" = WeakKeyDictionary()  # what it drew, what it draws marked


def mark_texts(root: Widget, needle: str | None) -> None:
    """Reverse ``needle`` (casefolded) in the texts ``root``'s statics draw; None puts back what they drew (unless
    they have drawn something else since)."""
    for static in root.walk_children(Static, with_self=True):
        marked = _marked.pop(static, None)
        if marked is not None and static.content is marked[1]:
            static.update(marked[0])
        content = static.content
        if needle and isinstance(content, Text) and needle in content.plain.casefold():
            highlighted = content.copy()
            highlighted.highlight_words([needle], HIT_STYLE, case_sensitive=False)
            _marked[static] = (content, highlighted)
            static.update(highlighted)


def drawn(widget: Widget) -> Any:
    """What a widget draws as one Rich renderable, where that can be known: a Static's content, or what a widget
    that renders itself returns; None for a container."""
    if isinstance(widget, Static):
        return widget.content
    if type(widget).render is not Widget.render:
        try:
            return widget.render()
        except Exception:  # noqa: BLE001 - a widget that cannot render on its own here
            return None
    return None


def display_row(widget: Widget, renderable: Any, needle: str) -> int | None:
    """The row (0-based, as drawn at the widget's width, wrapped) where ``needle`` first starts, or None."""
    width = widget.content_region.width or widget.size.width
    if width <= 0 or isinstance(renderable, str) or renderable is None:
        return None
    console = widget.app.console
    try:
        lines = console.render_lines(renderable, console.options.update_width(width), pad=False)
    except Exception:  # noqa: BLE001 - a Textual visual, not a Rich renderable: not here
        return None
    return row_of(["".join(segment.text for segment in line) for line in lines], needle)


def row_of(rows: list[str], needle: str) -> int | None:
    """The row of ``rows`` (a text as drawn, line by line) where ``needle`` (casefolded) first starts, or None; a
    match cut by the wrapping counts from its first row."""
    start = "".join(rows).casefold().find(needle)
    if start < 0:
        return None
    for row, text in enumerate(rows):
        if start < len(text):
            return row
        start -= len(text)
    return None
