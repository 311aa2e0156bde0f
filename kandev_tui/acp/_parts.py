"""What the parts of :class:`~kandev_tui.acp.client.AgentClient` share, declared for the type checker: the
client's state (set in ``AgentClient.__init__``) and the methods one part calls on another.

Each part (the session operations, the requests the agent makes) is a mixin of the one client class; it names
this class as its base only while type checking, so at run time the parts stay plain mixins. A part that starts
using another's state or method declares it here.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from kandev_tui.mcp.hub import McpHub
from kandev_tui.transcript.frames import Frame

from .files import ClientFiles
from .options import AgentOptions, ElicitationHandler, PermissionHandler
from .process import StderrLog
from .terminals import Terminals


class ClientParts:
    options: AgentOptions
    process: asyncio.subprocess.Process | None
    session_id: str | None
    agent_capabilities: dict[str, Any]
    _on_frame: Callable[[Frame], object]
    _ask_permission: PermissionHandler | None
    _ask_user: ElicitationHandler | None
    _question_ids: list[Any]
    _questions: dict[Any, asyncio.Task[Any]]
    _questions_withdrawn: set[asyncio.Task[Any]]
    _conn: Any  # acp's connection (imported when the agent starts)
    _withdrawing: set[asyncio.Future[None]]
    _permission_waits: set[asyncio.Task[Any]]
    _files: ClientFiles
    _terminals: Terminals
    _hub: McpHub | None
    _log: StderrLog | None
    _edits: set[str]
    _before_read: dict[tuple[str, str], None]
    _spoke: bool  # the agent wrote a JSON-RPC frame
    _not_json: list[str]  # the first lines it wrote that were not JSON-RPC, before it spoke

    # the client's own
    def _note(self, message: str) -> None: ...
    def _local(self, message: str, **details: Any) -> None: ...
    async def close(self, reason: str = "") -> None: ...
