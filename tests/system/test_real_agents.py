"""The real Claude Code and Codex ACP adapters, pinned, through kandev-tui, against scripted model servers.

Only the model's HTTP API is scripted (:mod:`tests.support.model_servers`); the adapters, their tools (Write, Edit,
Bash, exec_command) and their MCP calls to ``kandev-tui mcp`` are real, each run in a network namespace that has
only loopback (:mod:`tests.real_agents`). CI installs the adapters; elsewhere a machine without npm or
namespaces skips with the reason.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from ..support import AGENTS
from ..support.real_agents import Run, Unavailable, keep_fixture, run_agent

CHART = {"version": 1, "title": "Probe results", "blocks": [
    {"type": "metrics", "items": [{"label": "Files written", "value": "1"}, {"label": "Commands", "value": "2"}]},
    {"type": "chart", "chart_type": "bar", "title": "Tests by module", "summary": "Module b fails most.",
     "labels": ["a", "b", "c"], "series": [{"label": "Passed", "values": [12, 7, 9]},
                                           {"label": "Failed", "values": [1, 4, 0]}]}]}
ORIGINAL = "".join(f"line {n}\n" for n in range(1, 15))
EDITED_OLD = "".join(f"line {n}\n" for n in range(2, 13))
EDITED_NEW = EDITED_OLD.replace("line 2\n", "line two\n").replace("line 12\n", "line twelve\n")


def real(name: str, script, tmp_path, prompt: str, **kwargs) -> Run:
    try:
        return run_agent(name, script, tmp_path, prompt, **kwargs)
    except Unavailable as exc:
        if os.environ.get("CI"):  # CI must run these: installing the adapters is part of the job
            raise
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def claude_run(tmp_path_factory) -> Run:
    """Claude Code writes a new file, edits it (two hunks), runs a command with ANSI colours and calls
    show_rich_output_kandev; every permission allowed once."""
    tmp = tmp_path_factory.mktemp("claude")
    path = str(tmp / "workspace" / "probe" / "notes.txt")
    script = [
        [{"thinking": "Write the file first."}, {"text": "I'll write the file."},
         {"tool": "Write", "input": {"file_path": path, "content": ORIGINAL}}],
        [{"tool": "Edit", "input": {"file_path": path, "old_string": EDITED_OLD, "new_string": EDITED_NEW}}],
        [{"tool": "Bash", "input": {"command": "printf '\\033[32mgreen\\033[0m ok\\n'; wc -l probe/notes.txt",
                                    "description": "Count the lines"}}],
        [{"tool": "mcp__kandev__show_rich_output_kandev", "input": CHART}],
        [{"text": "Done: **one file**, one edit, one command and a chart."}],
    ]
    run = real("claude", script, tmp, "Write notes, edit them, count them, chart it")
    keep_fixture(run, tmp, "claude-real")
    return run


@pytest.fixture(scope="module")
def codex_run(tmp_path_factory) -> Run:
    """Codex (read-only mode: approvals come to the client) runs a command with colours, one that fails, and
    calls show_rich_output_kandev through its MCP namespace."""
    tmp = tmp_path_factory.mktemp("codex")
    script = [
        [{"text": "Running the checks."},
         {"tool": "exec_command", "input": {"cmd": "printf '\\033[31mred\\033[0m text\\n'; echo second line"}}],
        [{"tool": "exec_command", "input": {"cmd": "ls /no/such/directory"}}],
        [{"tool": "exec_command", "input": {"cmd": "mkdir -p probe && echo hello > probe/out.txt",
                                            "sandbox_permissions": "require_escalated",
                                            "justification": "write the probe file"}}],
        [{"tool": "show_rich_output_kandev", "namespace": "mcp__kandev", "input": CHART}],
        [{"text": "All checks ran."}],
    ]
    run = real("codex", script, tmp, "Run the checks and chart them")
    keep_fixture(run, tmp, "codex-real")
    return run


COLOURED = "printf '\\033[32mgreen\\033[0m ok\\n'; wc -l notes.txt"


@pytest.fixture(scope="module")
def gemini_run(tmp_path_factory) -> Run:
    """Gemini CLI reads a file, creates one, edits one (both through kandev-tui's fs), runs a command and calls
    show_rich_output_kandev (its arguments only in the permission request); every permission allowed once."""
    tmp = tmp_path_factory.mktemp("gemini")
    (tmp / "workspace").mkdir()
    (tmp / "workspace" / "notes.txt").write_text(NOTES)
    script = [
        [{"text": "Reading the notes."}, {"tool": "read_file", "input": {"file_path": "notes.txt"}}],
        [{"tool": "write_file", "input": {"file_path": "probe/new.txt", "content": "hello new\n"}}],
        [{"tool": "replace", "input": {"file_path": "notes.txt", "old_string": "beta", "new_string": "BETA",
                                       "instruction": "upper-case beta"}}],
        [{"tool": "run_shell_command", "input": {"command": COLOURED, "description": "Count the lines"}}],
        [{"tool": "mcp_kandev_show_rich_output_kandev", "input": CHART}],
        [{"text": "Done: **one file** new, one edited, and a chart."}],
    ]
    run = real("gemini", script, tmp, "Read, write, edit, count and chart")
    keep_fixture(run, tmp, "gemini-real")
    return run


@pytest.fixture(scope="module")
def opencode_run(tmp_path_factory) -> Run:
    """OpenCode (its edits and commands set to ask) does the same; after an approved edit it writes the file
    through kandev-tui (fs/write_text_file)."""
    tmp = tmp_path_factory.mktemp("opencode")
    workspace = tmp / "workspace"
    workspace.mkdir()
    (workspace / "notes.txt").write_text(NOTES)
    script = [
        [{"text": "Reading the notes."}, {"tool": "read", "input": {"filePath": str(workspace / "notes.txt")}}],
        [{"tool": "write", "input": {"filePath": str(workspace / "probe" / "new.txt"), "content": "hello new\n"}}],
        [{"tool": "edit", "input": {"filePath": str(workspace / "notes.txt"), "oldString": "beta", "newString": "BETA"}}],
        [{"tool": "bash", "input": {"command": COLOURED, "description": "Count the lines"}}],
        [{"tool": "kandev_show_rich_output_kandev", "input": CHART}],
        [{"text": "Done: **one file** new, one edited, and a chart."}],
    ]
    run = real("opencode", script, tmp, "Read, write, edit, count and chart", mode="ask")
    keep_fixture(run, tmp, "opencode-real")
    return run


def test_codex_with_a_model_it_knows_edits_with_apply_patch_and_finds_mcp_tools(tmp_path):
    """gpt-5.5: Codex edits with its freeform apply_patch (so its edits come with diffs) and reaches kandev's MCP
    tool through tool_search (workspace-write mode: read-only cannot write even an approved patch)."""
    script = [
        [{"text": "Creating it."}, {"custom": "apply_patch", "input": "*** Begin Patch\n*** Add File: probe/hello.py\n"
                                    "+def greet(name):\n+    return 'Hello, ' + name\n*** End Patch\n"}],
        [{"custom": "apply_patch", "input": "*** Begin Patch\n*** Update File: probe/hello.py\n@@\n def greet(name):\n"
                                           "-    return 'Hello, ' + name\n+    return f'Hello, {name}!'\n*** End Patch\n"}],
        [{"tool_search": {"query": "kandev show rich output", "limit": 4}}],
        [{"tool": "show_rich_output_kandev", "namespace": "mcp__kandev", "input": CHART}],
        [{"text": "Done."}],
    ]
    run = real("codex", script, tmp_path, "Write and fix hello.py, then chart it", model="gpt-5.5",
               mode="workspace-write")
    assert run.code == 0, run.stderr
    assert (run.workspace / "probe" / "hello.py").read_text() == "def greet(name):\n    return f'Hello, {name}!'\n"
    edits = [i for i in run.kinds("tool_call") if i["payload"].get("diffs")]
    assert [(e["payload"]["diffs"][0]["new_file"], e["payload"]["diffs"][0]["added"], e["payload"]["diffs"][0]["removed"])
            for e in edits] == [(True, 2, 0), (False, 1, 1)]
    rich = next(i for i in run.kinds("tool_call") if "show_rich_output_kandev" in i["payload"]["name"])
    assert rich["status"] == "complete"
    posts = [r["body"] for r in run.requests if r["method"] == "POST"]
    assert {t.get("name") or t.get("type") for t in posts[0]["tools"]} >= {"apply_patch", "tool_search"}
    # Codex answered the look-up (in the request after it; on a loaded machine Codex may send another after that)
    assert any(i.get("type") == "tool_search_output" for post in posts[1:] for i in post["input"])


def test_claude_session_headless(claude_run):
    run = claude_run
    assert run.code == 0, run.stderr
    assert run.items[-1]["kind"] == "turn_end" and run.items[-1]["payload"]["stop_reason"] == "end_turn"
    assert (run.workspace / "probe" / "notes.txt").read_text() == ORIGINAL.replace("line 2\n", "line two\n").replace(
        "line 12\n", "line twelve\n")
    write, edit = run.tool("Write"), run.tool("Edit")
    assert write["payload"]["diffs"] == [{"path": write["payload"]["diffs"][0]["path"], "new_file": True,
                                          "added": 14, "removed": 0}]
    # the finished edit: one diff block per hunk, with context, and its line in locations
    assert [d["added"] for d in edit["payload"]["diffs"]] == [1, 1] and len(edit["payload"]["locations"]) == 2
    assert all(isinstance(loc.get("line"), int) for loc in edit["payload"]["locations"])
    bash = run.tool("printf")
    assert "\x1b[32mgreen\x1b[0m ok" in bash["payload"]["shell"]["stdout"]  # the raw escapes, kept as data
    assert bash["status"] == "complete"
    rich = run.tool("show_rich_output_kandev")  # Claude names the call in its title, mcp__kandev__…
    assert rich["status"] == "complete" and "Rich output accepted" in str(rich["payload"]["output"])
    assert len(run.kinds("permission")) >= 3  # Write, Edit, the MCP tool (not every Bash call asks)
    assert run.kinds("thought") and run.kinds("usage")
    messages = [r for r in run.requests if r["method"] == "POST" and r["path"].startswith("/v1/messages")]
    assert len(messages) >= 5  # one request per scripted step, each answered
    assert client_requests(run) == []  # offered files and terminals, Claude Code 0.49 uses neither (its tools do)


def test_codex_session_headless(codex_run):
    run = codex_run
    assert run.code == 0, run.stderr
    commands = [i for i in run.kinds("tool_call") if i["payload"].get("shell")]
    colored = next(i for i in commands if "red" in (i["payload"]["shell"].get("stdout") or ""))
    assert "\x1b[31mred\x1b[0m text\nsecond line" in colored["payload"]["shell"]["stdout"]
    assert colored["payload"]["shell"]["exit_code"] == 0 and colored["status"] == "complete"
    failing = next(i for i in commands if i is not colored and i["payload"]["shell"].get("exit_code"))
    assert failing["payload"]["shell"]["exit_code"] != 0 and failing["status"] == "error"
    rich = next(i for i in run.kinds("tool_call") if "show_rich_output_kandev" in i["payload"]["name"])
    assert rich["status"] == "complete" and "Rich output accepted" in str(rich["payload"]["output"])
    assert run.kinds("permission")  # read-only mode: approvals come to kandev-tui
    assert (run.workspace / "probe" / "out.txt").read_text() == "hello\n"  # approved, so it ran
    posts = [r for r in run.requests if r["method"] == "POST"]
    tools = {t.get("name") for t in posts[0]["body"].get("tools", [])}
    assert {"exec_command", "mcp__kandev"} <= tools  # the MCP server kandev-tui offered reached the model
    assert client_requests(run) == []  # offered files and terminals, Codex uses neither (its own sandbox runs them)
    # offered session.notices, Codex says what it warns of as a notice (its model's metadata is unknown to it: the
    # scripted model's name), not as a "Warning: …" in its message
    (notice,) = run.kinds("agent_notice")
    assert notice["payload"]["severity"] == "warning" and "Model metadata for" in notice["payload"]["title"]
    assert not any("Warning:" in i["payload"].get("text", "") for i in run.kinds("agent_message"))


# -- Gemini CLI and OpenCode: their rich output, their files through kandev-tui ------------------------------------

NOTES = "alpha\nbeta\ngamma\n"


def rich_card(run: Run) -> object:
    """The run's rich-output call, read as kandev-tui renders it (re-validated from what the agent sent)."""
    from kandev_tui.presentation.stored import read_stored_call

    call = next(i for i in run.kinds("tool_call") if "show_rich_output_kandev" in (i["payload"].get("title") or ""))
    payload = call["payload"]
    return read_stored_call(payload["name"], payload["title"], call["status"], payload["input"], payload["output"],
                            payload.get("content"))


def client_requests(run: Run) -> list[tuple[str, str]]:
    """(method, path) of the fs/* and terminal/* requests the agent sent kandev-tui."""
    import json

    found = []
    for line in run.recording.read_text().splitlines():
        message = json.loads(line).get("msg") or {}
        method = message.get("method")
        if isinstance(method, str) and method.startswith(("fs/", "terminal/")):
            found.append((method, (message.get("params") or {}).get("path")))
    return found


@pytest.mark.parametrize("agent", ["gemini", "opencode"])
def test_gemini_and_opencode_sessions_headless(agent, request):
    from kandev_tui.presentation.stored import State

    run = request.getfixturevalue(f"{agent}_run")
    assert run.code == 0, run.stderr
    assert run.items[-1]["kind"] == "turn_end" and run.items[-1]["payload"]["stop_reason"] == "end_turn"
    assert (run.workspace / "probe" / "new.txt").read_text() == "hello new\n"  # created
    assert (run.workspace / "notes.txt").read_text() == NOTES.replace("beta", "BETA")  # edited
    created = next(i for i in run.kinds("tool_call") if i["payload"].get("diffs")
                   and i["payload"]["diffs"][0]["path"].endswith("probe/new.txt"))
    edited = next(i for i in run.kinds("tool_call") if i["payload"].get("diffs")
                  and i["payload"]["diffs"][0]["path"].endswith("notes.txt"))
    assert created["status"] == "complete" and created["payload"]["diffs"][0]["added"] == 1
    assert edited["status"] == "complete" and (edited["payload"]["diffs"][0]["added"],
                                               edited["payload"]["diffs"][0]["removed"]) == (1, 1)
    assert len([i for i in run.kinds("tool_call") if i["payload"].get("diffs")]) == 2  # each edit shown once
    # the headline: their rich output, recognised and re-validated, renders as the native card
    card = rich_card(run)
    assert card.state is State.READY, card
    assert [b.type for b in card.presentation.blocks] == ["metrics", "chart"]
    assert len(run.kinds("permission")) >= 3
    requests = client_requests(run)
    writes = [path for method, path in requests if method == "fs/write_text_file"]
    assert sorted(Path(p).name for p in writes) == ["new.txt", "notes.txt"]  # both written through kandev-tui
    assert not [m for m, _ in requests if m.startswith("terminal/")]  # neither uses client terminals (yet)
    if agent == "gemini":  # it reads a file through the client before it writes it
        assert {Path(p).name for m, p in requests if m == "fs/read_text_file"} == {"new.txt", "notes.txt"}
    else:  # OpenCode reports its commands' output (Gemini sends none)
        command = next(i for i in run.kinds("tool_call") if i["payload"].get("kind") == "execute")
        assert "\x1b[32mgreen\x1b[0m ok" in command["payload"]["shell"]["stdout"]


# -- session control with the real adapters: logins, modes, models, resume --------------------------------------

def test_codex_without_a_key_lists_its_logins_and_exits_1(tmp_path):
    """No provider and no key: codex-acp's session/new says "Authentication required"; headless, kandev-tui says so
    once and lists both of the ways Codex offers, one per line."""
    run = real("codex", [], tmp_path, "hello", logged_in=False)
    assert run.code == 1
    lines = run.stderr.splitlines()
    assert any(line.startswith("kandev-tui run: The agent needs a login: Authentication required") for line in lines)
    assert any(line.startswith("  api-key: API Key") for line in lines), run.stderr
    assert any(line.startswith("  chat-gpt: ChatGPT") for line in lines), run.stderr
    assert not run.kinds("error") and len(run.kinds("note")) == 1  # said once, not once per frame


def test_codex_mode_from_the_command_line_brings_approvals_to_the_user(tmp_path):
    """Codex starting in its Auto review mode (approvals go to a reviewer model): --mode read-only switches it, and
    its request to run a command that writes comes to kandev-tui (answered allow-once, so it runs)."""
    from kandev_tui.session.controls import Controls

    script = [[{"tool": "exec_command", "input": {"cmd": "mkdir -p probe && echo hi > probe/x.txt",
                                                  "sandbox_permissions": "require_escalated",
                                                  "justification": "write the probe file"}}],
              [{"text": "Written."}]]
    run = real("codex", script, tmp_path, "write the probe", mode="agent", extra=["--mode", "read-only"])
    assert run.code == 0, run.stderr
    assert run.kinds("permission"), "the approval went to the reviewer, not to the user"
    assert Controls(run.kinds("session_info")[-1]["payload"]).summary().startswith("Read-only")
    assert (run.workspace / "probe" / "x.txt").read_text() == "hi\n"


def test_codex_in_plan_mode_sends_its_plan_as_a_plan_update(tmp_path):
    """Codex's plan mode (its option collaboration_mode, chosen with run --option): the model's proposed plan
    reaches kandev-tui as a Markdown plan_update (offered ``plan``), printed headless and stored; its "Implement
    this plan?" comes as a permission request (rejected here, so nothing is implemented)."""
    plan = "# Release\n\n1. Tag v1.0\n2. Publish the wheel\n"
    script = [[{"text": f"Here is the plan.\n\n<proposed_plan>\n{plan}</proposed_plan>\n"}]]
    run = real("codex", script, tmp_path, "Plan the release", permission="reject",
               extra=["--option", "collaboration_mode=plan"])
    assert run.code == 0, run.stderr
    (shown,) = run.kinds("plan")
    assert shown["payload"]["markdown"] == plan and shown["payload"]["plan_id"]
    (asked,) = run.kinds("permission")
    assert asked["payload"]["tool_call"]["title"] == "Implement this plan?"
    # rejected: not implemented, so Codex asks the turn's model nothing more. Codex's approval reviewer (its
    # "guardian") may also classify the "Implement this plan?" request in the background, on a model of its own
    # (gpt-5.6-luna in the pinned Codex): usually superseded by the answer before it is sent, it was sent in a
    # loaded CI run. That is not the plan implemented.
    posts = [r["body"] for r in run.requests if r["method"] == "POST"]
    turn = [post for post in posts if post.get("model") == posts[0].get("model")]
    assert len(turn) == 1, [post.get("model") for post in posts]


def test_codex_compact_command_is_a_compaction_with_what_the_context_held(tmp_path):
    """/compact: Codex compacts its context with the scripted model's summary and says so with compaction_update
    (offered ``session.compaction``): one compaction row, completed, with the context it left."""
    script = [[{"text": "Summary: the user asked for checks; all of them ran."}]]
    run = real("codex", script, tmp_path, "/compact")
    assert run.code == 0, run.stderr
    (compaction,) = run.kinds("compaction")
    assert compaction["status"] == "completed" and isinstance(compaction["payload"].get("context_after"), int)
    posts = [r["body"] for r in run.requests if r["method"] == "POST"]
    assert len(posts) == 1 and "summary" in json.dumps(posts[0]).lower()  # Codex asked the model to summarise


def helper_script(gate: Path | None = None) -> dict:
    """Codex's scripted model spawns a helper (multi_agent_v1) and waits for it; the helper's requests (its task
    says CHILD-TASK) say something, run a command, and say more (once ``gate`` exists, when one is given)."""
    return {"steps": [
        [{"text": "Asking a helper."},
         {"tool": "spawn_agent", "namespace": "multi_agent_v1",
          "input": {"message": "CHILD-TASK: check that a.py is fine", "agent_type": "default"}}],
        [{"tool": "wait_agent", "namespace": "multi_agent_v1", "input": {"targets": ["$agent"], "timeout_ms": 120000}}],
        [{"text": "The helper is done."}]],
        "routes": [{"user_says": "CHILD-TASK", "steps": [
            [{"text": "Looking at a.py."}, {"tool": "exec_command", "input": {"cmd": "echo child ran"}}],
            [*([{"hold_until": str(gate)}] if gate else []), {"text": "a.py is fine."}]]}]}


def test_codex_spawns_a_subagent_whose_work_is_its_own_item(tmp_path):
    """Codex's multi-agent tools (offered ``subagents``): the scripted model spawns a helper and waits for it; the
    helper's own requests follow a route of the script. Codex announces the child with subagent_update and sends
    its messages and its command on the child's session: one subagent item holds them, in order, and nothing of
    it leaks into the parent's transcript. Codex's closing ``state: unknown`` leaves it done."""
    run = real("codex", helper_script(), tmp_path, "Review with a helper", mode="workspace-write")
    assert run.code == 0, run.stderr
    from kandev_tui.transcript import Store

    store = Store(run.db)
    (session,) = store.sessions()
    (child,) = [i for i in store.items(session["id"]) if i.kind == "subagent"]
    payload = child.payload
    assert payload["description"] == "CHILD-TASK: check that a.py is fine" and payload["state"] == "done"
    assert payload["text"] == "Looking at a.py.\n\na.py is fine."
    assert [(p.get("text"), p.get("call")) for p in payload["parts"]] == [
        ("Looking at a.py.", None), (None, payload["tools"][0]["id"]), ("a.py is fine.", None)]
    assert payload["tools"][0]["title"] == "echo child ran" and payload["tools"][0]["status"] == "completed"
    said = "".join(i["payload"].get("text", "") for i in run.kinds("agent_message"))
    assert said == "Asking a helper.The helper is done." and not any(
        "child ran" in (i["payload"].get("title") or "") for i in run.kinds("tool_call"))  # none of it leaked
    assert "Looking" not in said
    # Codex reports no tool call for its spawn (the model's spawn_agent), only the wait after it: no call ran when
    # the child was announced, so it stands on its own where it was announced, before the wait
    from kandev_tui.renderers import Registry
    from kandev_tui.session.layout import Layout

    assert "spawned_by" not in payload
    layout = Layout(Registry.from_entry_points())
    for item in store.items(session["id"]):
        layout.place(item)
    shape = [(e.kind, e.item_keys) for e in layout.entries]
    assert ("item", [child.key]) in shape
    assert [kind for kind, _ in shape].index("group") > shape.index(("item", [child.key]))


def test_codex_model_from_the_command_line_reaches_the_model_server(tmp_path):
    run = real("codex", [[{"text": "Hello back."}]], tmp_path, "hello", extra=["--model", "gpt-5.5"])
    assert run.code == 0, run.stderr
    posts = [r["body"] for r in run.requests if r["method"] == "POST" and r["path"].rstrip("/").endswith("/responses")]
    models = [body.get("model") for body in posts]
    # the turn's request (the first) asks gpt-5.5, and none asks the configured model (gpt-5.1-codex-max): the option
    # was dropped nowhere. Codex may also ask a model of its own choosing in the background (gpt-5.6-luna in the
    # pinned Codex, as in the plan-mode test above), sent when the run lasts long enough: a loaded CI run saw it
    assert models and models[0] == "gpt-5.5" and "gpt-5.1-codex-max" not in models, models


def test_a_claude_session_resumed_sends_its_history_and_shows_nothing_twice(tmp_path):
    """The second run continues the first's session (run --resume: session/resume, Claude's own session id): Claude
    sends the earlier exchange to the model with the new prompt, and the stored session holds each item once."""
    from kandev_tui.transcript import Store

    first = real("claude", [[{"text": "The first answer."}]], tmp_path, "the first question", run="first")
    assert first.code == 0, first.stderr
    second = real("claude", [[{"text": "The second answer."}]], tmp_path, "the second question", run="second",
                  extra=["--resume"])
    assert second.code == 0, second.stderr
    posts = [r["body"] for r in second.requests if r["method"] == "POST" and r["path"].startswith("/v1/messages")
             and "count_tokens" not in r["path"]]
    asked = __import__("json").dumps(posts[-1]["messages"])
    assert "the first question" in asked and "The first answer." in asked and "the second question" in asked
    store = Store(tmp_path / "sessions.db")
    (session,) = store.sessions()
    assert session["continues"] == "resume" and session["agent_session_id"]
    items = store.items(session["id"])
    assert [i.payload["text"] for i in items if i.kind == "user_message"] == ["the first question", "the second question"]
    assert [i.payload["text"] for i in items if i.kind == "agent_message"] == ["The first answer.", "The second answer."]
    assert len({i.key for i in items}) == len(items)


def in_tmux(tmp_path, name: str, script, kandev_args: list[str], *, width: int = 100, height: int = 40, **codex):
    """kandev-tui in the app with the real adapter ``name``, in tmux, beside its scripted model server, all in a
    loopback-only namespace: (the Tmux, the workspace). Skips (or, in CI, fails) when the adapters or namespaces are
    unavailable."""
    import json
    import shlex
    import shutil

    from ..support.real_agents import FIXED_PORT, KANDEV, NETNS_RUN, SERVER, adapter_command, agent_env, unshare_command
    from ..support.tmux import Tmux

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    try:
        binary, unshare = adapter_command(name), unshare_command()
    except Unavailable as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(str(exc))
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    (tmp_path / "script.json").write_text(json.dumps(script(workspace) if callable(script) else script))
    server, env = agent_env(name, tmp_path / "home", **codex)
    port = ["--port", str(FIXED_PORT)] if SERVER[name][1] else []
    command = [*unshare, sys.executable, NETNS_RUN, "--server", server, *port, "--script", str(tmp_path / "script.json"),
               "--requests", str(tmp_path / "requests.json"), *[f"--env={e}" for e in env], "--", KANDEV, "run",
               *kandev_args, "--workspace", str(workspace), "--db", str(tmp_path / "s.db"), "--", *binary]
    tmux = Tmux(width, height, " ".join(shlex.quote(part) for part in command),
                {"TERM": "xterm-256color", "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"), "PYTHONHASHSEED": "0"})
    return tmux, workspace


