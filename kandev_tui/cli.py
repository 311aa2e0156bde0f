"""The ``kandev-tui`` command line.

Only ``argparse`` is imported at start-up: every command imports what it needs
when it runs, so ``kandev-tui --help`` and ``--version`` stay fast (no Textual,
``mcp``, ``acp`` or pydantic import).
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from kandev_tui import __version__

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2

DESCRIPTION = """\
A terminal transcript client for coding agents. kandev-tui validates and
renders Kandev rich output (charts, metric groups, file previews) that agents
send through the show_rich_output_kandev MCP tool.
"""

EPILOG = """\
examples:
  kandev-tui
      in a terminal: the sessions list (ctrl+n starts an agent from a preset,
      enter opens a stored session, c continues one with its agent)
  kandev-tui demo
      the built-in demo agent (offline, no API key)
  kandev-tui run -- npx -y @agentclientprotocol/claude-agent-acp
      Claude Code (or any ACP agent) in the app
  kandev-tui run --preset claude --preset codex --prompt "fix the test"
      two agents side by side on one task (ctrl+s lists them, ctrl+n adds one)
  kandev-tui run --headless --prompt "check the build" -- codex-acp
      one turn without a screen, items as JSON lines
  kandev-tui attach
      watch (and prompt) sessions of a running Kandev backend
  kandev-tui attach --session ID --headless --follow
      a Kandev session as JSON lines, live
  kandev-tui sessions
      stored sessions
  kandev-tui export ID --format markdown
      a readable transcript with chart data as tables
  kandev-tui transcript session.jsonl
      items of a recording (for jq and CI)
  kandev-tui validate presentation.json
      check a tool call before an agent sends it
  kandev-tui validate --stored call.json
      show what a stored call would render
  kandev-tui guidance
      the paragraph agents are given
  kandev-tui mcp --workspace .
      run the MCP server (agents start it for you)

Run 'kandev-tui COMMAND --help' for the options of a command.
"""


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs: a paragraph of prose is wrapped to the terminal, a paragraph with indented lines
    (examples) is kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        paragraphs = text.strip("\n").split("\n\n")
        out = []
        for paragraph in paragraphs:
            if any(line.startswith(" ") for line in paragraph.splitlines()):
                out.append(textwrap.indent(paragraph, indent))
            else:
                out.append(textwrap.fill(" ".join(paragraph.split()), width, initial_indent=indent,
                                         subsequent_indent=indent))
        return "\n\n".join(out) + "\n"


class _Parser(argparse.ArgumentParser):
    """argparse with errors that end in a hint instead of a bare usage dump, and help that wraps prose."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["formatter_class"] = _Formatter
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\nTry '{self.prog} --help' for more.\n")


def _positive_seconds(value: str) -> float:
    """An argparse type: a finite number of seconds greater than 0."""
    import math

    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds") from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds greater than 0, got {value}")
    return seconds


def _add_workspace_options(parser: argparse.ArgumentParser, default_help: str) -> None:
    parser.add_argument("--workspace", metavar="DIR", default=None, help=default_help)
    parser.add_argument(
        "--repo",
        metavar="NAME=DIR",
        action="append",
        default=[],
        help="an extra named root, selected by a block's 'repo' field (repeatable)",
    )


def _add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="PATH", help="the session database (default: $KANDEV_TUI_DB, else the platform data directory)")


def _add_app_options(parser: argparse.ArgumentParser) -> None:
    _add_db_option(parser)
    _add_stats_option(parser)


