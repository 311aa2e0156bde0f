"""The agent-session core: how kandev-tui keeps one agent's session, shared by ``run --headless`` (runner.py), the
pytest plugin (which runs it) and the app's live sessions (sources/live.py).

:class:`AgentSession` makes the stored session (a new row, or kandev-tui's own session continued: its items read and
new keys numbered after them), the agent's log file, and the pipeline every frame goes through (recorded,
normalised, stored, then given to the listener); :meth:`AgentSession.client` starts the agent's client on it. The
mode and model to choose once the session is open are chosen by :func:`choose_at_start`. None of this imports
Textual, and nothing here knows who shows the items.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from kandev_tui.acp import AgentError, AgentOptions
from kandev_tui.transcript import Item, RecordingWriter, Store
from kandev_tui.transcript.items import PackedItem
from kandev_tui.transcript.frames import LOCAL, Frame

if TYPE_CHECKING:
    from kandev_tui.acp.client import AgentClient
    from kandev_tui.transcript.pipeline import Pipeline
    from kandev_tui.workspace.turn_changes import TurnChanges


def session_title(prompt: str) -> str:
    """A session's title from its first prompt: its first 78 characters on one line."""
    first = " ".join(prompt.strip().split())
    return first[:77] + "…" if len(first) > 78 else first or "untitled"


def history_position(items: list[Item] | list[PackedItem]) -> tuple[int, int]:
    """The last turn of stored items and the highest number in their keys (``message:12``): a session continued
    numbers its new items after them."""
    counter = 0
    for item in items:
        tail = item.key.rpartition(":")[2]
        if tail.isdigit():
            counter = max(counter, int(tail))
    return max((item.turn for item in items), default=0), counter


class AgentSession:
    """One agent's session as kandev-tui stores it (see the module docstring). ``continuing``: a stored session (a
    row of :meth:`Store.sessions`) whose agent session is continued; ``listener``: what gets the items, once
    stored."""

    def __init__(self, options: AgentOptions, store: Store, *, title: str, record: Path | None = None,
                 continuing: dict[str, Any] | None = None, listener: Callable[[list[Item]], None]) -> None:
        self.options = options
        self.store = store
        self.title = title
        self.record = record
        self.continuing = continuing
        self.listener = listener
        self.session_id = ""
        self.pipeline: Pipeline | None = None
        self.in_turn = False  # a turn runs (its checkpoint is taken, its prompt is out, or its changes computed)
        self._changes: TurnChanges | None = None
        self._turns = 0  # the last turn stored (a continued session's turns go on from it)

    def begin(self) -> list[Item]:
        """The stored session made (or continued, marked running again), the agent's log file named after it, the
        pipeline ready; the items a continued session has stored already (shown first, never stored again)."""
        from kandev_tui.transcript.pipeline import Pipeline  # the normaliser with it: after the app's first frame

        after, history = (0, 0), []
        if self.continuing is not None:
            self.session_id = self.continuing["id"]
            history = self.store.packed_items(self.session_id)
            after = history_position(history)
            self._turns = after[0]
            self.store.update_session(self.session_id, state="running")
        else:
            self.session_id = self.store.create_session(title=self.title, agent_command=self.options.command,
                                                        workspace=str(self.options.workspace),
                                                        recording=str(self.record) if self.record else None)
        if self.options.log_path is None:
            self.options.log_path = self.store.path.parent / "logs" / f"{self.session_id}.log"
        self.pipeline = Pipeline(self.store, self.session_id,
                                 recording=RecordingWriter(self.record) if self.record else None,
                                 listener=self.listener, after=after, stored_history=bool(history))
        return history

    def client(self, ask: Callable[[dict[str, Any]], Awaitable[str | None]],
               ask_user: Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]] | None = None) -> AgentClient:
        """The agent's client, its frames going through the pipeline; ``ask`` answers its permission requests,
        ``ask_user`` its questions (elicitation: offered to the agent only when there is someone to answer)."""
        from kandev_tui.acp.client import AgentClient  # its transport and services: after the app's first frame

        assert self.pipeline is not None, "begin() first"
        return AgentClient(self.options, self.pipeline.feed, ask, ask_user)

    async def turn(self, client: AgentClient, text: str) -> str:
        """One turn: ``text`` prompted, the workspace recorded before and after it, and what it changed said (the
        turn's changes card, :mod:`kandev_tui.workspace.turn_changes`). The turn's stop reason."""
        changes = self.changes
        self.in_turn = True
        try:
            await changes.started()
            try:
                stop = await client.prompt(text)
            except asyncio.CancelledError:  # the app quitting: nothing more is said
                changes.abandoned()
                raise
            except BaseException:  # the agent failed: what it changed before is said all the same
                await changes.ended()
                raise
            await changes.ended()
            return stop
        finally:
            self.in_turn = False

    @property
    def changes(self) -> TurnChanges:
        if self._changes is None:
            from kandev_tui.workspace.turn_changes import TurnChanges  # (git checkpoints: not before the first frame)

            assert self.pipeline is not None, "begin() first"
            pipeline = self.pipeline
            self._changes = TurnChanges(Path(self.options.workspace), self.session_id,
                                        lambda event: pipeline.feed(Frame.now(LOCAL, event)),
                                        turn=self._turns, enabled=self.options.track_changes,
                                        keep_days=self.options.checkpoint_days)
        return self._changes

    def prepare_turns(self) -> None:
        """What the first turn needs and can be found while the agent starts (the workspace's repository), looked
        for now, on the running loop."""
        self.changes.prepare()

    def opened(self, client: AgentClient) -> None:
        """The agent's session is open: its id, and how it can be continued, stored."""
        self.update(agent_session_id=client.session_id, continues=client.ops.continues_by)

    def update(self, **fields: Any) -> None:
        """The session's row (through the pipeline, which says once when the store fails)."""
        if self.pipeline is not None:
            self.pipeline.update_session(**fields)

    def close(self) -> None:
        if self.pipeline is not None:
            self.pipeline.close()


OPTION = "option:"  # a choice of one of the agent's config options by its id (run --option ID=VALUE)


async def choose_at_start(client: AgentClient, choices: dict[str, str], notice: Callable[[str], None]) -> list[str]:
    """The mode and model asked for (``run --mode/--model``, or remembered for this agent), and the agent's options
    (``run --option ID=VALUE``), once the session is open: what the agent does not offer, or refuses, is said
    (``notice``) and the agent's own stays. The problems, as said."""
    from kandev_tui.session.controls import Controls

    setup = client.session_setup
    controls = Controls({"modes": setup.get("modes"), "config": setup.get("configOptions"), "models": setup.get("models")})
    problems = []
    asked = [(category, choices.get(category)) for category in ("mode", "model")]
    asked += [(key, value) for key, value in choices.items() if key.startswith(OPTION)]  # run --option ID=VALUE
    for category, value in asked:
        if not value:
            continue
        try:
            if category.startswith(OPTION):
                control, value = controls.resolve_option(category[len(OPTION):], value)
            else:
                control, value = controls.resolve(category, value)
            method, params = control.request(value)
            await client.ops.choose(method, params)
        except (ValueError, AgentError) as exc:
            what = f"option {category[len(OPTION):]}={value}" if category.startswith(OPTION) else f"{category} {value!r}"
            problems.append(f"{what} was not chosen: {exc}")
            notice(problems[-1])
    return problems
