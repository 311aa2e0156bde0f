"""``attach``: a Kandev backend's task session, live."""

from __future__ import annotations

import argparse
import os
import sys

from kandev_tui.cli.common import EXIT_USAGE, _fail, _run_app, open_store


def cmd_attach(args: argparse.Namespace) -> int:
    import asyncio

    from kandev_tui.kandev import DEFAULT_URL, KandevError, normalize_url

    try:
        url = normalize_url(args.url or os.environ.get("KANDEV_URL") or DEFAULT_URL)
    except KandevError as exc:
        return _fail(f"kandev-tui attach: {exc}", EXIT_USAGE)
    token = args.token or os.environ.get("KANDEV_TOKEN") or None
    if args.page_size < 1 or args.page_size > 1000:
        return _fail("kandev-tui attach: --page-size must be between 1 and 1000", EXIT_USAGE)
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
        from kandev_tui.launch import KandevBackend
        from kandev_tui.sources import KandevSource

        backend = KandevBackend(url, token, store, args.page_size)  # its other task sessions are in the list (ctrl+s)
        return _run_app(args, store, lambda on_items, on_state: KandevSource(
            url, session_id, on_items, on_state, token=token, store=store, page_size=args.page_size), kandev=backend)