def _add_stats_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stats", metavar="FILE", help="write work counters (presentations parsed, charts plotted, "
                                                        "plot frames) as JSON to FILE on exit")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="kandev-tui",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"kandev-tui {__version__}")
    parser.add_argument("--db", dest="home_db", metavar="PATH", help="with no command: the session database the "
                        "sessions list reads (default: $KANDEV_TUI_DB, else the platform data directory)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    demo = commands.add_parser(
        "demo", help="open the app on the built-in demo agent (offline, no API key)",
        description="Start the built-in demo agent on a fresh copy of its sample workspace and send its first "
                    "prompt, so you see streaming Markdown, tool groups, a permission request and native charts.")
    demo.add_argument("--scenario", choices=("build", "fleet"), default="build",
                      help="build: a build-health check with charts (default); fleet: an operations session whose "
                           "MCP tools render as the fleet cards (entity, health, tables, metrics, timelines)")
    _add_app_options(demo)

    open_ = commands.add_parser("open", help="open a stored session in the app (read-only)",
                                description="Open a stored session (see 'kandev-tui sessions') read-only; without "
                                            "an ID, pick one from a list of the stored sessions, newest first.")
    open_.add_argument("session", metavar="ID", nargs="?", default=None,
                       help="a session id (a unique prefix is enough); omitted: pick from the list")
    _add_app_options(open_)

    replay = commands.add_parser("replay", help="replay a recording in the app",
                                 description="Replay a recording made with --record through the same normaliser "
                                             "and widgets as a live session.")
    replay.add_argument("file", metavar="FILE", help="a recording made with kandev-tui run --record FILE")
    replay.add_argument("--speed", type=float, default=None, metavar="N",
                        help="N times real time (default: as fast as possible)")
    _add_stats_option(replay)  # no --db: a replay stores nothing

    run = commands.add_parser(
        "run",
        help="run any ACP agent in the app (or --headless: one turn, JSON lines)",
        description=(
            "Start any ACP agent, offer it kandev-tui's MCP server, and watch the session. With --headless, "
            "run one turn without a screen: store it, print each item as a JSON line when it completes, "
            "exit 0 on a normal end of turn and 1 with a one-line reason otherwise. Put the agent's command "
            "after --. The agent may read and write files inside the workspace and --repo directories and run "
            "commands in terminals through kandev-tui (settings client_fs_read, client_fs_write, "
            "client_terminals turn each off)."
        ),
        epilog="example: kandev-tui run --headless --prompt 'summarise the tests' -- python -m kandev_tui.demo.agent",
    )
    run.add_argument("--headless", action="store_true", help="no screen: one turn, JSON lines on stdout")
    run.add_argument("--prompt", metavar="TEXT", help="the prompt to send (required with --headless); with several "
                     "--preset, sent to each session")
    run.add_argument("--preset", action="append", default=[], metavar="NAME",
                     help="start the agent of a preset instead of a command after --: demo, claude, codex, gemini, "
                          "opencode, or one of the settings file's [presets.NAME] tables (command, env, workspace). "
                          "Repeat it for several sessions in one app (the first is on screen; ctrl+s lists them)")
    _add_workspace_options(run, "the agent's working directory and the MCP server's workspace (default: .)")
    run.add_argument("--permission", choices=["reject", "allow-once"], default="reject",
                     help="headless answer to permission requests (default: reject)")
    run.add_argument("--record", metavar="FILE", help="write every JSON-RPC frame, both directions, to FILE (JSONL; "
                     "a new file: an existing one is never replaced)")
    run.add_argument("--no-guidance", action="store_true",
                     help="do not give the agent the rich-output guidance (given as its system prompt where it takes "
                          "one, else before the first prompt)")
    run.add_argument("--mcp-config", metavar="FILE", help="more MCP servers to offer the agent: a JSON list of "
                     "{name, command, args, env} (stdio) or {type: http|sse, name, url, headers} entries")
    run.add_argument("--init-timeout", type=_positive_seconds, default=30.0, metavar="SECONDS",
                     help="how long the agent may take to answer initialize (default: 30)")
    run.add_argument("--mode", metavar="ID", help="the agent's mode to start in (e.g. Codex: read-only, "
                     "workspace-write; Claude: default, acceptEdits, plan); the app's picker (ctrl+o) lists them")
    run.add_argument("--model", metavar="ID", help="the model to start with: a value of the agent's model option "
                     "(Codex: gpt-5.5) or an id of its model list (gpt-5.5[xhigh], effort included)")
    run.add_argument("--option", action="append", default=[], type=_agent_option, metavar="ID=VALUE",
                     help="one of the agent's options to start with, by its id (repeatable; e.g. Codex: "
                          "collaboration_mode=plan); the app's picker (ctrl+o) lists them")
    resume = run.add_mutually_exclusive_group()
    resume.add_argument("--resume", nargs="?", const="", default=None, metavar="SESSION",
                        help="continue a stored session with the agent's own session (session/resume, else "
                             "session/load); without SESSION, the newest one of this agent command that can "
                             "('kandev-tui sessions' says which can)")
    resume.add_argument("--pick", action="store_true", help="choose one of the agent's own sessions in this workspace "
                        "(session/list) and continue it (in the app)")
    _add_app_options(run)
    run.add_argument("agent", nargs=argparse.REMAINDER, metavar="-- AGENT_CMD [ARGS...]", help="the agent command")

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
    attach.add_argument("--token", metavar="TOKEN", help="a personal access token, when Kandev's auth is on "
                                                         "(default: $KANDEV_TOKEN)")
    which = attach.add_mutually_exclusive_group()
    which.add_argument("--session", metavar="ID", help="the Kandev session to watch")
    which.add_argument("--task", metavar="ID", help="watch the newest session of this task")
    which.add_argument("--list", action="store_true", help="print the sessions there are (JSON lines) and exit")
    attach.add_argument("--headless", action="store_true",
                        help="no screen: print the session's items as JSON lines (the whole history), then exit")
    attach.add_argument("--follow", action="store_true", help="with --headless: keep printing changes live "
                                                                "until interrupted")
    attach.add_argument("--page-size", type=int, default=100, metavar="N",
                        help="rows per message.list page (default: 100)")
    _add_app_options(attach)

    sessions = commands.add_parser("sessions", help="list stored sessions", description="List stored sessions, newest first.")
    sessions.add_argument("--json", action="store_true", help="one JSON object per line instead of a table")
    _add_db_option(sessions)

    export = commands.add_parser("export", help="write out a stored session",
                                 description="Write a stored session to standard output (or --output FILE).")
    export.add_argument("session", metavar="ID", help="a session id (a unique prefix is enough)")
    export.add_argument("--format", choices=["json", "jsonl", "markdown"], default="markdown", help="default: markdown")
    export.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of standard output")
    _add_db_option(export)

    transcript = commands.add_parser(
        "transcript", help="normalise a recording and print its items as JSON lines",
        description="Read a recording made with --record and print the transcript items as JSON lines, "
                    "exactly as a live run stores them.")
    transcript.add_argument("file", metavar="FILE", help="a recording (JSON lines)")

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
    snapshot.add_argument("-o", "--output", metavar="FILE", required=True,
                          help="where to write: .svg, .png or .txt (with --all, FILE-01.svg, FILE-02.svg…)")
    snapshot.add_argument("--size", default="120x40", metavar="WxH", help="the screen's size (default: 120x40)")
    snapshot.add_argument("--theme", default="textual-dark", metavar="NAME",
                          help="a theme (default: textual-dark; see the settings screen for the others)")
    where = snapshot.add_mutually_exclusive_group()
    where.add_argument("--at", default="end", metavar="top|end|N",
                       help="where the transcript is scrolled: its top, its end (default: as a finished session is "
                            "left) or row N")
    where.add_argument("--all", action="store_true", help="one file per screen, from the top to the end")
    _add_db_option(snapshot)

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
    serve.add_argument("--port", type=int, default=8000, help="the port to listen on (default: 8000)")
    serve.add_argument("--public", action="store_true",
                       help="allow a --host that is not loopback (the secret is still needed, but plain HTTP shows it "
                            "to whoever sees the traffic: prefer SSH port forwarding, or a proxy with TLS)")
    serve.add_argument("--public-url", metavar="URL", help="the address browsers reach the server at, when it is "
                                                           "not http://HOST:PORT (a proxy)")
    serve.add_argument("app_command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]",
                       help=f"the kandev-tui command each browser runs: one of {', '.join(APP_COMMANDS)} "
                            "(default: the sessions list, as the bare kandev-tui)")

    validate = commands.add_parser(
        "validate",
        help="check rich-output arguments or a stored call (for agent authors and CI)",
        description=(
            "Without --stored, FILE holds the arguments of a show_rich_output_kandev call: print "
            "exactly what the tool would return (CSV charts resolved against the workspace) and exit 0, "
            "or print the error on stderr and exit 1. With --stored, FILE holds a stored call "
            '{"name","title","status","input","output"}: print the merged presentation that would render '
            "and exit 0, or print its state (e.g. 'pending', 'unavailable: <reason>') on stderr and exit 1. "
            "Usage errors exit 2."
        ),
    )
    validate.add_argument("file", metavar="FILE", help="a JSON file, or - for standard input")
    validate.add_argument("--stored", action="store_true", help="FILE holds a stored tool call")
    _add_workspace_options(validate, "the workspace CSV paths are relative to (default: the current directory)")

    guidance = commands.add_parser(
        "guidance",
        help="print the rich-output guidance paragraph given to agents",
        description="Print the compact paragraph kandev-tui gives agents about rich output: as their system prompt "
                    "where they take one (Codex, Claude Code), else before the first prompt.",
    )
    guidance.add_argument("--profile", choices=["task", "office"], default="task", help="agent profile (default: task)")

    mcp = commands.add_parser(
        "mcp",
        help="run the show_rich_output_kandev MCP server on stdio",
        description=(
            "Serve the show_rich_output_kandev tool over MCP (stdio). Agents start this for you; "
            "run it by hand to try the server with an MCP client."
        ),
    )
    _add_workspace_options(mcp, "the workspace CSV sources are read from (default: the current directory)")
    mcp.add_argument(
        "--profile",
        choices=["task", "office", "config", "external"],
        default="task",
        help="task and office list the tool; config and external list none (default: task)",
    )
    mcp.add_argument(
        "--report", metavar="URL",
        help="tell the kandev-tui session that started this server of each call, at its loopback address "
             "(http://127.0.0.1:PORT/report, the secret in $KANDEV_TUI_REPORT_TOKEN): kandev-tui passes it to the "
             "agents it starts",
    )
    parser.command_parsers = dict(commands.choices)  # type: ignore[attr-defined]
    return parser


