"""What the agent asks of kandev-tui (its requests and notifications): files, terminals, permissions and questions,
each answered by the service that owns it; what kandev-tui does not offer answers "method not found"."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from kandev_tui.transcript.frames import LOCAL, Frame

if TYPE_CHECKING:
    from .files import ClientFiles
    from .options import AgentOptions, ElicitationHandler, PermissionHandler
    from .terminals import Terminals

# what kandev-tui asks of agents: an agent that asks it of kandev-tui sends its input back
AGENT_METHODS = frozenset({"initialize", "authenticate", "session/new", "session/load", "session/resume",
                           "session/prompt", "session/list", "session/set_mode"})


class AgentRequests:
    """The agent's requests, each to the service that owns it: the confined ``files``, the ``terminals``, the
    user (``ask_permission``, ``ask_user``: questions are offered only when someone can answer them). ``note`` says a
    line in the transcript; ``on_frame`` takes the local frames of what was done."""

    def __init__(self, options: AgentOptions, files: ClientFiles, terminals: Terminals,
                 on_frame: Callable[[Frame], object], note: Callable[[str], None],
                 ask_permission: PermissionHandler | None, ask_user: ElicitationHandler | None) -> None:
        self._options = options
        self._files = files
        self._terminals = terminals
        self._on_frame = on_frame
        self._note = note
        self._ask_permission = ask_permission
        self.ask_user = ask_user
        self._question_ids: list[Any] = []  # the ids of questions received, not yet handled (in order)
        self._questions: dict[Any, asyncio.Task[Any]] = {}  # a question's id → its wait (the agent may withdraw it)
        self._questions_withdrawn: set[asyncio.Task[Any]] = set()  # the waits the agent withdrew ($/cancel_request)
        self._permission_waits: set[asyncio.Task[Any]] = set()  # the questions being asked, cancelled by cancel()
        self.echoed = False  # the agent asked kandev-tui what kandev-tui asks agents: it echoes (cat)

    def question_received(self, request_id: Any) -> None:
        """An ``elicitation/create`` came with ``request_id`` (the SDK hands its handler no id): noted in order."""
        self._question_ids.append(request_id)

    def cancel_waits(self) -> None:
        """The turn is cancelled: each question waiting for the user answers "cancelled"."""
        for waiter in [*self._permission_waits, *self._questions.values()]:
            waiter.cancel()  # (see _permission, _question)

    async def handle(self, method: str, params: Any, is_notification: bool) -> Any:
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
                self.echoed = True
            raise RequestError.method_not_found(method)
        try:
            return await serve(params)
        except FileRequestError as exc:
            data = {"path": exc.path} if exc.path is not None else None
            raise RequestError(exc.code, str(exc), data) from None

    def _services(self) -> dict[str, Callable[[Any], Awaitable[Any]]]:
        """The client methods kandev-tui serves, as far as the options offer them."""
        services: dict[str, Callable[[Any], Awaitable[Any]]] = {}
        if self._options.fs_read:
            services["fs/read_text_file"] = lambda params: asyncio.to_thread(self._files.read, params)
        if self._options.fs_write:
            services["fs/write_text_file"] = self._write
        if self._options.terminals:
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
        if self.ask_user is None or problem:
            return {"action": "decline"}
        waiter = asyncio.ensure_future(self.ask_user(params))
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