def test_claude_in_the_app_in_a_real_terminal(tmp_path):
    """The real Claude Code adapter in the app, in tmux: the write's permission request shows the new file's diff,
    1 allows it, and the edit is a card of its own with its diff; then its slash commands, offered as typed."""

    def script(workspace):
        return [[{"text": "Writing it."}, {"tool": "Write", "input": {"file_path": str(workspace / "hello.py"),
                                                                      "content": "print('hello from the agent')\n"}}],
                [{"text": "Written."}]]

    tmux, workspace = in_tmux(tmp_path, "claude", script, ["--prompt", "write hello.py"])
    try:
        screen = tmux.wait_for("asks to edit", 90)
        assert "+ print('hello from the agent')" in screen and "(new file)" in screen  # what is being approved
        tmux.keys("2")  # "Allow" (1 is Claude's "Always Allow")
        screen = tmux.wait_for("Written.", 90)
        assert "hello.py" in screen and "+1 −0" in screen  # the edit's card with its counts
        assert (workspace / "hello.py").read_text() == "print('hello from the agent')\n"
        tmux.keys("/deb")  # Claude's own slash commands, offered as they are typed
        screen = tmux.wait_for("/debug", 30)
        assert "Enable debug logging" in screen
        tmux.keys("Tab")
        tmux.wait_for("[issue description] ─╯", 30)  # completed: what the command takes, under the box
        tmux.quit()
    finally:
        tmux.close()