def _fail(message: str, code: int = EXIT_FAIL) -> int:
    from kandev_tui.sanitize import visible

    print(visible(message), file=sys.stderr)
    return code


def _workspace_at(directory: str, args: argparse.Namespace) -> Any:
    """The Workspace at ``directory`` with the --repo directories (a session continued where it ran)."""
    return _workspace(argparse.Namespace(**{**vars(args), "workspace": directory}))


def _workspace(args: argparse.Namespace) -> Any:
    """The Workspace of --workspace/--repo, or an error message string."""
    from kandev_tui.workspace import Workspace, parse_repo_option

    root = Path(args.workspace).expanduser() if args.workspace else Path.cwd()
    if not root.is_dir():
        what = "no such directory" if not root.exists() else "not a directory"
        return f"kandev-tui {args.command}: --workspace {root}: {what}"
    repos = {}
    for option in args.repo:
        try:
            name, directory = parse_repo_option(option)
        except ValueError as exc:
            return f"kandev-tui {args.command}: --repo {option}: {exc}"
        if not directory.is_dir():
            what = "no such directory" if not directory.exists() else "not a directory"
            return f"kandev-tui {args.command}: --repo {name}={directory}: {what}"
        repos[name] = directory
    return Workspace(root, repos)


def _read_json(file: str) -> tuple[Any, str | None]:
    """(data, None), or (None, message) when the file cannot be read or parsed."""
    try:
        if file == "-":
            text = sys.stdin.read()
        else:
            text = Path(file).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, f"{file}: no such file"
    except IsADirectoryError:
        return None, f"{file}: is a directory"
    except UnicodeDecodeError:
        return None, f"{file}: not UTF-8 text"
    except OSError as exc:
        return None, f"{file}: {exc.strerror or exc}"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"
    except RecursionError:
        return None, "invalid JSON: nested too deeply"


