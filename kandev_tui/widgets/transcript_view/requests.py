"""The transcript's requests (permissions, questions): answerable here or elsewhere, which one has the keys, what is
typed for one not mounted yet, and the theme redrawn."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widget import Widget

from kandev_tui.ui.key_order import type_again

from kandev_tui.widgets.transcript_view.lazy import made_entries


class RequestFocus:
    """The requests among ``view``'s entries, as the user answers them."""

    def __init__(self, view: VerticalScroll) -> None:
        self._view = view
        self.answerable = False  # pending requests take answers here
        self.elsewhere = ""  # where they can be answered instead
        self.take_focus = True  # a request mounted answerable takes the keys (not while the user types)
        self.kept: list[tuple[str, str | None]] | None = None  # typed while the view holds the keys for one

    def is_request(self, widget: Widget | None) -> bool:
        """Whether ``widget`` is one of the transcript's requests (a permission, a question), or in one."""
        E = made_entries()
        node = widget
        while E is not None and node is not None and node is not self._view:
            if isinstance(node, E.REQUESTS):
                return True
            node = node.parent  # type: ignore[assignment]
        return False

    def set_answerable(self, answerable: bool, elsewhere: str = "", take_focus: bool = True) -> None:
        """Let pending requests take answers (and give the newest one focus, when ``take_focus``), or make them
        read-only (``elsewhere``: where they can be answered instead). ``take_focus`` holds for requests mounted
        later too."""
        self.answerable, self.elsewhere, self.take_focus = answerable, elsewhere, take_focus
        pending = []
        E = made_entries()
        for widget in self._view.query(E.REQUEST_SELECTOR) if E is not None else ():  # no entry made: no request
            widget.set_answerable(answerable and widget.pending, elsewhere)
            if widget.answerable:
                pending.append(widget)
        if take_focus and pending and not any(w.has_focus_within for w in pending):
            self.give_keys_to(pending[-1])

    def made(self, widget: Widget) -> None:
        """A request widget was just made for the view: answerable as the view's requests are."""
        widget.answerable = self.answerable and widget.pending  # type: ignore[attr-defined]
        widget.elsewhere = self.elsewhere  # type: ignore[attr-defined]

    def mounted(self, widgets: list[Widget]) -> None:
        """A request just put in the window that waits for the user's answer takes the keys (1-9 answer it) in the
        frame that first shows it, unless the user was typing in the prompt when it came (``take_focus``): focused
        after that frame, a key pressed on seeing it went where the focus was (a tab meant for the request left the
        prompt instead)."""
        E = made_entries()
        waiting = [w for w in widgets if E is not None and isinstance(w, E.REQUESTS) and w.answerable]
        if waiting and self.take_focus:
            self.give_keys_to(waiting[-1])  # it is in the DOM (mount_all attaches at once): focused as it mounts

    def give_keys_to(self, request: Widget) -> None:
        """A request waiting for the user's answer takes the keys (1-9 answer it), and once laid out it is brought
        into view, even when the user had scrolled up to read: what the keys answer is seen. (Textual's focus
        scrolls to what it can measure: a request just mounted has no place yet, and stayed below, out of sight,
        while 1 allowed it.)"""
        request.focus(scroll_visible=False)
        # what was kept for it goes now, ahead of the keys typed after it (the view's blur, which would type it too,
        # comes in the view's own queue: a loaded machine sent the next key to the request first, "o2k")
        self.type_kept()
        self._view.call_after_refresh(self._into_view, request)

    def _into_view(self, request: Widget) -> None:
        if request.has_focus and not self._view.can_view_entire(request):
            self._view.scroll_to_center(request, animate=False, origin_visible=True, immediate=True)

    def _waiting(self) -> list[Widget]:
        """The requests waiting for the user's answer here, oldest first (none before any entry is made)."""
        E = made_entries()
        return [w for w in self._view.query(E.REQUEST_SELECTOR) if w.answerable] if E is not None else []

    def without_keys(self) -> bool:
        """A request waits for the user's answer and none has the keys (the user went on typing in the prompt)."""
        pending = self._waiting()
        return bool(pending) and not any(w.has_focus_within for w in pending)

    def take_keys(self) -> None:
        """The session is shown while a request waits for the user's answer: the newest one takes the keys, or, while
        it is not mounted yet, the transcript (it takes them from there as it mounts): never the prompt, where a
        digit meant for the request would be typed."""
        view = self._view
        pending = self._waiting()
        target = pending[-1] if pending else view
        if view.is_mounted and not any(w.has_focus_within for w in pending):
            view.screen.set_focus(target, scroll_visible=False)  # now, not after the messages already queued
            if target is view:
                self.kept = []  # what is typed until then is the request's (f4 and 1 at once)

    def keep(self, key: str, character: str | None) -> bool:
        """A character typed while the view holds the keys for a request not mounted yet: kept for it (True)."""
        if self.kept is None:
            return False
        self.kept.append((key, character))
        return True

    def type_kept(self) -> None:
        """The focus moved on (to the request, now mounted; to the prompt, once nothing waits; where the user took it):
        what was kept for the request is typed again, as the terminal sends keys, and goes where the focus is now, in
        its order."""
        kept, self.kept = self.kept, None
        if kept:
            type_again(self._view.app, kept)

    def refresh_theme(self) -> None:
        """The theme changed: what draws with the theme's colours itself (charts, a diff's shades) draws again."""
        E = made_entries()
        if E is None:
            return
        view = self._view
        for chart in view.query(E.ChartBlock):
            chart.refresh_theme()
        for call in view.query(E.ToolCallView):
            call.redraw()
        for request in view.query(E.REQUEST_SELECTOR):
            request.refresh_theme()
