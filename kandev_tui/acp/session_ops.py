"""What kandev-tui asks of an agent beside prompts: logging in, modes and options, its sessions listed, cancelled,
deleted; each request given up on is withdrawn (``$/cancel_request``)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

from .options import AgentError, describe
from .process import _exited, _signal_name

if TYPE_CHECKING:
    from .asking import Asker
    from .options import AgentOptions


class OpsLink(Protocol):
    """What the operations need of the client: its agent's process, session and capabilities as the agent said
    them, a line said in the transcript, and how the agent ended."""

    options: AgentOptions
    process: asyncio.subprocess.Process | None
    session_id: str | None
    agent_capabilities: dict[str, Any]
    asker: Asker

    def note(self, message: str) -> None: ...
    async def exit_details(self, wait: float = 3.0) -> dict[str, Any]: ...


class SessionOps:
    """Requests beside the turn, over the client's link to its agent."""

    def __init__(self, link: OpsLink) -> None:
        self.link = link

    async def authenticate(self, method_id: str) -> None:
        """``authenticate`` with one of the agent's methods; AgentError with the agent's reason when it fails."""
        if self.link.asker.conn is None:
            raise AgentError("the agent is not running")
        request = asyncio.ensure_future(self.link.asker.ask("authenticate", {"methodId": method_id}, None))
        ended = asyncio.ensure_future(_exited(self.link.process)) if self.link.process is not None else None
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
            self.link.note(f"Logged in ({method_id}).")
            return
        if failure is not None and not (ended is not None and ended in done):
            raise AgentError(f"The login failed: {describe(failure)}")
        if not done:
            raise AgentError("The agent did not finish the login within 5 minutes.")
        details = await self.link.exit_details(wait=0.5)
        code = details["exit_code"]
        what = f"was ended by {_signal_name(-code)}" if isinstance(code, int) and code < 0 else \
            f"exited with code {code}" if code is not None else "stopped answering"
        last = f" (its last words: {details['stderr'][-1].strip()[:200]})" if details["stderr"] else ""
        raise AgentError(f"The agent {what} during the login{last}.")

    async def choose(self, method: str, params: dict[str, Any]) -> None:
        """A choice for the session (``session/set_mode``, ``session/set_config_option``, ``session/set_model``);
        AgentError with the agent's reason when it refuses (the old choice stays)."""
        if self.link.asker.conn is None or self.link.session_id is None:
            raise AgentError("the agent is not running")
        try:
            await self.link.asker.ask(method, {"sessionId": self.link.session_id, **params}, self.link.options.init_timeout)
        except asyncio.TimeoutError:
            raise AgentError(f"The agent did not answer {method} within {self.link.options.init_timeout:g} s.") from None
        except Exception as exc:  # noqa: BLE001
            raise AgentError(f"The agent refused it: {describe(exc)}") from None

    async def list_sessions(self) -> list[dict[str, Any]]:
        """The agent's own sessions in this workspace (``session/list``, every page), newest first as it lists
        them; AgentError when it cannot list."""
        if self.link.asker.conn is None:
            raise AgentError("the agent is not running")
        if not isinstance(self.session_capabilities.get("list"), dict):
            raise AgentError("This agent does not list its sessions (no sessionCapabilities.list).")
        found: list[dict[str, Any]] = []
        cursor = None
        for _ in range(50):
            params: dict[str, Any] = {"cwd": str(self.link.options.workspace)}
            if cursor:
                params["cursor"] = cursor
            try:
                page = await self.link.asker.ask("session/list", params, self.link.options.init_timeout)
            except asyncio.TimeoutError:
                raise AgentError(f"The agent did not list its sessions within {self.link.options.init_timeout:g} s.") \
                    from None
            except Exception as exc:  # noqa: BLE001
                raise AgentError(f"The agent could not list its sessions: {describe(exc)}") from None
            page = page if isinstance(page, dict) else {}
            found += [s for s in page.get("sessions") or [] if isinstance(s, dict) and isinstance(s.get("sessionId"), str)]
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                break
        return found

    async def cancel_session(self, session_id: str) -> None:
        """``session/cancel`` of another session than this one: a subagent's (its work stops; the turn goes on)."""
        if self.link.asker.conn is not None:
            await self.link.asker.tell("session/cancel", {"sessionId": session_id})

    async def delete_session(self, session_id: str) -> None:
        """``session/delete`` (where the agent :meth:`offers` it): the agent forgets one of its sessions."""
        assert self.link.asker.conn is not None, "connect() first"
        try:
            await self.link.asker.ask("session/delete", {"sessionId": session_id}, self.link.options.init_timeout)
        except asyncio.TimeoutError:
            raise AgentError(f"the agent did not answer session/delete within {self.link.options.init_timeout:g} s") from None
        except AgentError:
            raise
        except Exception as exc:  # noqa: BLE001 - RequestError, a connection gone
            raise AgentError(f"the agent refused to delete it: {describe(exc)}") from None

    def offers(self, session_method: str) -> bool:
        """Whether the agent offers ``session/<session_method>`` (``close``, ``delete``…: its
        ``agentCapabilities.sessionCapabilities``)."""
        caps = self.link.agent_capabilities.get("sessionCapabilities")
        return isinstance(caps, dict) and isinstance(caps.get(session_method), dict)

    @property
    def session_capabilities(self) -> dict[str, Any]:
        caps = self.link.agent_capabilities.get("sessionCapabilities")
        return caps if isinstance(caps, dict) else {}

    @property
    def continues_by(self) -> str | None:
        """How the agent continues an earlier session: ``resume`` (nothing replayed), ``load`` (its history
        replayed), or None when it cannot."""
        if isinstance(self.session_capabilities.get("resume"), dict):
            return "resume"
        if self.link.agent_capabilities.get("loadSession") is True:
            return "load"
        return None