def _unreadable(problem: str) -> bool:
    """A problem of _read_json that is about the file (a usage error), not about its JSON."""
    return not problem.startswith("invalid JSON")


def cmd_validate(args: argparse.Namespace) -> int:
    data, problem = _read_json(args.file)
    if problem:
        if _unreadable(problem):
            return _fail(f"kandev-tui validate: {problem}", EXIT_USAGE)
        return _fail(problem)
    if args.stored:
        from kandev_tui.presentation import State, read_tool_call

        if not isinstance(data, dict):
            return _fail("unavailable: a stored call must be a JSON object")
        if "name" not in data and ("blocks" in data or "version" in data):
            return _fail("not-rich-output: FILE holds tool arguments (a presentation), not a stored call "
                         '{"name","title","status","input","output"}: run it without --stored')
        result = read_tool_call(data, data.get("status"))
        if result.state is State.READY:
            assert result.presentation is not None
            print(json.dumps(result.presentation.to_json(), indent=2, ensure_ascii=False))
            return EXIT_OK
        detail = result.reason if result.state is State.UNAVAILABLE else result.error
        return _fail(f"{result.state.value}: {detail}" if detail else result.state.value)
    from kandev_tui.mcp_server import call_show_rich_output

    workspace = _workspace(args)
    if isinstance(workspace, str):
        return _fail(workspace, EXIT_USAGE)
    outcome = call_show_rich_output(data, workspace)
    if outcome.is_error:
        return _fail(outcome.text)
    print(outcome.text)
    return EXIT_OK


def cmd_guidance(args: argparse.Namespace) -> int:
    from kandev_tui.presentation import guidance

    print(guidance(args.profile))
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    workspace = _workspace(args)
    if isinstance(workspace, str):
        return _fail(workspace, EXIT_USAGE)
    from kandev_tui.mcp_server import Reporter, serve

    report = None
    if args.report:
        token = os.environ.get("KANDEV_TUI_REPORT_TOKEN", "")
        if not token:
            return _fail("kandev-tui mcp: --report needs the session's secret in $KANDEV_TUI_REPORT_TOKEN", EXIT_USAGE)
        try:
            report = Reporter(args.report, token)
        except ValueError as exc:
            return _fail(f"kandev-tui mcp: {exc}", EXIT_USAGE)
    return serve(workspace, args.profile, report=report)


def _open_store(args: argparse.Namespace, *, create: bool = True) -> Any:
    """The Store of --db (or the default), or an error message string.

    ``create=False`` (commands that only read): a missing database is not made. Then None when it is the
    default one (nothing has been stored yet), and an error when the user named it (--db, KANDEV_TUI_DB).
    """
    from kandev_tui.transcript.store import Store, StoreError, StoreMissing, default_db_path

    path = Path(args.db).expanduser() if args.db else default_db_path()
    try:
        return Store(path, create=create)
    except StoreMissing as exc:
        return _store_problem(args, path, exc) if args.db or os.environ.get("KANDEV_TUI_DB") else None
    except StoreError as exc:
        return _store_problem(args, path, exc)


def _store_problem(args: argparse.Namespace, path: Path, exc: Any) -> str:
    """One line, in the shape of every file option's: ``kandev-tui CMD: --db PATH: reason``."""
    command = f"kandev-tui {args.command}" if args.command else "kandev-tui"
    if not exc.reason:  # what is in the file (damaged, a newer schema) says it all
        return f"{command}: {exc}"
    where = "--db" if args.db else "KANDEV_TUI_DB" if os.environ.get("KANDEV_TUI_DB") else "the session database"
    return f"{command}: {where} {path}: {exc.reason}"


def _find_session(command: str, store: Any, wanted: str) -> dict[str, Any] | str:
    """The one stored session ``wanted`` names (an id or a unique prefix), or a line saying why there is none."""
    from kandev_tui.sanitize import visible

    rows = store.matching_sessions(wanted) if store is not None else []
    if len(rows) == 1:
        return rows[0]
    if not rows:
        where = "nothing is stored yet" if store is None else "see 'kandev-tui sessions'"
        return f"kandev-tui {command}: no session {wanted!r} ({where})"
    shown = ", ".join(f"{row['id']} ({visible(row['title'] or 'untitled', keep_newlines=False)[:30]})"
                      for row in rows[:5])
    more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
    return f"kandev-tui {command}: {wanted!r} matches {len(rows)} sessions: {shown}{more}; give more of the id"


def _stored_session(command: str, args: argparse.Namespace, wanted: str) -> tuple[Any, Any]:
    """(store, session) of the stored session ``wanted`` names, or (None, (line, exit status)) saying why not;
    the store is the caller's to close."""
    store = _open_store(args, create=False)
    if isinstance(store, str):
        return None, (store, EXIT_USAGE)
    session = _find_session(command, store, wanted)
    if isinstance(session, str):
        if store is not None:
            store.close()
        return None, (session, EXIT_FAIL)
    return store, session


NOTHING_STORED = "No stored sessions yet. Start one with: kandev-tui run --headless --prompt TEXT -- AGENT_CMD"


