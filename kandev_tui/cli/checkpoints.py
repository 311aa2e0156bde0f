"""``checkpoints``: the checkpoints kandev-tui keeps of a workspace (the state of its files at the start and the end
of each turn, and before each restore), per session, with what each turn changed."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from kandev_tui.cli.common import EXIT_OK, Failure, UsageError, open_store, stored_session
from kandev_tui.cli.options import _add_db_option

RESTORE_HINT = ("restore a file or the workspace from the review screen (enter on a turn's changes card, then r), "
                "or: git restore --source=COMMIT -- PATH")


def add_arguments(commands: Any) -> None:
    """The parser of 'checkpoints' (``commands``: the top level's subparsers)."""
    parser = commands.add_parser(
        "checkpoints", help="list the checkpoints kept of a workspace (each turn's start and end)",
        description="List the checkpoints kandev-tui keeps in a workspace's git repository (private refs under "
                    "refs/kandev-tui: the files at the start and the end of each turn, and before each restore), "
                    "oldest first, with what each turn changed. A session's (ID) or every session's in the "
                    "repository of --workspace.")
    parser.set_defaults(run=run)
    parser.add_argument("session", nargs="?", metavar="ID",
                        help="a stored session (an id or the start of one): its checkpoints, in its workspace; "
                             "without: every session's in the repository of --workspace")
    parser.add_argument("--workspace", metavar="DIR", default=".",
                        help="without ID: the repository to look in (default: the current directory)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")
    _add_db_option(parser)


def _parts(name: str) -> tuple[str, str, str]:
    """(session, turn, kind) of a checkpoint ref: ``refs/kandev-tui/<session>/<turn>-start`` (or ``-end``), or
    ``…/restore-<ns>`` (the state before a restore)."""
    from kandev_tui.workspace.checkpoints import REF_ROOT

    session, _, last = name.removeprefix(REF_ROOT + "/").rpartition("/")
    if last.startswith("restore-"):
        return session, "", "before restore"
    turn, _, kind = last.rpartition("-")
    return session, turn, kind


def rows(root: Path, session_id: str | None) -> list[dict[str, Any]]:
    """Each checkpoint of ``root`` (of one session, or all), session by session (the one with the oldest first),
    each session's oldest first; an end one with what its turn changed."""
    from kandev_tui.workspace import checkpoints

    kept = checkpoints.refs(root, session_id)
    first: dict[str, int] = {}
    for name, _commit, when in kept:
        session = _parts(name)[0]
        first[session] = min(first.get(session, when), when)

    def order(ref: tuple[str, str, int]) -> tuple[int, str, int, int, int]:  # in one second, a turn's start first
        session, turn, kind = _parts(ref[0])
        return first[session], session, ref[2], int(turn) if turn.isdigit() else 0, {"start": 0, "end": 1}.get(kind, 2)

    found = sorted(kept, key=order)
    starts = {}
    out: list[dict[str, Any]] = []
    for name, commit, when in found:
        session, turn, kind = _parts(name)
        row: dict[str, Any] = {"session": session, "turn": turn, "kind": kind, "ref": name, "commit": commit,
                               "time": when}
        if kind == "start":
            starts[(session, turn)] = commit
        elif kind == "end" and (session, turn) in starts:
            changed = checkpoints.changes(root, starts[(session, turn)], commit, limit=0)
            row.update(files=changed.count, added=changed.added, removed=changed.removed)
        out.append(row)
    return out


def turn_prompts(store: Any, sessions: list[str]) -> dict[tuple[str, str], str]:
    """(session, turn) → the first thing the user said in that turn, for the sessions given."""
    from kandev_tui.transcript.items import USER

    said: dict[tuple[str, str], str] = {}
    for session_id in sessions:
        for item in store.iter_items(session_id):
            text = item.payload.get("text")
            if item.kind == USER and isinstance(text, str) and text.strip():
                said.setdefault((session_id, str(item.turn)), text)
    return said


def run(args: argparse.Namespace) -> int:
    from datetime import datetime

    from kandev_tui.workspace import checkpoints
    from kandev_tui.base.jsonutil import dumps
    from kandev_tui.base.sanitize import visible

    titles: dict[str, str] = {}
    prompts: dict[tuple[str, str], str] = {}  # (session, turn) → the prompt that began the turn
    if args.session is not None:
        with stored_session("checkpoints", args, args.session) as (store, session):
            prompts = turn_prompts(store, [session["id"]])
        workspace = Path(session.get("workspace") or ".")
        session_id: str | None = session["id"]
        titles[session["id"]] = session.get("title") or ""
        if not session.get("workspace") or not workspace.is_dir():
            raise Failure(f"kandev-tui checkpoints: session {session['id']}'s workspace "
                          f"{visible(str(workspace), keep_newlines=False)[:200]!r} is not here any more")
    else:
        from kandev_tui.base.userpaths import not_a_directory

        workspace, session_id = Path(args.workspace).expanduser(), None
        problem = not_a_directory(workspace)
        if problem:  # as every command says of its --workspace: a usage error
            raise UsageError(f"kandev-tui checkpoints: --workspace "
                             f"{visible(str(workspace), keep_newlines=False)[:200]}: {problem}")
    try:
        root = checkpoints.repository(workspace)
        found = rows(root, session_id)
    except checkpoints.Unavailable as exc:
        raise Failure(f"kandev-tui checkpoints: {visible(str(workspace), keep_newlines=False)[:200]}: {exc} (kandev-tui "
                      "keeps checkpoints in git repositories only)") from None
    if session_id is None and found:  # the sessions' titles, from the store where it has them
        with open_store(args, create=False) as store:
            titles = {row["id"]: row["title"] or "" for row in store.sessions()}
            prompts = turn_prompts(store, sorted({row["session"] for row in found} & set(titles)))
    if args.json:
        for row in found:
            print(dumps(row))
        return EXIT_OK
    where = visible(str(root), keep_newlines=False)
    if not found:
        whose = f"of session {session_id} " if session_id else ""
        print(f"No checkpoints {whose}in {where}.")
        return EXIT_OK
    print(f"Checkpoints in {where}")
    print(f"{'SESSION':<12}  {'TURN':>4}  {'CHECKPOINT':<14}  {'TAKEN':<19}  {'COMMIT':<12}  CHANGED")
    for row in found:
        taken = datetime.fromtimestamp(row["time"]).strftime("%Y-%m-%d %H:%M:%S")
        changed = (f"{row['files']} file{'s' if row['files'] != 1 else ''} +{row['added']} −{row['removed']}"
                   if "files" in row else "")
        said = prompts.get((row["session"], str(row["turn"]))) or titles.get(row["session"], "")
        title = visible(" ".join(said.split()), keep_newlines=False)[:40]  # the turn's prompt, else its session's title
        if title and changed:
            changed += f"  ({title})"
        who = visible(row["session"], keep_newlines=False)[:12]
        print(f"{who:<12}  {row['turn']:>4}  {row['kind']:<14}  {taken:<19}  {row['commit'][:12]:<12}  {changed}")
    print(f"\nTo go back: {RESTORE_HINT}.")
    return EXIT_OK
