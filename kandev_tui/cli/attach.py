"""``attach``: a Kandev backend's task session, live."""

from __future__ import annotations

import argparse
from typing import Any
import os
import sys
from pathlib import Path

from kandev_tui.cli.common import EXIT_USAGE, _fail, _run_app, open_store
from kandev_tui.cli.options import Checked, _add_app_options, whole_number


def cmd_attach(args: argparse.Namespace) -> int:
    import asyncio

    from kandev_tui.kandev import DEFAULT_URL, KandevError, normalize_url

    try:
        url = normalize_url(args.url or os.environ.get("KANDEV_URL") or DEFAULT_URL)
    except KandevError as exc:
        return _fail(f"kandev-tui attach: {exc}", EXIT_USAGE)
    if args.token:
        print("kandev-tui attach: warning: --token is seen by every process of this machine (ps); prefer "
              "$KANDEV_TOKEN or --token-file PATH", file=sys.stderr)
    token = args.token or os.environ.get("KANDEV_TOKEN") or None
    if args.token_file is not None:
        try:
            token = Path(args.token_file).read_text(encoding="utf-8").strip().splitlines()[0].strip()
        except (OSError, UnicodeDecodeError, IndexError) as exc:
            reason = "it is empty" if isinstance(exc, IndexError) else getattr(exc, "strerror", None) or str(exc)
            return _fail(f"kandev-tui attach: --token-file {args.token_file}: {reason}", EXIT_USAGE)
    if args.follow and not args.headless:
        return _fail("kandev-tui attach: --follow goes with --headless (the app always follows)", EXIT_USAGE)
    from kandev_tui.kandev import headless

    if args.list:
        return asyncio.run(headless.list_sessions(url, token, sys.stdout))
    session_id = args.session
    if args.task:
        try:
            session_id = asyncio.run(headless.resolve_session(url, token, args.task))
        except KandevError as exc:
            return _fail(f"kandev-tui attach: {exc}")
    if args.headless and not session_id:
        return _fail("kandev-tui attach: --headless needs --session ID or --task ID "
                     "(kandev-tui attach --list shows them)", EXIT_USAGE)
    with open_store(args) as store:
        if args.headless:
            return asyncio.run(headless.run_headless(url, session_id, token=token, store=store, follow=args.follow,
                                                     page_size=args.page_size))
        from kandev_tui.sources.launch import KandevBackend
        from kandev_tui.sources import KandevSource

        backend = KandevBackend(url, token, store, args.page_size)  # its other task sessions are in the list (ctrl+s)
        return _run_app(args, store, KandevSource(
            url, session_id, token=token, store=store, page_size=args.page_size), kandev=backend)


def add_arguments(commands: Any) -> None:
    """The parsers of 'attach' (``commands``: the top level's subparsers)."""
    attach = commands.add_parser(
        "attach", help="watch and prompt a session of a running Kandev backend",
        description="Connect to a running Kandev backend over its WebSocket and watch one of its sessions with "
                    "the same transcript, cards and charts as a local one; the prompt box sends to the session and "
                    "permission requests can be answered. Without --session or --task, pick a session from a list "
                    "of workspaces, tasks and sessions. Sessions are cached in the local database, so reopening "
                    "shows the history at once and fetches only what is missing. A dropped connection reconnects "
                    "by itself.",
        epilog="examples:\n  kandev-tui attach\n  kandev-tui attach ws://devbox:38429/ws --task 3f2c…\n"
               "  kandev-tui attach --session 84dc… --headless --follow | jq .kind\n"
               "  kandev-tui attach --list",
    )
    attach.add_argument("url", nargs="?", default=None, metavar="URL",
                        help="Kandev's WebSocket (default: $KANDEV_URL, else ws://127.0.0.1:38429/ws); "
                             "host:port is enough")
    secret = attach.add_mutually_exclusive_group()
    secret.add_argument("--token-file", metavar="PATH", help="a file whose first line is a personal access "
                        "token, when Kandev's auth is on (default: $KANDEV_TOKEN)")
    secret.add_argument("--token", metavar="TOKEN", help="the token itself (every process of the machine sees it: "
                                                         "prefer $KANDEV_TOKEN or --token-file)")
    which = attach.add_mutually_exclusive_group()
    which.add_argument("--session", metavar="ID", help="the Kandev session to watch")
    which.add_argument("--task", metavar="ID", help="watch the newest session of this task")
    which.add_argument("--list", action="store_true", help="print the sessions there are (JSON lines) and exit")
    attach.add_argument("--headless", action="store_true",
                        help="no screen: print the session's items as JSON lines (the whole history), then exit")
    attach.add_argument("--follow", action="store_true", help="with --headless: keep printing changes live "
                                                                "until interrupted")
    attach.add_argument("--page-size", action=Checked, check=whole_number(1, 1000), default=100, metavar="N",
                        help="rows per message.list page (default: 100)")
    _add_app_options(attach)
    attach.set_defaults(run=cmd_attach)
