"""What kandev-tui asks of an agent beside prompts: logging in, modes and options, its sessions listed, cancelled,
deleted; each request given up on is withdrawn (``$/cancel_request``)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from .options import AgentError, _tail, request_error_text
from .process import _exited, _signal_name
from .transport import SENT_IDS

if TYPE_CHECKING:
    from ._parts import ClientParts
else:
    ClientParts = object  # a plain mixin at run time: see _parts


class SessionOps(ClientParts):
    """Requests beside the turn (a part of :class:`~kandev_tui.acp.client.AgentClient`)."""

    async def authenticate(self, method_id: str) -> None:
        """``authenticate`` with one of the agent's methods; AgentError with the agent's reason when it fails."""
        if self._conn is None:
            raise AgentError("the agent is not running")
        request = asyncio.ensure_future(self._ask("authenticate", {"methodId": method_id}, None))
        ended = asyncio.ensure_future(_exited(self.process)) if self.process is not None else None
        try:
            # the agent's end ends the wait: one that dies while logging in may leave its output open (a child)
            done, _ = await asyncio.wait([w for w in (request, ended) if w is not None], timeout=300,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in (request, ended):
                if waiter is not None and not waiter.done():
                    waiter.cancel()
        failure = request.exception() if request in done else None
        if request in done and failure is None:
            self._note(f"Logged in ({method_id}).")
            return
        if failure is not None and not (ended is not None and ended in done):
            raise AgentError(f"The login failed: {self._describe(failure)}")
        if not done:
            raise AgentError("The agent did not finish the login within 5 minutes.")
        details = await self._exit_details(wait=0.5)
        code = details["exit_code"]
        what = f"was ended by {_signal_name(-code)}" if isinstance(code, int) and code < 0 else \
            f"exited with code {code}" if code is not None else "stopped answering"
        last = f" (its last words: {details['stderr'][-1].strip()[:200]})" if details["stderr"] else ""
        raise AgentError(f"The agent {what} during the login{last}.")

    async def choose(self, method: str, params: dict[str, Any]) -> None:
        """A choice for the session (``session/set_mode``, ``session/set_config_option``, ``session/set_model``);
        AgentError with the agent's reason when it refuses (the old choice stays)."""
        if self._conn is None or self.session_id is None:
            raise AgentError("the agent is not running")
        try:
            await self._ask(method, {"sessionId": self.session_id, **params}, self.options.init_timeout)
        except asyncio.TimeoutError:
            raise AgentError(f"The agent did not answer {method} within {self.options.init_timeout:g} s.") from None
        except Exception as exc:  # noqa: BLE001
            raise AgentError(f"The agent refused it: {self._describe(exc)}") from None

    async def list_sessions(self) -> list[dict[str, Any]]:
        """The agent's own sessions in this workspace (``session/list``, every page), newest first as it lists
        them; AgentError when it cannot list."""
        if self._conn is None:
            raise AgentError("the agent is not running")
        if not isinstance(self.session_capabilities.get("list"), dict):
            raise AgentError("This agent does not list its sessions (no sessionCapabilities.list).")
        found: list[dict[str, Any]] = []
        cursor = None
        for _ in range(50):
            params: dict[str, Any] = {"cwd": str(self.options.workspace)}
            if cursor:
                params["cursor"] = cursor
            try:
                page = await self._ask("session/list", params, self.options.init_timeout)
            except asyncio.TimeoutError:
                raise AgentError(f"The agent did not list its sessions within {self.options.init_timeout:g} s.") \
                    from None
            except Exception as exc:  # noqa: BLE001
                raise AgentError(f"The agent could not list its sessions: {self._describe(exc)}") from None
            page = page if isinstance(page, dict) else {}
            found += [s for s in page.get("sessions") or [] if isinstance(s, dict) and isinstance(s.get("sessionId"), str)]
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                break
        return found

    async def _ask(self, method: str, params: dict[str, Any], timeout: float | None) -> Any:
        """A request to the agent, withdrawn with ``$/cancel_request`` when kandev-tui stops waiting for it: the wait
        timed out, or whoever waited gave up (a picker closed, a login cancelled, the session closing). Raises
        asyncio.TimeoutError, or the agent's error as the SDK raises it. (A prompt is not asked this way: a turn
        is stopped with ``session/cancel``.)"""
        sent: list[Any] = []
        token = SENT_IDS.set(sent)  # the transport notes the id it sends (the SDK does not say it)
        try:
            return await asyncio.wait_for(self._conn.send_request(method, params), timeout=timeout)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            if sent:
                self._withdraw(sent[0])
            raise
        finally:
            SENT_IDS.reset(token)

    def _withdraw(self, request_id: Any) -> None:
        """``$/cancel_request`` for a request of ours no one waits for any more: the agent may stop its work (its
        late answer, an error -32800 or a result, is dropped by the SDK as an answer to nothing)."""
        async def send() -> None:
            try:
                await self._conn.send_notification("$/cancel_request", {"requestId": request_id})
            except Exception:  # noqa: BLE001 - the agent may be gone, or its input closed
                pass
        task = asyncio.ensure_future(send())
        self._withdrawing.add(task)
        task.add_done_callback(self._withdrawing.discard)

    async def cancel_session(self, session_id: str) -> None:
        """``session/cancel`` of another session than this one: a subagent's (its work stops; the turn goes on)."""
        if self._conn is not None:
            try:
                await self._conn.send_notification("session/cancel", {"sessionId": session_id})
            except Exception:  # noqa: BLE001 - the agent may be gone
                pass

    async def delete_session(self, session_id: str) -> None:
        """``session/delete`` (where the agent :meth:`offers` it): the agent forgets one of its sessions."""
        assert self._conn is not None, "connect() first"
        try:
            await self._ask("session/delete", {"sessionId": session_id}, self.options.init_timeout)
        except asyncio.TimeoutError:
            raise AgentError(f"the agent did not answer session/delete within {self.options.init_timeout:g} s") from None
        except AgentError:
            raise
        except Exception as exc:  # noqa: BLE001 - RequestError, a connection gone
            raise AgentError(f"the agent refused to delete it: {self._describe(exc)}") from None

    def offers(self, session_method: str) -> bool:
        """Whether the agent offers ``session/<session_method>`` (``close``, ``delete``…: its
        ``agentCapabilities.sessionCapabilities``)."""
        caps = self.agent_capabilities.get("sessionCapabilities")
        return isinstance(caps, dict) and isinstance(caps.get(session_method), dict)

    @property
    def session_capabilities(self) -> dict[str, Any]:
        caps = self.agent_capabilities.get("sessionCapabilities")
        return caps if isinstance(caps, dict) else {}

    @property
    def continues_by(self) -> str | None:
        """How the agent continues an earlier session: ``resume`` (nothing replayed), ``load`` (its history
        replayed), or None when it cannot."""
        if isinstance(self.session_capabilities.get("resume"), dict):
            return "resume"
        if self.agent_capabilities.get("loadSession") is True:
            return "load"
        return None

    def _describe(self, exc: BaseException) -> str:
        if type(exc).__name__ == "RequestError":
            return request_error_text(exc)
        if isinstance(exc, ConnectionError):
            return "the agent closed the connection"
        return f"{type(exc).__name__}: {exc}"

    async def _ended_silent(self, exc: BaseException) -> bool:
        """The agent's output closed with not a line written on it, and the agent then exited with status 0 (soon):
        a command that is no ACP agent (``true``, a script that does something else), not an agent that crashed."""
        if not isinstance(exc, ConnectionError) or self._spoke or self._not_json or self.process is None:
            return False
        try:
            return await asyncio.wait_for(_exited(self.process), timeout=0.5) == 0
        except asyncio.TimeoutError:
            return False

    async def _exit_details(self, wait: float = 3.0) -> dict[str, Any]:
        code = None
        if self.process is not None:
            try:
                code = await asyncio.wait_for(_exited(self.process), timeout=wait)
            except asyncio.TimeoutError:
                code = None
        if self._log is not None:
            await self._log.settle(0.5)
        tail = _tail(self.options.log_path)
        if self._hub is not None:
            tail = [self._hub.scrub(line) for line in tail]
        return {"exit_code": code, "stderr": tail or None}

    async def _fail(self, message: str) -> None:
        details = await self._exit_details(wait=0.5)
        if details["stderr"]:  # the agent's last line on stderr is often the reason (No module named …)
            message = f"{message} (its last words: {details['stderr'][-1].strip()[:200]})"
        self._local(message, ends_turn=True, **details)
        await self.close()
        raise AgentError(message)