def cmd_run(args: argparse.Namespace) -> int:
    command = list(args.agent)
    if command and command[0] == "--":
        command = command[1:]
    from kandev_tui.settings import SettingsStore

    settings = SettingsStore()
    if args.preset and command:
        return _fail("kandev-tui run: give --preset NAME or the agent command after --, not both", EXIT_USAGE)
    if not command and not args.preset:
        return _fail("kandev-tui run: give the agent command after --, e.g. "
                     "kandev-tui run --headless --prompt hi -- python -m kandev_tui.demo.agent, or --preset NAME",
                     EXIT_USAGE)
    if args.headless and not args.prompt:
        return _fail("kandev-tui run: --headless needs --prompt TEXT", EXIT_USAGE)
    agents = _preset_agents(args, settings) if args.preset else [(command, None, None)]
    if isinstance(agents, str):
        return _fail(agents, EXIT_USAGE)
    for agent_command, _env, _where in agents:
        if "/" in agent_command[0] and not os.path.isabs(agent_command[0]):
            agent_command[0] = os.path.abspath(agent_command[0])  # the agent starts in the workspace, not here
    command = agents[0][0]
    workspace = _workspace(args) if agents[0][2] is None else _workspace_at(agents[0][2], args)
    if isinstance(workspace, str):
        return _fail(workspace, EXIT_USAGE)
    store = _open_store(args)
    if isinstance(store, str):
        return _fail(store, EXIT_USAGE)
    from kandev_tui.acp import parse_mcp_config
    from kandev_tui.runner import run_headless

    extra_servers = []
    if args.mcp_config:
        data, problem = _read_json(args.mcp_config)
        if problem:
            store.close()
            if _unreadable(problem):  # "PATH: reason"
                return _fail(f"kandev-tui run: --mcp-config {problem}", EXIT_USAGE)
            return _fail(f"kandev-tui run: --mcp-config {args.mcp_config}: {problem}", EXIT_USAGE)
        try:
            extra_servers = parse_mcp_config(data)
        except ValueError as exc:
            store.close()
            return _fail(f"kandev-tui run: --mcp-config {args.mcp_config}: {exc}", EXIT_USAGE)
    if args.pick and args.headless:
        store.close()
        return _fail("kandev-tui run: --pick lists the agent's sessions to choose from in the app; with --headless "
                     "give --resume SESSION", EXIT_USAGE)
    continuing = None
    if args.resume is not None:
        continuing = _resumable(store, command, args.resume)
        if isinstance(continuing, str):
            store.close()
            return _fail(continuing, EXIT_FAIL)
        if args.workspace is None and continuing.get("workspace"):  # where the session ran, unless told otherwise
            workspace = _workspace_at(continuing["workspace"], args)
            if isinstance(workspace, str):
                store.close()
                return _fail(workspace, EXIT_USAGE)

    from kandev_tui.launch import Launcher

    launcher = Launcher(store, settings, extra_servers, inject_guidance=not args.no_guidance and
                        settings.settings.inject_guidance, init_timeout=args.init_timeout,
                        asked=_asked_choices(args))
    record = Path(args.record).expanduser().absolute() if args.record else None  # stored: found from anywhere
    if not args.headless:
        factories = [launcher.factory(command, workspace, agents[0][1], record=record, continuing=continuing,
                                      pick=args.pick)]
        for agent_command, env, where in agents[1:]:
            place = workspace if where is None else _workspace_at(where, args)
            if isinstance(place, str):
                store.close()
                return _fail(place, EXIT_USAGE)
            factories.append(launcher.factory(agent_command, place, env))
        return _run_app(args, store, factories, initial_prompt=args.prompt, settings=settings, launcher=launcher)
    options, choices = launcher.options(command, workspace, agents[0][1], continuing=continuing)
    try:
        code, reason, _session = run_headless(options, args.prompt, store, record=record, permission=args.permission,
                                              choices=choices, continuing=continuing,
                                              asked=frozenset(_asked_choices(args)))
    finally:
        store.close()
    if code:
        return _fail(f"kandev-tui run: {reason}", code)
    return EXIT_OK


def _agent_option(text: str) -> tuple[str, str]:
    """``ID=VALUE`` of ``run --option``."""
    option_id, equals, value = text.partition("=")
    if not equals or not option_id.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not ID=VALUE (e.g. collaboration_mode=plan)")
    return option_id.strip(), value.strip()


def _asked_choices(args: argparse.Namespace) -> dict[str, str]:
    """What ``run`` was asked to choose at the start: ``--mode``, ``--model``, each ``--option``."""
    from kandev_tui.agent_session import OPTION

    asked = {k: v for k, v in (("mode", args.mode), ("model", args.model)) if v}
    return {**asked, **{OPTION + option_id: value for option_id, value in args.option}}


def _preset_agents(args: argparse.Namespace, settings: Any) -> list[tuple[list[str], dict[str, str] | None, str | None]] | str:
    """The agents the --preset options name: (command, environment added, workspace) each, or why not."""
    known, warnings = settings.presets()
    for warning in warnings:
        print(f"kandev-tui: warning: {warning}", file=sys.stderr)
    for name in args.preset:
        if name not in known:
            return (f"kandev-tui run: --preset {name}: no such preset (there are: {', '.join(sorted(known))}; add one "
                    f"as [presets.NAME] with command = [...] in {settings.path})")
    if len(args.preset) > 1 and args.headless:
        return "kandev-tui run: --headless runs one agent: give one --preset"
    if len(args.preset) > 1 and (args.resume is not None or args.pick):
        return "kandev-tui run: --resume and --pick continue one agent's session: give one --preset"
    agents = []
    for name in args.preset:
        preset = known[name]
        where = None
        if args.workspace is None and preset.workspace:
            where = str(Path(preset.workspace).expanduser())
        agents.append((list(preset.command), dict(preset.env) or None, where))
    return agents


