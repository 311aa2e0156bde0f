"""The texts of a turn still streaming: the agent's message, its thought, and the user's message as the agent sends
it back. Each open text is its last version and the parts that came since: a chunk is kept as a part (no copy of
the message per chunk), and :meth:`OpenTexts.settle` makes one new version of each text that grew, when the pipeline
flushes a batch. Every version of an open text says it grew from the text's first one (:attr:`Item.grown_from`), so
a reader holding an earlier version appends only what came after it. A text of one kind closes the others; a new
``messageId`` closes the text of its kind.

A top-level tool call ends the agent's message (:meth:`OpenTexts.at_call`), except one that comes mid-sentence: an
agent may announce its call while the model is still writing the sentence about it ("I'll check the confi", the call,
"guration first."). The message is then held open until its next chunk says which it is: one that goes on with the
sentence (a letter or a digit straight after, a lowercase word, punctuation) of the same message grows it, whole,
above the call's row; anything else (a new sentence, a new paragraph, another ``messageId``) starts a message below
the call. Whatever else comes first (another item of the transcript, the turn's end) closes it as before."""

from __future__ import annotations

from typing import Any, Callable

from kandev_tui.base.sanitize import SECRET_REACH, holds_secret, scrub_secrets

from .items import AGENT, THOUGHT, USER
from .items import Item

KINDS = {"message": AGENT, "thought": THOUGHT, "user": USER}  # each open text's name → its item kind
ENDS_A_SENTENCE = ".!?:;…|`*_)]}>\"'\n"  # a message whose text ends with one of these is not mid-sentence


def mid_sentence(text: str) -> bool:
    """Whether a message stops in the middle of a sentence (a word, a comma): not at its end, nor a line's."""
    stripped = text.rstrip(" \t")
    return bool(stripped) and stripped[-1] not in ENDS_A_SENTENCE and not text.endswith("\n")


def goes_on(before: str, text: str) -> bool | None:
    """Whether ``text`` continues the sentence ``before`` stopped in (None: it cannot say yet, an empty chunk)."""
    if not text:
        return None
    if not text[0].isspace():  # straight after: the rest of a word, a number, punctuation (a capital goes on only
        # a word in capitals, or after a space: "Reading the " then "README")
        return not text[0].isupper() or before[-1:].isupper() or before[-1:].isdigit() or before[-1:] in " \t"
    rest = text.lstrip(" \t")
    if not rest:
        return None
    if rest[0] in "\r\n":
        return False  # a new paragraph
    return rest[0].islower() or rest[0].isdigit() or rest[0] in ",;:.)-–—("


class OpenTexts:
    """The open texts of a session (see the module docstring). ``next_key`` makes an item key from a prefix."""

    def __init__(self, next_key: Callable[[str], str]) -> None:
        self._next = next_key
        self._open: dict[str, Item] = {}  # name → its last version
        self._parts: dict[str, list[str]] = {}  # name → what came since that version
        self._origin: dict[str, int] = {}  # name → the version number of its first version
        self._held = False  # the message stopped mid-sentence at a tool call: its next chunk decides (see above)

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

    def at_call(self) -> list[Item]:
        """A top-level tool call came: every open text closed, but the agent's message when it stops mid-sentence
        (held until its next chunk says whether the sentence goes on)."""
        message = self._open.get("message")
        if message is not None and mid_sentence(self._tail("message")):
            self._held = True
            return self.close(but="message")
        return self.close()

    def _tail(self, name: str) -> str:
        """The end of an open text: its last part, or its last version's text."""
        last = next((part for part in reversed(self._parts.get(name) or ()) if part), None)
        return last if last is not None else self._open[name].payload["text"]

    def add(self, name: str, text: str, message_id: Any, turn: int) -> list[Item]:
        """``text`` came for the open text ``name`` (opened here when it is not): the versions made (the others
        closed, this one when it opens)."""
        current = self._open.get(name)
        # the others closed (a flood's every chunk comes here: no list made when this one is all that is open)
        changed = self.close(but=name) if len(self._open) > (current is not None) else []
        if current is not None and isinstance(message_id, str) and current.payload.get("message_id") != message_id:
            changed.append(self._close(name))
            current = None
        if current is not None and name == "message" and self._held:  # held at a call: does the sentence go on?
            on = goes_on(self._tail(name), text)
            if on is not None:
                self._held = False
            if on is False:
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
        if name == "message":
            self._held = False
        self._grown(name)
        return self._open.pop(name).but(final=True, grown_from=self._origin[name])
