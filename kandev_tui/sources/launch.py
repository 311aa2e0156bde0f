"""How agents are started: a :class:`Launcher` turns an agent command (a preset's, or the one after ``--``), a
workspace and what the command line and the settings say into a source factory for a session.

The command line makes one for ``run``, ``demo`` and the bare ``kandev-tui``; the app keeps it, so that a session
opened later (ctrl+n, a stored session continued from the list) starts the same way as the first: the same store,
MCP servers, guidance, start timeout, client services, and the mode and model last chosen for that agent.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kandev_tui.session.source import Source
    from kandev_tui.base.settings import SettingsStore
    from kandev_tui.transcript import Store
    from kandev_tui.workspace.reads import Workspace


def forget_checkpoints(workspace: Path, session_id: str) -> int:
    """A deleted session's checkpoint refs removed from its workspace's repository: how many (0 when there is none,
    or no repository any more)."""
    from kandev_tui.workspace import checkpoints

    if str(workspace) in ("", ".") or not workspace.is_dir():
        return 0
    try:
        root = checkpoints.repository(workspace)
        names = [name for name, _commit, _when in checkpoints.refs(root, session_id)]
        checkpoints.remove(root, names)
    except (checkpoints.Unavailable, OSError):
        return 0
    return len(names)


def command_problem(command: list[str], env: dict[str, str] | None = None) -> str | None:
    """Why ``command`` cannot start (its program is not found on PATH, or is not a file that can run), or None. A
    built-in preset's adapter not yet in kandev-tui's cache is installed as it starts: no problem, unless npm is
    missing."""
    from kandev_tui.base.presets import cached_adapter

    program = command[0] if command else ""
    if not program:
        return "the agent command is empty"
    path = (env or {}).get("PATH", os.environ.get("PATH", ""))
    if cached_adapter(program) is not None and not os.path.exists(program):
        return None if shutil.which("npm", path=path) else "npm: not found on PATH (the adapter comes from npm)"
    if "/" in program:
        if not os.path.isfile(program):
            return f"{program}: no such file"
        if not os.access(program, os.X_OK):
            return f"{program}: not executable"
        return None
    if shutil.which(program, path=path) is None:
        return f"{program}: not found on PATH (install it, or give its full path in the preset's command)"
    return None


@dataclass
class Launcher:
    """What every agent the app starts shares (see the module docstring)."""

    store: Store
    settings: SettingsStore
    extra_mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    inject_guidance: bool = True
    init_timeout: float = 30.0
    asked: dict[str, str] = field(default_factory=dict)  # --mode / --model: chosen over what was last chosen

    def options(self, command: list[str], workspace: Workspace, env: dict[str, str] | None = None, *,
                continuing: dict[str, Any] | None = None) -> tuple[Any, dict[str, str]]:
        """The agent's options, and the choices (mode, model) to make once its session is open."""
        from kandev_tui.acp import AgentOptions

        choices = {**self.settings.agent_choices(command), **self.asked}
        options = AgentOptions.from_settings(
            self.settings.settings, command, workspace.root.resolve(),
            repos={k: v.resolve() for k, v in workspace.repos.items()}, inject_guidance=self.inject_guidance,
            init_timeout=self.init_timeout, extra_mcp_servers=self.extra_mcp_servers,
            resume=continuing["agent_session_id"] if continuing else None, history_stored=continuing is not None,
            env={**os.environ, **env} if env else None)
        return options, choices

    def factory(self, command: list[str], workspace: Workspace, env: dict[str, str] | None = None, *,
                record: Path | None = None, continuing: dict[str, Any] | None = None,
                pick: bool = False) -> Source:
        """A live session of ``command`` in ``workspace`` (a stored one continued, or the agent's own picked)."""
        from kandev_tui.sources import LiveSource

        options, choices = self.options(command, workspace, env, continuing=continuing)
        return LiveSource(options, self.store, record=record, choices=choices, continuing=continuing, pick=pick,
                          asked=frozenset(self.asked))

    async def delete(self, row: dict[str, Any]) -> str:
        """A stored session deleted: at its agent first, where the agent offers ``session/delete`` (it is started in
        the session's folder for that, and ended), then here. What was done, in a sentence; raises
        :class:`~kandev_tui.transcript.StoreError` when the local copy cannot be deleted."""
        import asyncio

        from kandev_tui.acp import AgentClient, AgentError
        from kandev_tui.workspace.reads import Workspace

        said = "deleted here"
        command, agent_session = list(row.get("agent_command") or []), row.get("agent_session_id")
        folder = Path(row.get("workspace") or "")
        if command and agent_session and folder.is_dir() and command_problem(command) is None:
            options, _ = self.options(command, Workspace(folder))
            options.inject_guidance = False
            client = AgentClient(options, lambda frame: None)
            try:
                await client.connect()
                if client.ops.offers("delete"):
                    await client.ops.delete_session(agent_session)
                    said = "deleted here and by its agent"
                else:
                    said = "deleted here; its agent offers no way to delete its own copy"
            except AgentError as exc:
                said = f"deleted here; its agent's copy stays ({exc})"
            finally:
                await client.close()
        elif command and agent_session:
            said = "deleted here; its agent could not be started to delete its own copy"
        await asyncio.to_thread(self.store.delete_session, row["id"])
        removed = await asyncio.to_thread(forget_checkpoints, folder, row["id"])
        if removed:
            said += f"; its {removed} checkpoint{'s' if removed != 1 else ''} removed"
        return said

    def stored(self, row: dict[str, Any]) -> Source:
        """A stored session (a row of :meth:`Store.sessions`), read-only."""
        from kandev_tui.sources import StoredSource

        return StoredSource(self.store, row, from_list=True)


@dataclass
class KandevBackend:
    """The Kandev backend ``kandev-tui attach`` reaches: its task sessions listed in the sessions list, and each
    attached as a session of the app when picked."""

    url: str
    token: str | None
    store: Store | None
    page_size: int = 100

    def listing(self) -> list[Any]:
        """Every task session on the backend, newest first (:class:`~kandev_tui.kandev.catalog.SessionEntry`); in a
        thread of the caller's (a connection of its own, on a loop of its own)."""
        import asyncio

        from kandev_tui.kandev.catalog import backend_sessions

        return asyncio.run(backend_sessions(self.url, self.token))

    def factory(self, session_id: str, title: str = "") -> Source:
        """The task session ``session_id``, attached; ``title``: its task's, as the backend lists it."""
        from kandev_tui.sources import KandevSource

        return KandevSource(self.url, session_id, token=self.token, store=self.store, page_size=self.page_size,
                            title=title)
