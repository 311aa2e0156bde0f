"""What each turn changed in the workspace, for any agent: a checkpoint (:mod:`kandev_tui.workspace.checkpoints`) when a turn
starts and when it ends, and the difference between them said as ``changes`` events (local frames: recorded,
normalised into the turn's changes card, stored, replayed like everything else).

The events: ``tracking`` as the turn starts (the normaliser then places the card, pending, when the agent answers
the prompt: after the turn's last message, before its end marker), then ``ready`` (the files, their lines added and
removed), ``none`` (nothing changed) or ``unavailable`` (the reason). A workspace
that is not a git repository says so once per session. When another session of this process ran a turn in the same
repository meanwhile, the card says that the two overlapped (its changes may be the other's). The git work runs in a
thread, off the agent's event loop.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path
from typing import Any, Callable

from kandev_tui.workspace import checkpoints
from kandev_tui.workspace.checkpoints import Checkpoint, Unavailable

log = logging.getLogger(__name__)

_LOCK = threading.Lock()
_RUNNING: dict[tuple[Path, str], str] = {}  # (repository, session) → the turn running there now
_OVERLAPPED: set[str] = set()  # turns (``session/turn``) that ran while another session's turn ran in their repository


def running_in(root: Path) -> bool:
    """Whether a turn of a session of this process runs in the repository ``root`` now (a restore waits for it)."""
    with _LOCK:
        return any(other_root == root for other_root, _session in _RUNNING)


def _turn_began(root: Path, session_id: str, turn: str) -> None:
    with _LOCK:
        for (other_root, other_session), other_turn in _RUNNING.items():
            if other_root == root and other_session != session_id:
                _OVERLAPPED.update((turn, other_turn))
        _RUNNING[(root, session_id)] = turn


def _turn_ended(root: Path, session_id: str, turn: str) -> bool:
    """The turn is no longer running; whether another session's turn overlapped it."""
    with _LOCK:
        _RUNNING.pop((root, session_id), None)
        overlapped = turn in _OVERLAPPED
        _OVERLAPPED.discard(turn)
        return overlapped


class TurnChanges:
    """One session's turns in its workspace (see the module docstring). ``emit(event)`` hands a ``changes`` event
    to the session's pipeline; ``turn`` is the number of the last turn already stored (a continued session)."""

    def __init__(self, workspace: Path, session_id: str, emit: Callable[[dict[str, Any]], object],
                 turn: int = 0, enabled: bool = True, keep_days: int = 30) -> None:
        self.workspace = workspace
        self.session_id = session_id
        self.emit = emit
        self.turn = turn
        self.enabled = enabled
        self.keep_days = keep_days  # older checkpoints of the repository are removed once, when it is first found
        self.root: Path | None = None
        self._finding: asyncio.Future[Path] | None = None  # the repository being found ahead (prepare)
        self._said_unavailable = False
        self._start: Checkpoint | Unavailable | None = None

    def prepare(self) -> None:
        """Find the workspace's repository now (in a thread, on the running loop), while the agent starts: the first
        turn's prompt then waits only for its checkpoint, not for git to say where the repository is (and for its
        old checkpoints to be removed) as well."""
        if self.enabled and self.root is None and self._finding is None:
            self._finding = asyncio.ensure_future(self._find())
            self._finding.add_done_callback(lambda done: done.cancelled() or done.exception())  # (said by started)

    async def _find(self) -> Path:
        root = await asyncio.to_thread(checkpoints.repository, self.workspace)
        pruned = await asyncio.to_thread(checkpoints.prune, root, self.keep_days, self.session_id)
        if pruned:
            log.info("removed %d checkpoints older than %d days in %s", pruned, self.keep_days, root)
        return root

    def _ref(self, turn: int, when: str) -> str:
        return f"{checkpoints.REF_ROOT}/{self.session_id}/{turn}-{when}"

    async def started(self) -> None:
        """A turn starts: the workspace as it is, recorded (before the prompt goes to the agent)."""
        self.turn += 1
        self._start = None
        if not self.enabled:
            return
        try:
            if self.root is None:
                finding, self._finding = self._finding, None
                self.root = await (finding if finding is not None else self._find())
            _turn_began(self.root, self.session_id, f"{self.session_id}/{self.turn}")
            self._start = await asyncio.to_thread(checkpoints.take, self.root, self._ref(self.turn, "start"))
        except Unavailable as exc:
            self._start = exc
        except Exception as exc:  # noqa: BLE001 - a bug here must not stop the turn
            log.exception("the turn's start checkpoint failed")
            self._start = Unavailable(f"the checkpoint failed: {type(exc).__name__}")
        if isinstance(self._start, Checkpoint) or not self._said_unavailable:  # the turn will have a card
            self.emit({"event": "changes", "turn_ref": self.turn, "state": "tracking"})

    def abandoned(self) -> None:
        """The turn was cut short by kandev-tui closing: nothing is said (its end checkpoint is not taken)."""
        start, self._start = self._start, None
        if start is not None and self.root is not None:
            _turn_ended(self.root, self.session_id, f"{self.session_id}/{self.turn}")

    async def ended(self) -> None:
        """The turn ended: the workspace recorded again, and what changed said."""
        start, self._start = self._start, None
        if start is None:
            return
        turn = self.turn
        overlapped = self.root is not None and _turn_ended(self.root, self.session_id, f"{self.session_id}/{turn}")
        base: dict[str, Any] = {"event": "changes", "turn_ref": turn}
        if isinstance(start, Unavailable):
            if not self._said_unavailable:  # said once a session, not at every turn
                self._said_unavailable = True
                self.emit({**base, "state": "unavailable", "reason": str(start)})
            return
        try:
            assert self.root is not None
            end = await asyncio.to_thread(checkpoints.take, self.root, self._ref(turn, "end"))
            found = await asyncio.to_thread(checkpoints.changes, self.root, start.commit, end.commit)
        except Unavailable as exc:
            self.emit({**base, "state": "unavailable", "reason": str(exc)})
            return
        except Exception as exc:  # noqa: BLE001
            log.exception("the turn's end checkpoint failed")
            self.emit({**base, "state": "unavailable", "reason": f"the checkpoint failed: {type(exc).__name__}"})
            return
        self.emit({**base, "state": "ready" if found.count else "none", "session": self.session_id,
                   "before": start.commit, "after": end.commit, "files": [f.to_json() for f in found.files],
                   "count": found.count, "added": found.added, "removed": found.removed,
                   "skipped": max(start.skipped, end.skipped), "overlapped": overlapped,
                   "repository": str(self.root)})
