"""A session from the store, read-only; without one, the stored sessions to pick from."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from kandev_tui.session.source import NullSource
from kandev_tui.session.state import SessionState
from kandev_tui.transcript import Store
from kandev_tui.transcript.items import as_interrupted

from .names import agent_display_name


class StoredSource(NullSource):
    """A session from the store, read-only (the agents we start cannot be resumed); without one, the stored
    sessions are offered to pick from."""

    read_only_reason = "a stored session is read-only; start a new one with kandev-tui run"
    can_pick_session = True
    can_pick_again = True
    picker_loading = "Reading the stored sessions…"
    picker_empty = "No sessions are stored yet: start one with kandev-tui run or kandev-tui demo."

    def __init__(self, store: Store, session: dict[str, Any] | None, *, from_list: bool = False) -> None:
        """``from_list``: opened from the app's sessions list, where ``c`` continues a session (else the command line
        does, which the reason to type nothing here says)."""
        super().__init__()
        self.store = store
        self.from_list = from_list
        self.session: dict[str, Any] = {}
        self.picker_title = ("Open a stored session", str(getattr(store, "path", None) or ""))
        if session is not None:
            self._take(session)

        self.state = SessionState.LOADING  # until its items are read (start)

    def _take(self, session: dict[str, Any]) -> None:
        self.session = session
        self.session_id = session["id"]
        if session.get("running_elsewhere"):  # another kandev-tui runs it: this is what it had stored by then
            from datetime import datetime

            self.runs_elsewhere = f"the kandev-tui that runs it (pid {session['running_elsewhere']})"
            as_of = datetime.fromtimestamp(session.get("updated") or session.get("created") or 0).strftime("%H:%M:%S")
            self.read_only_reason = (f"runs in another kandev-tui (pid {session['running_elsewhere']}): prompt and "
                                     f"answer there; shown as stored at {as_of}")
        elif continues := self._continued_by(session):
            self.read_only_reason = f"a stored session is read-only: {continues} continues it with its agent"
        self.title = session.get("title") or "session"
        self.agent_name = agent_display_name(session.get("agent_command") or [])
        self.workspace = Path(session["workspace"]) if session.get("workspace") else None

    def _continued_by(self, session: dict[str, Any]) -> str:
        """What continues the session with its agent, where its agent can (else ""): ``c`` on its row in the
        sessions list, or ``kandev-tui run --resume ID`` (with this database when it is not the default one)."""
        from kandev_tui.transcript.continuing import folder_gone, why_not

        if why_not(session) or folder_gone(session):
            return ""
        if self.from_list:
            return "c on its row in the sessions list (ctrl+s)"
        import shlex

        from kandev_tui.transcript import default_db_path

        path = getattr(self.store, "path", None)
        db = f" --db {shlex.quote(str(path))}" if path is not None and Path(path) != default_db_path() else ""
        return f"kandev-tui{db} run --resume {session['id']}"

    async def sessions(self) -> list[Any]:
        from datetime import datetime, timezone

        from kandev_tui.kandev.catalog import SessionEntry

        return [SessionEntry(workspace_id="", workspace=row["workspace"] or "", task_id="",
                             task=row["title"] or "session", session_id=row["id"], state=(row["state"] or "").upper(),
                             updated_at=datetime.fromtimestamp(row["updated"] or row["created"], timezone.utc)
                             .astimezone().isoformat(timespec="minutes"),
                             agent=agent_display_name(row["agent_command"] or []), items=row["items"])
                for row in await asyncio.to_thread(self.store.sessions)]

    async def start(self) -> None:
        if self.session.get("id") != self.session_id:  # picked
            session = self.store.session(self.session_id or "")
            if session is None:
                self._set_state("error", f"no stored session {self.session_id}")
                return
            self._take(session)
        self._set_state(SessionState.LOADING, "reading the stored session")
        # read in a thread (the screen keeps drawing and taking keys meanwhile: 50,000 items take a second), then one
        # batch: the view places every item, then mounts only its window, once; payloads are parsed when used
        items = await asyncio.to_thread(self.store.packed_items, self.session_id or "")
        if self.session.get("state") == "interrupted":  # its process is gone: nothing it left waiting still waits
            items = as_interrupted(items)
        self.take_agent_name(items)
        self.on_items(items)
        self._set_state("stored", self.session.get("state", ""))
