"""The entry widgets, imported when the transcript makes its first entry (the app starts without them)."""

from __future__ import annotations

from types import ModuleType

_entries: ModuleType | None = None  # kandev_tui.widgets.entries.table, once an entry was made (or the app read it)


def entry_widgets() -> ModuleType:
    """The entry widgets (:mod:`kandev_tui.widgets.entries.table`), imported the first time (from any thread; another
    importing them meanwhile is waited for)."""
    global _entries
    if _entries is None:
        from kandev_tui.widgets.entries import table as entries

        _entries = entries
    return _entries


def made_entries() -> ModuleType | None:
    """The entry widgets if they are imported (an entry was made, or the app read them), else None: what only looks
    at the entries on screen has nothing to look at before, and need not import them."""
    return _entries
