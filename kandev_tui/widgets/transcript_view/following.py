"""Following the newest output while the user is at the bottom; only the user stops it. Scrolling to either end
loads what lies beyond the window.

Textual's public ``anchor()`` was tried in its place (Textual 8.2) and does not fit: an anchored view bottom-aligns a
transcript shorter than the screen (blank lines above it; 29 snapshots changed), every ``scroll_to`` of the view's
own (keeping its place as the window moves) releases the anchor unless told not to, and the anchor comes back at
the bottom of the *mounted* entries, where following must wait for the window to reach the transcript's end."""

from __future__ import annotations

from typing import Callable

from textual.containers import VerticalScroll
from textual.widget import Widget

from kandev_tui.session import window as W

from kandev_tui.widgets.transcript_view.window import EntryWindow


class Follower:
    """Whether ``view`` follows the newest output of its ``window`` (``following``), and what lies below when it does
    not, said through ``below(None | "more" | "new")`` when it changes.

    Only the user stops the following (a wheel turn, a key or the scrollbar moving up; a search hit or a jump
    elsewhere). The view's own moves (its window unmounting entries above, starting afresh at the end, keeping its
    place as entries mount) change scroll_y too, and a following view that read those as the user scrolling up
    stopped following in a flood. Scrolling back to the end follows again."""

    def __init__(self, view: VerticalScroll, window: EntryWindow, below: Callable[[str | None], None],
                 check_charts: Callable[[], None]) -> None:
        self._view = view
        self._window = window
        self._below_said = below
        self._check_charts = check_charts
        self.following = True
        self.new_below = False  # output came since the view stopped following
        self._below: str | None = None

    def follow(self) -> None:
        # forced: Textual sets a grown virtual size (whose watcher follows) before it shows the scrollbar, and
        # refuses an unforced scroll to a view without one; the view's overflow is auto, so nothing else is bypassed.
        # A scrollbar not shown yet is not moved by the scroll: it is placed once it is there
        view = self._view
        if self.following:
            no_bar = not view.show_vertical_scrollbar
            view.scroll_end(animate=False, immediate=True, force=True)
            if no_bar:
                view.call_next(self._place_scrollbar)

    def _place_scrollbar(self) -> None:
        if self._view.show_vertical_scrollbar:
            self._view.vertical_scrollbar.position = self._view.scroll_y

    def went_up(self) -> None:
        """The user moved up (a wheel turn, a key): no longer following; at the top, more is loaded."""
        self.set_following(False)
        self.more_above()  # the wheel at the top moves nothing: no scroll event would ask

    def keys_moved_to(self, focused: Widget) -> None:
        """The user's keys (tab, shift+tab) gave an entry of the view the focus, and Textual scrolls to it. One that
        lies above the transcript's last screen stops the following, which pulled the view back to the latest
        output, away from it, at the next change of the content (the group opened, a line that came). (Not every
        focus: a request that takes the keys as it arrives, with output after it, leaves the view following.)"""
        view = self._view
        widget, top = focused, 0
        while widget.parent is not view:  # its place in the view's content, through the entry that holds it
            top += widget.virtual_region.y
            if not isinstance(widget.parent, Widget):
                return
            widget = widget.parent
        bottom = widget.virtual_region.y + top + focused.outer_size.height
        if bottom <= view.virtual_size.height - view.scrollable_content_region.height:
            self.set_following(False)

    def at_end(self) -> None:
        """A move down follows again once at the end, even one that moves nothing there (the view made taller left it
        at its end, not following)."""
        if self._view.scroll_y >= self._view.max_scroll_y - 1 and self._window.hi == len(self._window.entries):
            self.set_following(True)

    def more_above(self) -> None:
        """At the very top (not following, nothing loading): mount the entries above the window, else ask the source
        for older ones. Scrolling to the top asks; so does every step that may leave the view at the top without a
        scroll (a load kept in place at 0, older history that came while the view was there) and every upward key or
        wheel turn there, which moves nothing, so that the top never stays stuck with more above it."""
        window = self._window
        if window.loading or self.following or self._view.scroll_y > 1:
            return
        if window.lo > 0:
            window.load_earlier()
        elif window.more_at_source:
            window.ask_for_older()

    def scrolled(self, old: float, new: float) -> None:
        """The view scrolled from ``old`` to ``new``."""
        window = self._window
        at_bottom = new >= self._view.max_scroll_y - 1
        if new > old:  # moved down (to the end?): not a view made taller or its content shorter, which moves it up
            self.at_end()  # (ctrl+home, then the badge's line, pulled the view back to following: the next output
            # scrolled it away from the top)
        if not window.loading and not self.following:  # at the top only because the view moved: nothing to load
            if new <= 1 and (window.lo > 0 or window.more_at_source):
                self.more_above()
            elif at_bottom and window.hi < len(window.entries):
                window.load_later()
        self.say_below()
        self._check_charts()

    def resized(self) -> None:
        """Content grew, or the view was made shorter: a following view goes to its end now, as the layout that
        measured it says (the next frame shows the end, not one after it)."""
        self.follow()
        self.say_below()

    def say_below(self) -> None:
        """What lies below, said when it changes: nothing while the view follows, nor at the very end of the
        transcript; "new" once output came below, else "more". (The terminal made taller after ctrl+home leaves the
        view at its end, not following: "more below" was said there, with nothing below.)"""
        window = self._window
        if self.following:
            below = None
        elif self.new_below:
            below = "new"
        elif window.hi == len(window.entries) and self._view.scroll_y >= self._view.max_scroll_y:
            below = None
        else:
            below = "more"
        if below != self._below:
            self._below = below
            self._below_said(below)

    def came_below(self) -> None:
        """Output came while the view does not follow."""
        if not self.new_below:
            self.new_below = True
            self.say_below()

    def set_following(self, following: bool) -> None:
        """Follow the latest output (or stop following) without moving: the view scrolls when output comes. A view
        that shows the whole transcript has nothing to leave: it keeps following (its badge said "more below" of a
        transcript that fits, after ctrl+home or an up key)."""
        window = self._window
        if not following and window.lo == 0 and window.hi == len(window.entries) and self._view.max_scroll_y <= 0:
            return
        if following != self.following:
            self.following, self.new_below = following, False
            self.say_below()

    def jump_to_latest(self) -> None:
        window = self._window
        if window.hi < len(window.entries):  # the window moves to the end
            window.move(W.at_end(window.window, window.entries, True, *window.viewport_height()))
            window.show_sentinels()
        self.set_following(True)
        self._view.call_after_refresh(self.follow)

    def jump_to_first(self) -> None:
        if self._window.lo > 0:
            self._window.show_entry(0)
        self.set_following(False)
        self._view.call_after_refresh(lambda: self._view.scroll_home(animate=False, immediate=True))
