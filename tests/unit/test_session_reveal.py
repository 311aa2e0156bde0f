"""A search's hit shown once the session's transcript has it (app/session_reveal.py), with stand-ins for the view
and the frames."""

from __future__ import annotations

from kandev_tui.app.session_reveal import PendingReveal
from kandev_tui.renderers.registry import Registry
from kandev_tui.session.changes import TranscriptModel

from ..support.app_helpers import message_item


class View:
    def __init__(self) -> None:
        self.is_mounted = False
        self.revealed: list[tuple[int, str | None, str | None]] = []

    def reveal(self, index: int, key: str | None = None, needle: str | None = None) -> None:
        self.revealed.append((index, key, needle))


def test_the_hit_is_shown_once_its_item_is_placed_and_the_view_mounted_and_only_once():
    frames: list = []
    view, transcript = View(), TranscriptModel(Registry.from_entry_points())
    revealing = PendingReveal(view, transcript, lambda callback, *args: frames.append((callback, args)))

    def frame() -> None:  # the next frame: what waited for it runs
        waiting = list(frames)
        frames.clear()
        for callback, args in waiting:
            callback(*args)

    revealing.want("message:3", "pelican")
    frame()
    assert view.revealed == []  # not placed yet: the batch that brings it says so
    transcript.apply([message_item(1, "one"), message_item(2, "two"), message_item(3, "the pelican")])
    revealing.applied()
    frame()
    assert view.revealed == []  # placed, the view not mounted yet: looked at again after the next frame
    view.is_mounted = True
    frame()
    assert view.revealed == [(2, "message:3", "pelican")]
    revealing.applied()
    frame()
    assert len(view.revealed) == 1 and revealing.wanted is None
