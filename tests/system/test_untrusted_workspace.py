"""The workspace is untrusted (docs/security.md): the git, Python and npx that kandev-tui runs for itself never run
code or take configuration from it. Each attack is tried first with the plain tool, to show the trap is real, then
through kandev-tui's own entry, which must not spring it."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kandev_tui.base.presets import PINNED_ADAPTERS, builtin_presets, python_child
from kandev_tui.mcp.hub import McpHub
from kandev_tui.screens.review import _show
from kandev_tui.workspace import checkpoints, worktree
from kandev_tui.workspace.reads import workspace_files

from ..support.git import plain_git, trap

KANDEV = str(Path(sys.executable).with_name("kandev-tui"))


@pytest.fixture
def hostile_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose own configuration and hooks run code everywhere git lets them (what an agent that could
    write .git/config would have set), and a folder where each trap leaves a file named after it."""
    marks = tmp_path / "marks"
    marks.mkdir()
    root = tmp_path / "repo"
    root.mkdir()
    plain_git("init", "-q", "-b", "main", cwd=root)
    (root / "a.txt").write_text("one\n")
    (root / "b.txt").write_text("two\n")
    (root / "d.bin").write_text("bin\n")
    plain_git("add", ".", cwd=root)
    plain_git("commit", "-q", "-m", "first", cwd=root)
    gpg = tmp_path / "gpg"
    gpg.write_text(f"#!/bin/sh\ntouch {marks}/gpg\nexit 1\n")
    gpg.chmod(0o755)
    with open(root / ".git" / "config", "a") as config:
        config.write(f"""[core]
\tfsmonitor = "touch {marks}/fsmonitor; false"
[filter "evil"]
\tclean = "{trap(marks / 'clean')}"
\tsmudge = "{trap(marks / 'smudge')}"
\trequired = true
[filter "long"]
\tprocess = "touch {marks}/process"
[filter "dotted.name=x"]
\tclean = "{trap(marks / 'clean-dotted')}"
[diff "evil"]
\ttextconv = "touch {marks}/textconv; cat"
[commit]
\tgpgSign = true
[gpg]
\tprogram = {gpg}
""")
    (root / ".gitattributes").write_text("*.txt filter=evil diff=evil\nb.txt filter=dotted.name=x\n*.bin filter=long\n")
    hooks = root / ".git" / "hooks"
    for hook in ("reference-transaction", "post-checkout", "pre-commit", "post-commit", "post-index-change",
                 "pre-auto-gc"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {marks}/hook-{hook}\n")
        (hooks / hook).chmod(0o755)
    return root, marks
@pytest.mark.reliability("Untrusted workspace", "a repository whose config runs code (fsmonitor, hooks, clean/smudge/"
                         "process filters, textconv, signing) through every git call of kandev-tui", cases=9,
                         held="no trap sprang; plain git springs them")
def test_kandev_tuis_git_never_runs_the_repositorys_code(hostile_repo, tmp_path, monkeypatch):
    root, marks = hostile_repo
    control = tmp_path / "control"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(root), str(control)], check=True, capture_output=True)
    # the trap is real: plain git, in a copy with the same configuration, springs it
    (control / ".git" / "config").write_text((root / ".git" / "config").read_text())
    (control / ".gitattributes").write_text("*.txt filter=evil\n")
    (control / "a.txt").write_text("changed\n")
    plain_git("status", cwd=control)
    plain_git("add", "a.txt", cwd=control)
    assert {"fsmonitor", "clean"} <= {p.name for p in marks.iterdir()}, "the control did not spring the traps"
    for mark in marks.iterdir():
        mark.unlink()

    (root / "a.txt").write_text("changed by the agent\n")
    (root / "c.txt").write_text("new\n")
    (root / "d.bin").write_text("bin, changed\n")
    start = checkpoints.take(checkpoints.repository(root), "refs/kandev-tui/s/1-start")
    (root / "b.txt").write_text("two, changed\n")
    end = checkpoints.take(root, "refs/kandev-tui/s/1-end")
    changed = checkpoints.changes(root, start.commit, end.commit)
    assert [change.path for change in changed.files] == ["b.txt"]  # a.txt, c.txt, d.bin: changed before the start
    assert _show(str(root), end.commit, "b.txt") == "two, changed\n"  # the review screen's read
    checkpoints.restore(root, start.commit, ["b.txt"], "refs/kandev-tui/s/2-restore")
    assert (root / "b.txt").read_text() == "two\n"
    assert checkpoints.refs(root, "s")
    checkpoints.remove(root, [name for name, *_ in checkpoints.refs(root, "s")])
    assert "a.txt" in workspace_files(root)  # the prompt's @ completion
    listed = subprocess.run([KANDEV, "checkpoints", "--workspace", str(root)], capture_output=True, text=True,
                            timeout=60)
    assert listed.returncode in (0, 1), listed.stderr
    monkeypatch.setenv("KANDEV_TUI_WORKTREES", str(tmp_path / "worktrees"))
    made = worktree.create(root, "kandev/probe")
    assert (made.path / "a.txt").exists()
    worktree.close(made)
    assert sorted(p.name for p in marks.iterdir()) == []
