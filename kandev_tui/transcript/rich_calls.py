"""Rich-output calls as kandev-tui's own MCP server saw them, attached to the agent's tool calls.

kandev-tui runs the MCP server it offers, and the server tells the session of each call of
``show_rich_output_kandev`` as it happens (:mod:`kandev_tui.mcp.hub`: ``local`` frames ``rich_output_server`` and
``rich_output``). From the moment a server of ours is reached, those reports alone make rich-output cards: a call
the agent names so but that never reached the server stays a generic call, and a call the agent describes in any
way at all (no tool name, the chart's description as its title, no ``rawInput``, arguments streamed as text) is a
card all the same. Where no server of ours was reached (a replay of an older recording, a Kandev session, a server
that never started) the agents' dialects are read as before (:func:`kandev_tui.presentation.is_rich_output_name`).

A report is attached to the agent's call that carries its arguments, else to one that names the tool, else to one
titled with the presentation's title or description, the earliest first (two calls with the same arguments pair in
order). A report no call claims waits for one until the turn ends, and then becomes a card of its own (a call
the agent never reports): agents send their frames late (OpenCode sends a turn's messages and calls in a burst once
its MCP call has been answered), so a report's arrival says nothing of its place among the agent's frames.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from kandev_tui.base.jsonutil import json_object, of_type
from kandev_tui.presentation.names import TOOL_NAME, extract_arguments

from .items import CANCELLED, COMPLETE, FAILED, IN_PROGRESS, TERMINAL

SERVER = "kandev"  # the name kandev-tui offers its server under (kandev_tui.mcp.hub.SERVER_NAME)
_TOKEN = re.compile(r"\s*([^\s(:{]+)\s*(?:\(([^)]*)\))?")
_SEPARATORS = "_./:-"


def names_our_tool(text: Any) -> bool:
    """Whether a name or a title names kandev's ``show_rich_output_kandev``: bare, or namespaced by the server's
    name however an agent joins them (``mcp__kandev__…``, ``kandev/…``, ``kandev_…``, ``mcp_kandev.…``,
    ``… (kandev MCP Server)``, ``…: {arguments}``); another server's tool of the same name is not."""
    if not isinstance(text, str):
        return False
    found = _TOKEN.match(text)
    if found is None:
        return False
    token, server = found.group(1), found.group(2)
    if not token.endswith(TOOL_NAME):
        return False
    prefix = token[: -len(TOOL_NAME)].strip(_SEPARATORS)
    prefix = re.sub(r"^mcp(?=[_./:-])", "", prefix).strip(_SEPARATORS) if prefix.lower().startswith("mcp") else prefix
    if prefix and prefix.lower() != SERVER:
        return False
    return server is None or server.strip().lower().split()[:1] == [SERVER]


def _meta_names(meta: Any, depth: int = 0) -> list[str]:
    """The strings of an update's ``_meta`` (two levels down), where agents put a tool's real name."""
    if not isinstance(meta, dict) or depth > 1:
        return []
    found = []
    for value in meta.values():
        if isinstance(value, str) and len(value) < 300:
            found.append(value)
        elif isinstance(value, dict):
            found += _meta_names(value, depth + 1)
    return found


def _content_text(content: Any) -> str:
    return "".join(block["content"]["text"] for block in (content if isinstance(content, list) else [])
                   if isinstance(block, dict) and isinstance(block.get("content"), dict)
                   and isinstance(block["content"].get("text"), str))


def carried_arguments(call: dict[str, Any]) -> list[dict[str, Any]]:
    """The argument objects a call carries anywhere: its ``rawInput`` (or the ``arguments`` in it, or its JSON
    text), the JSON text of its content (an agent that streams the arguments so)."""
    found: list[dict[str, Any]] = []
    raw = (call.get("input") or {}).get("raw_input") if isinstance(call.get("input"), dict) else None
    if isinstance(raw, dict):
        found.append(raw)
        if isinstance(raw.get("arguments"), dict):
            found.append(raw["arguments"])
        parsed = json_object(raw.get("arguments"))
        if parsed is not None:
            found.append(parsed)
    else:
        parsed = json_object(raw)
        if parsed is not None:
            found.append(parsed)
    arguments = extract_arguments(call.get("input"))
    if isinstance(arguments, dict) and arguments not in found:
        found.append(arguments)
    parsed = json_object(_content_text(call.get("content")))
    if parsed is not None:
        found.append(parsed)
    return found


