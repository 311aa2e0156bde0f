"""The transcript's count of entries on their way to the screen (widgets/transcript_view/settling.py), headless."""

from __future__ import annotations

from kandev_tui.widgets.transcript_view.settling import Settling


def test_entries_count_from_built_until_they_say_they_are_done_and_again_while_busy():
    settling = Settling()
    first, second = object(), object()
    settling.built(first)
    settling.built(second)
    assert settling and len(settling) == 2
    settling.tell(first, False)  # mounted, nothing to parse
    settling.tell(second, True)  # mounted with a backlog: still on its way
    assert len(settling) == 1
    settling.tell(second, False)
    assert not settling
    settling.tell(first, True)  # more came that it parses a slice at a time
    settling.forget([first])  # removed from the window meanwhile
    assert not settling
    settling.built(first)
    settling.clear()
    assert not settling