def test_claude_asks_the_user_a_question_answered_by_keys_in_a_real_terminal(tmp_path):
    """Claude's AskUserQuestion, which the adapter offers only to a client that takes form questions (elicitation):
    in the app, in tmux, the question is a form of one list of options (and an "other" box); the second option is
    chosen and sent in two keys (an arrow and enter: the options are answered as a permission request is), and the
    answer is in the next request the scripted model server receives."""
    import json

    question = {"question": "Which database should the service use?", "header": "Database", "multiSelect": False,
                "options": [{"label": "Postgres", "description": "the team knows it"},
                            {"label": "SQLite", "description": "one file, no server"}]}
    script = [[{"text": "One question first."}, {"tool": "AskUserQuestion", "input": {"questions": [question]}}],
              [{"text": "Going with your choice."}]]
    tmux, _ = in_tmux(tmp_path, "claude", script, ["--prompt", "set up the service"])
    try:
        tmux.wait_for("Which database should the service use?", 90)
        screen = tmux.wait_for("Postgres — the team knows it", 30)  # the card drawn whole (a loaded machine draws late)
        assert "Claude" in screen
        assert "1-9 or enter on an option answers" in " ".join(screen.split())
        tmux.keys("Down", "Enter")  # the second option, chosen and sent: two keys
        screen = tmux.wait_for("Going with your choice.", 90)
        assert "Send this answer?" not in screen and "Database: SQLite" in screen  # sent as chosen, no review
        tmux.quit()
    finally:
        tmux.close()
    posts = json.loads((tmp_path / "requests.json").read_text())
    results = [block for post in posts if isinstance(post.get("body"), dict)
               for message in post["body"].get("messages") or [] if isinstance(message.get("content"), list)
               for block in message["content"] if block.get("type") == "tool_result"
               and block.get("tool_use_id") == "toolu_s0_1"]
    assert results and '"Which database should the service use?"="SQLite"' in str(results[-1]["content"])


