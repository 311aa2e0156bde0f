"""What the parts of :class:`~kandev_tui.transcript.normalize.Normalizer` share, declared for the type checker:
the normaliser's state (set in ``Normalizer.__init__``) and the methods one part calls on another.

Each part (tool calls, requests, local events, session state) is a mixin of the one normaliser class; it names
this class as its base only while type checking, so at run time the parts stay plain mixins. A part that starts
using another's state or method declares it here.
"""

from __future__ import annotations

from typing import Any, Callable

from ..changes import TurnChangesItems
from ..clientside import ClientSide
from ..elicitations import Elicitations
from ..items import Item
from ..rich_calls import RichCalls
from ..subagents import Subagents
from ..texts import OpenTexts


class NormalizerParts:
    turn: int
    turn_open: bool
    _loader: Callable[[str], dict[str, Any] | None] | None
    _released: set[str]
    _continued: bool
    _kept: str
    _counter: int
    _requests_in: dict[Any, str]
    _tools: dict[str, dict[str, Any]]
    _client: ClientSide
    _rich: RichCalls
    _plan: Item | None
    _permissions: dict[str, Item]
    _elicitations: Elicitations
    _turn_changes: TurnChangesItems
    _subagents: Subagents
    _texts: OpenTexts
    _session_info: dict[str, Any]
    _guidance: str
    _asked_first: dict[str, dict[str, Any]]
    _first_words: str

    # the normaliser's own
    def _next(self, prefix: str) -> str: ...
    def _close_text(self) -> list[Item]: ...
    def _error(self, message: str, **details: Any) -> Item: ...
    def _finish_turn(self) -> list[Item]: ...
    # the tool calls'
    def _tool(self, tool_call_id: str) -> dict[str, Any]: ...
    def _tool_item(self, call: dict[str, Any]) -> Item: ...
    # the local events'
    def _place(self, call: dict[str, Any]) -> bool: ...
    def _show_terminals(self, call: dict[str, Any]) -> None: ...
