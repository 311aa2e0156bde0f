"""The scrolling transcript: what the session model's change sets say, drawn.

Every entry of the session is in the headless :class:`~kandev_tui.session.changes.TranscriptModel`; this widget
mounts a *window* of them (``kandev_tui/session/window.py`` says where it goes) and two sentinels at the top and the
bottom say how many more there are. Scrolling into a sentinel mounts the next screens on that side (the viewport
stays where it was) and unmounts as many from the far side, so opening or following a session of 10,000 items costs
about what one of 100 does and memory does not grow with the session. A change set is applied mechanically: entries
reshaped are built anew, newer item versions update mounted widgets in place, new entries are mounted when the
window is at the end. The view follows the newest output while the user is at the bottom and stops when they scroll
up. Charts plot only when they come within one screen of the viewport.
"""

from __future__ import annotations

import asyncio
import time
from types import ModuleType
from typing import TYPE_CHECKING, Iterable

from rich.text import Text
from textual import events
from textual.containers import VerticalScroll
from textual.message import Message
from textual.scrollbar import ScrollTo, ScrollUp
from textual.widget import Widget
from textual.widgets import Static

from kandev_tui import stats
from kandev_tui.session import window as W
from kandev_tui.session.changes import ChangeSet, TranscriptModel
from kandev_tui.session.layout import Entry, Layout
from kandev_tui.session.window import Viewport, Window
from kandev_tui.textual_hooks import FocusRestylesItself, layout_changes
from kandev_tui.widgets.base import first_match
from kandev_tui.widgets.context import GivesDrawContext
from kandev_tui.transcript.items import Item

if TYPE_CHECKING:
    from .agent_message import AgentMessage
FRAME_WAITS_AT_MOST = 0.05  # seconds a frame waits for new entries to be mounted, and for messages drawn ahead of it
PREDRAW_SLICE = 0.004  # seconds of drawing ahead in one event-loop turn (at least one message)


_entries: ModuleType | None = None  # kandev_tui.widgets.entries, once an entry was made (or the app read it)


def entry_widgets() -> ModuleType:
    """The entry widgets (:mod:`kandev_tui.widgets.entries`), imported the first time (from any thread; another
    importing them meanwhile is waited for)."""
    global _entries
    if _entries is None:
        from kandev_tui.widgets import entries

        _entries = entries
    return _entries


def made_entries() -> ModuleType | None:
    """The entry widgets if they are imported (an entry was made, or the app read them), else None: what only looks
    at the entries on screen has nothing to look at before, and need not import them."""
    return _entries


class Sentinel(Static):
    """Stands for the entries above or below the mounted window."""

    DEFAULT_CSS = """
    Sentinel { height: 1; color: $text-muted; text-align: center; display: none; }
    """

    def show_count(self, count: int, above: bool, more_at_source: bool = False) -> None:
        self.display = count > 0 or more_at_source
        if not count and more_at_source:
            self.update(Text("▲ older messages · scroll up to load them", style="dim"))
        elif count:
            arrow, where = ("▲", "earlier") if above else ("▼", "later")
            self.update(Text(f"{arrow} {count:,} {where} entr{'y' if count == 1 else 'ies'} · scroll to load", style="dim"))


