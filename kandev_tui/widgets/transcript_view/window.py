"""The transcript's mounted window: which of the model's entries are widgets now, the sentinels that count the rest,
and the moves that mount two screens more on a side and unmount as many from the far side (the arithmetic is
:mod:`kandev_tui.session.window`'s)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable, Protocol

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from kandev_tui.base import pacing
from kandev_tui.session import window as W
from kandev_tui.session.changes import TranscriptModel
from kandev_tui.session.layout import Entry
from kandev_tui.session.window import Viewport, Window

from kandev_tui.widgets.transcript_view.lazy import entry_widgets
from kandev_tui.widgets.transcript_view.predraw import Predrawer
from kandev_tui.widgets.transcript_view.requests import RequestFocus
from kandev_tui.widgets.transcript_view.settling import Settling

if TYPE_CHECKING:
    from kandev_tui.widgets.entries.base import EntryWidget


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


class Follows(Protocol):
    """What the window asks of the following (:class:`~.following.Follower`, given to it once both are made)."""

    following: bool

    def set_following(self, following: bool) -> None: ...
    def more_above(self) -> None: ...


class EntryWindow:
    """The entries of ``model`` mounted in ``view`` (``widgets``: entry key → widget), between two sentinels.
    ``requests`` makes new requests answerable and gives one the keys; ``predrawer`` draws new messages ahead;
    ``settling`` counts the entries built until they say they are on screen; ``loaded()`` is called once a load kept
    the view in place (charts near it plotted); ``older_wanted()`` asks the source for older items."""

    def __init__(self, view: VerticalScroll, model: TranscriptModel, requests: RequestFocus, predrawer: Predrawer,
                 settling: Settling, loaded: Callable[[], None], older_wanted: Callable[[], None]) -> None:
        self._view = view
        self._model = model
        self._settling = settling
        self._requests = requests
        self._predrawer = predrawer
        self._loaded = loaded
        self._older_wanted = older_wanted
        self.follow: Follows  # the view's follower (set by the view once it is made)
        self.widgets: dict[str, EntryWidget] = {}  # entry key → its widget
        self.window = Window()  # the mounted entries: [lo, hi) of the model's
        self.top = Sentinel(id="earlier")
        self.bottom = Sentinel(id="later")
        self.more_at_source = False  # the source holds older items than the model (Kandev history pages)
        self.loading = False
        self._asked_older = False
        self._mounting: list[Widget] = []  # the entries the last move mounted (until they are)
        self._mounting_since = 0.0

    @property
    def entries(self) -> list[Entry]:
        return self._model.entries

    @property
    def lo(self) -> int:
        return self.window.lo

    @property
    def hi(self) -> int:
        return self.window.hi

    def viewport_height(self) -> tuple[int, W.Height]:
        """The viewport's height, and the entries' estimated height at its width (the window's arithmetic)."""
        view = self._view
        viewport = Viewport(view.size.width or view.app.size.width, view.size.height or view.app.size.height)
        items = self._model.items
        return viewport.height, lambda entry: viewport.entry_height(entry, items)

    def move(self, new: Window) -> None:
        """Mount and unmount what the window's move says (:func:`kandev_tui.session.window.moves`)."""
        moves = W.moves(self.window, new)
        for doomed in moves.unmount:
            self._unmount_range(doomed.start, doomed.stop)
        entries = self.entries
        mounted: list[Widget] = []
        if moves.mount_above:
            mounted += [self.build(entries[i]) for i in moves.mount_above]
            self._view.mount_all(mounted, after=self.top)
            self._requests.mounted(mounted)
        if moves.mount_below:
            widgets: list[Widget] = [self.build(entries[i]) for i in moves.mount_below]
            self._view.mount_all(widgets, before=self.bottom)
            self._requests.mounted(widgets)
            self._predrawer.add(widgets)
            mounted += widgets
        if mounted:
            self._mounting, self._mounting_since = mounted, time.monotonic()
        self.window = new

    def to_end(self) -> None:
        self.move(W.at_end(self.window, self.entries, self.follow.following, *self.viewport_height()))

    @property
    def mounting(self) -> bool:
        """Entries just put in the window are still being mounted (the frame waits for them, FRAME_WAITS_AT_MOST at
        most: a frame drawn meanwhile would show the window half empty)."""
        if not self._mounting:
            return False
        if time.monotonic() - self._mounting_since < pacing.FRAME_WAITS_AT_MOST and not all(
                widget.is_mounted for widget in self._mounting):
            return True
        self._mounting = []
        return False

    def build(self, entry: Entry) -> EntryWidget:
        """A widget for an entry, from the layout's current state of its items."""
        items = [self._model.items[key] for key in entry.item_keys]
        E = entry_widgets()
        widget: EntryWidget
        if entry.kind == "group":
            group = E.ToolGroup(entry.key)
            for item in items:
                group.update_item(item)
            group.set_summary(self._model.summary(entry))
            widget = group
        elif entry.kind == "moved":  # a card's old place (it moved below its request): an empty group, not drawn
            widget = E.ToolGroup(entry.key)
            widget.display = False
        elif entry.kind == "card":
            widget = E.ToolCard(items[0], entry.renderer)
        elif entry.kind == "call":
            widget = E.SpawningCall(items)
        else:
            item = items[0]
            widget = E.ITEM_WIDGETS.get(item.kind, E.Notice)(item)
            if isinstance(widget, E.REQUESTS):
                self._requests.made(widget)
        self.widgets[entry.key] = widget
        self._settling.built(widget)
        return widget

    def rebuild(self, old_key: str, entry: Entry) -> None:
        """An entry the layout reshaped (a grouped call promoted to a card): built anew in place when mounted."""
        old = self.widgets.pop(old_key, None)
        if old is None or not old.is_mounted:
            return
        new = self.build(entry)
        self._view.mount(new, after=old)
        self._requests.mounted([new])
        self._settling.forget([old])
        old.remove()

    def _unmount_range(self, start: int, stop: int) -> None:
        doomed = [self.widgets.pop(e.key) for e in self.entries[start:stop] if e.key in self.widgets]
        if doomed:
            self._settling.forget(doomed)
            self._view.remove_children(doomed)

    def show_sentinels(self) -> None:
        self.top.show_count(self.lo, above=True, more_at_source=self.more_at_source)
        self.bottom.show_count(len(self.entries) - self.hi, above=False)

    def clear(self, more_at_source: bool) -> None:
        """Every widget removed (the transcript shown anew)."""
        doomed = list(self.widgets.values())
        self.widgets.clear()
        self._settling.clear()
        if doomed:
            self._view.remove_children(doomed)
        self.window = Window()
        self.more_at_source = more_at_source
        self._asked_older = False

    def load_earlier(self) -> None:
        """Mount two screens of entries above the window; the viewport does not move."""
        if self.lo == 0 or self.loading:
            return
        self.loading = True
        first = next((self.widgets[e.key] for e in self.entries[self.lo:self.hi] if e.key in self.widgets), None)
        before_y = first.virtual_region.y if first is not None else 0
        new = W.earlier(self.window, self.entries, *self.viewport_height())
        if new.hi < self.hi:  # the window was full: the end is no longer mounted, so nothing new is followed
            self.follow.set_following(False)
        self.move(new)
        self.show_sentinels()
        view = self._view

        def keep_place() -> None:
            if first is not None and first.is_mounted:
                view.scroll_to(y=view.scroll_y + first.virtual_region.y - before_y, animate=False, immediate=True)
            self.loading = False
            self._loaded()
            self.follow.more_above()  # still at the top (nothing kept in place): no scroll event would ask for more

        view.call_after_refresh(keep_place)

    def set_more_at_source(self, more: bool) -> None:
        """Whether the source still holds older items; a new request may be made."""
        self.more_at_source = more
        self._asked_older = False
        self.show_sentinels()

    def ask_for_older(self) -> None:
        """At the very top with older items still at the source: ask for them, once until they come."""
        if not self._asked_older:
            self._asked_older = True
            self._older_wanted()

    def load_later(self) -> None:
        """Mount two screens of entries below the window (unmounting as many above when it is full)."""
        if self.hi >= len(self.entries) or self.loading:
            return
        self.loading = True
        anchor = next((self.widgets[e.key] for e in reversed(self.entries[self.lo:self.hi]) if e.key in self.widgets), None)
        before_y = anchor.virtual_region.y if anchor is not None else 0
        self.move(W.later(self.window, self.entries, *self.viewport_height()))
        self.show_sentinels()
        view = self._view

        def keep_place() -> None:
            if anchor is not None and anchor.is_mounted:
                view.scroll_to(y=view.scroll_y + anchor.virtual_region.y - before_y, animate=False, immediate=True)
            self.loading = False
            self._loaded()

        view.call_after_refresh(keep_place)

    def show_entry(self, index: int) -> EntryWidget | None:
        """Mount a window around entry ``index`` and return its widget (search, jumps)."""
        if index not in self.window:
            self.follow.set_following(False)
            self.move(W.around(index, len(self.entries)))
            self.show_sentinels()
        return self.widgets.get(self.entries[index].key)
