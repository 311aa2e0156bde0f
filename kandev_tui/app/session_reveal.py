"""A search's hit shown once the session's transcript has it (enter on a hit in the sessions list opens its session
there: a stored session is read in a thread, so the item may come a batch or two later)."""

from __future__ import annotations

from typing import Any, Callable, Protocol

from kandev_tui.session.changes import TranscriptModel


class Reveals(Protocol):
    """The transcript view, as the reveal asks of it."""

    @property
    def is_mounted(self) -> bool: ...

    def reveal(self, index: int, key: str | None = None, needle: str | None = None) -> Any: ...


class PendingReveal:
    """Item ``key`` shown with ``needle`` marked in ``view`` as soon as ``transcript`` has it and the view is mounted;
    ``after_refresh`` runs a callable after the next frame (the app's)."""

    def __init__(self, view: Reveals, transcript: TranscriptModel, after_refresh: Callable[..., Any]) -> None:
        self._view = view
        self._transcript = transcript
        self._after_refresh = after_refresh
        self.wanted: tuple[str, str] | None = None

    def want(self, key: str, needle: str) -> None:
        self.wanted = (key, needle)
        self._after_refresh(self.try_now)

    def applied(self) -> None:
        """A batch was put on screen: the item may be in it."""
        if self.wanted is not None:
            self._after_refresh(self.try_now)

    def try_now(self, tries: int = 100) -> None:
        if self.wanted is None:
            return
        key, needle = self.wanted
        entry = self._transcript.entry_of.get(key)
        if entry is None:
            return  # the batch that brings it says so (applied)
        if self._view.is_mounted:
            self.wanted = None
            self._view.reveal(entry.index, key, needle)
        elif tries:  # placed before its screen was mounted: once it is
            self._after_refresh(self.try_now, tries - 1)
