from __future__ import annotations

import json
from typing import Any

from rich.console import Group
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.syntax import Syntax
from rich.text import Text
from textual.binding import Binding
from textual.css.styles import RulesMap
from textual.message import Message
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import Static

from kandev_tui.base.jsonutil import of_type
from kandev_tui.transcript.items import Item
from kandev_tui.transcript.tools import call_output, summarize

from kandev_tui.ui.user_input import GIVE_WAY_EVERY, give_way, giving_way, user_input

from kandev_tui.widgets.entries.base import SearchHit, safe_text
from kandev_tui.widgets.entries.calls import call_parts, do_pending_work, heavy_view, pending_work, look_for
from kandev_tui.widgets.context import workspace_root
from kandev_tui.widgets.selectable import selectable_line, selected_text

STATUS = {"pending": ("○", "dim"), "in_progress": ("◐", "yellow"), "complete": ("✔", "green"),
          "error": ("✖", "red"), "cancelled": ("⊘", "dim")}
PREVIEW_LINES = 12


def status_mark(status: str | None) -> tuple[str, str]:
    return STATUS.get(status or "pending", ("○", "dim"))


def key_argument(payload: dict[str, Any]) -> str:
    """The argument that identifies a call: a path, a command, a query, else its first short string argument."""
    summary = summarize(payload)
    value = summary.get("file_path") or summary.get("command") or summary.get("query")
    if not value:
        inp = of_type(payload, "input", dict, {})
        raw = of_type(inp, "raw_input", dict, inp)
        value = next((v for k, v in raw.items() if k != "kind" and isinstance(v, str) and 0 < len(v) <= 80), None)
    return safe_text(str(value or summary.get("key") or payload.get("title") or ""), keep_newlines=False)


def _as_text(value: Any) -> tuple[str, bool]:
    """(text, is_json) for an argument or output value."""
    if isinstance(value, str):
        return value, False
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str), True
    except (TypeError, ValueError, RecursionError):
        return repr(value), False


def call_title(payload: dict[str, Any]) -> str:
    title = payload.get("title") or payload.get("name") or "tool"
    return safe_text(str(title), keep_newlines=False)


class LaidOut(Visual):
    """Lines laid out elsewhere (a thread), drawn as they are: a Textual visual of ready strips, its height known
    without a render. The widget showing it draws only the lines in view (:meth:`ToolCallView.render_line`). As a
    Rich renderable it was rendered again, whole, on the UI's thread each time the widget was drawn anew (its focus,
    the screen shown again after the help, its height measured): 20-60 ms for a 2,000-line diff, keys held back."""

    def __init__(self, lines: list[list[Segment]], width: int) -> None:
        self.strips = [Strip(line) for line in lines]
        self.width = width

    def line(self, y: int, base: RichStyle) -> Strip:
        """Line ``y`` on the widget's base style (its background, focused or not); Strip keeps the styled copy."""
        return self.strips[y].apply_style(base)

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        base = style.rich_style
        return [self.line(y, base) for y in range(len(self.strips) if height is None else min(height, len(self.strips)))]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.strips)