@pytest.mark.reliability("Untrusted workspace", "a folder made to look like a bare repository (HEAD, config, objects/, "
                         "refs/ written at its root, with a core.worktree and an fsmonitor)", cases=2,
                         held="not taken for a repository; its fsmonitor never ran")
def test_a_folder_made_to_look_like_a_bare_repository_is_no_repository_to_kandev_tui(tmp_path):
    marks = tmp_path / "marks"
    marks.mkdir()
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / "objects").mkdir()
    (folder / "refs").mkdir()
    (folder / "config").write_text(f'[core]\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch {marks}/fsmonitor; '
                                   'false"\n[core]\n\trepositoryformatversion = 0\n')
    (folder / "notes.txt").write_text("x\n")
    plain_git("ls-files", "--others", cwd=folder)
    assert (marks / "fsmonitor").exists(), "the control: plain git takes the folder for a repository"
    (marks / "fsmonitor").unlink()

    with pytest.raises(checkpoints.Unavailable):
        checkpoints.repository(folder)
    assert "notes.txt" in workspace_files(folder)  # the plain walk, as for any folder that is no repository
    assert list(marks.iterdir()) == []


@pytest.fixture
def trap_package(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace holding a ``kandev_tui`` package of its own, whose import leaves a mark."""
    workspace = tmp_path / "ws"
    mark = tmp_path / "imported"
    for module in ("kandev_tui/__init__.py", "kandev_tui/__main__.py", "kandev_tui/demo/__init__.py",
                   "kandev_tui/demo/agent.py"):
        (workspace / module).parent.mkdir(parents=True, exist_ok=True)
        (workspace / module).write_text(f"open({str(mark)!r}, 'a').write(__name__ + '\\n')\n")
    return workspace, mark
@pytest.mark.reliability("Untrusted workspace", "a kandev_tui package in the workspace, in the way of kandev-tui's own "
                         "Python children (the demo agent, the MCP server offered to agents, a serve tab)", cases=3,
                         held="the installed package ran in each")
def test_kandev_tuis_python_children_never_import_the_workspaces_kandev_tui(trap_package, tmp_path):
    workspace, mark = trap_package
    subprocess.run([sys.executable, "-m", "kandev_tui", "--version"], cwd=workspace, capture_output=True, timeout=60)
    assert mark.exists(), "the control: python -m in the workspace imports its copy"
    mark.unlink()

    demo = list(builtin_presets()["demo"].command)
    hub = McpHub(workspace, {}, lambda frame: None)
    entry = hub.stdio_entry()
    mcp = [entry["command"], *entry["args"]]
    from kandev_tui.cli.serve import tab_command

    tab = ["sh", "-c", tab_command(["--version"])]
    for command in (demo, mcp, tab, list(python_child("-m", "kandev_tui", "--version"))):
        done = subprocess.run(command, cwd=workspace, capture_output=True, text=True, timeout=60, input="")
        assert not mark.exists(), f"{command} imported the workspace's kandev_tui"
        assert "Traceback" not in done.stderr, done.stderr
    version = subprocess.run(tab, cwd=workspace, capture_output=True, text=True, timeout=60)
    assert version.stdout.startswith("kandev-tui "), version


def initialize_answer(command: list[str], cwd: Path, env: dict[str, str]) -> dict:
    """The agent's answer to ACP ``initialize``, asked over its stdin."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": 1, "clientCapabilities": {}}}
    process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        for line in process.stdout:
            if line.strip().startswith("{") and json.loads(line).get("id") == 1:
                return json.loads(line)
        return {"exited": process.wait(), "stderr": process.stderr.read() if process.stderr else ""}
    finally:
        if process.poll() is None:
            os.killpg(process.pid, 9)
        process.wait()
@pytest.mark.reliability("Untrusted workspace", "a workspace node_modules holding a trap copy of a preset's adapter, "
                         "and a .npmrc naming another registry", cases=1,
                         held="the pinned adapter from kandev-tui's cache answered initialize, offline")
def test_a_builtin_presets_adapter_is_never_taken_from_the_workspace(tmp_path):
    from ..support.real_agents import CACHE, Unavailable, adapter, unshare_command

    try:
        adapter("claude")  # the suite's pinned adapters, installed with npm into its cache
        unshare = unshare_command()
    except Unavailable as exc:
        pytest.skip(str(exc))
    package, version, program, _ = PINNED_ADAPTERS["claude"]
    workspace = tmp_path / "ws"
    mark = tmp_path / "trap-ran"
    trap_dir = workspace / "node_modules" / package
    (trap_dir / "bin").mkdir(parents=True)
    (trap_dir / "package.json").write_text(json.dumps({"name": package, "version": version,
                                                       "bin": {"claude-agent-acp": "bin/trap.js"}}))
    (trap_dir / "bin" / "trap.js").write_text(f"#!/usr/bin/env node\nrequire('fs').writeFileSync({str(mark)!r}, 'x')\n")
    (trap_dir / "bin" / "trap.js").chmod(0o755)
    (workspace / "node_modules" / ".bin").mkdir()
    (workspace / "node_modules" / ".bin" / "claude-agent-acp").symlink_to(trap_dir / "bin" / "trap.js")
    (workspace / "package.json").write_text(json.dumps({"name": "ws", "dependencies": {package: version}}))
    (workspace / ".npmrc").write_text("registry=http://127.0.0.1:9/\n")
    env = {**os.environ, "IS_SANDBOX": "1"}
    subprocess.run(["npx", "-y", package], cwd=workspace, env=env, capture_output=True, timeout=120,
                   stdin=subprocess.DEVNULL)
    assert mark.exists(), "the control: npx in the workspace runs its copy"
    mark.unlink()

    # kandev-tui's cache, here holding the suite's install of the adapter; offline, so nothing is fetched
    cache_home = tmp_path / "cache"
    (cache_home / "kandev-tui" / "adapters").mkdir(parents=True)
    (cache_home / "kandev-tui" / "adapters" / f"{package.replace('/', '+')}@{version}").symlink_to(CACHE)
    env = {**env, "XDG_CACHE_HOME": str(cache_home)}
    command = subprocess.run([sys.executable, "-c", "import json, sys; from kandev_tui.base.presets import "
                              "builtin_presets; print(json.dumps(builtin_presets()['claude'].command))"],
                             env=env, capture_output=True, text=True, check=True).stdout
    answer = initialize_answer([*unshare, *json.loads(command)], workspace, env)
    assert not mark.exists()
    assert answer.get("result", {}).get("protocolVersion") == 1, answer
def test_an_adapter_missing_from_the_cache_is_installed_whole_or_not_at_all(tmp_path, monkeypatch):
    """npm installs into a folder beside the adapter's, renamed into place when whole; a failed install says why in
    one line and leaves nothing. (A small real package stands in for an adapter: the install is the same.)"""
    from kandev_tui.base.presets import InstallError, adapter_command, adapters_cache, cached_adapter, install_missing

    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".npmrc").write_text("registry=http://127.0.0.1:9/\n")  # never read: npm runs in the cache
    monkeypatch.chdir(workspace)
    command = adapter_command("cowsay", "1.6.0", "cowsay", "hi")
    assert cached_adapter(command[0]) == ("cowsay", "1.6.0", adapters_cache() / "cowsay@1.6.0")
    assert install_missing(command) == "cowsay@1.6.0"
    said = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert "< hi >" in said.stdout
    assert install_missing(command) is None  # there: nothing to do
    with pytest.raises(InstallError, match=r"npm could not install cowsay@0\.0\.0-none: .*"):
        install_missing(adapter_command("cowsay", "0.0.0-none", "cowsay"))
    assert sorted(p.name for p in adapters_cache().iterdir()) == ["cowsay@1.6.0"]
    assert cached_adapter("/usr/bin/cowsay") is None
