"""What the agent asks of kandev-tui (its requests and notifications): files, terminals, permissions and questions,
each answered by the service that owns it; what kandev-tui does not offer answers "method not found"."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from kandev_tui.base.jsonutil import of_type
from kandev_tui.transcript.clientside import edit_paths
from kandev_tui.transcript.frames import LOCAL, Frame

if TYPE_CHECKING:
    from ._parts import ClientParts
else:
    ClientParts = object  # a plain mixin at run time: see _parts

# what kandev-tui asks of agents: an agent that asks it of kandev-tui sends its input back
AGENT_METHODS = frozenset({"initialize", "authenticate", "session/new", "session/load", "session/resume",
                           "session/prompt", "session/list", "session/set_mode"})


class AgentRequests(ClientParts):
    """The agent's requests (a part of :class:`~kandev_tui.acp.client.AgentClient`)."""

    async def _handle(self, method: str, params: Any, is_notification: bool) -> Any:
        from acp.exceptions import RequestError

        if method == "session/update":
            return None  # already normalised from the frame
        if method == "session/request_permission" and not is_notification:
            return await self._permission(params if isinstance(params, dict) else {})
        if method == "elicitation/create" and not is_notification:
            return await self._question(params if isinstance(params, dict) else {})
        if method == "$/cancel_request" and is_notification:  # the agent gave up on a question it asked
            waiter = self._questions.get(params.get("requestId") if isinstance(params, dict) else None)
            if waiter is not None:
                self._questions_withdrawn.add(waiter)
                waiter.cancel()
            return None
        if method == "cursor/task":
            return {}  # subagent metadata: merged into its tool call by the normaliser
        if is_notification:
            return None
        from .files import FileRequestError

        serve = self._services().get(method)
        if serve is None:
            if method in AGENT_METHODS:  # what kandev-tui asks of agents, asked of it: the command echoes its input
                self._echoed = True
            raise RequestError.method_not_found(method)
        try:
            return await serve(params)
        except FileRequestError as exc:
            data = {"path": exc.path} if exc.path is not None else None
            raise RequestError(exc.code, str(exc), data) from None

    def _services(self) -> dict[str, Callable[[Any], Awaitable[Any]]]:
        """The client methods kandev-tui serves, as far as the options offer them."""
        services: dict[str, Callable[[Any], Awaitable[Any]]] = {}
        if self.options.fs_read:
            services["fs/read_text_file"] = lambda params: asyncio.to_thread(self._files.read, params)
        if self.options.fs_write:
            services["fs/write_text_file"] = self._write
        if self.options.terminals:
            terminals = self._terminals
            services.update({"terminal/create": terminals.create, "terminal/output": terminals.output,
                             "terminal/wait_for_exit": terminals.wait_for_exit, "terminal/kill": terminals.kill,
                             "terminal/release": terminals.release})
        return services

    async def _write(self, params: Any) -> dict[str, Any]:
        """``fs/write_text_file``; the transcript learns the former text (for the diff) from a local frame."""
        from .files import FileRequestError

        try:
            written = await asyncio.to_thread(self._files.write, params)
        except FileRequestError as exc:
            self._note(f"kandev-tui refused the agent's write: {exc}")
            raise
        path = params.get("path") if isinstance(params, dict) else None
        self._on_frame(Frame.now(LOCAL, {"event": "file_written", "path": path, "real_path": written.path,
                                         "old": written.old, "new_file": written.new_file,
                                         **({"note": written.note} if written.note else {})}))
        return {}

    async def _permission(self, params: dict[str, Any]) -> dict[str, Any]:
        if self._ask_permission is None:
            return {"outcome": {"outcome": "cancelled"}}
        options = {o.get("optionId") for o in params.get("options") or [] if isinstance(o, dict)}
        waiter = asyncio.ensure_future(self._ask_permission(params))
        self._permission_waits.add(waiter)
        try:
            choice = await waiter
        except asyncio.CancelledError:
            choice = None
        finally:
            self._permission_waits.discard(waiter)
        if isinstance(choice, str) and choice in options:
            return {"outcome": {"outcome": "selected", "optionId": choice}}
        return {"outcome": {"outcome": "cancelled"}}

    async def _question(self, params: dict[str, Any]) -> dict[str, Any]:
        """``elicitation/create``: asked of the user (declined when nobody can answer, or when kandev-tui cannot
        show it: the normaliser's item says why); withdrawn by the agent (``$/cancel_request``): the error the spec
        asks for; cancelled with the turn: ``cancel``."""
        from acp.exceptions import RequestError

        from kandev_tui.transcript.elicitation import parse_form, url_target

        request_id = self._question_ids.pop(0) if self._question_ids else None
        mode = params.get("mode", "form")
        problem = parse_form(params.get("requestedSchema"))[1] if mode == "form" else (
            url_target(params.get("url"))[1] if mode == "url" else "unknown mode")
        if self._ask_user is None or problem:
            return {"action": "decline"}
        waiter = asyncio.ensure_future(self._ask_user(params))
        self._questions[request_id] = waiter
        try:
            response = await waiter
        except asyncio.CancelledError:
            if waiter in self._questions_withdrawn:
                raise RequestError(-32800, "Request cancelled") from None
            response = None
        finally:
            self._questions.pop(request_id, None)
            self._questions_withdrawn.discard(waiter)
        return response if isinstance(response, dict) and response.get("action") else {"action": "cancel"}

    def _before_edit(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")  # every frame comes here: the text chunks of a flood leave at the third look
        if method == "session/update":
            params = msg.get("params")
            call = params.get("update") if isinstance(params, dict) else None
            if not isinstance(call, dict) or call.get("sessionUpdate") not in ("tool_call", "tool_call_update"):
                return
        elif method == "session/request_permission":
            call = of_type(of_type(msg, "params", dict, {}), "toolCall", dict, None)
            if call is None:
                return
        else:
            return
        call_id = call.get("toolCallId")
        if not isinstance(call_id, str) or call.get("status") in ("completed", "failed"):
            return
        if call.get("kind") == "edit":
            self._edits.add(call_id)
        for path in edit_paths(call, call_id in self._edits):
            if (call_id, path) in self._before_read:
                continue
            self._before_read[(call_id, path)] = None
            if len(self._before_read) > 4096:  # bounded: the oldest calls are long done
                del self._before_read[next(iter(self._before_read))]
            state = self._files.before(path)
            if state is not None:
                self._on_frame(Frame.now(LOCAL, {"event": "file_before", "tool_call_id": call_id, "path": path,
                                                 **state}))
