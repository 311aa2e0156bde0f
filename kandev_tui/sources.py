"""Where a transcript comes from: a live agent, the store, or a recording (headless).

Each source delivers item batches to ``on_items`` and state changes to
``on_state``; the app draws what it is given. None of this imports Textual.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable

from kandev_tui.acp import AgentClient, AgentError, AgentOptions
from kandev_tui.transcript import Item, RecordingWriter, Store, read_recording
from kandev_tui.transcript.items import SESSION_INFO
from kandev_tui.transcript.pipeline import Pipeline

ItemsCallback = Callable[[list[Item]], None]
StateCallback = Callable[[str, str], None]  # (state, detail)


LAUNCHERS = ("python", "python3", "node", "npx", "uvx", "bunx", "pnpm", "deno")


def agent_display_name(command: list[str]) -> str:
    """``claude-code-acp`` for ``[".../claude-code-acp"]``; the module or package for launchers."""
    if not command:
        return "agent"
    first = Path(command[0]).name
    if first.startswith(LAUNCHERS) and len(command) > 1:
        return Path(command[-1]).name
    return first


class Source:
    """The common surface the app uses."""

    title: str = ""
    agent_name: str = ""
    workspace: Path | None = None
    can_prompt: bool = False
    read_only_reason: str = ""
    session_id: str | None = None

    def __init__(self, on_items: ItemsCallback, on_state: StateCallback) -> None:
        self.on_items = on_items
        self.on_state = on_state
        self.state = "idle"
        self.repos: dict[str, Path] = {}

    def _set_state(self, state: str, detail: str = "") -> None:
        self.state = state
        self.on_state(state, detail)

    async def start(self) -> None:
        """Begin delivering items."""

    async def send(self, text: str) -> None:
        raise AgentError(self.read_only_reason or "this session does not take prompts")

    async def cancel(self) -> None:
        """Cancel the running turn, if any."""

    def answer(self, permission_key: str, option_id: str) -> bool:
        return False

    async def close(self) -> None:
        """Stop everything the source started."""


class LiveSource(Source):
    """An ACP agent started by kandev-tui; every frame recorded, normalised and stored first."""

    can_prompt = True

    def __init__(self, options: AgentOptions, store: Store, on_items: ItemsCallback, on_state: StateCallback,
                 *, record: Path | None = None, title: str = "") -> None:
        super().__init__(on_items, on_state)
        self.options = options
        self.store = store
        self.record = record
        self.title = title or "new session"
        self.agent_name = agent_display_name(options.command)
        self.workspace = options.workspace
        self.repos = dict(options.repos)
        self._futures: dict[str, asyncio.Future[str | None]] = {}
        self.client: AgentClient | None = None
        self.pipeline: Pipeline | None = None

    async def start(self) -> None:
        self._set_state("starting", "starting the agent")
        self.session_id = self.store.create_session(title=self.title, agent_command=self.options.command,
                                                    workspace=str(self.options.workspace),
                                                    recording=str(self.record) if self.record else None)
        if self.options.log_path is None:
            self.options.log_path = self.store.path.parent / "logs" / f"{self.session_id}.log"
        self.pipeline = Pipeline(self.store, self.session_id, recording=RecordingWriter(self.record) if self.record else None,
                                 listener=self._items)
        self.client = AgentClient(self.options, self.pipeline.feed, self._ask)
        try:
            await self.client.start()
        except AgentError as exc:
            self.can_prompt = False
            self.read_only_reason = "the agent could not be started"
            self.store.update_session(self.session_id, state="failed")
            self._set_state("error", str(exc))
            return
        name = self.client.agent_info.get("title") or self.client.agent_info.get("name")
        if isinstance(name, str) and name:
            self.agent_name = name
        self._set_state("idle", "")

    def _set_state(self, state: str, detail: str = "") -> None:
        if self.pipeline is not None:
            self.pipeline.flush()  # what led to the new state is stored and shown first
        super()._set_state(state, detail)

    def _items(self, items: list[Item]) -> None:
        for item in items:
            if item.kind == SESSION_INFO and isinstance(item.payload.get("title"), str) and item.payload["title"]:
                self.title = item.payload["title"]
                self.store.update_session(self.session_id, title=self.title)
        self.on_items(items)

    async def send(self, text: str) -> None:
        if self.client is None or not self.can_prompt:
            raise AgentError(self.read_only_reason or "the agent is not running")
        if self.client.turn_running:
            raise AgentError("a turn is already running (Escape cancels it)")
        if self.title in ("", "new session"):
            from kandev_tui.runner import session_title

            self.title = session_title(text)
            self.store.update_session(self.session_id, title=self.title)
        self._set_state("running", "")
        stop = await self.client.prompt(text)
        if self.client.process is not None and self.client.process.returncode is not None:
            self.can_prompt = False
            self.read_only_reason = "the agent has exited"
            self.store.update_session(self.session_id, state="ended")
            self._set_state("ended", "the agent has exited")
        else:
            self._set_state("idle", stop)

    async def cancel(self) -> None:
        if self.client is not None and self.client.turn_running:
            self._set_state("cancelling", "")
            for future in self._futures.values():
                if not future.done():
                    future.set_result(None)
            await self.client.cancel()

    async def _ask(self, params: dict[str, Any]) -> str | None:
        assert self.pipeline is not None
        tool_call = params.get("toolCall") if isinstance(params.get("toolCall"), dict) else {}
        key = self.pipeline.normalizer.pending_permission_key(tool_call.get("toolCallId"))
        if key is None:
            return None
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._futures[key] = future
        self._set_state("waiting", "the agent asks for permission")
        try:
            return await future
        finally:
            self._futures.pop(key, None)
            if self.state == "waiting":
                self._set_state("running", "")

    def answer(self, permission_key: str, option_id: str) -> bool:
        future = self._futures.get(permission_key)
        if future is None or future.done():
            return False
        future.set_result(option_id)
        return True

    @property
    def waiting_for(self) -> set[str]:
        return {key for key, future in self._futures.items() if not future.done()}

    async def close(self) -> None:
        if self.client is not None:
            await self.client.close()
        if self.pipeline is not None:
            self.pipeline.close()
        if self.session_id is not None and self.state not in ("ended", "error"):
            self.store.update_session(self.session_id, state="ended")


class StoredSource(Source):
    """A session from the store, read-only (the agents we start cannot be resumed)."""

    read_only_reason = "a stored session is read-only; start a new one with kandev-tui run"

    def __init__(self, store: Store, session: dict[str, Any], on_items: ItemsCallback, on_state: StateCallback) -> None:
        super().__init__(on_items, on_state)
        self.store = store
        self.session = session
        self.session_id = session["id"]
        self.title = session.get("title") or "session"
        self.agent_name = agent_display_name(session.get("agent_command") or [])
        self.workspace = Path(session["workspace"]) if session.get("workspace") else None

    async def start(self) -> None:
        # one batch: the view places every item, then mounts only its window, once
        self.on_items(self.store.items(self.session_id))
        self._set_state("stored", self.session.get("state", ""))


class ReplaySource(Source):
    """A recording played back through the same normaliser, at full speed or ``speed`` times real time."""

    read_only_reason = "a replay is read-only"

    def __init__(self, path: Path, on_items: ItemsCallback, on_state: StateCallback, speed: float | None = None) -> None:
        super().__init__(on_items, on_state)
        self.path = path
        self.speed = speed
        self.title = path.name
        self.agent_name = "replay"
        self.pipeline = Pipeline(None, None, listener=on_items)

    async def start(self) -> None:
        self._set_state("running", "replaying")
        previous = None
        batch = []
        for frame in read_recording(self.path):
            if self.speed and previous is not None and frame.t > previous:
                delay = min(5.0, (frame.t - previous) / self.speed)
                if delay > 0.01:
                    self.pipeline.feed_many(batch)
                    batch = []
                    await asyncio.sleep(delay)
            previous = frame.t
            batch.append(frame)
            if len(batch) >= 200:
                self.pipeline.feed_many(batch)
                batch = []
                await asyncio.sleep(0)
        self.pipeline.feed_many(batch)
        self._set_state("replayed", "end of recording")