def test_a_file_mentioned_with_an_at_reaches_claudes_model_with_its_content(tmp_path):
    """``@notes.txt`` in the prompt: Claude takes embedded context, so the file goes in the prompt, and its content is
    in the request the scripted model server receives; the user's message names it."""
    import json

    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("The release is on Thursday, codename HERON.\n")
    run = real("claude", [[{"text": "Thursday, HERON."}]], tmp_path, "When is the release? See @notes.txt",
               workspace=workspace)
    assert run.code == 0, run.stderr
    posts = [r for r in run.requests if r["method"] == "POST" and isinstance(r.get("body"), dict)]
    assert "codename HERON" in json.dumps(posts[0]["body"].get("messages"))
    (user,) = run.kinds("user_message")
    assert user["payload"]["text"].endswith("See @notes.txt") and user["payload"]["mentions"] == ["notes.txt"]


def test_codex_subagent_entered_full_screen_in_a_real_terminal_follows_it_live(tmp_path):
    """In the app, in tmux: Codex's helper shows as a row while it works; o on it shows it full screen, where its
    message and command are, and where its last message comes while it is open (the scripted model holds it until
    then); escape goes back to the parent, which finishes."""
    import time

    gate = tmp_path / "go"
    tmux, _ = in_tmux(tmp_path, "codex", helper_script(gate), ["--prompt", "Review with a helper"], mode="workspace-write")
    try:
        tmux.wait_for("↳ CHILD-TASK: check that a.py is fine · running", 90)

        def footer() -> str:  # the keys of what has the focus (the row redraws the rest while the helper runs)
            return tmux.screen().rstrip("\n").splitlines()[-1]

        for _ in range(12):  # shift+tab through the transcript's items to the subagent's row (its keys in the footer),
            before = footer()  # one at a time: a second shift+tab sent before the first was drawn passed the row
            if "Open subagent" in before:
                break
            tmux.keys("BTab")
            for _ in range(200):  # the focus moved: its keys are drawn (items alike in keys: 10 s, then on)
                if footer() != before:
                    break
                time.sleep(0.05)
        tmux.wait_for("Open subagent", 10)
        tmux.keys("o")
        tmux.wait_for("Looking at a.py.", 30)
        screen = tmux.wait_for("echo child ran", 30)
        assert "a.py is fine." not in screen and "Asking a helper." not in screen  # the helper's own, full screen
        gate.write_text("")
        tmux.wait_for("a.py is fine.", 60)
        tmux.wait_for("· done", 30)
        tmux.keys("Escape")
        tmux.wait_for("The helper is done.", 90)
        tmux.quit()
    finally:
        tmux.close()