def cmd_sessions(args: argparse.Namespace) -> int:
    from kandev_tui.jsonutil import dumps

    from datetime import datetime

    from kandev_tui.sanitize import visible
    from kandev_tui.sources import agent_display_name

    store = _open_store(args, create=False)
    if isinstance(store, str):
        return _fail(store, EXIT_USAGE)
    with_rows = store.sessions() if store is not None else []
    if store is not None:
        store.close()
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
        resume = row["continues"] if row.get("continues") and row.get("agent_session_id") else "no"
        print(f"{row['id']:<12}  {started:<16}  {row['items']:>5}  {row['state']:<11}  {resume:<6}  {agent:<24}  "
              f"{title}")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from kandev_tui.jsonutil import dumps

    store, session = _stored_session("export", args, args.session)
    if store is None:
        return _fail(*session)
    try:
        items = store.items(session["id"])
    finally:
        store.close()
    if args.format == "json":
        text = dumps({"session": session, "items": [i.to_json() for i in items]}, indent=2) + "\n"
    elif args.format == "jsonl":
        text = "".join(dumps(i.to_json()) + "\n" for i in items)
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
    from kandev_tui.jsonutil import dumps

    from kandev_tui.transcript.replay import items_from_recording

    problem = _recording_problem("transcript", args.file)
    if problem:
        return _fail(*problem)
    for item in items_from_recording(args.file):
        print(dumps(item.to_json(), separators=(",", ":")))
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
    from dataclasses import replace

    from kandev_tui.settings import THEMES, SettingsStore
    from kandev_tui.snapshot import FORMATS, Shot, SnapshotError, parse_at, parse_size, snapshot

    try:
        shot = Shot(parse_size(args.size), parse_at(args.at), args.all, args.theme)
    except SnapshotError as exc:
        return _fail(f"kandev-tui snapshot: {exc}", EXIT_USAGE)
    if args.theme not in THEMES:
        return _fail(f"kandev-tui snapshot: --theme {args.theme!r} is not one of {', '.join(THEMES)}", EXIT_USAGE)
    output = Path(args.output).expanduser()
    if output.suffix.lower() not in FORMATS:
        return _fail(f"kandev-tui snapshot: -o {args.output}: write .svg, .png or .txt", EXIT_USAGE)
    recording = Path(args.source).expanduser()
    store = None
    if recording.exists():
        problem = _recording_problem("snapshot", args.source)
        if problem:
            return _fail(*problem)
        from kandev_tui.sources import ReplaySource

        def source(on_items: Any, on_state: Any) -> Any:
            return ReplaySource(recording, on_items, on_state)
    else:
        store, session = _stored_session("snapshot", args, args.source)
        if store is None:
            line, code = session
            return _fail(f"{line}; nor is {args.source!r} a recording file" if code == EXIT_FAIL else line, code)
        from kandev_tui.sources import StoredSource

        def source(on_items: Any, on_state: Any) -> Any:
            return StoredSource(store, session, on_items, on_state)
    from kandev_tui.app import KandevApp

    with tempfile.TemporaryDirectory(prefix="kandev-snapshot-") as scratch:
        settings = SettingsStore(Path(scratch) / "config.toml")  # the user's settings are not the picture's
        settings.settings = replace(settings.settings, theme=args.theme, chart_animation=False)
        try:
            written = snapshot(lambda: KandevApp(source, settings_store=settings), shot, output)
        except SnapshotError as exc:
            return _fail(f"kandev-tui snapshot: {exc}", exc.code)
        finally:
            if store is not None:
                store.close()
    for path in written:
        print(path)
    return EXIT_OK


def _resumable(store: Any, command: list[str], wanted: str) -> dict[str, Any] | str:
    """The stored session ``--resume`` continues (``wanted``: an id or prefix; empty: the newest of this agent
    command that can be continued), or the line that says why there is none."""
    if wanted:
        session = _find_session("run --resume", store, wanted)
        if isinstance(session, str):
            return session
    else:
        session = next((row for row in store.sessions() if row["agent_command"] == command and row["agent_session_id"]
                        and row["continues"]), None)
        if session is None:
            return (f"kandev-tui run --resume: no stored session of {' '.join(command)[:80]} can be continued "
                    "('kandev-tui sessions' says which can)")
    if not session.get("agent_session_id"):
        return (f"kandev-tui run --resume: session {session['id']} has no agent session to continue (its agent "
                "never started one)")
    if not session.get("continues"):
        return (f"kandev-tui run --resume: the agent of session {session['id']} could not continue sessions "
                "(it offered neither session/resume nor session/load); start a new one with kandev-tui run")
    return session


