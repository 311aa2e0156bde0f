"""kandev-tui's requests to the agent beside the prompt: each one given up on (its wait timed out, whoever waited
went away) is withdrawn with ``$/cancel_request``, so the agent may stop its work."""

from __future__ import annotations

import asyncio
from typing import Any

from .transport import SENT_IDS


class Asker:
    """The connection to the agent once it runs (``conn``: the SDK's, set by the client), and the withdrawals
    still being sent (``withdrawing``: waited for before the agent's input closes)."""

    def __init__(self) -> None:
        self.conn: Any = None
        self.withdrawing: set[asyncio.Future[None]] = set()

    async def ask(self, method: str, params: dict[str, Any], timeout: float | None) -> Any:
        """A request to the agent, withdrawn when kandev-tui stops waiting for it. Raises asyncio.TimeoutError, or
        the agent's error as the SDK raises it. (A prompt is not asked this way: a turn is stopped with
        ``session/cancel``.)"""
        sent: list[Any] = []
        token = SENT_IDS.set(sent)  # the transport notes the id it sends (the SDK does not say it)
        try:
            return await asyncio.wait_for(self.conn.send_request(method, params), timeout=timeout)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            if sent:
                self.withdraw(sent[0])
            raise
        finally:
            SENT_IDS.reset(token)

    def withdraw(self, request_id: Any) -> None:
        """``$/cancel_request`` for a request of ours no one waits for any more (its late answer, an error -32800 or
        a result, is dropped by the SDK as an answer to nothing)."""
        async def send() -> None:
            await self.tell("$/cancel_request", {"requestId": request_id})

        task = asyncio.ensure_future(send())
        self.withdrawing.add(task)
        task.add_done_callback(self.withdrawing.discard)

    async def tell(self, method: str, params: dict[str, Any]) -> bool:
        """A notification to the agent; False when it could not be sent (the agent gone, its input closed)."""
        try:
            await self.conn.send_notification(method, params)
        except Exception:  # noqa: BLE001 - the agent may be gone, or its input closed
            return False
        return True