def test_codex_in_the_app_switched_to_read_only_asks_the_user(tmp_path):
    """Codex starts in its Auto review mode; in the app, ctrl+o and Read-only: the status line says so, and its
    request to run a command that writes comes to the user, who allows it with a key."""

    script = [[{"tool": "exec_command", "input": {"cmd": "mkdir -p probe && echo hi > probe/x.txt",
                                                  "sandbox_permissions": "require_escalated",
                                                  "justification": "write the probe file"}}],
              [{"text": "Written by the probe."}]]
    tmux, workspace = in_tmux(tmp_path, "codex", script, [], mode="agent")
    try:
        tmux.wait_for("Auto review", 90)  # the status line: the mode the agent started in
        tmux.keys("C-o")
        tmux.wait_for("Read-only", 30)
        tmux.keys("Up", "Up", "Enter")  # from Auto review (the third mode) to Read-only (the first)
        status = tmux.wait_for("Read-only ·", 30).splitlines()[0]
        assert "Auto review" not in status
        tmux.keys("write the probe", "Enter")
        screen = tmux.wait_for("asks to run", 90)
        assert "mkdir -p probe" in screen
        tmux.keys("1")
        tmux.wait_for("Written by the probe.", 90)
        assert (workspace / "probe" / "x.txt").read_text() == "hi\n"
        tmux.quit()
    finally:
        tmux.close()


