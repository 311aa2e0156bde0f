"""``run``, ``demo`` and the bare ``kandev-tui``: agents started, in the app or headless."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from kandev_tui.cli.common import EXIT_OK, EXIT_USAGE, Failure, _fail, _log_to_file, _no_terminal, open_store, read_json, BadJson, Unreadable, UsageError, _resumable, _run_app, _workspace, _workspace_at, app_exit_status, size_from_the_terminal
from kandev_tui.cli.options import Checked, _add_app_options, _add_workspace_options, agent_option, output_file, positive_number


def cmd_run(args: argparse.Namespace) -> int:
    command = list(args.agent)
    if command and command[0] == "--":
        command = command[1:]
    from kandev_tui.base.settings import SettingsStore

    settings = SettingsStore()
    if args.preset and command:
        return _fail("kandev-tui run: give --preset NAME or the agent command after --, not both", EXIT_USAGE)
    if not command and not args.preset and not args.resume:  # (--resume SESSION alone: the agent it ran with)
        return _fail("kandev-tui run: give the agent command after --, e.g. "
                     "kandev-tui run --headless --prompt hi -- python -m kandev_tui.demo.agent, or --preset NAME, or "
                     "--resume SESSION", EXIT_USAGE)
    if args.headless and not args.prompt:
        return _fail("kandev-tui run: --headless needs --prompt TEXT", EXIT_USAGE)
    if args.worktree and args.headless:
        return _fail("kandev-tui run: --worktree starts sessions in the app, not with --headless (give a worktree's "
                     "folder as --workspace)", EXIT_USAGE)
    if args.worktree and (args.resume is not None or args.pick):
        return _fail("kandev-tui run: --resume and --pick continue a session where it ran, not in a new --worktree",
                     EXIT_USAGE)
    agents = _preset_agents(args, settings) if args.preset else [(command, None, None)]
    if isinstance(agents, str):
        return _fail(agents, EXIT_USAGE)
    for agent_command, _env, _where in agents:
        if agent_command and "/" in agent_command[0] and not os.path.isabs(agent_command[0]):
            agent_command[0] = os.path.abspath(agent_command[0])  # the agent starts in the workspace, not here
    with open_store(args) as store:
        if not agents[0][0]:  # --resume SESSION and no agent command: the one the session was run with
            agents = [(_stored_agent(store, args.resume), None, None)]
        command = agents[0][0]
        workspace = _workspace(args) if agents[0][2] is None else _workspace_at(agents[0][2], args)
        return _run_with(args, settings, agents, command, workspace, store)


def _stored_agent(store: Any, wanted: str) -> list[str]:
    """The agent command the stored session ``wanted`` ran with (``run --resume SESSION`` without one); Failure:
    why it cannot be continued."""
    from kandev_tui.transcript.continuing import why_not

    session = _resumable(store, [], wanted)
    if not session.get("agent_command"):
        raise Failure(f"kandev-tui run --resume: {why_not(session)}; give the agent command after --")
    return list(session["agent_command"])


def _run_with(args: argparse.Namespace, settings: Any, agents: list[Any], command: list[str], workspace: Any,
              store: Any) -> int:
    """``run`` once its workspace and store are open."""
    from kandev_tui.acp import parse_mcp_config
    from kandev_tui.sources.runner import run_headless

    extra_servers = []
    if args.mcp_config:
        try:
            data = read_json(args.mcp_config)
        except Unreadable as exc:  # "PATH: reason"
            raise UsageError(f"kandev-tui run: --mcp-config {exc}") from None
        except BadJson as exc:
            raise UsageError(f"kandev-tui run: --mcp-config {args.mcp_config}: {exc}") from None
        try:
            extra_servers = parse_mcp_config(data)
        except ValueError as exc:
            return _fail(f"kandev-tui run: --mcp-config {args.mcp_config}: {exc}", EXIT_USAGE)
    if args.pick and args.headless:
        return _fail("kandev-tui run: --pick lists the agent's sessions to choose from in the app; with --headless "
                     "give --resume SESSION", EXIT_USAGE)
    continuing = None
    if args.resume is not None:
        continuing = _resumable(store, command, args.resume)
        if args.workspace is None and continuing.get("workspace"):  # where the session ran, unless told otherwise
            from kandev_tui.transcript.continuing import folder_gone

            if gone := folder_gone(continuing):  # a worktree removed on close
                raise UsageError(f"kandev-tui run: {gone}: open it read-only with kandev-tui open "
                                 f"{continuing['id']}, or continue it in another folder with --workspace DIR")
            workspace = _workspace_at(continuing["workspace"], args)

    from kandev_tui.sources.launch import Launcher

    launcher = Launcher(store, settings, extra_servers, inject_guidance=not args.no_guidance and
                        settings.settings.inject_guidance, init_timeout=args.init_timeout,
                        asked=_asked_choices(args))
    record = Path(args.record).expanduser().absolute() if args.record else None  # stored: found from anywhere
    if not args.headless:
        places = [workspace, *(workspace if where is None else _workspace_at(where, args) for _c, _e, where in agents[1:])]
        worktrees = _worktrees(args, places) if args.worktree else [None] * len(agents)
        places = [place if tree is None else _workspace_at(str(tree.workspace), args)
                  for place, tree in zip(places, worktrees)]
        factories = [launcher.factory(command, places[0], agents[0][1], record=record, continuing=continuing,
                                      pick=args.pick)]
        for (agent_command, env, _where), place in zip(agents[1:], places[1:]):
            factories.append(launcher.factory(agent_command, place, env))
        return _run_app(args, store, factories, initial_prompt=args.prompt, settings=settings, launcher=launcher,
                        worktrees=worktrees)
    options, choices = launcher.options(command, workspace, agents[0][1], continuing=continuing)
    code, reason, _session = run_headless(options, args.prompt, store, record=record, permission=args.permission,
                                          choices=choices, continuing=continuing, asked=frozenset(_asked_choices(args)))
    if code:
        return _fail(f"kandev-tui run: {reason}", code)
    return EXIT_OK


def _worktrees(args: argparse.Namespace, places: list[Any]) -> list[Any]:
    """--worktree: a new worktree for each session, on a branch named after its preset (kandev/demo-1,
    kandev/demo-2…), made once the app can open; none is left behind when one of them cannot be made (UsageError:
    why, in one line)."""
    from kandev_tui.workspace.worktree import WorktreeError, close, create, repository_root, suggest_branch

    problem = _no_terminal()
    if problem:  # said by the app's start, before anything is made
        return [None] * len(places)
    names = args.preset or ["agent"]
    made: list[Any] = []
    try:
        for place, name in zip(places, names):
            made.append(create(place.root, suggest_branch(repository_root(place.root), name)))
    except WorktreeError as exc:
        for tree in made:
            close(tree)
        raise UsageError(f"kandev-tui run: --worktree: {exc}") from None
    return made


def _asked_choices(args: argparse.Namespace) -> dict[str, str]:
    """What ``run`` was asked to choose at the start: ``--mode``, ``--model``, each ``--option``."""
    from kandev_tui.session.agent import OPTION

    asked = {k: v for k, v in (("mode", args.mode), ("model", args.model)) if v}
    return {**asked, **{OPTION + option_id: value for option_id, value in args.option}}


def _preset_agents(args: argparse.Namespace, settings: Any) -> list[tuple[list[str], dict[str, str] | None, str | None]] | str:
    """The agents the --preset options name: (command, environment added, workspace) each, or why not."""
    from kandev_tui.base.userpaths import not_a_directory

    known, warnings = settings.presets()
    for warning in warnings:
        print(f"kandev-tui: warning: {warning}", file=sys.stderr)
    for name in args.preset:
        if name not in known and isinstance(settings.preset_table, dict) and name in settings.preset_table:  # in the
            # file, but left out (the warning says why)
            return f"kandev-tui run: --preset {name}: its [presets.{name}] table in {settings.path} cannot be used " \
                   "(see the warning above)"
        if name not in known and settings.unreadable:  # its table may be in the file
            return (f"kandev-tui run: --preset {name}: no such preset: {settings.path} could not be read "
                    f"({settings.unreadable}), and the built-in ones are {', '.join(sorted(known))}")
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
            problem = not_a_directory(Path(where))
            if problem:  # said as the preset's (no --workspace was given)
                return f"kandev-tui run: --preset {name}: its workspace {where}: {problem} (in {settings.path})"
        agents.append((list(preset.command), dict(preset.env) or None, where))
    return agents


def cmd_home(args: argparse.Namespace) -> int:
    """The bare ``kandev-tui`` in a terminal: the app on the sessions list (stored sessions to open or continue,
    ctrl+n for a new one from a preset)."""
    from kandev_tui.app.home import HomeApp
    from kandev_tui.sources.launch import Launcher
    from kandev_tui.base.settings import SettingsStore

    settings = SettingsStore()
    with open_store(args) as store:
        _log_to_file(Path(store.path).parent / "logs" / "kandev-tui.log")
        size_from_the_terminal()
        app = HomeApp(Launcher(store, settings, inject_guidance=settings.settings.inject_guidance),
                      settings_store=settings)
        app.run()
    return app_exit_status(app)


def cmd_demo(args: argparse.Namespace) -> int:
    from kandev_tui.demo import agent_command, prepare_workspace
    from kandev_tui.sources.launch import Launcher
    from kandev_tui.base.settings import SettingsStore
    from kandev_tui.workspace.reads import Workspace

    problem = _no_terminal()  # before anything is made
    if problem:
        return _fail(problem, EXIT_USAGE)
    from kandev_tui.demo import SCENARIOS
    from kandev_tui.base.shutdown import scratch_directory

    # the sample workspace's copy: removed on exit, whatever ends the process (a signal after the app gave its
    # handlers back too)
    with scratch_directory("kandev-demo-") as scratch, open_store(args) as store:
        workspace = prepare_workspace(scratch / "demo-service", repository=True)  # its changes card and review
        settings = SettingsStore()
        launcher = Launcher(store, settings, inject_guidance=settings.settings.inject_guidance)
        return _run_app(args, store, launcher.factory(agent_command(args.scenario), Workspace(workspace)),
                        initial_prompt=SCENARIOS[args.scenario], settings=settings, launcher=launcher)


def add_arguments(commands: Any) -> None:
    """The parsers of 'demo', 'run' (``commands``: the top level's subparsers)."""
    demo = commands.add_parser(
        "demo", help="open the app on the built-in demo agent (offline, no API key)",
        description="Start the built-in demo agent on a fresh copy of its sample workspace and send its first "
                    "prompt, so you see streaming Markdown, tool groups, a permission request and native charts.")
    demo.add_argument("--scenario", choices=("build", "fleet"), default="build",
                      help="build: a build-health check with charts (default); fleet: an operations session whose "
                           "MCP tools render as the fleet cards (entity, health, tables, metrics, timelines)")
    _add_app_options(demo)
    demo.set_defaults(run=cmd_demo)

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
    run.add_argument("--worktree", action="store_true",
                     help="start each session in a new git worktree of the workspace's repository, on a new branch "
                          "(kandev/PRESET-N), so that agents given one task never edit each other's files; closing "
                          "a session removes its worktree unless something in it is uncommitted (then it is kept "
                          "and said where)")
    _add_workspace_options(run, "the agent's working directory and the MCP server's workspace (default: .)")
    run.add_argument("--permission", choices=["reject", "allow-once"], default="reject",
                     help="headless answer to permission requests (default: reject)")
    run.add_argument("--record", metavar="FILE", action=Checked, check=output_file(new=True), help="write every JSON-RPC frame, both directions, to FILE (JSONL; "
                     "a new file: an existing one is never replaced)")
    run.add_argument("--no-guidance", action="store_true",
                     help="do not give the agent the rich-output guidance (given as its system prompt where it takes "
                          "one, else before the first prompt)")
    run.add_argument("--mcp-config", metavar="FILE", help="more MCP servers to offer the agent: a JSON list of "
                     "{name, command, args, env} (stdio) or {type: http|sse, name, url, headers} entries")
    run.add_argument("--init-timeout", action=Checked, check=positive_number("a number of seconds"), default=30.0, metavar="SECONDS",
                     help="how long the agent may take to answer initialize (default: 30)")
    run.add_argument("--mode", metavar="ID", help="the agent's mode to start in (e.g. Codex: read-only, "
                     "workspace-write; Claude: default, acceptEdits, plan); the app's picker (ctrl+o) lists them")
    run.add_argument("--model", metavar="ID", help="the model to start with: a value of the agent's model option "
                     "(Codex: gpt-5.5) or an id of its model list (gpt-5.5[xhigh], effort included)")
    run.add_argument("--option", default=[], action=Checked, check=agent_option, append=True, metavar="ID=VALUE",
                     help="one of the agent's options to start with, by its id (repeatable; e.g. Codex: "
                          "collaboration_mode=plan); the app's picker (ctrl+o) lists them")
    resume = run.add_mutually_exclusive_group()
    resume.add_argument("--resume", nargs="?", const="", default=None, metavar="SESSION",
                        help="continue a stored session with the agent's own session (session/resume, else "
                             "session/load), with the agent command it ran with unless one follows --; without "
                             "SESSION, the newest one of this agent command that can ('kandev-tui sessions' says "
                             "which can)")
    resume.add_argument("--pick", action="store_true", help="choose one of the agent's own sessions in this workspace "
                        "(session/list) and continue it (in the app)")
    _add_app_options(run)
    run.add_argument("agent", nargs=argparse.REMAINDER, metavar="-- AGENT_CMD [ARGS...]", help="the agent command")
    run.set_defaults(run=cmd_run)
