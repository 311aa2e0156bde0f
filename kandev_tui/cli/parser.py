"""The command line's parser: every command, its options and their help (argparse only, imported at start)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from kandev_tui import __version__
from kandev_tui.cli.common import EXIT_USAGE


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
  kandev-tui checkpoints ID
      the checkpoints kept of a session's workspace, turn by turn
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
        self.command_parsers: dict[str, argparse.ArgumentParser] = {}  # the top level's: each command's parser

    def error(self, message: str) -> NoReturn:
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


def build_parser() -> _Parser:
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

    from kandev_tui.cli import checkpoints

    checkpoints.add_arguments(commands.add_parser(
        "checkpoints", help="list the checkpoints kept of a workspace (each turn's start and end)",
        description="List the checkpoints kandev-tui keeps in a workspace's git repository (private refs under "
                    "refs/kandev-tui: the files at the start and the end of each turn, and before each restore), "
                    "oldest first, with what each turn changed. A session's (ID) or every session's in the "
                    "repository of --workspace."))
    _add_db_option(commands.choices["checkpoints"])

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
    parser.command_parsers = dict(commands.choices)
    return parser


def _agent_option(text: str) -> tuple[str, str]:
    """``ID=VALUE`` of ``run --option``."""
    option_id, equals, value = text.partition("=")
    if not equals or not option_id.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not ID=VALUE (e.g. collaboration_mode=plan)")
    return option_id.strip(), value.strip()


APP_COMMANDS = ("open", "demo", "replay", "run", "attach")


LOOPBACK = ("127.0.0.1", "::1", "localhost")