@pytest.mark.parametrize("agent", ["gemini", "opencode"])
def test_gemini_and_opencode_rich_output_in_the_app_in_a_real_terminal(tmp_path, agent):
    """The real Gemini CLI and OpenCode in the app, in tmux: a new file written (Gemini asks first: 2 is its "Allow";
    OpenCode's default asks nothing), then show_rich_output_kandev drawn as native cards: the metrics panel and the
    bar chart with its legend."""

    from ..support.tmux import seen_while_scrolling

    def script(workspace):
        if agent == "gemini":
            return [[{"text": "Writing it."}, {"tool": "write_file", "input": {"file_path": "hello.py",
                                                                              "content": "print('hello')\n"}}],
                    [{"tool": "mcp_kandev_show_rich_output_kandev", "input": CHART}],
                    [{"text": "Charted."}]]
        return [[{"text": "Writing it."}, {"tool": "write", "input": {"filePath": str(workspace / "hello.py"),
                                                                       "content": "print('hello')\n"}}],
                [{"tool": "kandev_show_rich_output_kandev", "input": CHART}],
                [{"text": "Charted."}]]

    tmux, workspace = in_tmux(tmp_path, agent, script, ["--prompt", "write hello.py and chart it"], height=50)
    try:
        if agent == "gemini":
            screen = tmux.wait_for("asks to edit", 90)
            assert "+ print('hello')" in screen
            tmux.keys("2")  # Allow (1 is "Allow for this session")
            tmux.wait_for("Allow all server tools", 90)  # the MCP call: allowed once too
            tmux.keys("3")
        tmux.wait_for("Charted.", 90)
        assert (workspace / "hello.py").read_text() == "print('hello')\n"
        screen = tmux.wait_for("■ 1 Passed  ■ 2 Failed", 30)  # the chart's legend (drawn once it is near the view)
        assert "┤" in screen  # and its axis
        seen = screen + seen_while_scrolling(tmux, pages=4)
        assert "Tests by module" in seen and "Files written" in seen  # its title; the metrics panel above it
        assert '{"version":1' not in seen.split("Files written")[-1]  # the card, not the arguments as JSON
        tmux.quit()
    finally:
        tmux.close()


