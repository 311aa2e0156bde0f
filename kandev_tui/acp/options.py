"""What starting an agent takes, headless: its options, the MCP servers it is offered (kandev-tui's own first), its
ways to log in as kandev-tui reads them, the errors a start can end in, and the headless permission policies."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable

from kandev_tui.base.presets import python_child
from kandev_tui.base.settings import Settings

PermissionHandler = Callable[[dict[str, Any]], Awaitable[str | None]]
# a question (elicitation/create) asked of the user: the response ({"action": ...}), or None (cancelled)
ElicitationHandler = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | None]]


class AgentError(Exception):
    """The agent could not be started or stopped answering; ``str()`` says what happened."""


class LoginRequired(AgentError):
    """The agent cannot start a session until the user logs in: ``methods`` are the ways it offers (its
    ``authMethods``: ``{id, name, description, type?, vars?, args?, env?}``). The agent is still running, so that
    an ``agent`` method can be called (:meth:`AgentClient.authenticate`) and the session tried again."""

    def __init__(self, message: str, methods: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.methods = methods


AUTH_REQUIRED = -32000  # JSON-RPC error code of ACP's "Authentication required"


def request_error_text(exc: BaseException) -> str:
    """A JSON-RPC error as one line: its message, and what its ``data`` adds (``details``, ``message``, text)."""
    message = str(exc) or "error"
    data = getattr(exc, "data", None)
    detail = None
    if isinstance(data, dict):
        detail = next((data[k] for k in ("details", "detail", "message", "error") if isinstance(data.get(k), str)), None)
    elif isinstance(data, str):
        detail = data
    if detail and detail.strip() and detail.strip() not in message:
        message = f"{message}: {' '.join(detail.split())[:300]}"
    return message


def describe(exc: BaseException) -> str:
    """Why a request to the agent failed, in one line: its JSON-RPC error, a connection it closed, else the
    exception."""
    if type(exc).__name__ == "RequestError":
        return request_error_text(exc)
    if isinstance(exc, ConnectionError):
        return "the agent closed the connection"
    return f"{type(exc).__name__}: {exc}"


# what the user can do when the agent takes longer than kandev-tui waits (a first `npx -y` downloads the agent)
WAIT_LONGER = "; --init-timeout SECONDS waits longer (an agent's first start may download it)."
NOT_ACP = "(is it an ACP agent, or the command that starts one?)"


def initialize_failure(options: "AgentOptions", reason: str | None, *, echoed: bool, wrote_only: str | None,
                       silent: bool = False) -> str:
    """What to say when ``initialize`` failed: ``reason`` why (None: it was not answered in time); ``echoed``: the
    command sent kandev-tui's own request back (cat); ``wrote_only``: the first line of a command that wrote only
    lines that are not JSON-RPC (ls, yes, a CLI's help), quoted as JSON, so that none of it reaches a terminal as a
    control sequence; ``silent``: it ended without writing a line on its output (true, a script that does something
    else)."""
    command = " ".join(options.command)[:200]
    if silent:
        return f"{command} ended without writing a line on its output, before it answered initialize {NOT_ACP}"
    if wrote_only is not None:
        said = f"{command} wrote only lines that are not JSON-RPC (the first: {json.dumps(wrote_only, ensure_ascii=False)})"
        if reason is None:
            return (f"{said} in {options.init_timeout:g} s, and no answer to initialize: is it an ACP agent, or the "
                    "command that starts one? If it is one, --init-timeout SECONDS waits longer.")
        return f"{said}, and ended without answering initialize: it does not speak ACP {NOT_ACP}"
    if reason is None:
        return f"The agent did not answer initialize within {options.init_timeout:g} s{WAIT_LONGER}"
    if echoed:
        return f"{command} does not speak ACP: it sent kandev-tui's own initialize back {NOT_ACP}"
    return f"The agent failed during initialize: {reason}"


@dataclass
class AgentOptions:
    """How to start and talk to one agent."""

    command: list[str]
    workspace: Path
    repos: dict[str, Path] = field(default_factory=dict)
    log_path: Path | None = None
    inject_guidance: bool = True
    extra_mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    init_timeout: float = 30.0
    cancel_grace: float = 10.0
    env: dict[str, str] | None = None
    # continue the agent's own session with this id (session/resume where offered, else session/load)
    resume: str | None = None
    # the history a loaded session replays is stored already (kandev-tui's own session continued): not shown again
    history_stored: bool = False
    # what kandev-tui offers to do for the agent (ACP client capabilities): read and write the workspace's files,
    # run commands in terminals of its own
    fs_read: bool = True
    fs_write: bool = True
    terminals: bool = True
    # what kandev-tui does beside the agent: each turn in a git workspace recorded, and what it changed said (the
    # settings track_changes and checkpoint_days: kandev_tui/workspace/turn_changes.py)
    track_changes: bool = True
    checkpoint_days: int = 30
    # whether the reader of the agent's output pauses for now (asked from the reader's thread): the app's, while the
    # user's input is on its way to the screen (kandev_tui/ui/user_input.py)
    gives_way: Callable[[], bool] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_settings(cls, settings: Settings, command: list[str], workspace: Path, **given: Any) -> AgentOptions:
        """Options for ``command`` in ``workspace`` with what the user's settings say of every agent: the guidance,
        what kandev-tui offers to do for it (client_fs_read, client_fs_write, client_terminals) and beside it
        (track_changes, checkpoint_days). What is ``given`` wins (a command-line flag, a continued session)."""
        said: dict[str, Any] = {"inject_guidance": settings.inject_guidance, "fs_read": settings.client_fs_read,
                                "fs_write": settings.client_fs_write, "terminals": settings.client_terminals,
                                "track_changes": settings.track_changes, "checkpoint_days": settings.checkpoint_days}
        return cls(command=list(command), workspace=workspace, **{**said, **given})


def kandev_mcp_server(workspace: Path, repos: dict[str, Path]) -> dict[str, Any]:
    """The stdio entry offering kandev-tui's own MCP server (``kandev-tui mcp``)."""
    python, *args = python_child("-m", "kandev_tui", "mcp", "--workspace", str(workspace), "--profile", "task")
    for name, path in repos.items():
        args += ["--repo", f"{name}={path}"]
    return {"name": "kandev", "command": python, "args": args, "env": []}


def parse_mcp_config(data: Any) -> list[dict[str, Any]]:
    """User MCP servers from JSON (a list, or ``{"mcpServers": [...]}``) as ACP ``session/new`` entries.

    A stdio entry is ``{name, command, args?, env?}`` (``env`` as ``[{name, value}]`` or an
    object); an http/sse entry is ``{type, name, url, headers?}``. ValueError says what is wrong.
    """
    if isinstance(data, dict) and "mcpServers" in data:
        data = data["mcpServers"]
    if not isinstance(data, list):
        raise ValueError("expected a JSON list of MCP servers")
    servers = []
    for index, entry in enumerate(data):
        where = f"server {index + 1}"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"].strip():
            raise ValueError(f"{where}: needs a name")
        kind = entry.get("type")
        if kind in ("http", "sse"):
            if not isinstance(entry.get("url"), str):
                raise ValueError(f"{where} ({entry['name']}): an {kind} server needs a url")
            headers = entry.get("headers") or []
            if isinstance(headers, dict):
                headers = [{"name": k, "value": str(v)} for k, v in headers.items()]
            servers.append({"type": kind, "name": entry["name"], "url": entry["url"], "headers": headers})
            continue
        if kind not in (None, "stdio") or not isinstance(entry.get("command"), str):
            raise ValueError(f"{where} ({entry['name']}): a stdio server needs a command")
        args = entry.get("args") or []
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ValueError(f"{where} ({entry['name']}): args must be a list of strings")
        env = entry.get("env") or []
        if isinstance(env, dict):
            env = [{"name": k, "value": str(v)} for k, v in env.items()]
        if not isinstance(env, list) or not all(isinstance(e, dict) and "name" in e and "value" in e for e in env):
            raise ValueError(f"{where} ({entry['name']}): env must be an object or a list of {{name, value}}")
        servers.append({"name": entry["name"], "command": entry["command"], "args": args, "env": env})
    return servers


def mcp_capabilities(agent_caps: dict[str, Any]) -> dict[str, Any]:
    caps = agent_caps.get("mcpCapabilities")
    return caps if isinstance(caps, dict) else {}


def mcp_servers_for(options: AgentOptions, agent_caps: dict[str, Any],
                    ours: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Our server first (``ours``, else :func:`kandev_mcp_server`), then the user's; stdio always, http/sse only if
    the agent says it can; first entry per name."""
    mcp_caps = mcp_capabilities(agent_caps)
    servers, seen = [], set()
    for entry in [ours or kandev_mcp_server(options.workspace, options.repos), *options.extra_mcp_servers]:
        name = entry.get("name")
        kind = entry.get("type")
        if not isinstance(name, str) or name in seen:
            continue
        if kind in ("http", "sse") and not mcp_caps.get(kind):
            continue
        seen.add(name)
        servers.append(entry)
    return servers


def _tail(path: Path | None, lines: int = 12) -> list[str]:
    if path is None or not path.exists():
        return []
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - 16384))
        data = handle.read().decode("utf-8", "replace")
    return [line for line in data.splitlines() if line.strip()][-lines:]


def login_method(method: dict[str, Any]) -> dict[str, Any]:
    """One of the agent's ``authMethods``, read in any of its forms: a login run in the user's terminal may be the
    stable ``type: "terminal"`` (the agent's own command with ``args`` and ``env``), only
    ``_meta["terminal-auth"]`` (Zed's form: ``{command, args, env, label}``, the command its own), or
    ``_meta: {type: "terminal", args}``; each becomes
    ``type: "terminal"`` with ``args``, ``env`` (a dict) and, when the agent names one, ``command``."""
    meta = method.get("_meta")
    marked = meta.get("terminal-auth") if isinstance(meta, dict) else None
    if not isinstance(marked, dict) and isinstance(meta, dict) and meta.get("type") == "terminal":
        marked = {"args": meta.get("args"), "env": meta.get("env")}  # the type itself in _meta (Qwen Code)
    if not isinstance(marked, dict) or method.get("type") not in (None, "agent", "terminal"):
        return method
    found = {**method, "type": "terminal"}
    command = marked.get("command")
    if isinstance(command, str) and command.strip():
        found["command"] = command
    if isinstance(marked.get("args"), list):
        found["args"] = [a for a in marked["args"] if isinstance(a, str)]
    env = marked.get("env")
    if isinstance(env, list):  # [{name, value}], as ACP spells environments elsewhere
        env = {e.get("name"): e.get("value") for e in env if isinstance(e, dict)}
    if isinstance(env, dict):
        found["env"] = {k: v for k, v in env.items() if isinstance(k, str) and isinstance(v, str)}
    if not method.get("name") and isinstance(marked.get("label"), str):
        found["name"] = marked["label"]
    return found


def headless_permission_policy(policy: str) -> PermissionHandler:
    """``reject``: pick a reject option (or cancel); ``allow-once``: pick allow_once (or cancel)."""
    wanted = {"reject": ("reject_once", "reject_always"), "allow-once": ("allow_once",)}[policy]

    async def answer(params: dict[str, Any]) -> str | None:
        for kind in wanted:
            for option in params.get("options") or []:
                if isinstance(option, dict) and option.get("kind") == kind:
                    return option.get("optionId")
        return None

    return answer


async def install_adapter(command: list[str], note: Callable[[str], None], fail: Callable[..., None]) -> None:
    """A built-in preset's adapter, run from kandev-tui's cache, installed there first when it is missing (``note``
    says so: the first start takes a while); when the install fails, ``fail`` is told the reason, which ends the
    turn, and :class:`AgentError` is raised with it."""
    import asyncio

    from kandev_tui.base.presets import InstallError, cached_adapter, install_missing

    adapter = cached_adapter(command[0]) if command else None
    if adapter is None or os.path.exists(command[0]):
        return
    note(f"Installing {adapter[0]} {adapter[1]} into kandev-tui's cache (once; npm may take a minute)…")
    try:
        await asyncio.to_thread(install_missing, command)
    except InstallError as exc:
        fail(f"Could not start the agent: {exc}", ends_turn=True)
        raise AgentError(f"Could not start the agent: {exc}") from None


def agent_env(env: dict[str, str] | None) -> dict[str, str]:
    """The agent's environment (kandev-tui's own when the options give none) with a ``PATH`` that has no relative
    entries: the agent starts in the workspace, where ``.`` in ``PATH`` would find its command, or the ``node`` its
    script asks for, in the workspace itself."""
    from kandev_tui.base.presets import trusted_path

    base = dict(os.environ if env is None else env)
    return {**base, "PATH": trusted_path(base.get("PATH"))}
