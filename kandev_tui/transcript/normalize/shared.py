"""What the normaliser's collaborators share: one session's state as its frames have left it, and the three things
each of them makes with it (a key, an error line, the open text closed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..items import ERROR
from ..changes import TurnChangesItems
from ..clientside import ClientSide
from ..elicitations import Elicitations
from ..items import Item
from ..rich_calls import RichCalls
from ..subagents import Subagents
from ..texts import OpenTexts


@dataclass(eq=False)
class Shared:
    """One session's state, read and written by the normaliser and its tool calls, requests, local events and
    session info. ``loader(key)`` returns the stored payload of an item no longer held in memory."""

    turn: int = 0
    counter: int = 0  # the last number a key was given
    kept: str = ""  # where a frame that cannot be shown is kept, said in its error line
    loader: Callable[[str], dict[str, Any] | None] | None = None
    continued: bool = False  # a session continued: any tool call may be in the store and not in memory
    turn_open: bool = False
    system_error: bool = False  # the agent said its thread had a system error (a capacity message may follow)
    # the tool calls of the turn, by id; those released at a turn's end (looked up in the store when they come again)
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    released: set[str] = field(default_factory=set)
    asked_first: dict[str, dict[str, Any]] = field(default_factory=dict)  # a request's toolCall, its call unreported
    requests_in: dict[Any, str] = field(default_factory=dict)  # agent request id → item key
    permissions: dict[str, Item] = field(default_factory=dict)  # unanswered permission requests, by key
    plan: Item | None = None
    session_info: dict[str, Any] = field(default_factory=dict)
    guidance: str = ""  # the guidance text kandev-tui put before the first prompt (never a title)
    first_words: str = ""  # the user's own first prompt
    client: ClientSide = field(default_factory=ClientSide)  # the files kandev-tui wrote, the commands it ran
    rich: RichCalls = field(default_factory=RichCalls)  # the rich-output calls kandev-tui's own MCP server saw
    # made with next(): the open texts, the questions, each turn's changes, the subagents
    texts: OpenTexts = field(init=False)
    elicitations: Elicitations = field(init=False)
    turn_changes: TurnChangesItems = field(init=False)
    subagents: Subagents = field(init=False)

    def __post_init__(self) -> None:
        self.texts = OpenTexts(self.next)  # the message, thought and user's text still streaming (as parts)
        self.elicitations = Elicitations(self.next)  # the agent's questions to the user
        self.turn_changes = TurnChangesItems(self.next)  # what each turn changed in the workspace
        self.subagents = Subagents(self.next)  # its child sessions, each an item of this transcript

    def next(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}:{self.counter}"

    def error(self, message: str, **details: Any) -> Item:
        payload = {"message": message, **{k: v for k, v in details.items() if v is not None}}
        return Item(self.next("error"), ERROR, self.turn, payload, final=True)

    def close_text(self) -> list[Item]:
        return self.texts.close()
