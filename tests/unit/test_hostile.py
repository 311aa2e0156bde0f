"""Agent text is inert: markup is not run, control sequences never reach the terminal."""

from __future__ import annotations

import pytest

from kandev_tui.base.sanitize import visible

from ..support.hostile_corpus import CORPUS, NEVER_SHOWN


def test_the_corpus_is_large_enough_and_covers_every_family():
    assert len(CORPUS) >= 50
    assert all(any(char in CORPUS[name] for name in CORPUS) for char in NEVER_SHOWN)


@pytest.mark.reliability("Terminal and text", "each escape family through the one sanitising path", cases=5,
                         held="shown as visible stand-ins (␛, <U+202E>)")
def test_visible_shows_every_escape_family():
    assert visible("\x1b]0;x\x07") == "␛]0;x␇"
    assert visible("a\u202eb") == "a<U+202E>b"
    assert visible("\x9b") == "<U+009B>"
    assert visible("tab\tnew\nline") == "tab\tnew\nline"
    assert visible("tab\tnew\nline", keep_newlines=False) == "tab␉new␊line"
