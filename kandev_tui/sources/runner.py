"""``kandev-tui run --headless``: one turn without a screen (headless core only)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import IO, Any

from kandev_tui.base import pacing
from kandev_tui.acp import AgentError, AgentOptions, LoginRequired, headless_permission_policy
from kandev_tui.session.agent import AgentSession, choose_at_start, session_title
from kandev_tui.session.model import quiet_text
from kandev_tui.base.shutdown import EndingSignals, ending_reason, exit_status
from kandev_tui.transcript import Item, Store
from kandev_tui.transcript.items import ERROR, PLAN, SESSION_INFO, TURN_END, USAGE
from kandev_tui.transcript.lines import ItemLines

STORE_FAILED = 2  # the exit status when the session database failed (as for one that cannot be opened)


class ItemPrinter:
    """Prints each item as one JSON line (:class:`~kandev_tui.transcript.lines.ItemLines`) once it is final (again
    if it changes later); the session's running state (token usage, the agent's title for the session, its plans),
    which is never final, at the end of the turn (:meth:`finish`), then its ``turn_end``, held until then: the
    turn's changes card, made once the agent has answered, comes before it, and ``turn_end`` stays the last line."""

    def __init__(self, out: IO[str]) -> None:
        self.lines = ItemLines(out)
        self._state: dict[str, Item] = {}
        self._turn_end: Item | None = None

    @property
    def reader_gone(self) -> bool:
        """The reader of ``out`` went away (``| head``): nothing more is printed."""
        return self.lines.reader_gone

    def __call__(self, items: list[Item]) -> None:
        final = []
        for item in items:
            # a plan stays open to updates, and a run of lines that are not JSON-RPC (an error) while they come
            if item.kind in (USAGE, SESSION_INFO, PLAN, ERROR) and not item.final:
                self._state[item.key] = item
            elif item.kind == TURN_END:  # held: what the turn changed comes after the agent's answer, and before it
                self._turn_end = item
            elif item.final:
                self._state.pop(item.key, None)  # a later, final version: the one printed
                final.append(item)
        self.lines.print(final)

    def finish(self) -> None:
        """The turn is over (its changes said): the session's state, then its ``turn_end``, the last line."""
        last = [*self._state.values(), *([self._turn_end] if self._turn_end is not None else [])]
        self._turn_end = None
        self.lines.print(last)


def login_lines(methods: list[dict[str, Any]]) -> list[str]:
    """The agent's ways to log in, one per line (headless: what to do instead of the app's login screen)."""
    lines = []
    for method in methods:
        kind = method.get("type") or "agent"
        what = {"agent": "the agent logs in (kandev-tui run offers it)",
                "terminal": "a login in the terminal (kandev-tui run offers it)"}.get(kind, "")
        if kind == "env_var":
            names = [name for v in method.get("vars") or [] if isinstance(v, dict) and isinstance(name := v.get("name"), str)]
            what = f"set {' and '.join(names) or 'the variables it names'} in the environment"
        elif kind == "terminal" and isinstance(method.get("command"), str):  # a command of its own: run it yourself
            import shlex

            command = [method["command"], *[a for a in method.get("args") or [] if isinstance(a, str)]]
            what = f"run {shlex.join(command)[:300]} in a terminal (or log in with kandev-tui run)"
        elif kind not in ("agent", "terminal"):
            what = f"a kind of login kandev-tui does not know ({kind})"
        description = " ".join(str(method.get("description") or "").split())
        lines.append(f"  {method.get('id')}: {method.get('name') or method.get('id')}"
                     + (f" ({description})" if description else "") + f": {what}")
    return lines


