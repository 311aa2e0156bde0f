"""The transcript's mounted window: which of the model's entries are widgets now, the sentinels that count the rest,
and the moves that mount two screens more on a side and unmount as many from the far side (the arithmetic is
:mod:`kandev_tui.session.window`'s)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import time

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from kandev_tui.base import pacing
from kandev_tui.session import window as W
from kandev_tui.session.layout import Entry
from kandev_tui.session.window import Viewport, Window

from .lazy import entry_widgets

if TYPE_CHECKING:
    from kandev_tui.widgets.base import EntryWidget

    from ._parts import ViewParts
else:
    ViewParts = object  # a plain mixin at run time: see _parts


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


class MountedWindow(ViewParts):
    """The window of mounted entries (a part of :class:`TranscriptView`)."""

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
            self._focus_request(mounted)
        if moves.mount_below:
            widgets = [self._build(entries[i]) for i in moves.mount_below]
            self.mount_all(widgets, before=self.bottom)
            self._focus_request(widgets)
            self._predraw(widgets)
            mounted += widgets
        if mounted:
            self._mounting, self._mounting_since = mounted, time.monotonic()
        self.window = new

    def _extend_to_end(self) -> None:
        self._move(W.at_end(self.window, self.entries, self.following, *self._viewport_height()))

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

    def _build(self, entry: Entry) -> EntryWidget:
        """A widget for an entry, from the layout's current state of its items."""
        items = [self.model.items[key] for key in entry.item_keys]
        E = entry_widgets()
        widget: EntryWidget
        if entry.kind == "group":
            group = E.ToolGroup(entry.key)
            for item in items:
                group.update_item(item)
            group.set_summary(self.model.summary(entry))
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
                widget.answerable = self.permissions_answerable and widget.pending
                widget.elsewhere = self.permissions_elsewhere
        self.widgets[entry.key] = widget
        return widget

    def _focus_request(self, mounted: Sequence[Widget]) -> None:
        """A request just put in the window that waits for the user's answer takes the keys (1-9 answer it) in the
        frame that first shows it, unless the user was typing in the prompt when it came (``requests_take_focus``):
        focused after that frame, a key pressed on seeing it went where the focus was (a tab meant for the request
        left the prompt instead)."""
        E = entry_widgets()  # (what was mounted was made from them)
        waiting = [w for w in mounted if isinstance(w, E.REQUESTS) and w.answerable]
        if not waiting or not self.requests_take_focus:
            return
        self.give_keys_to(waiting[-1])  # it is in the DOM (mount_all attaches at once): focused as it mounts

    def _rebuild(self, old_key: str, entry: Entry) -> None:
        """An entry the layout reshaped (a grouped call promoted to a card): built anew in place when mounted."""
        old = self.widgets.pop(old_key, None)
        if old is None or not old.is_mounted:
            return
        new = self._build(entry)
        self.mount(new, after=old)
        self._focus_request([new])
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
            self.post_message(self.OlderWanted(self))  # type: ignore[arg-type]  # self is the TranscriptView

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

    def show_entry(self, index: int) -> EntryWidget | None:
        """Mount a window around entry ``index`` and return its widget (search, jumps)."""
        if index not in self.window:
            self.set_following(False)
            self._move(W.around(index, len(self.entries)))
            self._show_sentinels()
        return self.widgets.get(self.entries[index].key)
