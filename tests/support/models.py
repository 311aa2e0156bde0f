"""The session model (kandev_tui.session) with what it is given made by hand: an injected clock, a scripted
loop, a UI that records what it was told, and a source's declared capabilities."""

from __future__ import annotations

from kandev_tui.renderers import Registry
from kandev_tui.session import NullSource


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Handle:
    def __init__(self, callback, args) -> None:
        self.callback, self.args, self.done = callback, args, False

    def cancel(self) -> None:
        self.done = True

    def cancelled(self) -> bool:
        return self.done


class Loop:
    """The parts of an event loop the model uses, run by hand: timers by the injected clock, calls from threads."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.timers: list[tuple[float, Handle]] = []
        self.soon: list[tuple[object, tuple]] = []

    def call_later(self, delay, callback, *args) -> Handle:
        handle = Handle(callback, args)
        self.timers.append((self.clock.now + delay, handle))
        return handle

    def call_soon_threadsafe(self, callback, *args) -> None:
        self.soon.append((callback, args))

    def run(self, seconds: float = 0.0) -> None:
        """Run what came from threads, then every timer due within ``seconds``."""
        while self.soon:
            callback, args = self.soon.pop(0)
            callback(*args)
        self.clock.now += seconds
        due = sorted(((at, h) for at, h in self.timers if at <= self.clock.now and not h.done), key=lambda p: p[0])
        self.timers = [(at, h) for at, h in self.timers if at > self.clock.now and not h.done]
        for _, handle in due:
            handle.done = True
            handle.callback(*handle.args)


class UI:
    def __init__(self) -> None:
        self.applied: list = []
        self.resets: list = []
        self.states: list = []
        self.notices: list[str] = []
        self.hold = 0.0
        self.cover = False
        self.held = 0  # looks that found the session covered

    def apply_changes(self, changes):
        self.applied.append(changes)

    def reset_transcript(self, changes):
        self.resets.append(list(changes.keys))

    def show_state(self, change):
        self.states.append(change)

    def notice(self, text):
        self.notices.append(text)

    def held_while_covered(self):
        self.held += 1

    def holding(self):
        return self.hold

    def covered(self):
        return self.cover

    def settling(self):
        return False

    def gives_way(self):
        return self.hold > 0


def session_model(clock: Clock, registry: Registry | None = None, **source_attrs):
    from kandev_tui.session.model import SessionModel

    def make():
        source = NullSource()
        for name, value in source_attrs.items():
            setattr(source, name, value)
        return source

    model = SessionModel(make(), registry or Registry.from_entry_points(), clock=clock, ui_time=Clock())
    ui, loop = UI(), Loop(clock)
    model.attach(ui, loop)  # type: ignore[arg-type]
    return model, ui, loop


def said(model, state: str, detail: str = "") -> None:
    """The model hears its source say ``state`` (with ``detail``), as a source tells it (SourceEvents): the source's
    last status with the state changed, one more state said."""
    from dataclasses import replace

    from kandev_tui.session import SessionState

    model.receive_status(replace(model.status, state=SessionState(state), detail=detail, said=model.status.said + 1))
