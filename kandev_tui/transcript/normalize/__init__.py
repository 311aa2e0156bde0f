"""The normaliser: frames in, provider-neutral transcript items out.

One :class:`Normalizer` per session. :meth:`Normalizer.feed` takes a frame and
returns the items it created or changed (their whole current state); the
store upserts them by key. A live run and the replay of its recording feed
the same frames, so they produce the same items.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from kandev_tui.base.jsonutil import of_type

from ..items import TURN_END, USAGE, USER
from ..changes import named_paths
from ..frames import IN, LOCAL, OUT, Frame
from ..items import Item
from ..notices import Compactions, notice_item
from ..plans import Plans
from ..rawlines import RawLines
from ..tools import cancel_if_unfinished
from .calls import ToolCalls
from .content import _block_name, _text_of
from .local import LocalEvents
from .requests import Requests
from .info import SessionInfo
from .shared import Shared

log = logging.getLogger("kandev_tui.normalize")

STATE_UPDATES = {"available_commands_update", "current_mode_update", "config_option_update", "session_info_update"}
CAPACITY_TEXT = "Selected model is at capacity"


class Normalizer:
    """Turns one session's frames into items (see the module docstring). The session's state is one
    :class:`~.shared.Shared`, which its collaborators read and write: the tool calls (:mod:`.calls`), the permission
    requests (:mod:`.requests`), the local events (:mod:`.local`) and the session's info (:mod:`.info`).

    ``loader(key)`` may return the stored payload of an item the normaliser no
    longer holds in memory (a tool call finished in an earlier turn), so that
    memory does not grow with the length of a session.
    """

    def __init__(self, loader: Callable[[str], dict[str, Any] | None] | None = None, *, recorded: bool = False,
                 after: tuple[int, int] = (0, 0), stored_history: bool = False) -> None:
        """``after``: (turn, counter) of the items stored before (a session continued: new keys come after
        them); ``stored_history``: the history an agent replays while it loads a session (``session/load``) is in
        the store already, so the replay makes no items."""
        # the tool calls that may be in the store and not in memory: those released at the end of a turn, and in a
        # session continued any of them. Only those are looked up: a lookup releases the interpreter's lock, and
        # taking it back from a busy UI thread costs up to a switch interval (5 ms), for every new call of a flood
        self.s = Shared(turn=after[0], counter=after[1], loader=loader, continued=after != (0, 0) or stored_history,
                        kept="; it is kept in the recording" if recorded else "")
        self.calls = ToolCalls(self.s)
        self.requests = Requests(self.s, self.calls)
        self.local = LocalEvents(self.s, self.calls, self._finish_turn)
        self.info = SessionInfo(self.s)
        self._stored_history = stored_history
        self._replaying: Any = None  # the id of our session/load while the agent replays its history
        self._raw_lines = RawLines(self.s.next, self.s.kept)  # the lines that are not JSON-RPC, in a row one item
        self._requests_out: dict[Any, tuple[str, Any]] = {}  # our request id → (method, params)
        self._compactions = Compactions(self.s.next, lambda: self._usage)  # the agent's context compactions
        self._plans = Plans(self.s.next)  # the agent's plans by their id (plan operations)
        self._echo: list[str] | None = None  # the prompt just sent, as the agent may send it back (see _user_chunk)
        self._echoed = ""  # what it sent back of it so far
        self._usage: dict[str, Any] = {}
        self.unknown_updates: set[str] = set()

    @property
    def turn(self) -> int:
        return self.s.turn

    @property
    def turn_open(self) -> bool:
        return self.s.turn_open

    def pending_elicitation_key(self) -> str | None:
        """The key of the newest question (elicitation) still waiting for the user."""
        return self.s.elicitations.pending_key()

    def elicitation_key(self, request_id: Any) -> str | None:
        """The key of the question the agent asked with the JSON-RPC id ``request_id``, while it is unanswered."""
        key = self.s.requests_in.get(request_id)
        return key if key is not None and key.startswith("elicitation:") else None

    def pending_permission_key(self, tool_call_id: Any = None) -> str | None:
        """The key of the newest unanswered permission item (for ``tool_call_id`` if given)."""
        for key, item in reversed(list(self.s.permissions.items())):
            if tool_call_id is None or item.tool_call_id == tool_call_id:
                return key
        return None

    @property
    def growing(self) -> bool:
        """Text came that no version holds yet (:meth:`settle` makes them)."""
        return self.s.texts.growing

    def settle(self) -> list[Item]:
        """A new version of each open text that grew since its last one (the pipeline calls this as it flushes)."""
        return self.s.texts.settle()

    def error_item(self, message: str) -> Item:
        """An error line of kandev-tui's own (the store failed), numbered with the agent's."""
        return self.s.error(message)

    # -- entry point -------------------------------------------------------

    def feed(self, frame: Frame) -> list[Item]:
        """Apply one frame; the items it created or changed."""
        try:
            if frame.msg is None:
                if frame.raw is not None and frame.dir == IN:
                    size = frame.size if frame.size is not None else len(frame.raw)
                    return [self._raw_lines.add(frame.raw, size, self.s.turn)]
                return []
            if frame.dir == LOCAL:
                items = self.local.event(frame.msg)
            elif frame.dir == OUT:
                items = self._outgoing(frame.msg)
            else:  # in (a recording's frame of another direction is read as the agent's)
                items = self._incoming(frame.msg)
            if items and self._raw_lines.open is not None:  # an item after a run of lines that are not JSON-RPC ends it
                return self._raw_lines.end() + items
            return items
        except Exception as exc:  # a frame nobody foresaw: keep going, say so once
            log.exception("normaliser failed on a frame")
            return [self.s.error(f"A frame could not be read ({type(exc).__name__}){self.s.kept}.")]

    # -- outgoing ----------------------------------------------------------

    def _outgoing(self, msg: dict[str, Any]) -> list[Item]:
        method = msg.get("method")
        if isinstance(method, str) and "id" in msg:
            self._requests_out[msg["id"]] = (method, msg.get("params"))
            if method == "session/load" and self._stored_history:
                self._replaying = msg["id"]
        if method == "session/prompt":
            return self._prompt_sent(msg.get("params") or {})
        if method == "session/cancel":
            return []
        if method is None and "id" in msg:
            self.s.client.answered(msg["id"])
        if method is None and "id" in msg and msg["id"] in self.s.requests_in:
            return self.requests.answered(self.s.requests_in.pop(msg["id"]), msg)
        return []

    def _prompt_sent(self, params: dict[str, Any]) -> list[Item]:
        changed = self.s.close_text()
        self.s.turn += 1
        self.s.turn_open = True
        self.s.system_error = False
        prompt = of_type(params, "prompt", list, [])
        text = _text_of(prompt[:1])  # the user's words; the files they mentioned follow as blocks of their own
        mentions = [name for name in (_block_name(b) for b in prompt[1:]) if name]
        meta = of_type(params, "_meta", dict, {})
        skip = (meta.get("kandevTui") or {}).get("guidanceChars") if isinstance(meta.get("kandevTui"), dict) else None
        if isinstance(skip, int) and 0 < skip <= len(text):
            self.s.guidance = text[:skip].strip()
            text = text[skip:]
        if not self.s.first_words:
            self.s.first_words = text
        full = _text_of(prompt[:1])
        self._echo, self._echoed = [" ".join(t.split()) for t in {full, text} if t.strip()], ""
        item = Item(self.s.next("user"), USER, self.s.turn, {"text": text, **({"mentions": mentions} if mentions else {})},
                    final=True)
        changed.append(item)
        return changed

    # -- incoming ----------------------------------------------------------

    def _incoming(self, msg: dict[str, Any]) -> list[Item]:
        method = msg.get("method")
        if method == "session/update":  # a flood's every frame: looked at with as few steps as it takes
            params = of_type(msg, "params", dict, {})
            update = of_type(params, "update", dict, {})
            session: Any = params.get("sessionId")  # the agent's word: is_child() checks it
            kind = update.get("sessionUpdate")
            if kind == "subagent_update":  # on the parent's session (a child's: nested)
                if self._replaying is not None:
                    return []
                return self.s.close_text() + self.s.subagents.announce(session, update, self.s.turn, self.calls.running_call())
            if self.s.subagents.is_child(session):  # a child's own update: its item, not this transcript
                return [] if self._replaying is not None else self.s.subagents.child_update(session, update)
            if kind == "agent_message_chunk" and self._replaying is None:
                return self._chunk(update, "message")
            if kind in ("session_message", "session_message_chunk"):
                return []  # between sessions, on this one: its child's words are in the child's item
            return self._update(update)
        if method == "session/request_permission" and "id" in msg:
            return self.requests.permission_request(msg)
        if method == "elicitation/create" and "id" in msg:
            params = of_type(msg, "params", dict, {})
            item = self.s.elicitations.request(params, self.s.turn, self.s.subagents.name_of(params.get("sessionId")))
            self.s.requests_in[msg["id"]] = item.key
            return self.s.close_text() + [item]
        if method == "elicitation/complete":
            return self.s.elicitations.complete(msg.get("params"))
        if method == "cursor/task":
            return self.requests.cursor_task(msg.get("params") or {})
        if method == "fs/write_text_file" and "id" in msg:
            self.s.client.write_requested(msg["id"], msg.get("params"), list(self.s.tools.values()))
            return []
        if method is None and "id" in msg:
            request, asked = self._requests_out.pop(msg["id"], (None, None))
            if msg["id"] == self._replaying:
                self._replaying = None  # the agent has replayed the history it loaded
            if request == "session/prompt":
                return self._turn_end(msg)
            if "error" not in msg and isinstance(msg.get("result"), dict):
                # the other requests' failures are said by the client, once (a login, a mode the agent refused)
                return self.info.answered_request(request, asked if isinstance(asked, dict) else {}, msg["result"])
        return []

    def _turn_end(self, msg: dict[str, Any]) -> list[Item]:
        changed = self.s.close_text()
        result = of_type(msg, "result", dict, {})
        if "error" in msg:
            error = of_type(msg, "error", dict, {})
            changed.append(self.s.error(f"The turn failed: {error.get('message', 'unknown error')}", code=error.get("code"),
                                       data=error.get("data")))
            stop = "error"
        else:
            stop = of_type(result, "stopReason", str, "end_turn")
        changed.extend(self._finish_turn())
        payload: dict[str, Any] = {"stop_reason": stop}
        if isinstance(result.get("usage"), dict):
            payload["usage"] = result["usage"]
        changed.append(Item(self.s.next("turn_end"), TURN_END, self.s.turn, payload, final=True))
        return changed

    def _finish_turn(self) -> list[Item]:
        """Unfinished tool calls are cancelled, the plan is final, memory is released."""
        # the turn's changes card, before its end (told the files its tool calls named)
        changed = self.s.turn_changes.turn_ending(self.s.turn, named_paths(self.s.tools.values()))
        made = self.s.rich.turn_ended(self.s.turn, self.calls.of_ours)  # calls the agent never reported
        if made:
            changed += self.s.close_text()
        for call in made:
            changed.append(self.calls.item(call))
        for call in self.s.tools.values():
            asked = call.pop("asking", None) is not None
            if cancel_if_unfinished(call) or asked:
                changed.append(self.calls.item(call))
        self.s.released.update(self.s.tools)
        self.s.tools.clear()
        for item in self.s.permissions.values():
            changed.append(item.but(payload={**item.payload, "answer": {"outcome": "cancelled"}}, status="cancelled",
                                    final=True))
        self.s.permissions.clear()
        changed += self.s.elicitations.turn_ended() + self._compactions.turn_ended()
        self.s.requests_in = {rid: key for rid, key in self.s.requests_in.items() if self.s.elicitations.waits(key)}
        self.s.client.turn_ended()
        if self.s.plan is not None:
            changed.append(self.s.plan.but(final=True))
            self.s.plan = None
        self.s.turn_open = False
        self._echo = None
        self.s.asked_first.clear()  # requests for calls the agent never reported: their turn is over
        return changed

    # -- session/update ----------------------------------------------------

    def _update(self, update: dict[str, Any]) -> list[Item]:
        kind = update.get("sessionUpdate")
        if self._replaying is not None and kind not in STATE_UPDATES:
            return []  # the history of a loaded session, replayed: it is in the store already
        if kind == "agent_message_chunk":
            return self._chunk(update, "message")
        if kind == "agent_thought_chunk":
            return self._chunk(update, "thought")
        if kind == "user_message_chunk":
            return self._user_chunk(update)
        if self._echo is not None and self._echoed:
            self._echo = None  # an echo cut short by the agent's next update: the user's message is shown already
        if kind in ("tool_call", "tool_call_update"):
            return self.calls.frame(update, first=kind == "tool_call")
        if kind == "plan":
            return [self.calls.set_plan([e for e in update.get("entries") or [] if isinstance(e, dict)])]
        if kind == "usage_update":
            self._usage = {k: update[k] for k in ("size", "used", "cost") if k in update}
            return [Item("usage", USAGE, self.s.turn, dict(self._usage))] + \
                self._compactions.usage_reported(self._usage)
        if kind in STATE_UPDATES:
            return self.info.update(kind, update)
        if kind == "notice":
            return self.s.close_text() + [notice_item(update, self.s.next("notice"), self.s.turn)]
        if kind == "plan_update":
            return self.s.close_text() + self._plans.update(update, self.s.turn)
        if kind == "plan_removed":
            return self._plans.removed(update)
        if kind == "compaction_update":
            return self.s.close_text() + self._compactions.update(update, self.s.turn)
        if kind == "compaction_summary_chunk":
            return self.s.close_text() + self._compactions.chunk(update, self.s.turn)
        if isinstance(kind, str) and kind not in self.unknown_updates:
            self.unknown_updates.add(kind)
            log.info("ignoring session/update kind %r (kept in the recording)", kind)
        return []

    def _user_chunk(self, update: dict[str, Any]) -> list[Item]:
        """A user message chunk. Some agents send the prompt they were given back as ``user_message_chunk``: the
        user's message is shown already (without the guidance kandev-tui put before it), so what repeats the prompt
        just sent (with or without the guidance, whitespace aside) is not shown again. What turns out not to be the
        prompt is shown whole, from its first chunk."""
        if self._echo is None:
            return self._chunk(update, "user")
        self._echoed += _text_of(update.get("content"))
        said = " ".join(self._echoed.split())
        if said in self._echo:
            self._echo = None  # the whole prompt, back: done
            return []
        if any(sent.startswith(said) for sent in self._echo):
            return []  # so far, the prompt
        self._echo = None
        return self._chunk({**update, "content": {"type": "text", "text": self._echoed}}, "user")

    def _chunk(self, update: dict[str, Any], name: str) -> list[Item]:
        """A chunk of the open text ``name`` (:mod:`.texts`)."""
        text = _text_of(update.get("content"))
        if not text:
            return []  # a chunk with nothing to say (one that carries only usage): no empty item, nothing closed
        if name == "message" and self.s.system_error and CAPACITY_TEXT in text:
            self.s.system_error = False
            return self.s.close_text() + [self.s.error("The model is at capacity; try again or choose another model.",
                                                     detail=text)]
        return self.s.texts.add(name, text, update.get("messageId"), self.s.turn)


