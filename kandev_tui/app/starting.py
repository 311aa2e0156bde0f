"""Starting sessions in the app: ctrl+n's new session from a preset (in a git worktree when asked), and a stored
session from the sessions list, opened read-only or continued by its agent. The app asks; :class:`SessionStarter`
uses the command line's :class:`~kandev_tui.sources.launch.Launcher`, so that every agent starts the same way."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

from kandev_tui.app.lists import SessionLists
from kandev_tui.app.holds import HoldsSessions
from kandev_tui.app.session import AppSession
from kandev_tui.transcript.continuing import folder_gone

if TYPE_CHECKING:
    from kandev_tui.screens.new_session import NewSession
    from kandev_tui.session.source import Source
    from kandev_tui.sources.launch import KandevBackend, Launcher
    from kandev_tui.workspace.worktree import Worktree


class StarterHost(HoldsSessions, Protocol):
    """What starting sessions needs of the app, beside Textual's app."""


    @property
    def lists(self) -> SessionLists: ...
    @property
    def launcher(self) -> Launcher | None: ...
    @property
    def kandev(self) -> KandevBackend | None: ...
    def open_session(self, source: Source, initial_prompt: str | None = None, *,
                     worktree: Worktree | None = None) -> AppSession: ...


class SessionStarter:
    """What opens sessions in a running app (see the module docstring)."""

    def __init__(self, app: StarterHost) -> None:
        self.app = app

    def stored_reader(self) -> Callable[[], list[dict[str, Any]]] | None:
        """What reads the stored sessions for the list (in a thread), those open here left out; None without a
        store (a replay, a Kandev task)."""
        if self.app.launcher is None:
            return None
        store = self.app.launcher.store

        def read() -> list[dict[str, Any]]:
            here = {s.status.session_id for s in self.app.sessions}
            rows = [row for row in store.sessions() if row["id"] not in here]
            for row in rows:  # a worktree removed on close: its session can only be opened read-only
                row["folder_gone"] = bool(folder_gone(row))
            return rows

        return read

    def searcher(self) -> Callable[[str], tuple[list[Any], dict[str, dict[str, Any]]]] | None:
        """What searches every stored session's words for the list (in a thread): the hits, and the stored row of
        each hit's session; None without a store."""
        if self.app.launcher is None:
            return None
        store = self.app.launcher.store

        def search(words: str) -> tuple[list[Any], dict[str, dict[str, Any]]]:
            hits = store.search(words)
            rows: dict[str, dict[str, Any]] = {}
            for session_id in dict.fromkeys(hit.session_id for hit in hits):
                row = store.session(session_id)
                if row is not None:
                    row["folder_gone"] = bool(folder_gone(row))
                    rows[session_id] = row
            return hits, rows

        return search

    def remote_reader(self) -> Callable[[], list[Any]] | None:
        """What lists the attached Kandev backend's task sessions (in a thread), those open here left out; None
        when not attached."""
        backend = self.app.kandev
        if backend is None:
            return None

        def read() -> list[Any]:
            here = {s.status.session_id for s in self.app.sessions}
            return [entry for entry in backend.listing() if entry.session_id not in here]

        return read

    def from_list(self, choice: tuple[str, Any] | None) -> None:
        """What the sessions list chose: a live session shown; a stored one opened read-only, or continued by its
        agent (a session of this app each; one open here already is shown)."""
        if choice is None:
            return
        kind, value = choice
        if kind == "live":
            self.app.lists.switch_to(self.app.sessions[value - 1])
            return
        if kind == "subagent":  # a session's subagent: the session, and the subagent full screen over it
            session = self.app.sessions[value[0] - 1]
            self.app.lists.switch_to(session)
            session.open_subagent(value[1])
            return
        if kind == "kandev":  # a task session of the attached backend: attached as a session of its own
            here = next((s for s in self.app.sessions if s.status.session_id == value.session_id), None)
            if here is None and self.app.kandev is not None:
                here = self.app.open_session(self.app.kandev.factory(value.session_id, value.task))
            if here is not None:
                self.app.lists.switch_to(here)
            return
        at: tuple[str, str] | None = None  # a search's hit: the item to show, and the word to mark in it
        if kind == "open at":
            kind, (value, *found) = "open", value
            at = (found[0], found[1])
        open_here = next((s for s in self.app.sessions if s.status.session_id == value["id"] and
                          (kind == "open" or s.status.can_prompt)), None)
        if open_here is not None or self.app.launcher is None:
            if open_here is not None:
                self.app.lists.switch_to(open_here)
                if at is not None:
                    open_here.revealing.want(*at)  # a search's hit, shown once its transcript has it
            return
        if kind == "open":
            session = self.app.open_session(self.app.launcher.stored(value))
            if at is not None:
                session.revealing.want(*at)
        else:
            from kandev_tui.workspace.reads import Workspace

            folder = Path(value.get("workspace") or Path.cwd())
            if gone := folder_gone(value):
                self.app.notify(f"{gone[0].upper()}{gone[1:]}: it can only be opened read-only.", severity="warning",
                                timeout=8, markup=False)
                return
            session = self.app.open_session(self.app.launcher.factory(list(value["agent_command"]), Workspace(folder),
                                                                      continuing=value))
        self.app.lists.switch_to(session)

    def delete_stored(self, row: dict[str, Any], listing: Any) -> None:
        """A stored session deleted (confirmed in ``listing``, the sessions list, which reads its rows again)."""
        if self.app.launcher is None:
            return
        self.app.run_worker(self._delete(row, listing), name="delete-session", group="delete-session")

    async def _delete(self, row: dict[str, Any], listing: Any) -> None:
        from kandev_tui.base.sanitize import visible
        from kandev_tui.transcript import StoreError

        assert self.app.launcher is not None
        title = visible(str(row.get("title") or row["id"]), keep_newlines=False)[:60]
        try:
            said = await self.app.launcher.delete(row)
        except StoreError as exc:
            self.app.notify(f"“{title}” was not deleted: {exc}", severity="error", timeout=8, markup=False)
            return
        self.app.notify(f"“{title}”: {said}.", timeout=6, markup=False)
        if listing.is_attached:
            listing.read_stored()

    def ask_new(self) -> None:
        """ctrl+n: a new session from a preset (kandev_tui/screens/new_session.py), shown once it is opened."""
        if self.app.launcher is None:
            self.app.notify("New sessions start where kandev-tui starts agents (kandev-tui, run, demo); this one "
                            "shows a recording or a Kandev task.", severity="warning", timeout=6)
            return
        from kandev_tui.screens.new_session import NewSessionScreen

        presets, warnings = self.app.settings_store.presets()
        for warning in warnings:
            self.app.notify(warning, severity="warning", timeout=8, markup=False)
        here = self.app.current.status if self.app.sessions else None
        workspace = Path(here.workspace if here is not None and here.workspace else Path.cwd())
        command = here.agent_command if here is not None else ()
        preset = next((name for name, p in presets.items() if p.command == command), None)
        self.app.push_screen(NewSessionScreen(presets, workspace, preset), self._new)

    def _new(self, chosen: NewSession | None) -> None:
        if chosen is None or self.app.launcher is None:
            return
        from kandev_tui.workspace.reads import Workspace

        preset = chosen.preset
        source = self.app.launcher.factory(list(preset.command), Workspace(chosen.workspace), dict(preset.env) or None)
        session = self.app.open_session(source, chosen.prompt, worktree=chosen.worktree)
        self.app.lists.switch_to(session)
