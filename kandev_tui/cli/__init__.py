"""The ``kandev-tui`` command line: :func:`main`. Each family of commands is a module of its own (``running``:
run, demo and the bare command; ``stored``: sessions, export, transcript, open, replay, snapshot; ``checkpoints``;
``attach``; ``serve``; ``contract``: validate, guidance, mcp) with ``add_arguments(commands)``, which adds its
commands' parsers, each with the function that runs it as its ``run`` default. ``parser`` is the top level,
``options`` what the parsers share, ``common`` what the commands share (the store, failures said in one line).

Only ``argparse`` is imported at start-up: every command imports what it needs when it runs, so ``kandev-tui
--help`` and ``--version`` stay fast (no Textual, ``mcp``, ``acp`` or pydantic import).
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from kandev_tui.cli.common import EXIT_OK, EXIT_USAGE, Failure, _fail, _no_terminal
from kandev_tui.cli.common import app_exit_status  # noqa: F401 - used from here (tests, the app)
from kandev_tui.cli.parser import build_parser
from kandev_tui.cli.running import cmd_home


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
    except Failure as exc:  # a value an option's check refused as it was read (cli/options.py)
        return _fail(str(exc), exc.code)
    if extra:  # argparse leaves these to the top level, whose usage says nothing of the command's options
        command_parser = parser.command_parsers.get(args.command, parser) if args.command else parser
        command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if not args.command:
        if _no_terminal():  # a pipe, CI, TERM=dumb: what the commands are
            parser.print_help()
            return EXIT_OK
        args.command, args.db = "", args.home_db
        try:
            return cmd_home(args)
        except Failure as exc:
            return _fail(str(exc), exc.code)
    if args.home_db:  # kandev-tui --db PATH COMMAND: the command's own --db, unless it was given too
        if not hasattr(args, "db"):
            return _fail(f"kandev-tui {args.command}: --db: this command uses no session database", EXIT_USAGE)
        if args.db and args.db != args.home_db:
            return _fail(f"kandev-tui {args.command}: two session databases given (--db {args.home_db} before the "
                         f"command, --db {args.db} after it): give one", EXIT_USAGE)
        args.db = args.home_db
    try:
        args.top_parser = parser  # (serve checks the command its browser tabs will run with it)
        return int(args.run(args))
    except Failure as exc:  # what the command could not do, in one line
        return _fail(str(exc), exc.code)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into `head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # noqa: BLE001 - the store's own errors say what to do; anything else is a crash
        from kandev_tui.transcript.database import StoreError

        if isinstance(exc, StoreError):  # damage found past what opening the database reads
            return _fail(f"kandev-tui {args.command}: {exc}", EXIT_USAGE)
        raise


if __name__ == "__main__":
    raise SystemExit(main())
