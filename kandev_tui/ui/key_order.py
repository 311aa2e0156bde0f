"""Keys in the order they were typed, each to the widget that has the focus when its turn comes.

Textual's app hands a key to the widget focused when the app's queue reaches the key. The key then climbs that
widget's ancestors, one message queue after another, and the bindings of the focused chain run once it is back at
the app. So a key that moves the focus (tab, an answer's digit, enter on a list) moves it only after the keys behind
it were handed out already. When several keys arrive in one read of the terminal (a script, a paste typed as keys, a
slow link, a busy machine), "tab" and the text typed after it left the text with the widget tab left, and the enter
that followed found an empty prompt: the message was lost.

:class:`KeyOrder` keeps the terminal's keys (and pastes) behind a key *in flight*: one handed to a widget, not yet
through the widget and every ancestor up to the app. Text typed into a text box starts no flight: it stays where it
lands and moves no focus, so typing runs as fast as it did. A flight ends when a callback queued behind the key at
the widget, then at each ancestor in turn, has run (so the key's handlers and bindings have run wherever it went), or
after :data:`~kandev_tui.base.pacing.KEY_HELD_AT_MOST` (a handler that takes that long must not freeze the keyboard).
Only public Textual API: the app's ``on_event``, ``Message.is_forwarded``, ``call_later``.

A widget that kept keys for another not mounted yet (the transcript, for a request: ``f4`` and ``1`` at once)
gives them back with :func:`type_again`: they go first, to the focus then.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, TextArea

from kandev_tui.base.pacing import KEY_HELD_AT_MOST

ORDERED = (events.Key, events.Paste)  # the terminal's input whose order matters to where it goes


def types_text(event: events.Event, target: Any) -> bool:
    """Whether ``event`` is text the focused text box takes where it is (it moves no focus): a printable key into
    an editable Input or TextArea."""
    if not isinstance(event, events.Key) or not event.is_printable:
        return False
    if isinstance(target, TextArea):
        return not target.read_only
    return isinstance(target, Input)


class KeyOrder:
    """The app's input held behind a key in flight (see the module's docstring). ``dispatch`` is the app's own
    ``on_event`` (Textual's: priority bindings, then the focused widget)."""

    def __init__(self, app: Any, dispatch: Callable[[events.Event], Awaitable[None]]) -> None:
        self.app = app
        self._dispatch = dispatch
        self.held: deque[events.Event] | None = None  # None: no key in flight
        self._flight = 0  # which flight the callbacks on their way belong to (a late one ends nothing)
        self._timer: Timer | None = None
        self.flights = 0  # how many keys were followed (tests, benchmarks)

    async def on_event(self, event: events.Event) -> None:
        """The app's ``on_event``: the terminal's keys and pastes in order, everything else as Textual's app has it."""
        if not isinstance(event, ORDERED) or event.is_forwarded:
            await self._dispatch(event)
        elif self.held is not None:
            self.held.append(event)
        else:
            await self._send(event)

    async def _send(self, event: events.Event) -> None:
        app = self.app
        target = app.focused or app.screen
        shown = self._shown()
        await self._dispatch(event)
        if not isinstance(event, events.Key) or types_text(event, target):
            return  # text typed where it lands
        if not event.is_forwarded:  # a priority binding took it: nothing climbs, but it may have shown a screen
            if self._shown() is shown:
                return
            chain: list[Widget] = []
        else:
            chain = list(target.ancestors_with_self)  # the widget, its ancestors, its screen and the app
        self.held = deque()
        self._flight += 1
        self.flights += 1
        flight = self._flight
        # the timer's callback runs in a task of its own: the held input is sent from the app's queue, as always
        self._timer = app.set_timer(KEY_HELD_AT_MOST, lambda: app.call_later(self._land, flight),
                                    name="key held at most")
        await self._follow(chain, 0, flight, shown)

    def _shown(self) -> Any:
        try:
            return self.app.screen
        except Exception:  # noqa: BLE001 - no screen (the app starting or closing): nothing is shown
            return None

    async def _follow(self, chain: list[Widget], at: int, flight: int, shown: Any) -> None:
        """A callback behind the key at ``chain[at]``: when it runs, the key has been there; then on to the next.
        Past the app, the key's handlers and bindings have all run. If they showed another screen (f4 to a session
        whose screen is still to be composed), the flight ends after that screen's first refresh: the keys behind
        go to the focus it gives, not to the screen left, nor to one not mounted yet."""
        while at < len(chain):
            if chain[at].call_later(self._follow, chain, at + 1, flight, shown):
                return
            at += 1  # that one is gone (closed): nothing of the key is left to wait for there
        now = self._shown()
        if now is not None and now is not shown and now.call_after_refresh(self._land, flight):
            return
        await self._land(flight)

    def type_again(self, keys: list[events.Key]) -> None:
        """Keys a widget kept and gives back (for a request mounted since): they go before any key held now, and
        nothing goes before them, each to the focus its turn finds."""
        if self.held is None:
            self.held = deque()
            self._flight += 1
            self.app.call_later(self._land, self._flight)
        self.held.extendleft(reversed(keys))

    async def _land(self, flight: int) -> None:
        """The key's flight is over: the input held behind it goes, in order, until one starts a flight again."""
        if flight != self._flight or self.held is None:
            return
        held, self.held = self.held, None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        while held:
            await self._send(held.popleft())
            if self.held is not None:
                self.held.extend(held)
                return


def type_again(app: Any, keys: list[tuple[str, str | None]]) -> None:
    """``keys`` (key, character) typed again into ``app``, as its terminal sends them, ahead of the keys held behind
    a flight (an app without a :class:`KeyOrder`: at the end of its queue)."""
    typed = [events.Key(key, character).set_sender(app) for key, character in keys]  # from the app, as the driver's
    order = getattr(app, "key_order", None)
    if isinstance(order, KeyOrder):
        order.type_again(typed)
    else:
        for key in typed:
            app.post_message(key)
