"""The texts of a turn still streaming: the agent's message, its thought, and the user's message as the agent sends
it back. Each open text is its last version and the parts that came since: a chunk is kept as a part (no copy of
the message per chunk), and :meth:`OpenTexts.settle` makes one new version of each text that grew, when the pipeline
flushes a batch. Every version of an open text says it grew from the text's first one (:attr:`Item.grown_from`), so
a reader holding an earlier version appends only what came after it. A text of one kind closes the others; a new
``messageId`` closes the text of its kind."""

from __future__ import annotations

from typing import Any, Callable

from kandev_tui.sanitize import SECRET_REACH, holds_secret, scrub_secrets

from . import items as K
from .items import Item

KINDS = {"message": K.AGENT, "thought": K.THOUGHT, "user": K.USER}  # each open text's name → its item kind


class OpenTexts:
    """The open texts of a session (see the module docstring). ``next_key`` makes an item key from a prefix."""

    def __init__(self, next_key: Callable[[str], str]) -> None:
        self._next = next_key
        self._open: dict[str, Item] = {}  # name → its last version
        self._parts: dict[str, list[str]] = {}  # name → what came since that version
        self._origin: dict[str, int] = {}  # name → the version number of its first version

    @property
    def growing(self) -> bool:
        """Text came that no version holds yet (:meth:`settle` makes them)."""
        return bool(self._parts)

    def settle(self) -> list[Item]:
        """A new version of each open text that grew since its last one."""
        return [grown for name in KINDS if (grown := self._grown(name)) is not None]

    def close(self, but: str | None = None) -> list[Item]:
        """Every open text (but the one named ``but``) closed: its final version, with all that came."""
        return [self._close(name) for name in KINDS if name != but and name in self._open]

    def add(self, name: str, text: str, message_id: Any, turn: int) -> list[Item]:
        """``text`` came for the open text ``name`` (opened here when it is not): the versions made (the others
        closed, this one when it opens)."""
        current = self._open.get(name)
        # the others closed (a flood's every chunk comes here: no list made when this one is all that is open)
        changed = self.close(but=name) if len(self._open) > (current is not None) else []
        if current is not None and isinstance(message_id, str) and current.payload.get("message_id") != message_id:
            changed.append(self._close(name))
            current = None
        if current is not None:  # it goes on: kept as a part until the pipeline flushes (settle)
            parts = self._parts.get(name)
            if parts is None:
                self._parts[name] = [text]
            else:
                parts.append(text)
            return changed
        payload: dict[str, Any] = {"text": text}
        if isinstance(message_id, str):
            payload["message_id"] = message_id
        current = self._open[name] = Item(self._next(name), KINDS[name], turn, payload)
        self._origin[name] = current.version
        changed.append(current)
        return changed

    def _grown(self, name: str) -> Item | None:
        parts = self._parts.pop(name, None)
        item = self._open.get(name)
        if not parts or item is None:
            return None
        added = "".join(parts)
        text = item.payload["text"] + added
        if holds_secret(item.payload["text"][-SECRET_REACH:] + added):  # a secret the agent echoed, come in pieces
            text = scrub_secrets(text)  # the text is replaced, not grown: readers take it whole, and grow from it
            self._open[name] = item.but(payload={**item.payload, "text": text})
            self._origin[name] = self._open[name].version
            return self._open[name]
        grown = self._open[name] = item.but(payload={**item.payload, "text": text}, grown_from=self._origin[name])
        return grown

    def _close(self, name: str) -> Item:
        self._grown(name)
        return self._open.pop(name).but(final=True, grown_from=self._origin[name])
