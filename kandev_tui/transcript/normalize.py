"""The normaliser: frames in, provider-neutral transcript items out.

One :class:`Normalizer` per session. :meth:`Normalizer.feed` takes a frame and
returns the items it created or changed (their whole current state); the
store upserts them by key. A live run and the replay of its recording feed
the same frames, so they produce the same items.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Callable

from kandev_tui.presentation.names import is_rich_output_name

from . import items as K
from .clientside import ClientSide, diff_paths
from .elicitation import Elicitations
from .notices import Compactions, notice_item
from .plans import Plans
from .subagents import Subagents
from .texts import OpenTexts
from .changes import TurnChangesItems
from .diffs import diff_summary
from .frames import IN, LOCAL, OUT, Frame
from .items import COMPLETE, FAILED, TERMINAL, Item
from .rich_calls import RichCalls
from .tools import cancel_if_unfinished, keep_written, merge_tool_frame, new_call

log = logging.getLogger("kandev_tui.normalize")

STATE_UPDATES = {"available_commands_update", "current_mode_update", "config_option_update", "session_info_update"}
CAPACITY_TEXT = "Selected model is at capacity"


def _request_view(call: dict[str, Any]) -> dict[str, Any]:
    """A known call as a permission request's ``toolCall`` carries it (title, kind, rawInput, content, locations)."""
    view: dict[str, Any] = {}
    for key in ("title", "kind"):
        if isinstance(call.get(key), str) and call[key]:
            view[key] = call[key]
    raw = (call.get("input") or {}).get("raw_input") if isinstance(call.get("input"), dict) else None
    if raw not in (None, {}, ""):
        view["rawInput"] = raw
    for key in ("content", "locations"):
        if isinstance(call.get(key), list) and call[key]:
            view[key] = call[key]
    return view


def _text_of(content: Any) -> str:
    """The text of one ACP content block (other block types become a marker)."""
    if isinstance(content, dict):
        if content.get("type") == "text" and isinstance(content.get("text"), str):
            return content["text"]
        if content.get("type") in ("resource_link", "resource"):
            uri = content.get("uri") or (content.get("resource") or {}).get("uri")
            return f"[{content.get('type')}: {uri}]" if isinstance(uri, str) else f"[{content.get('type')}]"
        if isinstance(content.get("type"), str):
            return f"[{content['type']}]"
    if isinstance(content, list):
        return "".join(_text_of(c) for c in content)
    return ""


def _block_name(block: Any) -> str:
    """How the user's message names a file sent with it (``@`` in the prompt): its path, or its URI's last part."""
    if not isinstance(block, dict):
        return ""
    if isinstance(block.get("name"), str):
        return block["name"][:300]
    uri = block.get("uri") or (block.get("resource") or {}).get("uri")
    return uri.rsplit("/", 1)[-1][:300] if isinstance(uri, str) else str(block.get("type") or "")[:40]


def _todos(output: Any) -> list[dict[str, Any]] | None:
    """A todo tool's list (OpenCode: ``todos`` or ``metadata.todos``), which becomes the plan."""
    if not isinstance(output, dict):
        return None
    todos = output.get("todos")
    if todos is None and isinstance(output.get("metadata"), dict):
        todos = output["metadata"].get("todos")
    if isinstance(todos, list) and todos and all(isinstance(t, dict) for t in todos):
        return todos
    return None


