"""The scrolling transcript: what the session model's change sets say, drawn.

Every entry of the session is in the headless :class:`~kandev_tui.session.changes.TranscriptModel`; this widget
mounts a *window* of them (``kandev_tui/session/window.py`` says where it goes; :mod:`.window` mounts it) and
two sentinels at the top and the bottom say how many more there are. Scrolling into a sentinel mounts the next screens on that side (the viewport
stays where it was) and unmounts as many from the far side, so opening or following a session of 10,000 items costs
about what one of 100 does and memory does not grow with the session. A change set is applied mechanically: entries
reshaped are built anew, newer item versions update mounted widgets in place, new entries are mounted when the
window is at the end. The view follows the newest output while the user is at the bottom and stops when they scroll
up. Charts plot only when they come within one screen of the viewport.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.scrollbar import ScrollTo, ScrollUp
from textual.message import Message
from textual.widget import Widget

from kandev_tui.session.changes import ChangeSet, TranscriptModel
from kandev_tui.session.layout import Entry
from kandev_tui.ui.textual_hooks import FocusRestylesItself, layout_changes
from kandev_tui.widgets.context import DEFAULT, DrawContext

from kandev_tui.widgets.transcript_view.charts import ChartPlotter
from kandev_tui.widgets.transcript_view.following import Follower
from kandev_tui.widgets.transcript_view.lazy import entry_widgets, made_entries
from kandev_tui.widgets.transcript_view.predraw import Predrawer
from kandev_tui.widgets.transcript_view.requests import RequestFocus
from kandev_tui.widgets.transcript_view.search import SearchMarks
from kandev_tui.widgets.transcript_view.settling import Settling
from kandev_tui.widgets.transcript_view.window import EntryWindow, Sentinel

if TYPE_CHECKING:
    from kandev_tui.widgets.entries.base import EntryWidget
    from kandev_tui.widgets.entries.tool_group import ToolGroup

__all__ = ["Sentinel", "TranscriptView", "entry_widgets", "made_entries"]


class TranscriptView(FocusRestylesItself, VerticalScroll):
    """See the module docstring. The view is Textual's surface (bindings, events, watchers) and hands each concern to
    a collaborator of this package: the mounted window (``mounted``), the following (``follower``), messages drawn
    ahead (``predrawer``), charts plotted near the viewport (``plotter``), the search's marks (``marks``), the
    requests (``requests``) and the entries still being put on screen (``entries_settling``). ``draw_context`` is what
    its entries draw with (kandev_tui/widgets/context.py), where they tell the view what they are doing."""

    BLANK = True  # a container without content or border of its own: its lines are blanks, not rendered
    # focused itself (a stored session opens so; tab from the prompt lands here), the footer says how to move; with
    # an entry focused these give way (the entry's own keys show) to VerticalScroll's down and the app's tab
    BINDINGS = [Binding("down", "moved('scroll_down')", "Scroll", key_display="↑↓"),
                Binding("down", "scroll_down", show=False),
                Binding("tab", "moved('app.focus_next')", "Items")]
    # the scrollbar's column is kept while there is no scrollbar: when it appears, nothing reflows (text, tables)
    # and no chart is plotted again one column narrower
    DEFAULT_CSS = """
    TranscriptView { layout: stream; height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; overflow-x: hidden;
                     scrollbar-gutter: stable; }
    """

    class Below(Message):
        """What lies below the view changed: ``None`` (it follows the end, or stands at the transcript's very end),
        ``"more"`` (the user scrolled up) or ``"new"`` (output came below since it stopped following)."""

        def __init__(self, below: str | None) -> None:
            super().__init__()
            self.below = below

    class OlderWanted(Message):
        """The view is at the very top and the source has older items (a Kandev session's earlier pages)."""

        def __init__(self, view: TranscriptView) -> None:
            super().__init__()
            self.view = view

        @property
        def control(self) -> TranscriptView:
            return self.view

    def __init__(self, model: TranscriptModel, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.predrawer = Predrawer(drawn=self._drawn_ahead)
        self.requests = RequestFocus(self)
        self.plotter = ChartPlotter(self, visible=lambda: self.draw_context.visible())
        self.entries_settling = Settling()
        self.draw_context = DEFAULT
        self.mounted = EntryWindow(self, model, self.requests, self.predrawer, self.entries_settling,
                                   loaded=self.plotter.check, older_wanted=self._older_wanted)
        self.follower = Follower(self, self.mounted, below=self._below,
                                 check_charts=self.plotter.check)
        self.mounted.follow = self.follower
        self.marks = SearchMarks(self, self.mounted.show_entry, lambda: self.follower.set_following(False))

    def compose(self) -> ComposeResult:
        yield self.mounted.top
        yield self.mounted.bottom

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.has_focus if action == "moved" else True

    async def action_moved(self, action: str) -> None:
        await self.run_action(action)

    def _older_wanted(self) -> None:
        self.post_message(self.OlderWanted(self))

    def _below(self, below: str | None) -> None:
        self.post_message(self.Below(below))

    def _drawn_ahead(self) -> None:
        if self.is_attached:
            self.screen.check_idle()  # a frame held for them is drawn now (DrawsInputAtOnce), not at the next tick

    @property
    def draw_context(self) -> DrawContext:
        return self._draw_context

    @draw_context.setter
    def draw_context(self, context: DrawContext) -> None:
        """The app's context, with where the entries tell this view what they are doing."""
        self._draw_context = replace(context, settling=self.entries_settling.tell, charts=self.plotter)

    # -- what the others read ------------------------------------------------------------

    @property
    def entries(self) -> list[Entry]:
        return self.model.entries

    @property
    def widgets(self) -> dict[str, EntryWidget]:
        return self.mounted.widgets

    @property
    def lo(self) -> int:
        return self.mounted.lo

    @property
    def hi(self) -> int:
        return self.mounted.hi

    @property
    def following(self) -> bool:
        return self.follower.following

    @property
    def more_at_source(self) -> bool:
        return self.mounted.more_at_source

    @property
    def settling(self) -> bool:
        """Whether an entry of the window is still being put on screen (mounted, its Markdown parsed): counted as
        the entries say so, not looked for."""
        return bool(self.entries_settling)

    @property
    def waits_for_drawing(self) -> bool:
        """Entries are being mounted, or messages drawn ahead: a frame drawn now would show them half made."""
        return self.predrawer.drawing or self.mounted.mounting

    # -- change sets in -------------------------------------------------------

    def apply(self, changes: ChangeSet) -> None:
        """Put a change set on screen: reshaped entries built anew, newer versions into mounted widgets, new entries
        mounted when the window is at the end, group summaries, then following and charts."""
        mounted = self.mounted
        at_end = mounted.hi == len(self.entries) - changes.new_entries  # the window reached the end before the batch
        for old_key, entry in changes.rebuilt:
            mounted.rebuild(old_key, entry)
        entry_of = self.model.entry_of
        widgets = mounted.widgets
        for key, item in changes.updated.items():
            widget = widgets.get(entry_of[key].key)
            if widget is not None:
                widget.update_item(item)
                self.predrawer.add([widget])
        if at_end and changes.new_entries:
            mounted.to_end()
        mounted.show_sentinels()
        for key, summary in changes.summaries.items():
            group = widgets.get(key)
            if group is not None and isinstance(group, entry_widgets().ToolGroup):
                cast("ToolGroup", group).set_summary(summary)
        if self.follower.following:
            self.call_after_refresh(self.follower.follow)
        elif changes.new_entries or changes.updated or changes.rebuilt:
            self.follower.came_below()
        self.call_after_refresh(self.check_charts)

    def pre_layout(self, layout: Any) -> None:
        """Make the stream layout measure again every entry whose content changed size, however deep the change.

        The stream layout reuses the placement of each entry up to the first one the screen lists as changed.
        Textual 8.2's screen lists an entry only when the change is in the entry itself or one level down: a
        tool group's calls mount two levels down, so an expanded group kept its one-line height (and a streamed
        Markdown block is two levels down too). Each changed widget's entry is added here.
        """
        pending = layout_changes(self.screen)
        if not pending:
            return
        mine = pending.setdefault(self, set())
        for widget in [*pending, *(w for changed in pending.values() for w in changed)]:
            node = widget
            while node is not None and node.parent is not self:  # up to the entry (None: not in the transcript)
                node = node.parent
            if node is not None:
                mine.add(node)

    def reset(self, changes: ChangeSet, more_at_source: bool = False) -> None:
        """Show the transcript anew once its model has placed every item again (older history came; ``changes``
        is the model's reset, with the entries before it): the entry at the top of the screen stays in place
        unless the view follows the end. The model is reset first and told nothing by the view (one way)."""
        mounted = self.mounted
        anchor: str | None = None
        offset = 0
        if not self.following and changes.reset_from is not None:
            for entry in changes.reset_from[mounted.lo:mounted.hi]:
                widget = mounted.widgets.get(entry.key)
                if widget is not None and widget.is_mounted and widget.virtual_region.bottom > self.scroll_y:
                    anchor, offset = entry.item_keys[0], widget.virtual_region.y - int(self.scroll_y)
                    break
        mounted.clear(more_at_source)
        target = self.model.entry_of.get(anchor) if anchor is not None else None
        if target is None:
            mounted.to_end()
            mounted.show_sentinels()
            self.call_after_refresh(self.follower.follow)
        else:
            widget = mounted.show_entry(target.index)
            mounted.show_sentinels()

            def keep_place() -> None:
                if widget is not None and widget.is_mounted:
                    self.scroll_to(y=max(0, widget.virtual_region.y - offset), animate=False, immediate=True)
                self.check_charts()
                self.follower.more_above()  # older history placed with the view still at its top: ask on

            self.call_after_refresh(keep_place)
        self.call_after_refresh(self.check_charts)

    # -- what the session and the screens ask ------------------------------------------------

    def check_charts(self, at_once: bool = False) -> None:
        self.plotter.check(at_once)

    def jump_to_latest(self) -> None:
        self.follower.jump_to_latest()

    def jump_to_first(self) -> None:
        self.follower.jump_to_first()

    def set_following(self, following: bool) -> None:
        self.follower.set_following(following)

    def page_up(self) -> None:
        """A page up, as the user asked for it (the screen's pageup)."""
        self.follower.set_following(False)
        self.scroll_page_up(animate=False)
        self.follower.more_above()

    def keys_moved_to(self, focused: Widget) -> None:
        self.follower.keys_moved_to(focused)

    def set_more_at_source(self, more: bool) -> None:
        self.mounted.set_more_at_source(more)

    def ask_for_older(self) -> None:
        self.mounted.ask_for_older()

    def load_earlier(self) -> None:
        self.mounted.load_earlier()

    def show_entry(self, index: int) -> EntryWidget | None:
        return self.mounted.show_entry(index)

    def reveal(self, index: int, key: str | None = None, needle: str | None = None) -> Widget | None:
        return self.marks.reveal(index, key, needle)

    def mark_hit(self, widget: Widget | None, needle: str | None = None) -> None:
        self.marks.mark(widget, needle)

    def is_request(self, widget: Widget | None) -> bool:
        return self.requests.is_request(widget)

    def set_permissions_answerable(self, answerable: bool, elsewhere: str = "", take_focus: bool = True) -> None:
        self.requests.set_answerable(answerable, elsewhere, take_focus)

    def request_without_keys(self) -> bool:
        return self.requests.without_keys()

    def take_keys_for_request(self) -> None:
        self.requests.take_keys()

    def refresh_theme(self) -> None:
        self.requests.refresh_theme()

    # -- Textual's events: the user scrolls, the view changes size ---------------------------

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.follower.went_up()

    def on_scroll_up(self, message: ScrollUp) -> None:  # the scrollbar's track, above the thumb
        self.follower.set_following(False)

    def on_scroll_to(self, message: ScrollTo) -> None:  # the scrollbar's thumb, dragged
        if message.y is not None and message.y < self.scroll_y:
            self.follower.set_following(False)

    def action_scroll_up(self) -> None:
        self.follower.set_following(False)
        super().action_scroll_up()
        self.follower.more_above()

    def action_page_up(self) -> None:
        self.follower.set_following(False)
        super().action_page_up()
        self.follower.more_above()

    def action_scroll_home(self) -> None:
        self.follower.set_following(False)
        super().action_scroll_home()
        self.follower.more_above()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self.follower.at_end()

    def action_scroll_down(self) -> None:
        super().action_scroll_down()
        self.follower.at_end()

    def action_page_down(self) -> None:
        super().action_page_down()
        self.follower.at_end()

    def action_scroll_end(self) -> None:
        super().action_scroll_end()
        self.follower.at_end()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.follower.scrolled(old, new)

    def watch_virtual_size(self, size: Size) -> None:
        self.follower.resized()

    def on_resize(self) -> None:
        """Made shorter (a terminal resized, a row added under it) with content of the same height: no new virtual
        size follows, and a following view kept its scroll, its last lines hidden below; charts near it fit anew."""
        self.follower.resized()
        self.call_after_refresh(self.check_charts)

    def on_key(self, event: events.Key) -> None:
        """Characters typed while the view holds the keys for a request not mounted yet are kept for it."""
        if event.is_printable and self.requests.keep(event.key, event.character):
            event.stop()

    def on_blur(self) -> None:
        self.requests.type_kept()
