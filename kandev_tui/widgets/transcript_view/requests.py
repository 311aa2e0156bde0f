"""The transcript's requests (permissions, questions): answerable here or elsewhere; the theme redrawn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.widget import Widget

from kandev_tui.ui.key_order import type_again

from .lazy import made_entries

if TYPE_CHECKING:
    from ._parts import ViewParts
else:
    ViewParts = object  # a plain mixin at run time: see _parts


class Requests(ViewParts):
    """Requests and the theme (a part of :class:`TranscriptView`)."""

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
        read-only (``elsewhere``: where they can be answered instead). ``take_focus`` holds for requests mounted
        later too."""
        self.permissions_answerable = answerable
        self.permissions_elsewhere = elsewhere
        self.requests_take_focus = take_focus
        pending = []
        E = made_entries()
        for widget in self.query(E.REQUEST_SELECTOR) if E is not None else ():  # no entry made: no request
            widget.set_answerable(answerable and widget.pending, elsewhere)
            if widget.answerable:
                pending.append(widget)
        if take_focus and pending and not any(w.has_focus_within for w in pending):
            self.give_keys_to(pending[-1])

    def give_keys_to(self, request: Widget) -> None:
        """A request waiting for the user's answer takes the keys (1-9 answer it), and once laid out it is brought
        into view, even when the user had scrolled up to read: what the keys answer is seen. (Textual's focus
        scrolls to what it can measure: a request just mounted has no place yet, and stayed below, out of sight,
        while 1 allowed it.)"""
        request.focus(scroll_visible=False)
        self.call_after_refresh(self._into_view, request)

    def _into_view(self, request: Widget) -> None:
        if request.has_focus and not self.can_view_entire(request):
            self.scroll_to_center(request, animate=False, origin_visible=True, immediate=True)

    def _answerable_requests(self) -> list[Widget]:
        """The requests waiting for the user's answer here, oldest first (none before any entry is made)."""
        E = made_entries()
        return [w for w in self.query(E.REQUEST_SELECTOR) if w.answerable] if E is not None else []

    def request_without_keys(self) -> bool:
        """A request waits for the user's answer and none has the keys (the user went on typing in the prompt)."""
        pending = self._answerable_requests()
        return bool(pending) and not any(w.has_focus_within for w in pending)

    def take_keys_for_request(self) -> None:
        """The session is shown while a request waits for the user's answer: the newest one takes the keys, or, while
        it is not mounted yet, the transcript (it takes them from there as it mounts): never the prompt, where a
        digit meant for the request would be typed."""
        pending = self._answerable_requests()
        target = pending[-1] if pending else self
        if self.is_mounted and not any(w.has_focus_within for w in pending):
            self.screen.set_focus(target, scroll_visible=False)  # now, not after the messages already queued
            if target is self:
                self._kept_for_request = []  # what is typed until then is the request's (f4 and 1 at once)

    _kept_for_request: list[tuple[str, str | None]] | None = None

    def on_key(self, event: events.Key) -> None:
        """Characters typed while the transcript holds the keys for a request not mounted yet are kept for it."""
        if self._kept_for_request is not None and event.is_printable:
            event.stop()
            self._kept_for_request.append((event.key, event.character))

    def on_blur(self) -> None:
        """The focus moved on (to the request, now mounted; to the prompt, once nothing waits; where the user took it):
        what was kept for the request is typed again, as the terminal sends keys, and goes where the focus is now, in
        its order."""
        kept, self._kept_for_request = self._kept_for_request, None
        if kept:
            type_again(self.app, kept)

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