class ToolCallView(SearchHit, Static):
    """One tool call in full: title, status, arguments and output, bounded with a way to see more."""

    can_focus = True
    BINDINGS = [Binding("m", "more", "More/less"), Binding("enter", "more", "More/less", show=False)]

    DEFAULT_CSS = """
    ToolCallView { height: auto; padding: 0 1 0 2; margin: 0 0 1 0; }
    ToolCallView:focus { background: $boost; }
    """

    side_by_side = False  # a diff's old and new side by side (an edit card toggles it)
    _laid_out_width = 0  # the width a big view was last laid out at (in a thread)
    _laid_out: LaidOut | None = None  # what it shows, laid out so

    class OutputWanted(Message):
        """The call is shown and its output is at its source (a Kandev command's): fetch it (the app asks the
        session's source, and the item comes again with it)."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(self, item: Item) -> None:
        super().__init__()
        self.item = item
        self.expanded = False
        self._asked_for_output = False
        self.update_item(item)

    _drew_paths = False  # it showed paths (a diff's, its locations), relative to _paths_root (None: none known)
    _paths_root: str | None = None

    def on_mount(self) -> None:
        if self._drew_paths and workspace_root(self) != self._paths_root:
            self.redraw()  # drawn before it was in the transcript, whose workspace its paths are shown relative to
        self._want_output()

    def _want_output(self) -> None:
        if self.item.payload.get("output_at_source") and not self._asked_for_output and self.is_attached:
            self._asked_for_output = True  # once: the answer comes as the item's next version
            self.post_message(self.OutputWanted(self.item.key))

    def update_item(self, item: Item) -> None:
        self.item = item
        self.redraw()
        self._want_output()

    def action_more(self) -> None:
        self.expanded = not self.expanded
        self.redraw()

    def redraw(self) -> None:
        """Draw the call again. The whole of a big view (an expanded diff of a big file: 2,000 highlighted lines)
        is built and laid out in a thread, and only its lines are handed to the screen: the keys never wait."""
        if self.expanded and self.is_mounted and heavy_view(self.item.payload):
            self.run_worker(self._lay_out_in_thread, thread=True, group="call-layout", exclusive=True)
            return
        self._laid_out = None
        self.update(self._content())

    def render_line(self, y: int) -> Strip:
        """Textual's line API: a view laid out in a thread gives only the lines in view, each on the widget's
        style (the rest of the widget's content is rendered whole, as Textual does). Either way each line can have
        its text selected with the mouse (:mod:`.selectable`)."""
        laid_out = self._laid_out
        if laid_out is None:
            return selectable_line(self, super().render_line(y), y)
        if not 0 <= y < len(laid_out.strips):
            return Strip.blank(self.content_region.width, self.rich_style)
        return selectable_line(self, laid_out.line(y, self.rich_style), y)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text selected with the mouse, as the lines draw it (the command, its output, a diff's lines)."""
        if self._laid_out is not None:
            return selected_text(selection, self._laid_out.strips)
        return selected_text(selection, (super(ToolCallView, self).render_line(y)
                                         for y in range(self.content_region.height)))

    def _lay_out_in_thread(self) -> None:
        """Built and laid out a part at a time, giving way to the user's input between parts (user_input.py)."""
        do_pending_work(self.item.payload)
        width = self._laid_out_width = self.content_region.width
        console = self.app.console
        options = console.options.update(width=width, height=None)
        with giving_way(user_input(self.app).gives_way):
            content = self._content()
            lines: list[list[Segment]] = []
            for number, part in enumerate(content.renderables):
                if number % GIVE_WAY_EVERY == 0:
                    give_way()
                lines += console.render_lines(part, options, pad=False)
        self.app.call_from_thread(self._show_laid_out, LaidOut(lines, width))

    def _show_laid_out(self, laid_out: "LaidOut") -> None:
        if self.is_attached and self.expanded:
            self._laid_out = laid_out
            self.update(laid_out)

    def on_resize(self, event) -> None:
        if self.expanded and heavy_view(self.item.payload) and self._laid_out_width != self.content_region.width:
            self.redraw()  # laid out again at the new width

    def _do_pending_work(self) -> None:
        do_pending_work(self.item.payload)
        self.app.call_from_thread(lambda: self.redraw() if self.is_attached else None)

    def _highlight(self, parts: list[Any]) -> None:
        if self.hit_needle:
            for part in parts:
                if isinstance(part, Text):
                    part.highlight_words([self.hit_needle], "reverse bold", case_sensitive=False)

    def show_hit(self, needle: str | None) -> None:
        """Marked by the search: unfolded, so that the match is on screen, and the match highlighted."""
        super().show_hit(needle)
        if needle:
            self.expanded = True
        self.redraw()

    def _content(self) -> Group:
        payload = self.item.payload
        mark, style = status_mark(self.item.status)
        head = Text.assemble((f"{mark} ", style), (call_title(payload), "bold"))
        if payload.get("parent_id"):
            head = Text.assemble(("  ↳ ", "dim"), head)
        parts: list[Any] = [head]
        look = look_for(self.app.current_theme)
        root = workspace_root(self)
        view, body = call_parts(payload, compact=not self.expanded, wait=False, side=self.side_by_side,
                                look=look, root=root)
        self._drew_paths, self._paths_root = view == "diff" or bool(payload.get("locations")), root
        if pending_work(payload):  # a big diff: computed in a thread, drawn when it is done
            self.run_worker(self._do_pending_work, thread=True, group="call-work", exclusive=True)
        if (view == "diff" and payload.get("asking")) or payload.get("asking") == "diff":  # the request below
            # shows it, where the answer is given (a call whose only arguments say the edit: not them, raw, too)
            parts.append(Text("↓ its diff is in the permission request below", style="dim italic"))
            return Group(*parts)
        if view is not None:  # a view of its own: the diff of an edit, a command and its output
            parts += body
            if self.expanded:
                parts.append(Text("(m: less)", style="dim italic"))
            self._highlight(parts)
            return Group(*parts)
        inp = payload.get("input")
        if isinstance(inp, dict) and "raw_input" in inp and not payload.get("mcp"):
            inp = inp.get("raw_input")
        output = call_output(payload)
        truncated = False
        for label, value in (("arguments", inp), ("output", output)):
            if value in (None, "", {}, []):
                continue
            text, is_json = _as_text(value)
            text = safe_text(text)
            lines = text.splitlines()
            if not self.expanded and len(lines) > PREVIEW_LINES:
                text = "\n".join(lines[:PREVIEW_LINES])
                truncated = True
            parts.append(Text(label, style="dim"))
            parts.append(Syntax(text, "json", theme=look.syntax_theme, word_wrap=True) if is_json
                         else Text(text, overflow="fold"))
        parts += body  # content blocks and locations
        self._highlight(parts)
        if truncated:
            parts.append(Text("… more (m)", style="dim italic"))
        elif self.expanded:
            parts.append(Text("(m: less)", style="dim italic"))
        return Group(*parts)
