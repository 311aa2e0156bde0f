"""Following the newest output while the user is at the bottom; only the user stops it. Scrolling to either end
loads what lies beyond the window.

Textual's public ``anchor()`` was tried in its place (Textual 8.2) and does not fit: an anchored view bottom-aligns a
transcript shorter than the screen (blank lines above it; 29 snapshots changed), every ``scroll_to`` of the view's
own (keeping its place as the window moves) releases the anchor unless told not to, and the anchor comes back at
the bottom of the *mounted* entries, where following must wait for the window to reach the transcript's end."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.scrollbar import ScrollTo, ScrollUp
from textual.widget import Widget

from kandev_tui.session import window as W

if TYPE_CHECKING:
    from ._parts import ViewParts
else:
    ViewParts = object  # a plain mixin at run time: see _parts


class Following(ViewParts):
    """Following and scrolling (a part of :class:`TranscriptView`)."""

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

    def keys_moved_to(self, focused: Widget) -> None:
        """The user's keys (tab, shift+tab) gave an entry of the view the focus, and Textual scrolls to it. One that
        lies above the transcript's last screen stops the following, which pulled the view back to the latest
        output, away from it, at the next change of the content (the group opened, a line that came). (Not every
        focus: a request that takes the keys as it arrives, with output after it, leaves the view following.)"""
        widget, top = focused, 0
        while widget.parent is not self:  # its place in the view's content, through the entry that holds it
            top += widget.virtual_region.y
            if not isinstance(widget.parent, Widget):
                return
            widget = widget.parent
        bottom = widget.virtual_region.y + top + focused.outer_size.height
        if bottom <= self.virtual_size.height - self.scrollable_content_region.height:
            self.set_following(False)

    # ... and a move down follows again once at the end, even one that moves nothing there (the view made taller
    # left it at its end, not following)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._follow_at_end()

    def action_scroll_down(self) -> None:
        super().action_scroll_down()
        self._follow_at_end()

    def action_page_down(self) -> None:
        super().action_page_down()
        self._follow_at_end()

    def action_scroll_end(self) -> None:
        super().action_scroll_end()
        self._follow_at_end()

    def _follow_at_end(self) -> None:
        if self.scroll_y >= self.max_scroll_y - 1 and self.hi == len(self.entries):
            self.set_following(True)

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
        if new > old:  # moved down (to the end?): not a view made taller or its content shorter, which moves it up
            self._follow_at_end()  # (ctrl+home, then the badge's line, pulled the view back to following: the next
            # output scrolled it away from the top)
        if not self._loading and not self.following:  # at the top only because the view moved: nothing to load
            if new <= 1 and (self.lo > 0 or self.more_at_source):
                self._more_above()
            elif at_bottom and self.hi < len(self.entries):
                self.load_later()
        self._say_below()
        self.check_charts()

    def watch_virtual_size(self, size) -> None:
        """Content grew (entries mounted, a streamed block, a chart plotted): a following view goes to its end now,
        as the layout that measured it says (the next frame shows the end, not one after it)."""
        self._follow()
        self._say_below()

    def on_resize(self) -> None:
        """Made shorter (a terminal resized, a row added under it) with content of the same height: no new virtual
        size follows, and a following view kept its scroll, its last lines hidden below."""
        self._follow()
        self._say_below()

    _below: str | None = None

    def _say_below(self) -> None:
        """What lies below, said (:class:`Below`) when it changes: nothing while the view follows, nor at the very
        end of the transcript; "new" once output came below, else "more". (The terminal made taller after ctrl+home
        leaves the view at its end, not following: "more below" was said there, with nothing below.)"""
        if self.following:
            below = None
        elif self.new_below:
            below = "new"
        elif self.hi == len(self.entries) and self.scroll_y >= self.max_scroll_y:
            below = None
        else:
            below = "more"
        if below != self._below:
            self._below = below
            self.post_message(self.Below(below))

    def set_following(self, following: bool) -> None:
        """Follow the latest output (or stop following) without moving: the view scrolls when output comes. A view
        that shows the whole transcript has nothing to leave: it keeps following (its badge said "more below" of a
        transcript that fits, after ctrl+home or an up key)."""
        if not following and self.lo == 0 and self.hi == len(self.entries) and self.max_scroll_y <= 0:
            return
        if following != self.following:
            self.following, self.new_below = following, False
            self._say_below()

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