class TranscriptView(FocusRestylesItself, GivesDrawContext, VerticalScroll):
    """See the module docstring."""

    BLANK = True  # a container without content or border of its own: its lines are blanks, not rendered
    # the scrollbar's column is kept while there is no scrollbar: when it appears, nothing reflows (text, tables)
    # and no chart is plotted again one column narrower
    DEFAULT_CSS = """
    TranscriptView { layout: stream; height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; overflow-x: hidden;
                     scrollbar-gutter: stable; }
    """

    class FollowChanged(Message):
        def __init__(self, following: bool) -> None:
            super().__init__()
            self.following = following

    class OlderWanted(Message):
        """The view is at the very top and the source has older items (a Kandev session's earlier pages)."""

        def __init__(self, view: TranscriptView) -> None:
            super().__init__()
            self.view = view

        @property
        def control(self) -> TranscriptView:
            return self.view

    def __init__(self, model: TranscriptModel, **kwargs) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.widgets: dict[str, Widget] = {}  # entry key → widget
        self.following = True
        self.permissions_answerable = False
        self.permissions_elsewhere = ""
        self._recheck_pending = False
        self.window = Window()  # the mounted entries: [lo, hi) of the model's
        self._loading = False
        self.top = Sentinel(id="earlier")
        self.bottom = Sentinel(id="later")
        self.more_at_source = False  # the source holds older items than the model (Kandev history pages)
        self._predraws: dict[AgentMessage, None] = {}  # messages to draw ahead of their frame, in order
        self._predraws_since = 0.0
        self._mounting: list[Widget] = []  # the entries the window's last move mounted (until they are)
        self._mounting_since = 0.0
        self._asked_older = False
        self._hit_widget: Widget | None = None  # the search's current hit, marked

    def compose(self):
        yield self.top
        yield self.bottom

    @property
    def entries(self) -> list[Entry]:
        return self.model.entries

    @property
    def layout_model(self) -> Layout:
        return self.model.layout

    @property
    def lo(self) -> int:
        return self.window.lo

    @property
    def hi(self) -> int:
        return self.window.hi

    # -- change sets in -------------------------------------------------------

    def apply(self, changes: ChangeSet) -> None:
        """Put a change set on screen: reshaped entries built anew, newer versions into mounted widgets, new entries
        mounted when the window is at the end, group summaries, then following and charts."""
        at_end = self.hi == len(self.entries) - changes.new_entries  # the window reached the end before the batch
        for old_key, entry in changes.rebuilt:
            self._rebuild(old_key, entry)
        entry_of = self.model.layout.entry_of
        for key, item in changes.updated.items():
            widget = self.widgets.get(entry_of[key].key)
            if widget is not None:
                widget.update_item(item)
                self._predraw([widget])
        if at_end and changes.new_entries:
            self._move(W.at_end(self.window, self.entries, self.following, *self._viewport_height()))
        self._show_sentinels()
        for key, summary in changes.summaries.items():
            group = self.widgets.get(key)
            if group is not None and isinstance(group, entry_widgets().ToolGroup):
                group.set_summary(summary)
        if self.following:
            self.call_after_refresh(self._follow)
        self.call_after_refresh(self.check_charts)

    def pre_layout(self, layout) -> None:
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

    @property
    def settling(self) -> bool:
        """Whether an entry of the window is still being put on screen (mounted, its Markdown parsed)."""
        return any(getattr(widget, "settling", False) for widget in self.widgets.values())

    # -- the mounted window ------------------------------------------------------

    def _viewport_height(self) -> tuple[int, W.Height]:
        """The viewport's height, and the entries' estimated height at its width (the window's arithmetic)."""
        viewport = Viewport(self.size.width or self.app.size.width, self.size.height or self.app.size.height)
        items = self.model.items
        return viewport.height, lambda entry: viewport.entry_height(entry, items)

    def _move(self, new: Window) -> None:
        """Mount and unmount what the window's move says (:func:`kandev_tui.session.window.moves`)."""
        moves = W.moves(self.window, new)
        for doomed in moves.unmount:
            self._unmount_range(doomed.start, doomed.stop)
        entries = self.entries
        mounted: list[Widget] = []
        if moves.mount_above:
            mounted += [self._build(entries[i]) for i in moves.mount_above]
            self.mount_all(mounted, after=self.top)
        if moves.mount_below:
            widgets = [self._build(entries[i]) for i in moves.mount_below]
            self.mount_all(widgets, before=self.bottom)
            self._predraw(widgets)
            mounted += widgets
        if mounted:
            self._mounting, self._mounting_since = mounted, time.monotonic()
        self.window = new

    def _extend_to_end(self) -> None:
        self._move(W.at_end(self.window, self.entries, self.following, *self._viewport_height()))

    def _predraw(self, widgets: Iterable[Widget]) -> None:
        """Draw new and grown messages ahead of the frame that measures them, a few milliseconds per event-loop turn:
        a frame of a flood would otherwise draw a screen of Markdown in one go, and a key pressed meanwhile would
        wait for all of it. Each waits in line (once); one that a frame drew first costs nothing."""
        E = made_entries()
        if E is None:  # no entry was ever made
            return
        fresh = [w for w in widgets if isinstance(w, E.AgentMessage) and w not in self._predraws]
        if not fresh:
            return
        idle = not self._predraws
        self._predraws.update(dict.fromkeys(fresh))
        if idle:
            self._predraws_since = time.monotonic()
            asyncio.get_running_loop().call_soon(self._predraw_next)

    @property
    def mounting(self) -> bool:
        """Entries just put in the window are still being mounted (the frame waits for them, FRAME_WAITS_AT_MOST at
        most: a frame drawn meanwhile would show the window half empty)."""
        if not self._mounting:
            return False
        if time.monotonic() - self._mounting_since < FRAME_WAITS_AT_MOST and not all(
                widget.is_mounted for widget in self._mounting):
            return True
        self._mounting = []
        return False

    @property
    def predrawing(self) -> bool:
        """Messages are being drawn ahead of their frame (the frame waits for them, FRAME_WAITS_AT_MOST at most)."""
        return bool(self._predraws) and time.monotonic() - self._predraws_since < FRAME_WAITS_AT_MOST

    def _predraw_next(self) -> None:
        stats.bump("predraw_turns")
        started = time.perf_counter()
        while self._predraws:  # at least one, then as many as fit in the slice
            widget = next(iter(self._predraws))
            del self._predraws[widget]
            widget.predraw()
            if time.perf_counter() - started >= PREDRAW_SLICE:
                break
        if self._predraws:  # the rest in a turn of its own: input goes between
            asyncio.get_running_loop().call_soon(self._predraw_next)

    def _build(self, entry: Entry) -> Widget:
        """A widget for an entry, from the layout's current state of its items."""
        items = [self.model.items[key] for key in entry.item_keys]
        E = entry_widgets()
        if entry.kind == "group":
            widget: Widget = E.ToolGroup(entry.key)
            for item in items:
                widget.update_item(item)
            widget.set_summary(self.model.summary(entry))
        elif entry.kind == "card":
            widget = E.ToolCard(items[0], entry.renderer)
        else:
            item = items[0]
            widget = E.ITEM_WIDGETS.get(item.kind, E.Notice)(item)
            if isinstance(widget, E.REQUESTS):
                widget.answerable = self.permissions_answerable and widget.pending
                widget.elsewhere = self.permissions_elsewhere
                if widget.answerable:
                    self.call_after_refresh(widget.focus)
        self.widgets[entry.key] = widget
        return widget

    def _rebuild(self, old_key: str, entry: Entry) -> None:
        """An entry the layout reshaped (a grouped call promoted to a card): built anew in place when mounted."""
        old = self.widgets.pop(old_key, None)
        if old is None or not old.is_mounted:
            return
        new = self._build(entry)
        self.mount(new, after=old)
        old.remove()

    def _unmount_range(self, start: int, stop: int) -> None:
        doomed = [self.widgets.pop(e.key) for e in self.entries[start:stop] if e.key in self.widgets]
        if doomed:
            self.remove_children(doomed)

    def _show_sentinels(self) -> None:
        self.top.show_count(self.lo, above=True, more_at_source=self.more_at_source)
        self.bottom.show_count(len(self.entries) - self.hi, above=False)

    def load_earlier(self) -> None:
        """Mount two screens of entries above the window; the viewport does not move."""
        if self.lo == 0 or self._loading:
            return
        self._loading = True
        first = next((self.widgets[e.key] for e in self.entries[self.lo:self.hi] if e.key in self.widgets), None)
        before_y = first.virtual_region.y if first is not None else 0
        new = W.earlier(self.window, self.entries, *self._viewport_height())
        if new.hi < self.hi:  # the window was full: the end is no longer mounted, so nothing new is followed
            self.set_following(False)
        self._move(new)
        self._show_sentinels()

        def keep_place() -> None:
            if first is not None and first.is_mounted:
                self.scroll_to(y=self.scroll_y + first.virtual_region.y - before_y, animate=False, immediate=True)
            self._loading = False
            self.check_charts()
            self._more_above()  # still at the top (nothing kept in place): no scroll event would ask for more

        self.call_after_refresh(keep_place)

    def set_more_at_source(self, more: bool) -> None:
        """Whether the source still holds older items; a new request may be made."""
        self.more_at_source = more
        self._asked_older = False
        self._show_sentinels()

    def ask_for_older(self) -> None:
        """At the very top with older items still at the source: ask for them, once until they come."""
        if not self._asked_older:
            self._asked_older = True
            self.post_message(self.OlderWanted(self))

    def reset(self, items: list[Item], more_at_source: bool = False) -> ChangeSet:
        """Show ``items`` anew, in order (older history came): the model places them all again; the entry at the top
        of the screen stays in place unless the view follows the end. Returns the model's change set."""
        anchor: str | None = None
        offset = 0
        if not self.following:
            for entry in self.entries[self.lo:self.hi]:
                widget = self.widgets.get(entry.key)
                if widget is not None and widget.is_mounted and widget.virtual_region.bottom > self.scroll_y:
                    anchor, offset = entry.item_keys[0], widget.virtual_region.y - int(self.scroll_y)
                    break
        self._unmount_range(self.lo, self.hi)
        self.widgets.clear()
        self.window = Window()
        changes = self.model.reset(items)
        self.more_at_source = more_at_source
        self._asked_older = False
        target = self.model.layout.entry_of.get(anchor) if anchor is not None else None
        if target is None:
            self._extend_to_end()
            self._show_sentinels()
            self.call_after_refresh(self._follow)
        else:
            widget = self.show_entry(target.index)
            self._show_sentinels()

            def keep_place() -> None:
                if widget is not None and widget.is_mounted:
                    self.scroll_to(y=max(0, widget.virtual_region.y - offset), animate=False, immediate=True)
                self.check_charts()
                self._more_above()  # older history placed with the view still at its top: ask on

            self.call_after_refresh(keep_place)
        self.call_after_refresh(self.check_charts)
        return changes

    def load_later(self) -> None:
        """Mount two screens of entries below the window (unmounting as many above when it is full)."""
        if self.hi >= len(self.entries) or self._loading:
            return
        self._loading = True
        anchor = next((self.widgets[e.key] for e in reversed(self.entries[self.lo:self.hi]) if e.key in self.widgets), None)
        before_y = anchor.virtual_region.y if anchor is not None else 0
        self._move(W.later(self.window, self.entries, *self._viewport_height()))
        self._show_sentinels()

        def keep_place() -> None:
            if anchor is not None and anchor.is_mounted:
                self.scroll_to(y=self.scroll_y + anchor.virtual_region.y - before_y, animate=False, immediate=True)
            self._loading = False
            self.check_charts()

        self.call_after_refresh(keep_place)

    def show_entry(self, index: int) -> Widget | None:
        """Mount a window around entry ``index`` and return its widget (search, jumps)."""
        if index not in self.window:
            self.set_following(False)
            self._move(W.around(index, len(self.entries)))
            self._show_sentinels()
        return self.widgets.get(self.entries[index].key)

    def reveal(self, index: int, key: str | None = None, needle: str | None = None) -> Widget | None:
        """Mount the entry (and its neighbourhood) if needed, scroll it to the top and return its widget.

        With ``key`` and ``needle`` (a search hit): the hit is marked, and unmarked when the next one is; a hit in a
        collapsed tool group expands the group and marks (and unfolds) the call that mentions it.
        """
        self.set_following(False)  # the user looks at something else: new output does not move the view
        widget = self.show_entry(index)
        if widget is None:
            return None
        self.mark_hit(None)
        if isinstance(widget, entry_widgets().ToolGroup) and key is not None and needle is not None:
            if not widget.expanded:
                widget.action_toggle()

            def mark_call() -> None:
                call = widget.call_view(key)
                self.mark_hit(call or widget, needle)
                self.call_after_refresh(self._bring_into_view, call or widget, needle)

            self.call_after_refresh(mark_call)
            return widget
        if needle is None:
            self.call_after_refresh(lambda: self.scroll_to_widget(widget, animate=False, top=True))
            return widget

        def mark() -> None:  # once its parts are mounted (a card composes them when it is)
            self.mark_hit(widget, needle)
            self.call_after_refresh(self._bring_into_view, widget, needle)

        self.call_after_refresh(mark)
        return widget

    def _bring_into_view(self, widget: Widget, needle: str, tries: int = 10) -> None:
        """Scroll to the row where ``widget`` draws the first match of ``needle`` (two rows of what comes before it
        above), or to its top when nothing it shows draws the match; once it is laid out (a call just unfolded)."""
        if not widget.is_attached:
            return
        if not widget.size.height and tries:
            self.call_after_refresh(self._bring_into_view, widget, needle, tries - 1)
            return
        found = first_match(widget, needle.casefold())
        target, row = found if found is not None else (widget, 0)
        self.scroll_to_widget(target, animate=False, top=True, immediate=True)
        if row > 2:
            self.scroll_to(y=self.scroll_y + row - 2, animate=False, immediate=True)

    def mark_hit(self, widget: Widget | None, needle: str | None = None) -> None:
        """Mark ``widget`` as the search's current hit (None: no hit is marked)."""
        previous = self._hit_widget
        if previous is not None and previous is not widget and previous.is_attached:
            previous.show_hit(None)
        self._hit_widget = widget
        if widget is not None:
            widget.show_hit(needle)

    # -- following -------------------------------------------------------------

    def _follow(self) -> None:
        # forced: Textual sets a grown virtual size (whose watcher follows) before it shows the scrollbar, and
        # refuses an unforced scroll to a view without one; the view's overflow is auto, so nothing else is bypassed.
        # A scrollbar not shown yet is not moved by the scroll: it is placed once it is there
        if self.following:
            no_bar = not self.show_vertical_scrollbar
            self.scroll_end(animate=False, immediate=True, force=True)
            if no_bar:
                self.call_next(self._place_scrollbar)

    def _place_scrollbar(self) -> None:
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.position = self.scroll_y

    # Only the user stops the following (a wheel turn, a key or the scrollbar moving up; a search hit or a jump
    # elsewhere). The view's own moves (its window unmounting entries above, starting afresh at the end, keeping its
    # place as entries mount) change scroll_y too, and a following view that read those as the user scrolling up
    # stopped following in a flood. Scrolling back to the end follows again.

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.set_following(False)
        self._more_above()  # the wheel at the top moves nothing: no scroll event would ask

    def on_scroll_up(self, message: ScrollUp) -> None:  # the scrollbar's track, above the thumb
        self.set_following(False)

    def on_scroll_to(self, message: ScrollTo) -> None:  # the scrollbar's thumb, dragged
        if message.y is not None and message.y < self.scroll_y:
            self.set_following(False)

    def action_scroll_up(self) -> None:
        self.set_following(False)
        super().action_scroll_up()
        self._more_above()

    def action_page_up(self) -> None:
        self.set_following(False)
        super().action_page_up()
        self._more_above()

    def action_scroll_home(self) -> None:
        self.set_following(False)
        super().action_scroll_home()
        self._more_above()

    def page_up(self) -> None:
        """A page up, as the user asked for it (the screen's pageup)."""
        self.set_following(False)
        self.scroll_page_up(animate=False)
        self._more_above()

    def _more_above(self) -> None:
        """At the very top (not following, nothing loading): mount the entries above the window, else ask the source
        for older ones. Scrolling to the top asks; so does every step that may leave the view at the top without a
        scroll (a load kept in place at 0, older history that came while the view was there) and every upward key or
        wheel turn there, which moves nothing, so that the top never stays stuck with more above it."""
        if self._loading or self.following or self.scroll_y > 1:
            return
        if self.lo > 0:
            self.load_earlier()
        elif self.more_at_source:
            self.ask_for_older()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        at_bottom = new >= self.max_scroll_y - 1
        if at_bottom and self.hi == len(self.entries):
            self.set_following(True)
        if not self._loading and not self.following:  # at the top only because the view moved: nothing to load
            if new <= 1 and (self.lo > 0 or self.more_at_source):
                self._more_above()
            elif at_bottom and self.hi < len(self.entries):
                self.load_later()
        self.check_charts()

    def watch_virtual_size(self, size) -> None:
        """Content grew (entries mounted, a streamed block, a chart plotted): a following view goes to its end now,
        as the layout that measured it says (the next frame shows the end, not one after it)."""
        self._follow()

    def set_following(self, following: bool) -> None:
        """Follow the latest output (or stop following) without moving: the view scrolls when output comes."""
        if following != self.following:
            self.following = following
            self.post_message(self.FollowChanged(following))

    def jump_to_latest(self) -> None:
        if self.hi < len(self.entries):  # the window moves to the end
            self._move(W.at_end(self.window, self.entries, True, *self._viewport_height()))
            self._show_sentinels()
        self.set_following(True)
        self.call_after_refresh(self._follow)

    def jump_to_first(self) -> None:
        if self.lo > 0:
            self.show_entry(0)
        self.set_following(False)
        self.call_after_refresh(lambda: self.scroll_home(animate=False, immediate=True))

    def on_resize(self) -> None:
        self.call_after_refresh(self.check_charts)

    # -- deferred plotting -------------------------------------------------------

    def check_charts(self) -> None:
        """Plot the charts of entries within one screen height of the visible region."""
        if not self.draw_context.visible():
            return
        height = self.size.height
        if not height:
            return
        top, bottom = self.scroll_y - height, self.scroll_y + 2 * height
        E = made_entries()
        if E is None:  # no entry was ever made: no chart either
            return
        unplaced = False
        for widget in self.children:
            if not isinstance(widget, E.ToolCard):
                continue
            region = widget.virtual_region
            if region.height == 0:
                unplaced = True  # not laid out yet: look again after the next refresh
                continue
            if region.bottom < top or region.y > bottom:
                continue
            for chart in widget.query(E.ChartBlock):
                if not chart.plotted:
                    chart.ensure_plotted()
        if unplaced:
            self._ask_recheck()

    def _ask_recheck(self) -> None:
        if not self._recheck_pending:
            self._recheck_pending = True
            self.set_timer(0.05, self._recheck)

    def _recheck(self) -> None:
        self._recheck_pending = False
        self.check_charts()

    # -- permissions -----------------------------------------------------------

    def is_request(self, widget: Widget | None) -> bool:
        """Whether ``widget`` is one of the transcript's requests (a permission, a question), or in one."""
        E = made_entries()
        node = widget
        while E is not None and node is not None and node is not self:
            if isinstance(node, E.REQUESTS):
                return True
            node = node.parent  # type: ignore[assignment]
        return False

    def set_permissions_answerable(self, answerable: bool, elsewhere: str = "", take_focus: bool = True) -> None:
        """Let pending requests take answers (and give the newest one focus, when ``take_focus``), or make them
        read-only (``elsewhere``: where they can be answered instead)."""
        self.permissions_answerable = answerable
        self.permissions_elsewhere = elsewhere
        pending = []
        E = made_entries()
        for widget in self.query(E.REQUEST_SELECTOR) if E is not None else ():  # no entry made: no request
            widget.set_answerable(answerable and widget.pending, elsewhere)
            if widget.answerable:
                pending.append(widget)
        if take_focus and pending and not any(w.has_focus_within for w in pending):
            pending[-1].focus()

    def refresh_theme(self) -> None:
        """The theme changed: what draws with the theme's colours itself (charts, a diff's shades) draws again."""
        E = made_entries()
        if E is None:
            return
        for chart in self.query(E.ChartBlock):
            chart.refresh_theme()
        for call in self.query(E.ToolCallView):
            call.redraw()
        for request in self.query(E.REQUEST_SELECTOR):
            request.refresh_theme()