def test_three_sessions_side_by_side_with_the_real_claude_adapter(tmp_path):
    """One app, three agents from presets (the settings file's): the dialect kit (on screen first), the demo agent
    and the real Claude Code adapter against its scripted model server, all in one loopback-only namespace, in
    tmux. The prompt goes to each; Claude's write waits for a
    permission while another session is on screen: its row is marked, f4 reaches it, a message typed meanwhile
    is queued, answering lets the turn end and the queued message then reaches the model server. Closing the kit's
    session leaves the others running; quitting leaves no process; every session is stored whole."""
    import json
    import shlex
    import shutil
    import time

    from kandev_tui.transcript import Store

    from ..support.procs import live_pids
    from ..support.real_agents import KANDEV, NETNS_RUN, adapter_command, agent_env, unshare_command
    from ..support.tmux import Tmux

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    try:
        binary, unshare = adapter_command("claude"), unshare_command()
    except Unavailable as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(str(exc))
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    script = [[{"text": "Writing it."}, {"tool": "Write", "input": {"file_path": str(workspace / "hello.py"),
                                                                  "content": "print('hello')\n"}}],
              [{"text": "Written."}],
              [{"text": "Queued one answered."}]]
    (tmp_path / "script.json").write_text(json.dumps(script))
    server, env = agent_env("claude", tmp_path / "home")
    kit = [sys.executable, str(AGENTS / "dialect_agent.py")]
    dialect = json.dumps({"steps": [{"op": "say", "text": "The kit has spoken."}]})
    (tmp_path / "c.toml").write_text(
        f"[presets.kit]\ncommand = {json.dumps(kit)}\nenv = {{ DIALECT = {json.dumps(dialect)} }}\n\n"
        f"[presets.real-claude]\ncommand = {json.dumps(binary)}\n\n"
        f"[presets.demo-slow]\ncommand = {json.dumps([sys.executable, '-m', 'kandev_tui.demo.agent'])}\n"
        f"env = {{ KANDEV_DEMO_DELAY = \"0\" }}\n")
    command = [*unshare, sys.executable, NETNS_RUN, "--server", server, "--script", str(tmp_path / "script.json"),
               "--requests", str(tmp_path / "requests.json"), *[f"--env={e}" for e in env], "--", KANDEV, "run",
               "--preset", "kit", "--preset", "demo-slow", "--preset", "real-claude", "--prompt", "write hello.py",
               "--workspace", str(workspace), "--db", str(tmp_path / "s.db")]
    tmux = Tmux(100, 40, " ".join(shlex.quote(part) for part in command),
                {"TERM": "xterm-256color", "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"), "PYTHONHASHSEED": "0",
                 "KANDEV_TEST_FOLDER": str(tmp_path)})
    mark = str(tmp_path).encode()
    ours = lambda: [pid for pid in live_pids(lambda pid, text: mark in text and pid != os.getpid(), read="environ")  # noqa: E731
                    if pid != int(tmux.show("#{pane_pid}") or 0)]
    try:
        tmux.wait_for("The kit has spoken.", 90)  # the kit on screen, the others stream meanwhile
        tmux.wait_for("+2 · 2 waiting f4", 90)  # Claude's write waits (and the demo's summary)
        tmux.keys("C-s")  # the list: both rows marked
        screen = tmux.wait_for("2 waiting for you (f4)", 30)
        assert screen.count("? ") >= 2, screen
        tmux.keys("Escape")
        # f4: the oldest waiting first; answer until Claude's request is on screen
        for _ in range(2):
            tmux.keys("F4")
            deadline = time.monotonic() + 30
            # whose request waits on screen: Claude's, or the demo's. "to answer" tells a waiting one from the
            # demo's answered one, which stays on the demo's screen until f4 is taken: on a loaded machine
            # that screen was read, "1" typed into its prompt, and f4 never came back to Claude
            while time.monotonic() < deadline:
                screen = tmux.stable_screen()
                if "1-9 or click to answer" in screen and ("asks to edit: Write hello.py" in screen
                                                           or "asks to edit: Write reports/summary.md" in screen):
                    break
                time.sleep(0.2)
            if "asks to edit: Write hello.py" in screen:
                break
            # the demo's summary, allowed; a "1" typed on any other screen answered Claude's request unseen, and the
            # failure said only that nothing waited any more: the screen read is what the failure shows now
            assert "asks to edit: Write reports/summary.md" in screen, f"neither request waits on screen:\n{screen}"
            tmux.keys("1")
            tmux.wait_for("+2 · 1 waiting f4", 30)
        else:
            raise AssertionError("f4 never reached Claude's request")
        # while it waits, a message typed into Claude's prompt is queued
        tmux.keys("Tab")  # from the request to the prompt
        tmux.keys("-l", "and the queued one")
        tmux.keys("Enter")
        tmux.wait_for("1 queued: and the queued one", 30)
        tmux.keys("BTab")  # back to the request, which waits for its answer
        tmux.keys("2")  # "Allow" (1 is Claude's "Always Allow")
        # the turn ends, then the queued message is sent (the model server's log is read once it has stopped)
        tmux.wait_for("█ and the queued one", 90)
        assert (workspace / "hello.py").read_text() == "print('hello')\n"
        # close the kit's session (the first): the others run on
        tmux.keys("C-s")
        tmux.wait_for("3 in this app", 30)  # keys sent before the list is up would go to the prompt
        tmux.keys("Home", "Enter")
        tmux.wait_for("The kit has spoken.", 30)
        tmux.keys("C-w")
        tmux.keys("C-w")
        tmux.wait_for("kandev-tui demo agent", 30)  # the demo's session is shown next
        tmux.keys("C-s")
        screen = tmux.wait_for("■ 1 ended", 30)
        assert "○ 3 idle" in screen and ("? 2 waiting for you" in screen or "○ 2 idle" in screen), screen
        tmux.keys("Escape")
        tmux.keys("C-q")
        deadline = time.monotonic() + 30
        while ours() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert ours() == [], "an agent outlived the app"
    finally:
        tmux.close()
    assert "and the queued one" in (tmp_path / "requests.json").read_text()  # Claude sent it to its model
    store = Store(tmp_path / "s.db")
    rows = store.sessions()
    assert len(rows) == 3 and all(row["state"] in ("ended", "interrupted") for row in rows)
    by_agent = {row["agent_command"][-1]: row for row in rows}
    claude = next(row for row in rows if "claude-agent-acp" in " ".join(row["agent_command"]))
    said = [i.payload.get("text") for i in store.items(claude["id"]) if i.kind == "user_message"]
    assert said == ["write hello.py", "and the queued one"] and claude["queued"] == []
    assert all(store.items(row["id"]) for row in rows) and len(by_agent) == 3
    store.close()