def presentation_asked(tool_call: dict[str, Any]) -> dict[str, Any] | None:
    """What a permission request for kandev's own rich-output tool would show: the arguments it carries (its
    ``rawInput``, JSON text in its content, as Gemini sends them, or its title), {} when it carries none; None for a
    request for another tool. The tool is named in its title, its ``_meta`` or its ``rawInput``'s ``tool``/``name``."""
    raw = tool_call.get("rawInput")
    named_in_raw = [raw.get(k) for k in ("tool", "name", "toolName")] if isinstance(raw, dict) else []
    names = [tool_call.get("title"), tool_call.get("name"), *_meta_names(tool_call.get("_meta")), *named_in_raw]
    if not any(names_our_tool(name) for name in names):  # named anywhere the agent puts a tool's name
        return None
    carried = carried_arguments({"input": {"raw_input": raw}, "content": tool_call.get("content")})
    title = json_object(tool_call.get("title"))  # the raw arguments for a title, the name beside them
    carried += [title] if title is not None else []
    return next((found for found in carried if "blocks" in found or "title" in found), {})


# what the agent asks to do, by the ACP tool kind of the call
ASKS_TO = {"edit": "edit", "delete": "delete", "move": "move", "read": "read", "search": "search",
           "execute": "run", "fetch": "fetch"}


def what_is_asked(tool_call: dict[str, Any]) -> tuple[str, str, dict[str, Any] | None]:
    """A permission request's verb and object ("run", the command's title; "show rich output", the presentation's
    title for kandev's own tool), as the app's request says it and an export, and the presentation it asks to show
    (:func:`presentation_asked`: None for another tool), read once."""
    title = str(tool_call.get("title") or "") or "a tool call"
    presentation = presentation_asked(tool_call)
    if presentation is not None:
        shown = presentation.get("title")
        return "show rich output", shown.strip() if isinstance(shown, str) and shown.strip() else title, presentation
    return ASKS_TO.get(str(tool_call.get("kind")), "use"), title, None


def _evidence(call: dict[str, Any], names: list[str], arguments: dict[str, Any]) -> int:
    """How surely ``call`` is the one whose arguments these are: 3 it carries them, 2 it names the tool, 1 its
    title is the presentation's title or description, 0 nothing says so."""
    if arguments and arguments in carried_arguments(call):
        return 3
    raw = (call.get("input") or {}).get("raw_input") if isinstance(call.get("input"), dict) else None
    tool = raw.get("tool", raw.get("name")) if isinstance(raw, dict) else None
    if any(names_our_tool(name) for name in (call.get("name"), call.get("title"), tool, *names)):
        return 2
    title = of_type(call, "title", str, "").strip()
    if title and title in {str(arguments.get(k)).strip() for k in ("title", "description") if arguments.get(k)}:
        return 1
    return 0


