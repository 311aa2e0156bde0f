"""What the sessions list shows of a session: an immutable snapshot made on the UI's thread (the app's sessions, the
sidebar and the list screen draw it; nothing reads a source from there)."""

from __future__ import annotations

from dataclasses import dataclass

from .state import SessionState

WAITING_STATES = (SessionState.WAITING, SessionState.LOGIN)  # the agent waits for the user


@dataclass(frozen=True)
class SessionRow:
    """What the sessions list shows of a session, as it is now (made on the UI's thread, never changed)."""

    number: int  # 1, 2, … in the order the sessions were opened (the mode's name says it too)
    agent: str
    title: str
    workspace: str
    branch: str  # the git branch checked out there ("" outside a repository)
    state: SessionState
    activity: str  # working, waiting for you, idle, failed, ended, starting
    detail: str  # why it failed, what it waits for
    waiting_since: float | None  # when it started waiting for the user (monotonic), for f4's "oldest first"
    unseen: int  # items that arrived since the user last looked at it
    cost: str  # what the agent reports it cost, when it does
    current: bool
    children: tuple[tuple[str, str, str], ...] = ()  # its subagents: (item key, title, state), in the order they came
    shares_with: tuple[int, ...] = ()  # the other live sessions whose agents work in its folder (they can edit the
    # same files; a worktree of its own keeps a session apart)


def activity(state: SessionState) -> str:
    """The one word the sessions list says for a state."""
    if state in WAITING_STATES:
        return "waiting for you"
    if state in (SessionState.RUNNING, SessionState.CANCELLING):
        return "working"
    return {SessionState.STARTING: "starting", SessionState.IDLE: "idle", SessionState.ERROR: "failed",
            SessionState.ENDED: "ended"}.get(state, str(state.value))
