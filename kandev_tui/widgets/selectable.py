"""Text selection with the mouse in a widget that draws its own kept lines (``render_line``): an agent's message, a
thought, a call's output. Textual selects text where each character drawn knows its place in the widget's text
(:meth:`Strip.apply_offsets`, as its own widgets' lines do) and asks the widget for the text
(:meth:`Widget.get_selection`); ctrl+c then copies it (:meth:`kandev_tui.app.lifecycle.Lifecycle.action_interrupt`).

A widget calls :func:`selectable_line` on each line it draws and answers ``get_selection`` with
:func:`selected_text` of the same lines.
"""

from __future__ import annotations

from typing import Iterable

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget


def selectable_line(widget: Widget, strip: Strip, y: int) -> Strip:
    """Line ``y`` of the widget's text as drawn: each character knows where it is (row ``y``, its column in the
    line's text), and what is selected of it is drawn in the screen's selection style."""
    strip = strip.apply_offsets(0, y)
    selection = widget.text_selection
    span = selection.get_span(y) if selection is not None else None
    if span is None:
        return strip
    text = strip.text
    start, end = span
    start_cell = cell_len(text[:start])
    end_cell = strip.cell_length if end == -1 else cell_len(text[:end])
    if end_cell <= start_cell:
        return strip
    chosen = strip.crop(start_cell, end_cell)  # the selection's colours over the line's own (a code block's shade)
    chosen = Strip(Segment.apply_style(chosen, post_style=_selection_style(widget)), chosen.cell_length)
    return Strip.join([strip.crop(0, start_cell), chosen, strip.crop(end_cell, strip.cell_length)])


def selected_text(selection: Selection, lines: Iterable[Strip]) -> tuple[str, str]:
    """What ``selection`` covers of the lines (each without the blanks that pad it to the widget's width)."""
    return selection.extract("\n".join(strip.text.rstrip() for strip in lines)), "\n"


def _selection_style(widget: Widget) -> Style:
    """The screen's selection style (``screen--selection``) as Textual's own widgets draw it: its background, and its
    colour only where the theme gives one (by default it is transparent: the text keeps its own)."""
    style = widget.selection_style
    if widget.screen.get_component_styles("screen--selection").color.a == 0:
        return Style(bgcolor=style.bgcolor)
    return style