async def run_turn(options: AgentOptions, prompt: str, store: Store, *, record: Path | None = None,
                   permission: str = "reject", out: IO[str] = sys.stdout, choices: dict[str, str] | None = None,
                   asked: frozenset[str] = frozenset(), continuing: dict[str, Any] | None = None,
                   err: IO[str] = sys.stderr, ending: list[int] | None = None) -> tuple[int, str, str]:
    """Run one turn; (exit code, reason, session id). ``choices``: the mode and model to choose once the session is
    open; those in ``asked`` were asked for on the command line (one the agent does not take fails the run, the
    others, remembered, are said on ``err``); ``continuing``: a stored session whose agent session is continued
    (``--resume``); ``ending``: the signal that asked the run to end, once the task is cancelled for it (the turn is
    then closed as interrupted and the exit status is the signal's)."""
    printer = ItemPrinter(out)
    outcome: dict[str, Any] = {"stop": None, "error": None}
    heard = [time.monotonic()]  # the agent's last word (or the turn's start): its silence is said on err

    def watch(items: list[Item]) -> None:
        heard[0] = time.monotonic()
        for item in items:
            if item.kind == SESSION_INFO and isinstance(item.payload.get("title"), str) and item.payload["title"]:
                core.update(title=item.payload["title"])
            elif item.kind == TURN_END:
                outcome["stop"] = item.payload.get("stop_reason")
            elif item.kind == "error" and outcome["error"] is None:
                outcome["error"] = item.payload.get("message")
        printer(items)

    core = AgentSession(options, store, title=session_title(prompt), record=record, continuing=continuing,
                        listener=watch)
    core.begin()
    session_id, pipeline = core.session_id, core.pipeline
    assert pipeline is not None
    client = core.client(headless_permission_policy(permission))
    core.prepare_turns()  # while the agent starts
    try:
        await client.start()
        core.opened(client)
        remembered = {k: v for k, v in (choices or {}).items() if k not in asked}
        await choose_at_start(client, remembered, lambda text: print(f"kandev-tui: {text}", file=err))
        problems = await choose_at_start(client, {k: v for k, v in (choices or {}).items() if k in asked},
                                         lambda text: None)
        if problems:  # asked for on the command line: not run with something else
            stop, outcome["error"] = "error", problems[0]
        else:
            heard[0] = time.monotonic()
            said = asyncio.create_task(say_quiet(heard, err))
            try:
                stop = await core.turn(client, prompt)
            finally:
                said.cancel()
    except LoginRequired as exc:
        stop, outcome["error"] = "error", "\n".join([str(exc), *login_lines(exc.methods)])
    except AgentError as exc:
        stop, outcome["error"] = "error", str(exc)
    except asyncio.CancelledError:
        if not ending:
            raise
        stop, outcome["error"] = "interrupted", f"interrupted: {ending_reason(ending[0])}"
    finally:
        await client.close(ending_reason(ending[0]) if ending else "")
        core.close()
        printer.finish()
    state = "ended" if stop == "end_turn" else "failed" if stop == "error" else stop or "failed"
    pipeline.update_session(state=state)
    if pipeline.store_failure:  # shown (printed) but not stored: the run did not do what it is for
        return STORE_FAILED, pipeline.store_failure, session_id
    if stop == "end_turn":
        return 0, "", session_id
    if ending:
        return exit_status(ending[0]), outcome["error"], session_id
    reason = outcome["error"] or f"the turn ended with stop reason {stop!r}"
    return 1, reason, session_id


async def say_quiet(heard: list[float], err: IO[str]) -> None:
    """While the turn runs: a line on ``err`` each time the agent has said nothing for another QUIET_AFTER (a CI
    job whose agent retries a model API it cannot reach printed nothing at all, until its job's time ran out)."""
    said = 0.0
    while True:
        quiet = time.monotonic() - heard[0]
        if quiet >= pacing.QUIET_AFTER and time.monotonic() - said >= pacing.QUIET_AFTER:
            said = time.monotonic()
            print(f"kandev-tui: no word from the agent for {quiet_text(quiet).removeprefix('quiet ')} "
                  "(the turn goes on; ctrl+c ends it)", file=err, flush=True)
        await asyncio.sleep(max(0.5, pacing.QUIET_AFTER - quiet if quiet < pacing.QUIET_AFTER else 1.0))


def run_headless(options: AgentOptions, prompt: str, store: Store, **kwargs: Any) -> tuple[int, str, str]:
    """:func:`run_turn` in a loop of its own; a hang-up, a kill or SIGINT ends the turn as interrupted (the agent
    stopped, what came stored, the session marked) and the run exits with the signal's status."""

    async def until_signalled() -> tuple[int, str, str]:
        task = asyncio.current_task()
        ending: list[int] = []

        def end(signum: int) -> None:
            ending.append(signum)
            if task is not None:
                task.cancel()

        signals = EndingSignals(asyncio.get_running_loop(), end)
        signals.install()
        try:
            return await run_turn(options, prompt, store, ending=ending, **kwargs)
        except asyncio.CancelledError:  # before the turn's session was made: nothing to close
            if not ending:
                raise
            return exit_status(ending[0]), f"interrupted: {ending_reason(ending[0])}", ""
        finally:
            signals.uninstall()

    return asyncio.run(until_signalled())
