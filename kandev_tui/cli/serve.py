"""``serve``: kandev-tui in a browser (textual-serve)."""

from __future__ import annotations

import argparse
from typing import Any
import errno
import sys

from kandev_tui.cli.common import EXIT_OK, EXIT_USAGE, Failure, UsageError, _fail, stored_session
from kandev_tui.cli.options import APP_COMMANDS, LOOPBACK, Checked, whole_number
from kandev_tui.cli.stored import _recording_problem
from kandev_tui.base.presets import python_child


def _serve_problem(args: argparse.Namespace, app_args: list[str]) -> str | None:
    """Why ``serve`` cannot start as asked, as one line, or None: checked before the server listens, so that a
    mistake is said here rather than in every browser tab."""
    if not app_args:
        return None
    command = app_args[0]
    if command not in APP_COMMANDS:
        return (f"kandev-tui serve: {command!r} does not open the app; serve one of {', '.join(APP_COMMANDS)} "
                "(e.g. kandev-tui serve -- replay FILE)")
    if "--headless" in app_args[1:app_args.index("--") if "--" in app_args else len(app_args)]:
        return "kandev-tui serve: --headless has no screen to serve; leave it out"
    try:
        nested, extra = args.top_parser.parse_known_args(app_args)  # (main's: kandev-tui's whole parser)
    except SystemExit:
        return f"kandev-tui serve: the command after -- is not valid (see kandev-tui {command} --help)"
    if extra:
        return f"kandev-tui serve: {command}: unrecognized arguments: {' '.join(extra)}"
    if command == "replay":
        found = _recording_problem("replay", nested.file)
        return found[0] if found else None
    if command == "open" and nested.session:
        try:
            with stored_session("open", nested, nested.session):
                pass
        except UsageError:
            raise
        except Failure as exc:
            return str(exc)
    return None


def _port_problem(host: str, port: int) -> str | None:
    """Why the server could not listen on host:port (in use, not an address here), or None."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"kandev-tui serve: --host {host}: {exc.strerror or exc}"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as aiohttp listens: TIME_WAIT is no conflict
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"kandev-tui serve: port {port} is in use on {host}; choose another with --port"
            return f"kandev-tui serve: cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def cmd_serve(args: argparse.Namespace) -> int:

    app_args = list(args.app_command)
    if app_args and app_args[0] == "--":
        app_args = app_args[1:]
    if args.host not in LOOPBACK and not args.public:
        return _fail(f"kandev-tui serve: --host {args.host} is reachable from other machines; serve on 127.0.0.1 and "
                     "use ssh -L, or add --public (its secret then crosses the network as plain HTTP)", EXIT_USAGE)
    problem = _serve_problem(args, app_args) or _port_problem(args.host, args.port)
    if problem:
        return _fail(problem, EXIT_USAGE)
    try:
        from kandev_tui.cli.web import serve
    except ImportError:
        return _fail("kandev-tui serve: textual-serve is missing from this install; reinstall kandev-tui "
                     "(pip install --force-reinstall kandev-tui)", EXIT_USAGE)
    if args.public:
        print("kandev-tui serve: warning: reachable from other machines over plain HTTP: whoever can see the traffic "
              "can take the secret in its address; prefer SSH port forwarding, or a proxy with TLS", file=sys.stderr)
    # textual-serve runs this through a shell: exec leaves one process per tab, the app, which ends with its tab
    # no command: the sessions list (stored sessions, ctrl+n for new ones), as the bare kandev-tui in a terminal
    command = tab_command(app_args)
    try:
        serve(command, host=args.host, port=args.port, title=f"kandev-tui {' '.join(app_args[:1])}".rstrip(),
              public_url=args.public_url)
    except OSError as exc:  # lost the race for the port, or the address went away
        return _fail(f"kandev-tui serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
    return EXIT_OK


def add_arguments(commands: Any) -> None:
    """The parsers of 'serve' (``commands``: the top level's subparsers)."""
    serve = commands.add_parser(
        "serve", help="serve kandev-tui in a web browser (textual-serve)",
        description="Serve kandev-tui to web browsers with textual-serve: each browser tab that opens the address runs "
                    "its own kandev-tui (by default the sessions list: stored sessions to open or continue, ctrl+n to "
                    "start agents from presets, several side by side; or any command given after --), "
                    "which ends when the tab closes. Charts, keys, the mouse, links and files work as in a terminal. "
                    "Each run makes a secret: the address it prints (http://127.0.0.1:8000/?token=...) is the only "
                    "way in (a cookie keeps it after the first load; anything else is refused with 403). It listens "
                    "on loopback unless --public is given; from another machine, forward the port over SSH "
                    "(ssh -L 8000:127.0.0.1:8000 HOST) and open the printed address.",
        epilog="examples:\n  kandev-tui serve\n  kandev-tui serve -- replay session.jsonl\n"
               "  kandev-tui serve --port 8080 -- run -- npx -y @agentclientprotocol/claude-agent-acp\n"
               "  kandev-tui serve -- attach ws://devbox:38429/ws")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", action=Checked, check=whole_number(1, 65535), default=8000, help="the port to listen on (default: 8000)")
    serve.add_argument("--public", action="store_true",
                       help="allow a --host that is not loopback (the secret is still needed, but plain HTTP shows it "
                            "to whoever sees the traffic: prefer SSH port forwarding, or a proxy with TLS)")
    serve.add_argument("--public-url", metavar="URL", help="the address browsers reach the server at, when it is "
                                                           "not http://HOST:PORT (a proxy)")
    serve.add_argument("app_command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]",
                       help=f"the kandev-tui command each browser runs: one of {', '.join(APP_COMMANDS)} "
                            "(default: the sessions list, as the bare kandev-tui)")
    serve.set_defaults(run=cmd_serve)


def tab_command(app_args: list[str]) -> str:
    """The shell command textual-serve runs for each tab: this kandev-tui (``-P``: never a ``kandev_tui`` folder of the
    directory it was started in) with ``app_args``; ``exec`` leaves one process per tab, the app."""
    import shlex

    return "exec " + shlex.join(python_child("-m", "kandev_tui", *app_args))
