"""``sessions``, ``export``, ``transcript``, ``open``, ``replay`` and ``snapshot``: stored sessions and recordings."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from kandev_tui.cli.common import EXIT_FAIL, EXIT_OK, Failure, UsageError, EXIT_USAGE, NOTHING_STORED, _fail, _run_app, open_store, stored_session
from kandev_tui.cli.options import Checked, _add_app_options, _add_db_option, _add_stats_option, output_file, screen_size, scroll_place, positive_number, theme
from kandev_tui.transcript.continuing import how_continued


def cmd_sessions(args: argparse.Namespace) -> int:
    from kandev_tui.base.jsonutil import dumps

    from datetime import datetime

    from kandev_tui.base.sanitize import visible
    from kandev_tui.sources import agent_display_name

    if args.grep is not None:
        return _grep(args)
    with open_store(args, create=False) as store:
        with_rows = store.sessions()
    if args.json:
        for row in with_rows:
            print(dumps(row))
        return EXIT_OK
    if not with_rows:
        print(NOTHING_STORED)
        return EXIT_OK
    print(f"{'ID':<12}  {'STARTED':<16}  {'ITEMS':>5}  {'STATE':<11}  {'RESUME':<6}  {'AGENT':<24}  TITLE")
    for row in with_rows:
        started = datetime.fromtimestamp(row["created"]).strftime("%Y-%m-%d %H:%M")
        agent = visible(agent_display_name(row["agent_command"] or []), keep_newlines=False)
        agent = agent if len(agent) <= 24 else "…" + agent[-23:]  # its end names it best (…/claude-agent-acp)
        title = visible(row["title"], keep_newlines=False)
        resume = how_continued(row) or "no"
        print(f"{row['id']:<12}  {started:<16}  {row['items']:>5}  {row['state']:<11}  {resume:<6}  {agent:<24}  "
              f"{title}")
    if sys.stdout.isatty():  # a person reading (not a script): what to do with an ID
        db = "" if getattr(args, "db", None) is None else f" (each with --db {shlex.quote(str(args.db))})"
        print(f"\nkandev-tui open ID reads one; kandev-tui run --resume ID continues one with its agent (RESUME){db}")
    return EXIT_OK


WHO = {"user_message": "you", "agent_message": "agent", "thought": "thought", "tool_call": "tool"}


def _grep(args: argparse.Namespace) -> int:
    """``sessions --grep TEXT``: the items of every stored session holding every word of TEXT, best first, one line
    each (its session, turn, who said it, and the words around the match), or JSON lines."""
    from kandev_tui.base.jsonutil import dumps
    from kandev_tui.base.sanitize import visible
    from kandev_tui.transcript.searching import MARK_END, MARK_START, NothingToFind

    if args.limit < 1:
        raise UsageError(f"kandev-tui sessions --grep: --limit takes a number of hits from 1, not {args.limit}")
    try:
        with open_store(args, create=False) as store:  # (a database not made yet is not made by a search)
            path = store.path
            if path is None or not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
                hits = store.search(args.grep, args.limit)  # read as it is: what the index lacks is read through
        if path is not None and os.access(path, os.W_OK) and os.access(path.parent, os.W_OK):
            with open_store(args) as store:  # what was stored since the last search is indexed first
                hits = store.search(args.grep, args.limit, progress=_indexing_progress())
    except NothingToFind as exc:
        raise UsageError(f"kandev-tui sessions --grep: {exc}") from None
    if args.json:
        for hit in hits:
            print(dumps(hit.to_json()))
        return EXIT_OK
    if not hits:
        print(f"No stored item holds {' and '.join(repr(word) for word in args.grep.split())}.")
        return EXIT_OK
    bold, plain = ("\x1b[1m", "\x1b[22m") if sys.stdout.isatty() else ("", "")
    print(f"{'ID':<12}  {'TURN':>4}  {'WHO':<7}  WHERE (the session's title: the words)")
    for hit in hits:
        parts = hit.context.split(MARK_START)
        context = visible(parts[0], keep_newlines=False) + "".join(
            bold + visible(marked, keep_newlines=False) + plain + visible(rest, keep_newlines=False)
            for marked, _, rest in (part.partition(MARK_END) for part in parts[1:]))
        title = visible(hit.title, keep_newlines=False) or "(untitled)"
        print(f"{hit.session_id:<12}  {hit.turn:>4}  {WHO.get(hit.kind, hit.kind):<7}  {title}: {context}")
    if sys.stdout.isatty():
        print("\nkandev-tui open ID reads one")
    return EXIT_OK


def _indexing_progress() -> Any:
    """Where a terminal reads stderr, how far indexing what was stored since the last search is (an older database's
    every item, once), when there is much of it."""
    if not sys.stderr.isatty():
        return None

    def said(done: int, total: int) -> None:
        if total >= 20_000:
            end = "\n" if done >= total else ""
            print(f"\rindexing the stored sessions for search: {done:,} of {total:,} items", end=end, file=sys.stderr,
                  flush=True)
    return said


def cmd_export(args: argparse.Namespace) -> int:
    from kandev_tui.base.jsonutil import dumps

    with stored_session("export", args, args.session) as (store, session):
        items = store.items(session["id"])
    if args.format == "json":
        text = dumps({"session": session, "items": [i.to_json() for i in items]}, indent=2) + "\n"
    elif args.format == "jsonl":
        from kandev_tui.transcript.lines import item_line

        text = "".join(item_line(i) + "\n" for i in items)
    else:
        from kandev_tui.transcript.export import session_markdown

        text = session_markdown(session, items)
    if args.output:
        try:
            Path(args.output).expanduser().write_text(text, encoding="utf-8")
        except OSError as exc:  # checked before the work, but a disk can fill meanwhile
            return _fail(f"kandev-tui export: --output {args.output}: {exc.strerror or exc}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_transcript(args: argparse.Namespace) -> int:

    from kandev_tui.transcript.replay import items_from_recording

    problem = _recording_problem("transcript", args.file)
    if problem:
        return _fail(*problem)
    from kandev_tui.transcript.lines import ItemLines

    ItemLines(sys.stdout).print(items_from_recording(args.file))
    return EXIT_OK


def _recording_problem(command: str, file: str) -> tuple[str, int] | None:
    """(one line, exit status) when FILE is not a recording that can be read; the same for every command. A last line
    cut short (the recording stopped mid-write) is said as a warning."""
    from kandev_tui.transcript.frames import recording_problem, torn_warning

    where = f"kandev-tui {command}: {file}"

    def torn(line: int) -> None:
        print(f"{where}: warning: {torn_warning(line)}", file=sys.stderr)

    try:
        problem = recording_problem(Path(file).expanduser(), torn)
    except FileNotFoundError:
        return f"{where}: no such file", EXIT_USAGE
    except IsADirectoryError:
        return f"{where}: is a directory", EXIT_USAGE
    except OSError as exc:
        return f"{where}: {exc.strerror or exc}", EXIT_USAGE
    return (f"{where}: {problem}", EXIT_FAIL) if problem else None


def cmd_snapshot(args: argparse.Namespace) -> int:
    import tempfile

    from kandev_tui.app.snapshot import Shot, SnapshotError, deterministic_app, snapshot

    shot = Shot(args.size, args.at, args.all, args.theme)
    output = Path(args.output).expanduser()
    recording = Path(args.source).expanduser()
    with ExitStack() as stack:  # a stored session's store, open while it is drawn
        source = _snapshot_source(args, recording, stack)
        if isinstance(source, int):
            return source
        with tempfile.TemporaryDirectory(prefix="kandev-snapshot-") as scratch:
            config = Path(scratch) / "config.toml"  # the user's settings are not the picture's
            try:
                written = snapshot(lambda: deterministic_app(source, config, theme=args.theme), shot, output)
            except SnapshotError as exc:
                return _fail(f"kandev-tui snapshot: {exc}", exc.code)
    for path in written:
        print(path)
    return EXIT_OK


def _snapshot_source(args: argparse.Namespace, recording: Path, stack: ExitStack) -> Any:
    """The source ``snapshot`` draws: the recording, or the stored session ``args.source`` names (its store
    entered on ``stack``); a status when the recording cannot be read."""
    if recording.exists():
        problem = _recording_problem("snapshot", args.source)
        if problem:
            return _fail(*problem)
        from kandev_tui.sources import ReplaySource

        return ReplaySource(recording)
    try:
        store, session = stack.enter_context(stored_session("snapshot", args, args.source))
    except UsageError as exc:  # no database to look in (a recording's name mistyped, as often as a session's id)
        raise UsageError(f"{exc}; nor is {args.source!r} a recording file (no such file)") from None
    except Failure as exc:
        raise Failure(f"{exc}; nor is {args.source!r} a recording file") from None
    from kandev_tui.sources import StoredSource

    return StoredSource(store, session)


def cmd_open(args: argparse.Namespace) -> int:
    from kandev_tui.sources import StoredSource

    if args.session is None:  # the picker (read-only: a database that does not exist yet is not made)
        with open_store(args, create=False) as store:
            return _run_app(args, store, StoredSource(store, None))
    with stored_session("open", args, args.session) as (store, session):
        return _run_app(args, store, StoredSource(store, session))


def cmd_replay(args: argparse.Namespace) -> int:
    path = Path(args.file).expanduser()
    problem = _recording_problem("replay", args.file)  # said here, before the app opens on nothing
    if problem:
        return _fail(*problem)
    from kandev_tui.sources import ReplaySource
    from kandev_tui.transcript.store import EmptyStore

    return _run_app(args, EmptyStore(), ReplaySource(path, args.speed))


def add_arguments(commands: Any) -> None:
    """The parsers of 'open', 'replay', 'sessions', 'export', 'transcript', 'snapshot' (``commands``: the top level's subparsers)."""
    open_ = commands.add_parser("open", help="open a stored session in the app (read-only)",
                                description="Open a stored session (see 'kandev-tui sessions') read-only; without "
                                            "an ID, pick one from a list of the stored sessions, newest first.")
    open_.add_argument("session", metavar="ID", nargs="?", default=None,
                       help="a session id (a unique prefix is enough); omitted: pick from the list")
    _add_app_options(open_)
    open_.set_defaults(run=cmd_open)

    replay = commands.add_parser("replay", help="replay a recording in the app",
                                 description="Replay a recording made with --record through the same normaliser "
                                             "and widgets as a live session.")
    replay.add_argument("file", metavar="FILE", help="a recording made with kandev-tui run --record FILE")
    replay.add_argument("--speed", action=Checked, check=positive_number(), default=None, metavar="N",
                        help="N times real time (default: as fast as possible)")
    _add_stats_option(replay)  # no --db: a replay stores nothing
    replay.set_defaults(run=cmd_replay)

    sessions = commands.add_parser(
        "sessions", help="list stored sessions, or search what was said in them",
        description="List stored sessions, newest first; with --grep TEXT, the items of every stored session that "
                    "hold every word of TEXT (messages, thoughts, your prompts, tool calls' titles), best first.")
    sessions.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")
    sessions.add_argument("--grep", metavar="TEXT", help="search every stored session for the words of TEXT")
    sessions.add_argument("--limit", type=int, default=50, metavar="N", help="with --grep: at most N hits (default: 50)")
    _add_db_option(sessions)
    sessions.set_defaults(run=cmd_sessions)

    export = commands.add_parser("export", help="write out a stored session",
                                 description="Write a stored session to standard output (or --output FILE).")
    export.add_argument("session", metavar="ID", help="a session id (a unique prefix is enough)")
    export.add_argument("--format", choices=["json", "jsonl", "markdown"], default="markdown", help="default: markdown")
    export.add_argument("--output", "-o", metavar="FILE", action=Checked, check=output_file(), help="write to FILE instead of standard output")
    _add_db_option(export)
    export.set_defaults(run=cmd_export)

    transcript = commands.add_parser(
        "transcript", help="normalise a recording and print its items as JSON lines",
        description="Read a recording made with --record and print the transcript items as JSON lines, "
                    "exactly as a live run stores them.")
    transcript.add_argument("file", metavar="FILE", help="a recording (JSON lines)")
    transcript.set_defaults(run=cmd_transcript)

    snapshot = commands.add_parser(
        "snapshot", help="draw what the app shows of a recording or a stored session to .svg, .png or .txt",
        description="Render what the app would show of a recording (made with --record) or a stored session, "
                    "without a terminal, to an SVG, a PNG (no browser needed) or the screen's text (for diffs in CI "
                    "logs). The same input gives the same bytes; animations are off. Charts in view are plotted.",
        epilog="examples:\n  kandev-tui snapshot session.jsonl -o session.svg\n"
               "  kandev-tui snapshot 84dc --size 80x24 --at top -o start.txt\n"
               "  kandev-tui snapshot session.jsonl --all -o screens.png   # screens-01.png, screens-02.png…")
    snapshot.add_argument("source", metavar="RECORDING|SESSION", help="a recording file, or a stored session's id "
                                                                      "(a unique prefix is enough)")
    snapshot.add_argument("-o", "--output", metavar="FILE", required=True, action=Checked,
                          check=output_file(suffixes=(".svg", ".png", ".txt")),
                          help="where to write: .svg, .png or .txt (with --all, FILE-01.svg, FILE-02.svg…)")
    snapshot.add_argument("--size", default=(120, 40), action=Checked, check=screen_size, metavar="WxH", help="the screen's size (default: 120x40)")
    snapshot.add_argument("--theme", default="textual-dark", action=Checked, check=theme, metavar="NAME",
                          help="a theme (default: textual-dark; see the settings screen for the others)")
    where = snapshot.add_mutually_exclusive_group()
    where.add_argument("--at", default="end", action=Checked, check=scroll_place, metavar="top|end|N",
                       help="where the transcript is scrolled: its top, its end (default: as a finished session is "
                            "left) or row N")
    where.add_argument("--all", action="store_true", help="one file per screen, from the top to the end")
    _add_db_option(snapshot)
    snapshot.set_defaults(run=cmd_snapshot)