class RichCalls:
    """One session's reports of rich-output calls and the agent's calls they belong to (see the module
    docstring). The normaliser owns the calls; this decides which report goes with which."""

    def __init__(self) -> None:
        self.reached = False  # a server of ours was reached: its reports alone make cards
        self._records: dict[str, dict[str, Any]] = {}  # report id → its record (what a card is drawn from)
        self._waiting: list[str] = []  # reports no call claimed yet, oldest first
        self._names: dict[str, list[str]] = {}  # agent call id → the names its frames' _meta gave
        self._made = 0

    def note(self, call: dict[str, Any], update: dict[str, Any], made: bool) -> None:
        """What an agent's frame (just merged into ``call``; ``made``: its first) says: a call made while a server
        of ours is reached is a card only once a report is attached; the names its ``_meta`` gives; the waiting
        report it claims, if any."""
        if made and self.reached and "rich_output" not in call:
            call["rich_output_known"] = True
        names = _meta_names(update.get("_meta"))
        if names:
            known = self._names.setdefault(call["tool_call_id"], [])
            known += [name for name in names if name not in known][:20]
        if not self._claim(call) and "rich_output" in call:
            call["name"] = TOOL_NAME  # a later frame of a known call keeps the name it is known by

    def _score(self, call: dict[str, Any], report: str) -> int:
        record = self._records[report]
        return _evidence(call, self._names.get(call["tool_call_id"], []), record.get("arguments") or {})

    # -- a report ---------------------------------------------------------------------------------------------------

    def reported(self, event: dict[str, Any], calls: list[dict[str, Any]], turn: int) -> list[dict[str, Any]]:
        """One ``rich_output`` event; the agent's call it changed, if any."""
        report = event.get("call")
        if not isinstance(report, str):
            return []
        self.reached = True
        record = self._records.get(report)
        if event.get("phase") == "start" or record is None:
            arguments = event.get("arguments")
            record = self._records[report] = {"call": report, "via": event.get("via"), "phase": "start",
                                              "arguments": arguments if isinstance(arguments, dict) else {}}
            if report not in self._waiting:
                self._waiting.append(report)
        if event.get("phase") == "end":
            record["phase"] = "end"
            record["is_error"] = event.get("is_error") is True
            record["text"] = str(event.get("text", ""))
            if isinstance(event.get("structured"), dict):
                record["structured"] = event["structured"]
        holder = next((call for call in calls if (call.get("rich_output") or {}).get("call") == report), None)
        if holder is None:
            candidates = [call for call in calls if "rich_output" not in call and call.get("status") not in TERMINAL
                          and call.get("turn") == turn]
            holder = self._best(candidates, report)
        if holder is not None:
            self._attach(holder, report)
            return [holder]
        return []  # waiting for the agent's call (see the module docstring)

    def _best(self, candidates: list[dict[str, Any]], report: str) -> dict[str, Any] | None:
        best, best_score = None, 0
        for call in candidates:
            score = self._score(call, report)
            if score > best_score:
                best, best_score = call, score
        return best

    def _attach(self, call: dict[str, Any], report: str) -> None:
        record = self._records[report]
        call["rich_output"] = dict(record)
        call["name"] = TOOL_NAME  # known, whatever name the agent gave its call (kept in its title)
        call.pop("rich_output_known", None)
        if report in self._waiting:
            self._waiting.remove(report)
        if record["phase"] == "end" and call.get("client") == "kandev-tui":
            call["status"] = FAILED if record.get("is_error") else COMPLETE
        elif call.get("status") not in TERMINAL:
            call["status"] = IN_PROGRESS

    def _alone_card(self, report: str, turn: int, new_call: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
        self._made += 1
        record = self._records[report]
        call = new_call(f"kandev-tui-rich-output-{self._made}")
        title = record["arguments"].get("title")
        call.update(name=TOOL_NAME, kind="other", client="kandev-tui", turn=turn,
                    title=title if isinstance(title, str) and title.strip() else "Rich output",
                    input={"kind": "other", "raw_input": record["arguments"]})
        self._attach(call, report)
        return call

    # -- the agent's frames -------------------------------------------------------------------------------------------

    def _claim(self, call: dict[str, Any]) -> bool:
        """Attach the waiting report an agent's call (just merged) is for; True if it was."""
        if "rich_output" in call or not self._waiting:
            return False
        report = None
        best_score = 0
        for waiting in self._waiting:
            score = self._score(call, waiting)
            if score > best_score:
                report, best_score = waiting, score
        if report is None:
            return False
        self._attach(call, report)
        return True

    def turn_ended(self, turn: int, new_call: Callable[[str], dict[str, Any]]) -> list[dict[str, Any]]:
        """Reports still waiting when the turn ends (a server that never answered): cards of their own, cancelled."""
        made = []
        for report in list(self._waiting):
            card = self._alone_card(report, turn, new_call)
            if card["status"] not in TERMINAL:
                card["status"] = CANCELLED
            made.append(card)
        self._waiting.clear()
        self._names.clear()
        return made