def _run_app(args: argparse.Namespace, store: Any, factory: Any, initial_prompt: str | None = None,
             settings: Any = None, launcher: Any = None, kandev: Any = None) -> int:
    """Open the app on a source (or a list of them: a session each, the first on screen, each sent
    ``initial_prompt``); the store is closed when it ends."""
    problem = _no_terminal()
    if problem:
        store.close()
        return _fail(problem, EXIT_USAGE)
    from kandev_tui.app import KandevApp
    from kandev_tui.settings import SettingsStore

    from kandev_tui.transcript.store import default_db_path

    # next to the sessions (a replay without a store logs where the default store lives, never in the cwd)
    _log_to_file(Path(getattr(store, "path", None) or default_db_path()).parent / "logs" / "kandev-tui.log")
    settings = settings or SettingsStore()
    try:
        factories = factory if isinstance(factory, list) else [factory]
        app = KandevApp(factories[0], settings_store=settings, initial_prompt=initial_prompt, launcher=launcher,
                        kandev=kandev,
                        stats_path=Path(args.stats).expanduser() if args.stats else None)
        for more in factories[1:]:
            app.open_session(more, initial_prompt)
        app.run()
    finally:
        store.close()
    return app_exit_status(app)


def _no_terminal() -> str | None:
    """Why the app cannot open here (no terminal, or one that cannot draw it: TERM=dumb), or None."""
    if os.environ.get("KANDEV_TUI_FORCE_APP"):
        return None
    if os.environ.get("TEXTUAL_DRIVER", "").endswith(":WebDriver"):  # kandev-tui serve: a browser, over pipes
        return None
    if os.environ.get("TERM") == "dumb":  # Emacs' shell, some CI runners: no cursor moves, no colours
        return ("kandev-tui: this terminal (TERM=dumb) cannot draw the app; use 'kandev-tui run --headless' or "
                "'kandev-tui transcript', or a terminal that can (TERM=xterm-256color)")
    if sys.stdout.isatty():
        return None
    return ("kandev-tui: the app needs a terminal; for scripts and CI use "
            "'kandev-tui run --headless' or 'kandev-tui transcript'")


def app_exit_status(app: Any) -> int:
    """The status the command exits with once the app has closed: the app's return code (1 after a crash, or once
    the session failed, e.g. an agent that never started, whose reason is then said on stderr); never 0 for an
    app that did not exit normally."""
    if app.failure:
        _fail(f"kandev-tui: {app.failure}")
    for number, text in app.unsent():  # queued or typed ahead, never sent: not lost
        print(f"kandev-tui: not sent (the app closed first), session {number}:\n{text}", file=sys.stderr)
    for note in app.closing_notes():  # where a worktree with uncommitted work was kept
        print(f"kandev-tui: {note}", file=sys.stderr)
    code = app.return_code
    return EXIT_FAIL if code is None else code


def _log_to_file(path: Path) -> None:
    """While the app owns the terminal, every log record goes to a file (never onto the screen)."""
    import logging

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def cmd_home(args: argparse.Namespace) -> int:
    """The bare ``kandev-tui`` in a terminal: the app on the sessions list (stored sessions to open or continue,
    ctrl+n for a new one from a preset)."""
    from kandev_tui.app_home import HomeApp
    from kandev_tui.launch import Launcher
    from kandev_tui.settings import SettingsStore

    store = _open_store(args)
    if isinstance(store, str):
        return _fail(store, EXIT_USAGE)
    settings = SettingsStore()
    _log_to_file(Path(store.path).parent / "logs" / "kandev-tui.log")
    try:
        app = HomeApp(Launcher(store, settings, inject_guidance=settings.settings.inject_guidance),
                      settings_store=settings)
        app.run()
    finally:
        store.close()
    return app_exit_status(app)


def cmd_demo(args: argparse.Namespace) -> int:
    from kandev_tui.demo import agent_command, prepare_workspace
    from kandev_tui.launch import Launcher
    from kandev_tui.settings import SettingsStore
    from kandev_tui.workspace import Workspace

    problem = _no_terminal()  # before anything is made
    if problem:
        return _fail(problem, EXIT_USAGE)
    store = _open_store(args)
    if isinstance(store, str):
        return _fail(store, EXIT_USAGE)
    import shutil
    import tempfile

    from kandev_tui.demo import SCENARIOS

    scratch = Path(tempfile.mkdtemp(prefix="kandev-demo-"))  # the sample workspace's copy, removed on exit
    try:
        workspace = prepare_workspace(scratch / "demo-service")
        settings = SettingsStore()
        launcher = Launcher(store, settings, inject_guidance=settings.settings.inject_guidance)
        return _run_app(args, store, launcher.factory(agent_command(args.scenario), Workspace(workspace)),
                        initial_prompt=SCENARIOS[args.scenario], settings=settings, launcher=launcher)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


class _NoStore:
    """Where a command has nothing stored to close (a replay, a picker over a database not made yet)."""

    path = None

    def close(self) -> None:
        pass

    def sessions(self) -> list[Any]:
        return []

    def session(self, session_id: str) -> None:
        return None


def cmd_open(args: argparse.Namespace) -> int:
    from kandev_tui.sources import StoredSource

    if args.session is None:  # the picker (read-only: a database that does not exist yet is not made)
        store = _open_store(args, create=False)
        if isinstance(store, str):
            return _fail(store, EXIT_USAGE)
        store = store if store is not None else _NoStore()
        return _run_app(args, store, lambda on_items, on_state: StoredSource(store, None, on_items, on_state))
    store, session = _stored_session("open", args, args.session)
    if store is None:
        return _fail(*session)
    return _run_app(args, store, lambda on_items, on_state: StoredSource(store, session, on_items, on_state))