def test_claude_edits_by_its_tool_and_by_a_command_and_the_changes_card_counts_both(tmp_path):
    """In a git workspace: Claude writes a file with its Write tool and changes another with sed through Bash;
    the turn's changes card (from kandev-tui's checkpoints) counts both, and the user's index, HEAD and stash
    are as they were."""
    import subprocess

    env = {**os.environ, "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u",
           "GIT_COMMITTER_EMAIL": "u@x"}

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True, text=True,
                              env=env).stdout

    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "config.ini").write_text("mode = debug\n")
    git("init", "-q", "-b", "main", ".")
    git("add", "-A")
    git("commit", "-q", "-m", "init")
    (workspace / "staged.txt").write_text("staged by the user\n")
    git("add", "staged.txt")
    before = (git("ls-files", "-s"), git("rev-parse", "HEAD"), git("stash", "list"))
    script = [[{"tool": "Write", "input": {"file_path": str(workspace / "notes.md"), "content": "# Notes\n"}}],
              [{"tool": "Bash", "input": {"command": "sed -i 's/debug/release/' config.ini",
                                          "description": "Switch to release"}}],
              [{"text": "Wrote the notes and switched the config."}]]
    run = real("claude", script, tmp_path, "write notes and switch the config", workspace=workspace)
    assert run.code == 0, run.stderr
    assert (workspace / "config.ini").read_text() == "mode = release\n"
    (card,) = run.kinds("changes")
    payload = card["payload"]
    assert payload["state"] == "ready" and payload["count"] == 2 and (payload["added"], payload["removed"]) == (2, 1)
    assert {(f["path"], f["status"]) for f in payload["files"]} == {("notes.md", "added"), ("config.ini", "modified")}
    assert (git("ls-files", "-s"), git("rev-parse", "HEAD"), git("stash", "list")) == before
