"""The command line's top-level parser: what kandev-tui is, its examples, and the commands, each added by its
module (argparse only, imported at start)."""

from __future__ import annotations

from kandev_tui import __version__
from kandev_tui.cli.options import _Parser


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
  kandev-tui run --preset claude --preset codex --worktree --prompt "fix it"
      two agents side by side on one task, each in a git worktree of its own
      (ctrl+s lists them, ctrl+n adds one)
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


def build_parser() -> _Parser:
    """The top-level parser; each command module adds its commands' parsers (``add_arguments``), each parser's
    ``run`` default the function that runs it."""
    from kandev_tui.cli import attach, checkpoints, contract, running, serve, stored

    parser = _Parser(
        prog="kandev-tui",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"kandev-tui {__version__}")
    parser.add_argument("--db", dest="home_db", metavar="PATH", help="the session database: with no command, the "
                        "one the sessions list reads; before a command, its --db (default: $KANDEV_TUI_DB, else the "
                        "platform data directory)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in (running, stored, checkpoints, attach, serve, contract):
        module.add_arguments(commands)
    parser.command_parsers = dict(commands.choices)
    return parser
