"""A Kandev backend's task session (``kandev-tui attach``): its history, its live updates, its prompts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from kandev_tui.session.background import OwnLoop
from kandev_tui.session.source import NullSource
from kandev_tui.session.state import SessionState
from kandev_tui.acp import AgentError
from kandev_tui.transcript import Item, Store


class KandevSource(NullSource):
    """A session of a running Kandev backend (``kandev-tui attach``): cached, paged, live, reconnecting; its
    connection, its rows and its cache run on a loop of their own, in a thread
    (:class:`~kandev_tui.session.background.Background`)."""


    can_cancel = True
    can_pick_session = True
    picker_loading = "Loading sessions from Kandev…"
    picker_empty = "Kandev has no sessions yet: start a task in Kandev, then press r."

    def __init__(self, url: str, session_id: str | None, *, token: str | None = None, store: Store | None = None, page_size: int = 100, title: str = "") -> None:
        super().__init__()
        self.io = OwnLoop("kandev-tui attach")  # the attachment's I/O runs on a loop of its own
        self.closing_reason = ""
        from kandev_tui.kandev import backend_key

        self.url = url
        self.picker_title = ("Attach to a Kandev session", url)
        self.token = token
        self.store = store
        self.page_size = page_size
        self.session_id = session_id
        self.agent_name = f"kandev {backend_key(url)}"
        self.title = title or "Kandev session"  # its task's title, when the list it was picked from says it
        self.state = SessionState.CONNECTING  # until start() has attached
        self.attachment: Any = None
        self._runner: asyncio.Task[None] | None = None
        self._detail = ""
        self._waiting: frozenset[str] = frozenset()  # the requests waiting for an answer (made on the source's loop)

    # what the app asks
    @property
    def can_prompt(self) -> bool:  # type: ignore[override]
        return self.attachment is not None and self.attachment.can_prompt

    @property
    def read_only_reason(self) -> str:  # type: ignore[override]
        if self.attachment is None:
            return "not attached yet"
        return self.attachment.prompt_reason or self._detail or "the session does not take prompts now"

    @property
    def workspace(self) -> Path | None:  # type: ignore[override]
        """The session's directory when Kandev runs on this machine (file previews read from it)."""
        path = Path(self.attachment.workspace_path) if self.attachment is not None and self.attachment.workspace_path else None
        return path if path is not None and path.is_dir() else None

    @property
    def more_above(self) -> bool:  # type: ignore[override]  # Source's plain value, computed here
        return self.attachment is not None and not self.attachment.complete

    @property
    def waiting_for(self) -> set[str]:
        return set(self._waiting)

    def _note_waiting(self) -> None:
        attachment = self.attachment
        self._waiting = frozenset(attachment.pending_permissions() if attachment is not None
                                  and attachment.status == "live" else ())

    async def sessions(self) -> list[Any]:
        """Every session on the backend, newest first (the picker)."""
        found = await self.io.run(self._sessions())
        return found if isinstance(found, list) else []  # None: the source is closed

    async def _sessions(self) -> list[Any]:
        from kandev_tui.kandev.catalog import backend_sessions

        return await backend_sessions(self.url, self.token)

    async def start(self) -> None:
        await self.io.run(self._start())

    async def _start(self) -> None:
        from kandev_tui.kandev import Attachment, KandevError

        if not self.session_id:
            self._set_state("error", "no session chosen")
            return
        self.attachment = Attachment(self.url, self.session_id, token=self.token, store=self.store,
                                     page_size=self.page_size, on_items=self._items, on_reset=self._reset,
                                     on_status=self._status)
        if self.attachment.history.load_cache():
            self.title = self.attachment.title or self.title
            self.tell()
        try:
            conn = await self.attachment.connect_once()
        except KandevError as exc:
            if exc.code in ("not_found", "refused", "handshake") or not self.attachment.rows:
                self._set_state("error", str(exc))
                return
            conn = None  # the cache is shown; keep trying in the background
        self._runner = asyncio.ensure_future(self.attachment.run(conn))

    def _items(self, items: list[Item]) -> None:
        self._title_from(items)
        self._note_waiting()
        self.tell()  # a title from the first prompt, a request waiting: said with the items that brought them
        self.on_items(items)
        if any(item.kind == "permission" for item in items) and self.attachment is not None:
            self._status(self.attachment.status, "")

    def _reset(self, items: list[Item]) -> None:
        self._title_from(items)
        self.tell()  # older pages came: fewer (or none) above
        if self.on_reset is not None:
            self.on_reset(items)
        else:
            self.on_items(items)

    def _title_from(self, items: list[Item]) -> None:
        if self.title in ("", "Kandev session"):
            first = next((i for i in items if i.kind == "user_message" and i.payload.get("text")), None)
            if first is not None:
                from kandev_tui.session.agent import session_title

                self.title = session_title(str(first.payload["text"]))
                if self.attachment is not None:
                    self.attachment.title = self.title

    def _status(self, status: str, detail: str) -> None:
        attachment = self.attachment
        self._detail = detail
        self._note_waiting()
        if status != "live" or attachment is None:
            self._set_state({"connecting": "connecting", "reconnecting": "reconnecting", "error": "error"}.get(
                status, "connecting"), detail)
            return
        if attachment.pending_permissions():
            self._set_state("waiting", "the agent asks for permission")
        elif attachment.session_state in ("RUNNING", "STARTING"):
            self._set_state("running", "")
        else:
            self._set_state("idle", "")

    async def fetch_output(self, key: str) -> None:
        if self.attachment is not None and key.startswith("kandev:"):
            await self.io.run(self.attachment.shell_output(key.removeprefix("kandev:")))

    async def load_older(self) -> int:
        return await self.io.run(self._load_older()) or 0

    async def _load_older(self) -> int:
        if self.attachment is None:
            return 0
        from kandev_tui.kandev import KandevError

        try:
            loaded: int = await self.attachment.history.load_older()
            self.tell()  # fewer pages above, or none
            return loaded
        except KandevError as exc:
            self.notify(f"older messages could not be loaded: {exc}")
            return 0

    async def send(self, text: str) -> None:
        if not self.can_prompt:
            raise AgentError(self.read_only_reason)
        await self.io.run(self._send(text))

    async def _send(self, text: str) -> None:
        from kandev_tui.kandev import KandevError

        try:
            await self.attachment.send(text)
        except KandevError as exc:
            raise AgentError(str(exc)) from None

    async def cancel(self) -> None:
        await self.io.run(self._cancel())

    async def _cancel(self) -> None:
        from kandev_tui.kandev import KandevError

        conn = self.attachment.connection if self.attachment is not None else None
        if conn is None:
            return
        try:
            await conn.request("agent.cancel", {"session_id": self.session_id, "task_id": self.attachment.task_id})
        except KandevError as exc:
            self.notify(f"the turn could not be cancelled: {exc}")

    def answer(self, permission_key: str, option_id: str) -> bool:
        if permission_key not in self._waiting:
            return False
        self._waiting = self._waiting - {permission_key}  # answered: the question is taken back at once
        self.tell()
        from kandev_tui.kandev import KandevError

        async def send() -> None:
            try:
                await self.attachment.answer(permission_key, option_id)
            except KandevError as exc:
                self.notify(f"the answer was not sent: {exc}")

        self.io.soon(asyncio.ensure_future, send())
        return True

    async def close(self, reason: str = "") -> None:  # what it started closed on its loop (_close), then the loop
        self.closing_reason = reason
        await self.io.close(self._close())

    async def _close(self) -> None:
        if self.attachment is not None:
            await self.attachment.stop()
        if self._runner is not None:
            try:
                await asyncio.wait_for(self._runner, 5)
            except (asyncio.TimeoutError, asyncio.CancelledError, Exception):  # noqa: BLE001
                self._runner.cancel()
