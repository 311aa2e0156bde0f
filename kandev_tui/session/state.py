"""A session's states, and the rule for the prompt box in each: whether it takes a prompt, and the line that says
why not."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class SessionState(StrEnum):
    """Where a session is. Values are the strings stored and shown in the status line (a StrEnum compares equal to
    them)."""

    STARTING = "starting"  # the agent is being started (initialize, session/new)
    LOGIN = "login"  # the agent needs the user to log in before it starts a session
    CONNECTING = "connecting"  # to a Kandev backend
    RECONNECTING = "reconnecting"  # the connection dropped; it comes back by itself
    IDLE = "idle"  # takes a prompt
    RUNNING = "running"  # a turn runs
    WAITING = "waiting"  # the agent asks for permission
    CANCELLING = "cancelling"  # a cancel was sent; the turn has not ended yet
    ENDED = "ended"  # the agent exited
    ERROR = "error"  # the session failed (the agent never started, say)
    LOADING = "loading"  # a stored session being read
    STORED = "stored"  # a stored session, read-only
    REPLAYED = "replayed"  # a recording, played to its end


TURN_STATES = frozenset({SessionState.RUNNING, SessionState.WAITING, SessionState.CANCELLING})
CONNECTION_STATES = frozenset({SessionState.CONNECTING, SessionState.RECONNECTING})
SETTLED_STATES = frozenset({SessionState.IDLE, SessionState.ENDED, SessionState.ERROR, SessionState.STORED,
                            SessionState.REPLAYED})  # nothing more arrives until the user does something


@dataclass(frozen=True)
class PromptState:
    enabled: bool
    reason: str  # shown under the prompt: why it takes nothing now, or that what is sent waits ("" when idle)
    read_only: bool  # the session never takes prompts (a replay, a stored session)


def prompt_state(state: str, detail: str, *, can_prompt: bool, read_only_reason: str) -> PromptState:
    """What the prompt box is in ``state``: only a session that takes prompts, idle, takes one."""
    state = SessionState(state)
    # starting: what is typed is kept, and what is sent waits for the agent (the app holds it: type-ahead); during a
    # turn what is sent is queued, and sent when the turn ends
    enabled = can_prompt and state in (SessionState.IDLE, SessionState.STARTING, *TURN_STATES)
    read_only = not can_prompt and state not in (SessionState.STARTING, SessionState.LOGIN, *CONNECTION_STATES)
    if state in CONNECTION_STATES:
        reason = detail or "connecting to Kandev…"
    elif read_only:
        reason = read_only_reason
    elif state in TURN_STATES:
        reason = "a turn is running · enter queues · escape cancels"
    elif state == SessionState.STARTING:
        reason = "starting the agent… · enter: sent once it is ready" if enabled else "starting the agent…"
    elif state == SessionState.LOGIN:
        reason = "the agent needs a login · ctrl+l logs in"
    else:
        reason = ""
    return PromptState(enabled, reason, read_only)
