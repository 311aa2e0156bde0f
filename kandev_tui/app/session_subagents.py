"""A session's subagents as the app shows them: rows under the session in the sessions list (title and state), and
full screen over its transcript (``o`` on a subagent's row), following the transcript while shown."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, TypeGuard

from kandev_tui.base.sanitize import visible
from kandev_tui.transcript.items import SUBAGENT, Item

if TYPE_CHECKING:
    from kandev_tui.screens.subagent import SubagentScreen

TITLE_AT_MOST = 120  # characters of a subagent's title in its row


class Subagents:
    """One session's subagents. ``items`` gives the session's transcript items by key; ``owner`` is the session the
    full screens are of (their ``owner``)."""

    def __init__(self, items: Callable[[], Mapping[str, Item]], owner: object) -> None:
        self._items = items
        self._owner = owner
        self._rows: dict[str, tuple[str, str, str]] = {}  # item key → (key, title, state)

    @property
    def rows(self) -> tuple[tuple[str, str, str], ...]:
        return tuple(self._rows.values())

    def note(self, keys: Iterable[str]) -> None:
        """The items of ``keys`` that are subagents, as the sessions list shows them (title and state)."""
        items = self._items()
        for key in keys:
            item = items.get(key)
            if item is not None and item.kind == SUBAGENT:
                payload = item.payload
                title = str(payload.get("title") or payload.get("description") or "a subagent")
                self._rows[key] = (key, visible(title, keep_newlines=False)[:TITLE_AT_MOST],
                                   str(payload.get("state") or "running"))

    def noted_again(self, keys: Iterable[str]) -> None:
        """Every item again (the transcript was reset): the rows from these only."""
        self._rows.clear()
        self.note(keys)

    def screen_for(self, key: str) -> SubagentScreen | None:
        """The subagent of item ``key`` full screen, made to be shown (None: no such item)."""
        item = self._items().get(key)
        if item is None:
            return None
        from kandev_tui.screens.subagent import SubagentScreen

        return SubagentScreen(item, owner=self._owner)

    def follow(self, screens: Iterable[Any], keys: list[str]) -> None:
        """A subagent of this session shown full screen follows the items of ``keys`` that are its own."""
        items = self._items()
        for screen in screens:
            if self.shown_by(screen) and screen.key in keys:
                screen.show(items[screen.key])

    def shown_by(self, screen: Any) -> TypeGuard[SubagentScreen]:
        """Whether ``screen`` shows one of this session's subagents full screen. The subagent screen is imported
        when the first one opens (its widgets bring Rich's syntax highlighting: 12 ms before the first frame): none
        is shown before."""
        module = sys.modules.get("kandev_tui.screens.subagent")
        return module is not None and isinstance(screen, module.SubagentScreen) and screen.owner is self._owner
