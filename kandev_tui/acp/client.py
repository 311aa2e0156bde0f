"""The ACP client: start an agent, hand it our MCP server, prompt, cancel, answer.

Built on the ``agent-client-protocol`` SDK's JSON-RPC ``Connection`` with a
raw method handler (no ``acp.Client`` subclass, so every method we do not
implement answers "method not found") and :class:`LineTransport`, so that
every frame in both directions reaches ``on_frame`` in order: that is how the
recording, the normaliser and the store see the session.

The SDK is imported lazily, when an agent is started.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Callable

from kandev_tui import __version__
from kandev_tui.base.jsonutil import of_type
from kandev_tui.base.shutdown import register_group
from kandev_tui.transcript.frames import IN, LOCAL, Frame
from .options import (AUTH_REQUIRED, WAIT_LONGER, AgentError, AgentOptions, ElicitationHandler, LoginRequired,
                      PermissionHandler, agent_env, headless_permission_policy, initialize_failure, install_adapter,
                      kandev_mcp_server, login_method, mcp_servers_for, parse_mcp_config,
                      _tail, describe, request_error_text)
from .process import StderrLog, _end_agent, _exited, _signal_name
from .sdk import import_sdk
from .asking import Asker
from .offering import Offering
from .before_edit import FilesBefore
from .serving import AgentRequests
from .session_ops import SessionOps

# the names kandev-tui's other modules and tests take from here
__all__ = ["AgentClient", "AgentError", "AgentOptions", "ElicitationHandler", "LoginRequired", "OBSERVED_ONLY",
           "PermissionHandler", "headless_permission_policy", "kandev_mcp_server", "login_method", "mcp_servers_for",
           "parse_mcp_config", "request_error_text"]

if TYPE_CHECKING:  # imported when a client is made (after the app's first frame)

    from .terminals import Terminals

PROTOCOL_VERSION = 1


# notifications whose frame is all kandev-tui needs (the normaliser reads it): never dispatched through the SDK
OBSERVED_ONLY = frozenset({"session/update"})
SESSION_CLOSE_WAIT = 2.0  # seconds an agent that offers session/close has to answer it before it is ended


class AgentClient:
    """One agent process and one ACP session with it. The agent's requests are served by ``requests``
    (:mod:`.serving`), the files its edits name are read before by ``before`` (:mod:`.before_edit`), requests beside
    the turn go through ``asker`` (:mod:`.asking`) and the session's operations are ``ops`` (:mod:`.session_ops`)."""

    def __init__(self, options: AgentOptions, on_frame: Callable[[Frame], object],
                 ask_permission: PermissionHandler | None = None,
                 ask_user: ElicitationHandler | None = None) -> None:
        self.options = options
        self._on_frame = on_frame
        self.process: asyncio.subprocess.Process | None = None
        self.asker = Asker()  # the connection, once the agent runs, and what kandev-tui asks of it
        self._log: StderrLog | None = None
        self.session_id: str | None = None
        self.agent_info: dict[str, Any] = {}
        self.agent_capabilities: dict[str, Any] = {}
        self.auth_methods: list[dict[str, Any]] = []
        self.session_setup: dict[str, Any] = {}  # the answer to session/new (load, resume): modes, config, models
        self._prefix_guidance = False  # the guidance goes before the first prompt (no system prompt taken)
        self._first_prompt = True
        self._turn: asyncio.Task[Any] | None = None
        self._exit_reported = False
        self._spoke = False  # the agent wrote a JSON-RPC message
        self._not_json: list[str] = []  # its first line that is not JSON-RPC, while it has written no message
        self.exit_reason = ""  # how the agent ended during a turn ("the agent was ended by SIGKILL during the turn")
        self._closing: asyncio.Future[None] | None = None
        from .files import ClientFiles
        from .terminals import Terminals

        self._files = ClientFiles(options.workspace, options.repos)
        self._terminals = Terminals(self._files, on_frame, env=options.env)
        self.requests = AgentRequests(options, self._files, self._terminals, on_frame, self.note, ask_permission,
                                      ask_user)
        self.before = FilesBefore(self._files, on_frame)
        self.ops = SessionOps(self)
        self._watcher: asyncio.Task[None] | None = None
        self.offering = Offering(options)  # kandev-tui's own MCP server (its hub) and the guidance, offered

    # -- frames ----------------------------------------------------------------

    def _frame(self, frame: Frame) -> None:
        """Each frame of the agent's stream, passed on; before the first frame of an edit that names a file, the
        file as it is then (``file_before``, :mod:`kandev_tui.transcript.clientside`)."""
        if frame.dir == IN and frame.msg is None and not self._spoke and not self._not_json and frame.raw:
            self._not_json.append(frame.raw[:80])
        if frame.dir == IN and frame.msg is not None:
            self._spoke = True
            self.before.look(frame.msg)
            if frame.msg.get("method") == "elicitation/create" and "id" in frame.msg:
                self.requests.question_received(frame.msg["id"])
        self._on_frame(frame)

    # -- lifecycle -----------------------------------------------------------

    def note(self, message: str) -> None:
        self._on_frame(Frame.now(LOCAL, {"event": "note", "message": message}))

    def _local(self, message: str, **details: Any) -> None:
        self._on_frame(Frame.now(LOCAL, {"event": "error", "message": message,
                                         **{k: v for k, v in details.items() if v is not None}}))

    async def start(self) -> None:
        """Spawn the agent, ``initialize`` and open the session (:meth:`open_session`); AgentError (reported) on
        failure, :class:`LoginRequired` when the agent needs a login first (the agent keeps running)."""
        await self.connect()
        await self.open_session()

    async def connect(self) -> None:
        """Spawn the agent and ``initialize``: its info, capabilities and ways to log in are kept."""
        options = self.options
        if options.log_path is not None:
            self._log = StderrLog(options.log_path)
        await install_adapter(options.command, self.note, self._local)  # a built-in preset's, the first time
        try:
            self.process = await asyncio.create_subprocess_exec(
                *options.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE if self._log is not None else asyncio.subprocess.DEVNULL,
                cwd=str(options.workspace),
                env=agent_env(options.env),  # its PATH without relative entries: none finds the workspace's programs
                start_new_session=True,
                limit=1 << 20,
            )
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            if isinstance(exc, FileNotFoundError) and exc.filename == str(options.workspace):
                reason = f"its workspace {options.workspace} is not there"
            elif isinstance(exc, FileNotFoundError):
                reason = f"command not found (is {options.command[0][:80]} installed, and on PATH?)"
            message = f"Could not start the agent ({' '.join(options.command)[:200]}): {reason}"
            self._local(message, ends_turn=True)
            raise AgentError(message) from None
        register_group(self.process.pid)  # ended however kandev-tui ends (kandev_tui/base/shutdown.py)
        if self._log is not None:
            self._log.start(self.process.stderr)
        assert self.process.stdout is not None and self.process.stdin is not None
        self._watcher = asyncio.ensure_future(self._watch_exit(self.process))
        # the SDK takes 0.4-1 s to import: off the event loop, while the agent starts (an interpreter, node: it
        # answers initialize no sooner), not before it is spawned; what it says meanwhile waits in the pipe
        sdk = asyncio.ensure_future(asyncio.to_thread(import_sdk))  # its models built without their source (sdk.py)
        await self.offering.start_hub(self._on_frame, lambda: self.turn_running, self.note)
        await sdk
        from acp.connection import Connection

        from .transport import LineTransport

        transport = LineTransport(self.process.stdout, self.process.stdin, self._frame, observed_only=OBSERVED_ONLY,
                                  scrub=self.offering.scrub if self.offering.hub is not None else None,
                                  gives_way=options.gives_way)
        self.asker.conn = Connection(self.requests.handle, transport)
        try:
            response = await asyncio.wait_for(self.asker.conn.send_request("initialize", {
                "protocolVersion": PROTOCOL_VERSION,
                # auth.terminal: the agent may offer a login to run in the user's terminal (the app steps aside)
                # _meta terminal-auth: the same, in the form agents read before auth.terminal (Zed's), some
                # offering their login only to a client that says so
                "clientCapabilities": {"fs": {"readTextFile": options.fs_read, "writeTextFile": options.fs_write},
                                       "terminal": options.terminals, "auth": {"terminal": True},
                                       # notices and compactions: items of the transcript (kandev_tui/transcript/notices.py)
                                       "session": {"notices": {}, "compaction": {}}, "plan": {}, "subagents": {},
                                       **({"elicitation": {"form": {}, "url": {}}} if self.requests.ask_user else {}),
                                       "_meta": {"terminal-auth": True}},
                "clientInfo": {"name": "kandev-tui", "title": "kandev-tui", "version": __version__},
            }), timeout=options.init_timeout)
        except Exception as exc:  # noqa: BLE001 - TimeoutError, ConnectionError, RequestError
            await self._fail(initialize_failure(
                options, None if isinstance(exc, asyncio.TimeoutError) else describe(exc), echoed=self.requests.echoed,
                wrote_only=self._not_json[0] if self._not_json and not self._spoke else None,
                silent=await self._ended_silent(exc)))
        response = response if isinstance(response, dict) else {}
        self.agent_info = of_type(response, "agentInfo", dict, {})
        caps = response.get("agentCapabilities")
        self.agent_capabilities = caps if isinstance(caps, dict) else {}
        methods = response.get("authMethods")
        self.auth_methods = [login_method(m) for m in methods if isinstance(m, dict) and isinstance(m.get("id"), str)] \
            if isinstance(methods, list) else []

    @property
    def terminals(self) -> Terminals:
        """The commands kandev-tui runs for the agent (ACP terminals)."""
        return self._terminals

    async def open_session(self) -> None:
        """``session/new``, or, to continue the agent's session ``options.resume``, ``session/resume`` (where
        offered) or ``session/load``. :class:`LoginRequired` when the agent needs a login first."""
        options = self.options
        params: dict[str, Any] = {"cwd": str(options.workspace),
                                  "mcpServers": mcp_servers_for(options, self.agent_capabilities,
                                                                self.offering.our_server(self.agent_capabilities))}
        guidance = self.offering.guidance(self.agent_capabilities, self.ops.session_capabilities)
        params.update(guidance)
        self._prefix_guidance = options.inject_guidance and not guidance
        method = "session/new"
        if options.resume:
            how = self.ops.continues_by
            if how is None:
                await self._fail("This agent cannot continue a session (it offers neither session/resume nor "
                                 "session/load); start a new one with kandev-tui run.")
            method = f"session/{how}"
            params["sessionId"] = options.resume
            self._prefix_guidance = False  # the session had its guidance when it began
        try:
            session = await self.asker.ask(method, params, options.init_timeout)
        except asyncio.TimeoutError:
            await self._fail(f"The agent did not answer {method} within {options.init_timeout:g} s{WAIT_LONGER}")
        except Exception as exc:  # noqa: BLE001
            if type(exc).__name__ == "RequestError" and (getattr(exc, "code", None) == AUTH_REQUIRED
                                                          or self.auth_methods) and method == "session/new":
                message = f"The agent needs a login: {describe(exc)}"
                self.note(message)
                raise LoginRequired(message, self.auth_methods) from None
            if options.resume:
                await self._fail(f"The agent could not continue session {options.resume}: {describe(exc)} "
                                 "(it may no longer know it); start a new one with kandev-tui run.")
            await self._fail(f"The agent could not start a session: {describe(exc)}")
        self.session_setup = session if isinstance(session, dict) else {}
        self.session_id = options.resume or self.session_setup.get("sessionId")
        if not isinstance(self.session_id, str):
            await self._fail("The agent answered session/new without a session id.")

    # -- turns -----------------------------------------------------------------

    async def prompt(self, text: str) -> str:
        """Send one prompt and wait for the end of the turn; returns the stop reason.

        Where the agent takes no system prompt from the client, the guidance paragraph is prepended to the first
        prompt (unless turned off); ``_meta.kandevTui.guidanceChars`` tells the normaliser how much of the text is
        ours, so the transcript (and the session's title) shows the user's words only.
        """
        if self.asker.conn is None or self.session_id is None:
            raise AgentError("the agent is not running")
        from .mentions import mention_blocks

        caps = self.agent_capabilities.get("promptCapabilities")
        mentions, notes = await asyncio.to_thread(mention_blocks, text, self._files, caps if isinstance(caps, dict) else {}) \
            if "@" in text else ([], [])
        for note in notes:  # a file that was not sent, an agent that takes no images: said before the turn
            self.note(note)
        params: dict[str, Any] = {"sessionId": self.session_id,
                                  "prompt": [{"type": "text", "text": text}, *mentions]}
        if self._first_prompt and self._prefix_guidance:
            from kandev_tui.presentation import GUIDANCE

            prefix = GUIDANCE + "\n\n"
            params["prompt"][0]["text"] = prefix + text
            params["_meta"] = {"kandevTui": {"guidanceChars": len(prefix)}}
        self._first_prompt = False
        self._turn = asyncio.ensure_future(self.asker.conn.send_request("session/prompt", params))
        try:
            result = await asyncio.shield(self._turn)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001
            if type(exc).__name__ == "RequestError":
                return "error"  # the normaliser already made an error item from the response frame
            if not self._exit_reported:
                self._exit_reported = True
                details = await self.exit_details()
                code = details["exit_code"]
                if code is not None and code < 0:  # ended by a signal: named, not a negative exit code
                    details["exit_code"] = None
                    what = f"was ended by {_signal_name(-code)}"
                else:
                    what = f"exited with code {code}" if code is not None else "closed its output"
                self.exit_reason = f"the agent {what} during the turn"
                self._local(f"The agent {what} during the turn.", ends_turn=True, **details)
            return "error"
        finally:
            if self._turn is not None and self._turn.done():
                self._turn = None
            elif self._turn is not None:  # cancelled here, the turn runs on until closed; its end is nobody's news
                self._turn.add_done_callback(lambda turn: turn.cancelled() or turn.exception())
        return result.get("stopReason", "end_turn") if isinstance(result, dict) else "end_turn"

    @property
    def turn_running(self) -> bool:
        return self._turn is not None and not self._turn.done()

    async def cancel(self) -> None:
        """``session/cancel``; pending permission questions are answered cancelled.

        An agent that has not ended the turn after ``cancel_grace`` seconds is stopped.
        """
        if self.asker.conn is None or self.session_id is None or not self.turn_running:
            return
        self.requests.cancel_waits()  # each question waiting for the user answers "cancelled"
        await self._terminals.kill_all()  # the commands it runs in kandev-tui's terminals end with the turn
        try:
            await self.asker.conn.send_notification("session/cancel", {"sessionId": self.session_id})
        except Exception:  # noqa: BLE001 - the agent may already be gone
            return
        turn = self._turn
        if turn is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(turn), timeout=self.options.cancel_grace)
        except asyncio.TimeoutError:
            self._exit_reported = True
            self._local(f"The agent ignored cancel for {self.options.cancel_grace:g} s and was stopped.", ends_turn=True)
            await self.close()
        except Exception:  # noqa: BLE001 - the turn ended with an error: fine
            pass

    async def _watch_exit(self, process: asyncio.subprocess.Process) -> None:
        """The agent's exit ends the commands it ran in kandev-tui's terminals."""
        await process.wait()
        await self._terminals.end_all()

    # -- how the agent failed ---------------------------------------------------------

    async def _ended_silent(self, exc: BaseException) -> bool:
        """The agent's output closed with not a line written on it, and the agent then exited with status 0 (soon):
        a command that is no ACP agent (``true``, a script that does something else), not an agent that crashed."""
        if not isinstance(exc, ConnectionError) or self._spoke or self._not_json or self.process is None:
            return False
        try:
            return await asyncio.wait_for(_exited(self.process), timeout=0.5) == 0
        except asyncio.TimeoutError:
            return False

    async def exit_details(self, wait: float = 3.0) -> dict[str, Any]:
        """How the agent ended: its exit code (None: it runs on after ``wait`` seconds) and its last lines on
        stderr, with the hub's secret scrubbed."""
        code = None
        if self.process is not None:
            try:
                code = await asyncio.wait_for(_exited(self.process), timeout=wait)
            except asyncio.TimeoutError:
                code = None
        if self._log is not None:
            await self._log.settle(0.5)
        tail = _tail(self.options.log_path)
        tail = [self.offering.scrub(line) for line in tail]
        return {"exit_code": code, "stderr": tail or None}

    async def _fail(self, message: str) -> None:
        details = await self.exit_details(wait=0.5)
        if details["stderr"]:  # the agent's last line on stderr is often the reason (No module named …)
            message = f"{message} (its last words: {details['stderr'][-1].strip()[:200]})"
        self._local(message, ends_turn=True, **details)
        await self.close()
        raise AgentError(message)

    # -- shutdown ------------------------------------------------------------------

    async def close(self, reason: str = "") -> None:
        """Close stdin, then SIGTERM and finally SIGKILL the agent's process group and whatever it left in its
        session. A turn still running ends here, as interrupted, with ``reason`` (why kandev-tui closes) in its
        closing line. A second call waits for the first to have ended the agent (quitting while a cancel that timed
        out is still stopping it)."""
        if self._closing is None:
            if self.turn_running and not self._exit_reported:
                self._exit_reported = True  # the agent's end that follows is kandev-tui's doing, not its failure
                self._on_frame(Frame.now(LOCAL, {"event": "note", "ends_turn": True, "stop_reason": "interrupted",
                                                 "message": f"The session was closed during the turn: "
                                                            f"{reason or 'kandev-tui was quit'}."}))
            self._closing = asyncio.ensure_future(self._close())
        await asyncio.shield(self._closing)

    async def _close(self) -> None:
        process = self.process
        await self._terminals.end_all()
        if self.asker.conn is not None and self.session_id and self.ops.offers("close") and process is not None \
                and process.returncode is None:  # the agent frees the session itself (ends its turn, its tools)
            try:
                await self.asker.ask("session/close", {"sessionId": self.session_id}, SESSION_CLOSE_WAIT)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - it is ended below all the same
                pass
        if self.asker.withdrawing:  # the requests given up on are withdrawn before the agent's input closes
            await asyncio.wait(set(self.asker.withdrawing), timeout=1)
        if self.asker.conn is not None:
            try:
                await asyncio.wait_for(self.asker.conn.close(), timeout=2)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001
                pass
        if process is not None:
            await _end_agent(process)
        if self._watcher is not None:
            self._watcher.cancel()
        await self.offering.close()
        if self._log is not None:
            self._log.close()
            self._log = None