def cmd_replay(args: argparse.Namespace) -> int:
    path = Path(args.file).expanduser()
    if args.speed is not None and args.speed <= 0:
        return _fail("kandev-tui replay: --speed must be greater than 0", EXIT_USAGE)
    problem = _recording_problem("replay", args.file)  # said here, before the app opens on nothing
    if problem:
        return _fail(*problem)
    from kandev_tui.sources import ReplaySource

    return _run_app(args, _NoStore(), lambda on_items, on_state: ReplaySource(path, on_items, on_state, args.speed))


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
    store = _open_store(args)
    if isinstance(store, str):
        return _fail(store, EXIT_USAGE)
    if args.headless:
        try:
            return asyncio.run(headless.run_headless(url, session_id, token=token, store=store, follow=args.follow,
                                                     page_size=args.page_size))
        finally:
            store.close()
    from kandev_tui.launch import KandevBackend
    from kandev_tui.sources import KandevSource

    backend = KandevBackend(url, token, store, args.page_size)  # its other task sessions are in the list (ctrl+s)
    return _run_app(args, store, lambda on_items, on_state: KandevSource(
        url, session_id, on_items, on_state, token=token, store=store, page_size=args.page_size), kandev=backend)


APP_COMMANDS = ("open", "demo", "replay", "run", "attach")
LOOPBACK = ("127.0.0.1", "::1", "localhost")


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
        nested, extra = build_parser().parse_known_args(app_args)
    except SystemExit:
        return f"kandev-tui serve: the command after -- is not valid (see kandev-tui {command} --help)"
    if extra:
        return f"kandev-tui serve: {command}: unrecognized arguments: {' '.join(extra)}"
    problem = _output_paths_problem(nested)
    if problem:
        return problem
    if command == "replay":
        found = _recording_problem("replay", nested.file)
        return found[0] if found else None
    if command == "open" and nested.session:
        store, session = _stored_session("open", nested, nested.session)
        if store is None:
            return session[0]
        store.close()
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
    import shlex

    app_args = list(args.app_command)
    if app_args and app_args[0] == "--":
        app_args = app_args[1:]
    if not 0 < args.port < 65536:
        return _fail("kandev-tui serve: --port must be between 1 and 65535", EXIT_USAGE)
    if args.host not in LOOPBACK and not args.public:
        return _fail(f"kandev-tui serve: --host {args.host} is reachable from other machines; serve on 127.0.0.1 and "
                     "use ssh -L, or add --public (its secret then crosses the network as plain HTTP)", EXIT_USAGE)
    problem = _serve_problem(args, app_args) or _port_problem(args.host, args.port)
    if problem:
        return _fail(problem, EXIT_USAGE)
    try:
        from kandev_tui.web import serve
    except ImportError:
        return _fail("kandev-tui serve: textual-serve is missing from this install; reinstall kandev-tui "
                     "(pip install --force-reinstall kandev-tui)", EXIT_USAGE)
    if args.public:
        print("kandev-tui serve: warning: reachable from other machines over plain HTTP: whoever can see the traffic "
              "can take the secret in its address; prefer SSH port forwarding, or a proxy with TLS", file=sys.stderr)
    # textual-serve runs this through a shell: exec leaves one process per tab, the app, which ends with its tab
    # no command: the sessions list (stored sessions, ctrl+n for new ones), as the bare kandev-tui in a terminal
    command = "exec " + shlex.join([sys.executable, "-m", "kandev_tui", *app_args])
    try:
        serve(command, host=args.host, port=args.port, title=f"kandev-tui {' '.join(app_args[:1])}".rstrip(),
              public_url=args.public_url)
    except OSError as exc:  # lost the race for the port, or the address went away
        return _fail(f"kandev-tui serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
    return EXIT_OK


COMMANDS = {"serve": cmd_serve, "snapshot": cmd_snapshot, "attach": cmd_attach, "demo": cmd_demo, "open": cmd_open, "replay": cmd_replay, "run": cmd_run, "sessions": cmd_sessions, "export": cmd_export, "transcript": cmd_transcript,
            "validate": cmd_validate, "guidance": cmd_guidance, "mcp": cmd_mcp}


# every option that names a file kandev-tui writes: (attribute, option, must be a new file)
OUTPUT_OPTIONS = (("output", "--output", False), ("record", "--record", True), ("stats", "--stats", False))


def _output_paths_problem(args: argparse.Namespace) -> str | None:
    """The first file option that cannot be written, as one line; checked before any work starts (a recording
    or an export that fails at the end would lose the work, and --stats is written only on exit)."""
    from kandev_tui.userpaths import output_problem

    for attribute, option, new in OUTPUT_OPTIONS:
        value = getattr(args, attribute, None)
        if value:
            problem = output_problem(Path(value).expanduser(), new=new)
            if problem:
                return f"kandev-tui {args.command}: {option} {value}: {problem}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # argparse leaves these to the top level, whose usage says nothing of the command's options
        command_parser = parser.command_parsers.get(args.command, parser) if args.command else parser
        command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if not args.command:
        if _no_terminal():  # a pipe, CI, TERM=dumb: what the commands are
            parser.print_help()
            return EXIT_OK
        args.command, args.db = "", args.home_db
        return cmd_home(args)
    problem = _output_paths_problem(args)
    if problem:
        return _fail(problem, EXIT_USAGE)
    try:
        return COMMANDS[args.command](args)
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