@pytest.mark.reliability("Data at rest", "a umask of 000, and a data folder an older version made 0755", cases=2,
                         held="the data folder and logs folder 0700; the database, the agent's log and the recording "
                              "0600")
def test_what_kandev_tui_stores_is_private_whatever_the_umask(tmp_path):
    data = tmp_path / "data"
    (data / "kandev-tui").mkdir(parents=True)
    (data / "kandev-tui").chmod(0o755)
    record = tmp_path / "turn.jsonl"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    command = shlex.join([KANDEV, "run", "--headless", "--prompt", "hello", "--permission", "reject", "--record",
                          str(record), "--workspace", str(workspace), "--", *builtin_presets()["demo"].command])
    env = {**os.environ, "XDG_DATA_HOME": str(data), "KANDEV_DEMO_DELAY": "0"}
    env.pop("KANDEV_TUI_DB", None)
    done = subprocess.run(["sh", "-c", f"umask 000 && exec {command}"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr

    def mode(path: Path) -> int:
        return path.stat().st_mode & 0o777

    folder = data / "kandev-tui"
    logs = list((folder / "logs").iterdir())
    assert mode(folder) == 0o700 and mode(folder / "logs") == 0o700
    assert mode(folder / "sessions.db") == 0o600 and mode(record) == 0o600
    assert logs and all(mode(log) == 0o600 for log in logs)
    assert all(mode(path) & 0o077 == 0 for path in folder.iterdir())  # the database's -wal and -shm too
@pytest.mark.reliability("Secrets", "attach's Kandev token: given with --token (in every process's view), from "
                         "--token-file, from a file that is missing or empty", cases=3,
                         held="--token warned of; the file's token sent as the bearer; a bad file one line, exit 2")
def test_attach_takes_its_token_from_a_file_and_warns_of_one_on_the_command_line(tmp_path):
    import threading

    from websockets.sync.server import serve

    seen: list[str] = []

    def handler(connection) -> None:
        seen.append(connection.request.headers.get("Authorization", ""))
        connection.close()

    with serve(handler, "127.0.0.1", 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"ws://127.0.0.1:{server.socket.getsockname()[1]}/ws"
        token_file = tmp_path / "token"
        token_file.write_text("kdv_from_the_file\n")
        token_file.chmod(0o600)
        env = {k: v for k, v in os.environ.items() if k != "KANDEV_TOKEN"}
        from_file = subprocess.run([KANDEV, "attach", url, "--list", "--token-file", str(token_file)], env=env,
                                   capture_output=True, text=True, timeout=60)
        inline = subprocess.run([KANDEV, "attach", url, "--list", "--token", "kdv_inline"], env=env,
                                capture_output=True, text=True, timeout=60)
        server.shutdown()
    assert seen[:2] == ["Bearer kdv_from_the_file", "Bearer kdv_inline"]
    assert "warning" not in from_file.stderr and "Traceback" not in from_file.stderr
    assert "--token is seen by every process" in inline.stderr and "--token-file" in inline.stderr
    for bad, reason in ((tmp_path / "missing", "No such file"), (tmp_path / "empty", "it is empty")):
        if bad.name == "empty":
            bad.write_text("\n")
        done = subprocess.run([KANDEV, "attach", url, "--list", "--token-file", str(bad)], env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and reason in done.stderr, done.stderr
@pytest.mark.reliability("Untrusted workspace", "a PATH with relative entries ('.', '') and a workspace holding its own "
                         "git and agent command", cases=2, held="kandev-tui's git and the agent it starts are the "
                                                               "real ones; the workspace's never ran")
def test_a_relative_path_entry_never_finds_the_workspaces_programs(tmp_path, monkeypatch):
    import asyncio

    from kandev_tui.acp import AgentClient, AgentError, AgentOptions

    workspace = tmp_path / "ws"
    workspace.mkdir()
    plain_git("init", "-q", cwd=workspace)
    mark = tmp_path / "ran"
    for name in ("git", "my-agent"):
        (workspace / name).write_text(f"#!/bin/sh\necho {name} >> {mark}\nexit 1\n")
        (workspace / name).chmod(0o755)
    monkeypatch.setenv("PATH", f".{os.pathsep}{os.pathsep}{os.environ['PATH']}")
    subprocess.run(["git", "status"], cwd=workspace, capture_output=True, timeout=60)
    assert mark.exists(), "the control: the workspace's git runs first"
    mark.unlink()

    checkpoints.take(checkpoints.repository(workspace), "refs/kandev-tui/t/1-start")
    assert "a-file" not in workspace_files(workspace)

    async def start() -> str:
        client = AgentClient(AgentOptions(command=["my-agent"], workspace=workspace, inject_guidance=False),
                             lambda frame: None, None)
        try:
            await client.start()
        except AgentError as exc:
            return str(exc)
        finally:
            await client.close()
        return "started"

    said = asyncio.run(asyncio.wait_for(start(), 60))
    assert "command not found" in said and not mark.exists()


def test_a_database_named_in_a_shared_folder_leaves_the_folders_permissions_alone(tmp_path, monkeypatch):
    """``$KANDEV_TUI_DB`` (or ``--db``) in a folder others share, as ``/tmp`` is: the database is private (0600), the
    folder keeps its mode (1777). kandev-tui tightened it to 0700 when it took the named file for its own folder's,
    and every other user of the machine was locked out of ``/tmp``."""
    from kandev_tui.transcript import Store

    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    monkeypatch.setenv("KANDEV_TUI_DB", str(shared / "mine.db"))
    store = Store(shared / "mine.db")
    store.create_session(title="t", agent_command=["a"], workspace="", state="ended")
    store.close()
    assert shared.stat().st_mode & 0o7777 == 0o1777
    assert (shared / "mine.db").stat().st_mode & 0o777 == 0o600
