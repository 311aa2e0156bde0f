"""Which stored sessions their agent can continue: one rule for ``run --resume``, the sessions list's "continue" and
the RESUME column of ``kandev-tui sessions``, read from a session's row (:meth:`~kandev_tui.transcript.store.Store.
sessions`). Headless."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable


class NotContinuable(Exception):
    """Why a stored session cannot be continued, as the end of a sentence (``session ID has no…``)."""


def how_continued(row: dict[str, Any]) -> str:
    """How the session's agent continues it (``resume`` or ``load``: what it offered), or "" when it cannot: the agent
    never started a session of its own, or offered neither ``session/resume`` nor ``session/load``."""
    continues = row.get("continues")
    return continues if isinstance(continues, str) and continues and row.get("agent_session_id") else ""


def why_not(row: dict[str, Any]) -> str:
    """"" when the stored session can be continued now; else why not."""
    if not row.get("agent_session_id"):
        return f"session {row['id']} has no agent session to continue (its agent never started one)"
    if not how_continued(row):
        return (f"the agent of session {row['id']} could not continue sessions (it offered neither session/resume nor "
                "session/load); start a new one with kandev-tui run")
    if not row.get("agent_command"):
        return f"session {row['id']} was not started by kandev-tui run: no agent command is stored to start again"
    if row.get("running_elsewhere"):
        return f"session {row['id']} is running in another kandev-tui (pid {row['running_elsewhere']})"
    return ""


def folder_gone(row: dict[str, Any]) -> str:
    """Why the stored session cannot be continued although its agent could: the folder it ran in is gone (a worktree
    removed on close), as the start of a sentence that says what to do; "" when it is there (or none is stored: the
    current folder is used)."""
    folder = row.get("workspace")
    if not folder or Path(folder).is_dir():
        return ""
    return f"session {row['id']} ran in {folder}, which is gone"


def can_continue(row: dict[str, Any]) -> bool:
    return not why_not(row)


def newest_to_continue(rows: Iterable[dict[str, Any]], command: list[str]) -> dict[str, Any]:
    """The newest session of the agent ``command`` (rows newest first) that its agent can continue; one running in
    another kandev-tui counts (continuing it then says so) rather than an older one being taken in its place."""
    for row in rows:
        if row.get("agent_command") == command and how_continued(row):
            return row
    raise NotContinuable(f"no stored session of {' '.join(command)[:80]} can be continued ('kandev-tui sessions' says "
                         "which can)")