class Normalizer:
    """Turns one session's frames into items (see the module docstring).

    ``loader(key)`` may return the stored payload of an item the normaliser no
    longer holds in memory (a tool call finished in an earlier turn), so that
    memory does not grow with the length of a session.
    """

    def __init__(self, loader: Callable[[str], dict[str, Any] | None] | None = None, *, recorded: bool = False,
                 after: tuple[int, int] = (0, 0), stored_history: bool = False) -> None:
        """``after``: (turn, counter) of the items stored before (a session continued: new keys come after
        them); ``stored_history``: the history an agent replays while it loads a session (``session/load``) is in
        the store already, so the replay makes no items."""
        self.turn = after[0]
        self._loader = loader
        # the tool calls that may be in the store and not in memory: those released at the end of a turn, and in a
        # session continued any of them. Only those are looked up: a lookup releases the interpreter's lock, and
        # taking it back from a busy UI thread costs up to a switch interval (5 ms), for every new call of a flood
        self._released: set[str] = set()
        self._continued = after != (0, 0) or stored_history
        self._stored_history = stored_history
        self._replaying: Any = None  # the id of our session/load while the agent replays its history
        # where a frame the normaliser cannot show is kept, said in its error item (only when it is)
        self._kept = "; it is kept in the recording" if recorded else ""
        self._requests_out: dict[Any, tuple[str, Any]] = {}  # our request id → (method, params)
        self._requests_in: dict[Any, str] = {}  # agent request id → item key
        self._tools: dict[str, dict[str, Any]] = {}
        self._client = ClientSide()  # the files kandev-tui wrote and the commands it ran for the agent
        self._rich = RichCalls()  # the rich-output calls kandev-tui's own MCP server saw
        self._texts = OpenTexts(self._next)  # the message, thought and user's text still streaming (as parts)
        self._plan: Item | None = None
        self._permissions: dict[str, Item] = {}
        self._elicitations = Elicitations(self._next)  # the agent's questions to the user
        self._compactions = Compactions(self._next, lambda: self._usage)
        self._turn_changes = TurnChangesItems(self._next)  # what each turn changed in the workspace  # the agent's context compactions, by its id
        self._plans = Plans(self._next)  # the agent's plans by their id (plan operations)
        self._subagents = Subagents(self._next)  # its child sessions, each an item of this transcript
        self._counter = after[1]
        self._session_info: dict[str, Any] = {}
        self._guidance = ""  # the guidance text kandev-tui put before the first prompt (never a title)
        self._echo: list[str] | None = None  # the prompt just sent, as the agent may send it back (see _user_chunk)
        self._echoed = ""  # what it sent back of it so far
        self._asked_first: dict[str, dict[str, Any]] = {}  # a request's toolCall for a call not reported yet
        self._first_words = ""  # the user's own first prompt
        self._usage: dict[str, Any] = {}
        self._system_error = False
        self.unknown_updates: set[str] = set()
        self.turn_open = False

    def pending_elicitation_key(self) -> str | None:
        """The key of the newest question (elicitation) still waiting for the user."""
        return self._elicitations.pending_key()

    def elicitation_key(self, request_id: Any) -> str | None:
        """The key of the question the agent asked with the JSON-RPC id ``request_id``, while it is unanswered."""
        key = self._requests_in.get(request_id)
        return key if key is not None and key.startswith("elicitation:") else None

    def pending_permission_key(self, tool_call_id: Any = None) -> str | None:
        """The key of the newest unanswered permission item (for ``tool_call_id`` if given)."""
        for key, item in reversed(list(self._permissions.items())):
            if tool_call_id is None or item.tool_call_id == tool_call_id:
                return key
        return None

    # -- helpers -----------------------------------------------------------

    def _next(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}:{self._counter}"

    @property
    def growing(self) -> bool:
        """Text came that no version holds yet (:meth:`settle` makes them)."""
        return self._texts.growing

    def settle(self) -> list[Item]:
        """A new version of each open text that grew since its last one (the pipeline calls this as it flushes)."""
        return self._texts.settle()

    def _close_text(self) -> list[Item]:
        return self._texts.close()

    def error_item(self, message: str) -> Item:
        """An error line of kandev-tui's own (the store failed), numbered with the agent's."""
        return self._error(message)

    def _error(self, message: str, **details: Any) -> Item:
        payload = {"message": message, **{k: v for k, v in details.items() if v is not None}}
        return Item(self._next("error"), K.ERROR, self.turn, payload, final=True)

    # -- entry point -------------------------------------------------------

    def feed(self, frame: Frame) -> list[Item]:
        """Apply one frame; the items it created or changed."""
        try:
            if frame.dir == LOCAL:
                return self._local(frame.msg or {})
            if frame.msg is None:
                if frame.raw is not None and frame.dir == IN:
                    size = frame.size if frame.size is not None else len(frame.raw)
                    return [self._error(
                        f"The agent wrote a line that is not JSON-RPC ({size} bytes; the first 200 are below){self._kept}.",
                        bytes=size, preview=frame.raw[:200],
                    )]
                return []
            if frame.dir == OUT:
                return self._outgoing(frame.msg)
            return self._incoming(frame.msg)
        except Exception as exc:  # a frame nobody foresaw: keep going, say so once
            log.exception("normaliser failed on a frame")
            return [self._error(f"A frame could not be read ({type(exc).__name__}){self._kept}.")]

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
            self._client.answered(msg["id"])
        if method is None and "id" in msg and msg["id"] in self._requests_in:
            return self._answered(self._requests_in.pop(msg["id"]), msg)
        return []

    def _prompt_sent(self, params: dict[str, Any]) -> list[Item]:
        changed = self._close_text()
        self.turn += 1
        self.turn_open = True
        self._system_error = False
        prompt = params.get("prompt") if isinstance(params.get("prompt"), list) else []
        text = _text_of(prompt[:1])  # the user's words; the files they mentioned follow as blocks of their own
        mentions = [name for name in (_block_name(b) for b in prompt[1:]) if name]
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        skip = (meta.get("kandevTui") or {}).get("guidanceChars") if isinstance(meta.get("kandevTui"), dict) else None
        if isinstance(skip, int) and 0 < skip <= len(text):
            self._guidance = text[:skip].strip()
            text = text[skip:]
        if not self._first_words:
            self._first_words = text
        full = _text_of(prompt[:1])
        self._echo, self._echoed = [" ".join(t.split()) for t in {full, text} if t.strip()], ""
        item = Item(self._next("user"), K.USER, self.turn, {"text": text, **({"mentions": mentions} if mentions else {})},
                    final=True)
        changed.append(item)
        return changed

    def _answered(self, key: str, msg: dict[str, Any]) -> list[Item]:
        if key.startswith("elicitation:"):
            return self._elicitations.answered(key, msg)
        item = self._permissions.pop(key, None)
        if item is None:
            return []
        outcome = ((msg.get("result") or {}).get("outcome") or {}) if isinstance(msg.get("result"), dict) else {}
        answer: dict[str, Any] = {"outcome": outcome.get("outcome", "cancelled")}
        option_id = outcome.get("optionId")
        if isinstance(option_id, str):
            answer["option_id"] = option_id
            for option in item.payload.get("options", []):
                if isinstance(option, dict) and option.get("optionId") == option_id:
                    answer["name"] = option.get("name")
                    answer["option_kind"] = option.get("kind")
        answered = [item.but(payload={**item.payload, "answer": answer},
                             status="answered" if answer["outcome"] == "selected" else "cancelled", final=True)]
        return answered + self._asks(item.tool_call_id, False)

    def _asks(self, tool_call_id: Any, asking: bool) -> list[Item]:
        """The call a permission request is for, marked ``asking`` while the request waits (its diff is shown once,
        in the request, where the answer is given) and unmarked once it is answered; its item, if it changed."""
        call = self._tools.get(tool_call_id) if isinstance(tool_call_id, str) else None
        if call is None or call.get("new") or bool(call.get("asking")) == asking:
            return []  # a call not reported yet is marked when it is (the request must not place it first)
        if asking:
            call["asking"] = True
        else:
            call.pop("asking", None)
        return [self._tool_item(call)]

    # -- incoming ----------------------------------------------------------

    def _incoming(self, msg: dict[str, Any]) -> list[Item]:
        method = msg.get("method")
        if method == "session/update":
            params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
            update = params.get("update") if isinstance(params.get("update"), dict) else {}
            session = params.get("sessionId")
            if update.get("sessionUpdate") == "subagent_update":  # on the parent's session (a child's: nested)
                if self._replaying is not None:
                    return []
                return self._close_text() + self._subagents.announce(session, update, self.turn, self._running_call())
            if self._subagents.is_child(session):  # a child's own update: its item, not this transcript
                return [] if self._replaying is not None else self._subagents.child_update(session, update)
            if update.get("sessionUpdate") in ("session_message", "session_message_chunk"):
                return []  # between sessions, on this one: its child's words are in the child's item
            return self._update(update)
        if method == "session/request_permission" and "id" in msg:
            return self._permission_request(msg)
        if method == "elicitation/create" and "id" in msg:
            params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
            item = self._elicitations.request(params, self.turn, self._subagents.name_of(params.get("sessionId")))
            self._requests_in[msg["id"]] = item.key
            return self._close_text() + [item]
        if method == "elicitation/complete":
            return self._elicitations.complete(msg.get("params"))
        if method == "cursor/task":
            return self._cursor_task(msg.get("params") or {})
        if method == "fs/write_text_file" and "id" in msg:
            self._client.write_requested(msg["id"], msg.get("params"))
            return []
        if method is None and "id" in msg:
            request, params = self._requests_out.pop(msg["id"], (None, None))
            if msg["id"] == self._replaying:
                self._replaying = None  # the agent has replayed the history it loaded
            if request == "session/prompt":
                return self._turn_end(msg)
            if "error" not in msg and isinstance(msg.get("result"), dict):
                # the other requests' failures are said by the client, once (a login, a mode the agent refused)
                return self._answered_request(request, params if isinstance(params, dict) else {}, msg["result"])
        return []

    def _answered_request(self, request: str | None, params: dict[str, Any], result: dict[str, Any]) -> list[Item]:
        """What a session's setup says (``session/new``, ``load``, ``resume``: its modes, config options, models),
        and the choices the agent accepted (``session/set_mode``, ``set_config_option``, ``set_model``)."""
        info = self._session_info
        if request == "initialize":  # the agent's name: its questions say who asks
            agent = result.get("agentInfo") if isinstance(result.get("agentInfo"), dict) else {}
            name = agent.get("title") or agent.get("name")
            self._elicitations.agent = name[:80] if isinstance(name, str) else ""
            return []
        if request in ("session/new", "session/load", "session/resume", "session/fork"):
            for key in ("modes", "models"):
                if isinstance(result.get(key), dict):
                    info[key] = result[key]
            if isinstance(result.get("configOptions"), list):
                self._set_config(result["configOptions"])
            if isinstance(info.get("modes"), dict) and isinstance(info["modes"].get("currentModeId"), str):
                self._set_mode(info["modes"]["currentModeId"])
        elif request == "session/set_mode" and isinstance(params.get("modeId"), str):
            self._set_mode(params["modeId"])
        elif request == "session/set_config_option":
            if isinstance(result.get("configOptions"), list):
                self._set_config(result["configOptions"])
            elif isinstance(params.get("configId"), str):
                self._set_config([{**o, "currentValue": params.get("value")} if o.get("id") == params["configId"] else o
                                  for o in info.get("config") or [] if isinstance(o, dict)])
        elif request == "session/set_model" and isinstance(params.get("modelId"), str):
            info["models"] = {**(info.get("models") or {}), "currentModelId": params["modelId"]}
        else:
            return []
        return [Item("session_info", K.SESSION_INFO, self.turn, dict(info))]

    def _set_mode(self, mode: Any) -> None:
        """The current mode, kept the same in ``mode`` and in a config option of category mode."""
        if not isinstance(mode, str):
            return
        info = self._session_info
        info["mode"] = mode
        if isinstance(info.get("config"), list):
            info["config"] = [{**o, "currentValue": mode} if isinstance(o, dict) and o.get("category") == "mode" else o
                              for o in info["config"]]

    def _set_config(self, options: list[Any]) -> None:
        info = self._session_info
        info["config"] = options
        mode = next((o.get("currentValue") for o in options if isinstance(o, dict) and o.get("category") == "mode"), None)
        if isinstance(mode, str):
            info["mode"] = mode

    def _permission_request(self, msg: dict[str, Any]) -> list[Item]:
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        key = self._next("permission")
        self._requests_in[msg["id"]] = key
        tool_call = params.get("toolCall") if isinstance(params.get("toolCall"), dict) else {}
        known = self._tools.get(tool_call.get("toolCallId")) if isinstance(tool_call.get("toolCallId"), str) else None
        if known is not None:  # what the request leaves out (some send only the id), from the call it is for
            tool_call = {**_request_view(known), **tool_call}
        elif isinstance(tool_call.get("toolCallId"), str):  # asked about before it is reported: the request may be
            self._asked_first[tool_call["toolCallId"]] = tool_call  # all the agent says of it (Qwen Code)
        options = [o for o in params.get("options") or [] if isinstance(o, dict)]
        placed = self._client.placed(tool_call.get("toolCallId"), tool_call.get("content")) \
            if isinstance(tool_call.get("toolCallId"), str) else None
        if placed is not None:
            tool_call = {**tool_call, "content": placed}
        self._arguments_from_request(tool_call)
        self._client.asked(tool_call)
        payload = {"tool_call": tool_call, "options": options}
        asked_by = self._subagents.name_of(params.get("sessionId"))
        if asked_by:  # one of its subagents asks: the request says which
            payload["asked_by"] = asked_by
        item = Item(key, K.PERMISSION, self.turn, payload, status="pending", tool_call_id=tool_call.get("toolCallId"))
        self._permissions[key] = item
        return self._close_text() + self._asks(item.tool_call_id, True) + [item]

    def _arguments_from_request(self, tool_call: dict[str, Any]) -> None:
        """Gemini CLI reports an MCP call with no ``rawInput``: the rich-output call's arguments are only in its
        permission request, as the JSON text of its content. They become the call's input (validated when the call
        is read, as any input is)."""
        call_id, title = tool_call.get("toolCallId"), tool_call.get("title")
        if not isinstance(call_id, str) or "rawInput" in tool_call or not isinstance(title, str):
            return
        if not is_rich_output_name(None, title):
            return
        texts = [block["content"]["text"] for block in tool_call.get("content") or []
                 if isinstance(block, dict) and isinstance(block.get("content"), dict)
                 and isinstance(block["content"].get("text"), str)]
        try:
            arguments = json.loads(texts[0]) if len(texts) == 1 else None
        except (ValueError, RecursionError):
            arguments = None
        call = self._tool(call_id)
        if isinstance(arguments, dict) and not (call.get("input") or {}).get("raw_input"):
            call["input"] = {"kind": call.get("kind") or "other", "raw_input": arguments, "from": "permission request"}

    def _cursor_task(self, params: dict[str, Any]) -> list[Item]:
        tool_call_id = params.get("toolCallId")
        if not isinstance(tool_call_id, str):
            return []
        call = self._tool(tool_call_id)
        call["subagent"] = {**(call.get("subagent") or {}), "provider": "cursor",
                            **{k: params[k] for k in ("agentId", "description", "model") if k in params}}
        return [self._tool_item(call)]

    def _turn_end(self, msg: dict[str, Any]) -> list[Item]:
        changed = self._close_text()
        result = msg.get("result") if isinstance(msg.get("result"), dict) else {}
        if "error" in msg:
            error = msg.get("error") if isinstance(msg.get("error"), dict) else {}
            changed.append(self._error(f"The turn failed: {error.get('message', 'unknown error')}", code=error.get("code"),
                                       data=error.get("data")))
            stop = "error"
        else:
            stop = result.get("stopReason") if isinstance(result.get("stopReason"), str) else "end_turn"
        changed.extend(self._finish_turn())
        payload: dict[str, Any] = {"stop_reason": stop}
        if isinstance(result.get("usage"), dict):
            payload["usage"] = result["usage"]
        changed.append(Item(self._next("turn_end"), K.TURN_END, self.turn, payload, final=True))
        return changed

    def _finish_turn(self) -> list[Item]:
        """Unfinished tool calls are cancelled, the plan is final, memory is released."""
        changed = self._turn_changes.turn_ending(self.turn)  # the turn's changes card, before its end
        made = self._rich.turn_ended(self.turn, self._call_of_ours)  # calls the agent never reported
        if made:
            changed += self._close_text()
        for call in made:
            changed.append(self._tool_item(call))
        for call in self._tools.values():
            asked = call.pop("asking", None) is not None
            if cancel_if_unfinished(call) or asked:
                changed.append(self._tool_item(call))
        self._released.update(self._tools)
        self._tools.clear()
        for item in self._permissions.values():
            changed.append(item.but(payload={**item.payload, "answer": {"outcome": "cancelled"}}, status="cancelled",
                                    final=True))
        self._permissions.clear()
        changed += self._elicitations.turn_ended() + self._compactions.turn_ended()
        self._requests_in = {rid: key for rid, key in self._requests_in.items() if self._elicitations.waits(key)}
        self._client.turn_ended()
        if self._plan is not None:
            changed.append(self._plan.but(final=True))
            self._plan = None
        self.turn_open = False
        self._echo = None
        self._asked_first.clear()  # requests for calls the agent never reported: their turn is over
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
            return self._tool_frame(update, first=kind == "tool_call")
        if kind == "plan":
            return [self._set_plan([e for e in update.get("entries") or [] if isinstance(e, dict)])]
        if kind == "usage_update":
            self._usage = {k: update[k] for k in ("size", "used", "cost") if k in update}
            return [Item("usage", K.USAGE, self.turn, dict(self._usage))] + \
                self._compactions.usage_reported(self._usage)
        if kind in STATE_UPDATES:
            return self._state(kind, update)
        if kind == "notice":
            return self._close_text() + [notice_item(update, self._next("notice"), self.turn)]
        if kind == "plan_update":
            return self._close_text() + self._plans.update(update, self.turn)
        if kind == "plan_removed":
            return self._plans.removed(update)
        if kind == "compaction_update":
            return self._close_text() + self._compactions.update(update, self.turn)
        if kind == "compaction_summary_chunk":
            return self._close_text() + self._compactions.chunk(update, self.turn)
        if isinstance(kind, str) and kind not in self.unknown_updates:
            self.unknown_updates.add(kind)
            log.info("ignoring session/update kind %r (kept in the recording)", kind)
        return []

    def _state(self, kind: str, update: dict[str, Any]) -> list[Item]:
        meta = update.get("_meta") if isinstance(update.get("_meta"), dict) else {}
        status = meta.get("threadStatus")
        if status is None and isinstance(meta.get("codex"), dict):
            status = meta["codex"].get("threadStatus")
        if isinstance(status, dict) and status.get("type") == "systemError":
            self._system_error = True
        info = self._session_info
        if kind == "session_info_update":
            for key in ("title", "updatedAt"):
                if isinstance(update.get(key), str):
                    info[key] = update[key]
            if self._guidance and isinstance(info.get("title"), str) and self._carries_guidance(info["title"]):
                info["title"] = " ".join(self._first_words.split())[:80]  # the user's words, not kandev-tui's
        elif kind == "current_mode_update":
            self._set_mode(update.get("currentModeId"))
        elif kind == "available_commands_update":
            commands = update.get("availableCommands")
            info["commands"] = [{"name": c["name"], "description": c.get("description") or "",
                                 "input": c["input"] if isinstance(c.get("input"), dict) else None}
                                for c in commands if isinstance(c, dict) and isinstance(c.get("name"), str)] \
                if isinstance(commands, list) else []
        elif kind == "config_option_update":
            options = update.get("configOptions", update.get("configOption"))
            if isinstance(options, list):
                self._set_config(options)
        return [Item("session_info", K.SESSION_INFO, self.turn, dict(info))]

    def _carries_guidance(self, title: str) -> bool:
        """Whether an agent's title for the session was made from kandev-tui's guidance paragraph (Codex titles a
        session with the start of its first prompt)."""
        head = " ".join(title.split())[:40].rstrip("…. ")
        return bool(head) and head in " ".join(self._guidance.split())

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
        if name == "message" and self._system_error and CAPACITY_TEXT in text:
            self._system_error = False
            return self._close_text() + [self._error("The model is at capacity; try again or choose another model.",
                                                     detail=text)]
        return self._texts.add(name, text, update.get("messageId"), self.turn)

    # -- tool calls --------------------------------------------------------

    def _tool(self, tool_call_id: str) -> dict[str, Any]:
        call = self._tools.get(tool_call_id)
        if call is None and self._loader is not None and (self._continued or tool_call_id in self._released):
            stored = self._loader(f"tool:{tool_call_id}")
            if stored is not None:
                call = dict(stored)
        if call is None:
            call = new_call(tool_call_id, self.turn)
            call["new"] = True
        self._tools[tool_call_id] = call
        return call

    def _running_call(self) -> str | None:
        """The newest call of this turn still running (a subagent announced now was spawned by it)."""
        for call in reversed(list(self._tools.values())):
            if call.get("status") not in TERMINAL:
                return call["tool_call_id"]
        return None

    def _tool_item(self, call: dict[str, Any]) -> Item:
        payload = {k: v for k, v in call.items() if k != "new"}
        return Item(f"tool:{call['tool_call_id']}", K.TOOL, int(call.get("turn", self.turn)), payload,
                    status=call.get("status"), tool_call_id=call["tool_call_id"], final=call.get("status") in TERMINAL)

    def _tool_frame(self, update: dict[str, Any], first: bool) -> list[Item]:
        tool_call_id = update.get("toolCallId")
        if not isinstance(tool_call_id, str) or not tool_call_id:
            return [self._error(f"The agent sent a tool call without an id{self._kept}.")]
        call = self._tool(tool_call_id)
        is_new = call.pop("new", False)
        asked = self._asked_first.pop(tool_call_id, None)
        seeded = is_new and asked is not None and not first
        if seeded:  # its first frame an update: the permission request said what the call is (title, kind,
            # rawInput, content), as its announcement would have
            merge_tool_frame(call, {k: v for k, v in asked.items() if k != "status"}, first=True)
        merge_tool_frame(call, update, first=is_new and not seeded)
        self._rich.note(call, update, made=is_new)
        self._place(call)
        if is_new and any(item.tool_call_id == tool_call_id for item in self._permissions.values()):
            call["asking"] = True  # asked about before it was reported (Gemini CLI)
        self._show_terminals(call)
        changed: list[Item] = []
        if is_new and not call.get("parent_id"):
            changed.extend(self._close_text())  # a top-level tool call ends the message
        changed.append(self._tool_item(call))
        todos = _todos(call.get("output"))
        if todos is not None:
            changed.append(self._set_plan(todos))
        return changed

    def _set_plan(self, entries: list[dict[str, Any]]) -> Item:
        payload = {"entries": [
            {"content": str(e.get("content", e.get("text", ""))), "priority": e.get("priority"), "status": e.get("status")}
            for e in entries]}
        self._plan = (Item(self._next("plan"), K.PLAN, self.turn, payload) if self._plan is None
                      else self._plan.but(payload=payload))
        return self._plan

    # -- local events --------------------------------------------------------

    def _call_of_ours(self, tool_call_id: str) -> dict[str, Any]:
        return new_call(tool_call_id, self.turn)

    def _local(self, event: dict[str, Any]) -> list[Item]:
        kind = event.get("event")
        if kind == "rich_output_server":
            self._rich.reached = True
            return []
        if kind == "rich_output":
            if not self.turn_open:  # no call of this session's (its server answers a call only within a turn)
                return []  # but another session's, through a server an agent shares between its sessions
            return [self._tool_item(call) for call in self._rich.reported(event, list(self._tools.values()), self.turn)]
        if kind in ("note", "error"):
            # a note: something kandev-tui did or learnt that is worth a quiet line (a login asked for, done; the
            # session closed during a turn); either may end the turn (its unfinished calls cancelled)
            changed = self._close_text() if kind == "error" or event.get("ends_turn") else []
            if kind == "note":
                changed.append(Item(self._next("note"), K.NOTE, self.turn, {"text": str(event.get("message", ""))},
                                    final=True))
            else:
                changed.append(self._error(str(event.get("message", "error")), exit_code=event.get("exit_code"),
                                           stderr=event.get("stderr"), detail=event.get("detail")))
            if event.get("ends_turn") and self.turn_open:
                self._turn_changes.untrack()  # cut short by kandev-tui closing: no card (its changes are not computed)
                stop = event.get("stop_reason") if isinstance(event.get("stop_reason"), str) else "error"
                changed.extend(self._finish_turn())
                changed.append(Item(self._next("turn_end"), K.TURN_END, self.turn, {"stop_reason": stop}, final=True))
            return changed
        if kind == "changes":
            return self._turn_changes.event(event, self.turn)
        if kind == "file_written":
            return self._file_written(event)
        if kind == "file_before":
            call_id = self._client.before(event)
            call = self._tools.get(call_id) if call_id is not None else None
            return [self._tool_item(call)] if call is not None and not call.get("new") and self._place(call) else []
        if kind == "terminal":
            changed = []
            for tool_call_id in self._client.terminal_event(event):
                call = self._tools.get(tool_call_id)
                if call is not None:
                    self._show_terminals(call)
                    changed.append(self._tool_item(call))
            return changed
        return []

    def _place(self, call: dict[str, Any]) -> bool:
        """The call's diffs made against the files as they were before it (:meth:`ClientSide.placed`); True if they
        changed."""
        placed = self._client.placed(call["tool_call_id"], call.get("content"))
        if placed is None:
            return False
        call["content"] = placed
        call["diffs"] = diff_summary(placed)
        return True

    def _show_terminals(self, call: dict[str, Any]) -> None:
        """The output of the client terminals a call embeds becomes its command output."""
        self._client.show_terminals(call)
        shell = call.get("shell")
        if (call.get("status") == COMPLETE and isinstance(shell, dict)
                and (shell.get("exit_code") not in (None, 0) or shell.get("signal") not in (None, ""))):
            call["status"] = FAILED

    def _file_written(self, event: dict[str, Any]) -> list[Item]:
        """A file kandev-tui wrote for the agent: its diff joins the edit call it follows, or is a call of its own."""
        block = self._client.written(event)
        if block is None:
            return []
        path = block["path"]
        call = self._client.follows(list(self._tools.values()), path)
        before = None
        if call is not None:
            before = self._client.before_of(call["tool_call_id"], path) or \
                self._client.before_of(call["tool_call_id"], str(event.get("real_path")))
        if before is not None and (not before["exists"] or "text" in before):
            # the file as it was before the call, not as the write found it (an agent that wrote it itself as well)
            block = {**block, "oldText": before.get("text") if before["exists"] else None}
        if call is not None:
            if path in diff_paths(call.get("content")):
                return []  # the agent's own call shows this file's diff already
            call["written"] = [*(call.get("written") or []), block]
            keep_written(call)
            call["diffs"] = diff_summary(call.get("content"))
            return [self._tool_item(call)]
        if self._client.shown_by_agent(path):
            return []  # the agent asked with this file's diff, its call not reported yet (Gemini): the call will show it
        self._counter += 1
        call = new_call(f"kandev-tui-write-{self._counter}", self.turn)
        call.update(name="edit", kind="edit", title=f"Write {path}", status=COMPLETE, content=[block],
                    locations=[{"path": path}], input={"kind": "edit", "raw_input": {"path": path}},
                    diffs=diff_summary([block]), client="kandev-tui")
        return self._close_text() + [self._tool_item(call)]
