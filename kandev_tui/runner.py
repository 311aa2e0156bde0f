"""``kandev-tui run --headless``: one turn without a screen (headless core only)."""

from __future__ import annotations

import asyncio

import sys
from pathlib import Path
from typing import IO, Any

from kandev_tui.acp import AgentClient, AgentError, AgentOptions, LoginRequired, headless_permission_policy
from kandev_tui.transcript import Item, RecordingWriter, Store
from kandev_tui.jsonutil import dumps
from kandev_tui.transcript.items import SESSION_INFO, TURN_END, USAGE
from kandev_tui.transcript.pipeline import Pipeline


class ItemPrinter:
    """Prints each item as one JSON line once it is final (again if it changes later); the session's running
    state (token usage, the agent's title for the session), which is never final, at the end of the turn, just
    before its ``turn_end``."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self._printed: dict[str, str] = {}
        self._state: dict[str, Item] = {}

    def __call__(self, items: list[Item]) -> None:
        for item in items:
            if item.kind in (USAGE, SESSION_INFO):
                self._state[item.key] = item
            if item.kind == TURN_END:  # the turn's usage and title just before its end
                self.finish()
            if item.final:
                self._print(item)
        self.out.flush()

    def _print(self, item: Item) -> None:
        line = dumps(item.to_json(), separators=(",", ":"))
        if self._printed.get(item.key) != line:
            self._printed[item.key] = line
            self.out.write(line + "\n")

    def finish(self) -> None:
        for item in self._state.values():
            self._print(item)
        self.out.flush()


def session_title(prompt: str) -> str:
    first = " ".join(prompt.strip().split())
    return first[:77] + "…" if len(first) > 78 else first or "untitled"


def login_lines(methods: list[dict[str, Any]]) -> list[str]:
    """The agent's ways to log in, one per line (headless: what to do instead of the app's login screen)."""
    lines = []
    for method in methods:
        kind = method.get("type") or "agent"
        what = {"agent": "the agent logs in (kandev-tui run offers it)",
                "terminal": "a login in the terminal (kandev-tui run offers it)"}.get(kind, "")
        if kind == "env_var":
            names = [v.get("name") for v in method.get("vars") or [] if isinstance(v, dict) and isinstance(v.get("name"), str)]
            what = f"set {' and '.join(names) or 'the variables it names'} in the environment"
        elif kind not in ("agent", "terminal"):
            what = f"a kind of login kandev-tui does not know ({kind})"
        description = " ".join(str(method.get("description") or "").split())
        lines.append(f"  {method.get('id')}: {method.get('name') or method.get('id')}"
                     + (f" ({description})" if description else "") + f": {what}")
    return lines


async def run_turn(options: AgentOptions, prompt: str, store: Store, *, record: Path | None = None,
                   permission: str = "reject", out: IO[str] = sys.stdout, choices: dict[str, str] | None = None,
                   asked: frozenset[str] = frozenset(), continuing: dict[str, Any] | None = None,
                   err: IO[str] = sys.stderr) -> tuple[int, str, str]:
    """Run one turn; (exit code, reason, session id). ``choices``: the mode and model to choose once the session is
    open; those in ``asked`` were asked for on the command line (one the agent does not take fails the run, the
    others, remembered, are said on ``err``); ``continuing``: a stored session whose agent session is continued
    (``--resume``)."""
    from kandev_tui.sources import _last_turn_and_counter, choose_at_start

    after = (0, 0)
    if continuing is not None:
        session_id = continuing["id"]
        after = _last_turn_and_counter(store.packed_items(session_id))
        store.update_session(session_id, state="running")
    else:
        session_id = store.create_session(title=session_title(prompt), agent_command=options.command,
                                          workspace=str(options.workspace), recording=str(record) if record else None)
    if options.log_path is None:
        options.log_path = store.path.parent / "logs" / f"{session_id}.log"
    printer = ItemPrinter(out)
    outcome: dict[str, Any] = {"stop": None, "error": None}

    def watch(items: list[Item]) -> None:
        for item in items:
            if item.kind == SESSION_INFO and isinstance(item.payload.get("title"), str) and item.payload["title"]:
                store.update_session(session_id, title=item.payload["title"])
            elif item.kind == TURN_END:
                outcome["stop"] = item.payload.get("stop_reason")
            elif item.kind == "error" and outcome["error"] is None:
                outcome["error"] = item.payload.get("message")
        printer(items)

    pipeline = Pipeline(store, session_id, recording=RecordingWriter(record) if record else None, listener=watch,
                        after=after, stored_history=continuing is not None)
    client = AgentClient(options, pipeline.feed, headless_permission_policy(permission))
    try:
        await client.start()
        store.update_session(session_id, agent_session_id=client.session_id, continues=client.continues_by)
        remembered = {k: v for k, v in (choices or {}).items() if k not in asked}
        await choose_at_start(client, remembered, lambda text: print(f"kandev-tui: {text}", file=err))
        problems = await choose_at_start(client, {k: v for k, v in (choices or {}).items() if k in asked},
                                         lambda text: None)
        if problems:  # asked for on the command line: not run with something else
            stop, outcome["error"] = "error", problems[0]
        else:
            stop = await client.prompt(prompt)
    except LoginRequired as exc:
        stop, outcome["error"] = "error", "\n".join([str(exc), *login_lines(exc.methods)])
    except AgentError as exc:
        stop, outcome["error"] = "error", str(exc)
    finally:
        await client.close()
        pipeline.close()
        printer.finish()
    state = "ended" if stop == "end_turn" else "failed" if stop == "error" else stop or "failed"
    store.update_session(session_id, state=state)
    if stop == "end_turn":
        return 0, "", session_id
    reason = outcome["error"] or f"the turn ended with stop reason {stop!r}"
    return 1, reason, session_id


def run_headless(options: AgentOptions, prompt: str, store: Store, **kwargs: Any) -> tuple[int, str, str]:
    return asyncio.run(run_turn(options, prompt, store, **kwargs))
