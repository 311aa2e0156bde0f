"""Deterministic scenes for snapshots: the real app over stored or recorded sessions."""

from __future__ import annotations

from pathlib import Path

from tests.support.app_helpers import fleet_item, message_item, replay_app, rich_item, settle, stored_app, tool_item

from kandev_tui.transcript import Item
from kandev_tui.widgets.entries.chart_block import ChartBlock
from kandev_tui.widgets.entries.file_preview import FilePreview
from kandev_tui.widgets.entries.tool_card import ToolCard
from kandev_tui.widgets.entries.tool_call import ToolCallView
from kandev_tui.widgets.entries.tool_group import ToolGroup


def state_items() -> list[Item]:
    return [
        Item("user:1", "user_message", 1, {"text": "Show me every state."}),
        Item("thought:2", "thought", 1, {"text": "I should cover each card state."}),
        Item("plan:3", "plan", 1, {"entries": [{"content": "Read", "status": "completed"},
                                               {"content": "Chart", "status": "in_progress"},
                                               {"content": "Report", "status": "pending"}]}),
        tool_item("r1", name="read", kind="read", title="Read src/app.py"),
        tool_item("s1", name="search", kind="search", title="Search TODO", raw_input={"query": "TODO"}),
        tool_item("e1", name="execute", kind="execute", title="make lint", status="error",
                  output={"stderr": "no rule", "exit_code": 2}, shell={"stdout": "", "stderr": "no rule", "exit_code": 2}),
        Item("permission:4", "permission", 1, {"tool_call": {"toolCallId": "w1", "title": "Write notes.md"},
                                               "options": [{"optionId": "a", "name": "Allow once", "kind": "allow_once"},
                                                           {"optionId": "r", "name": "Reject", "kind": "reject_once"}]},
             status="pending", tool_call_id="w1"),
        message_item(5, "Here is **each** rich-output state:"),
        rich_item("p", {}, status="pending", output=None),
        rich_item("f", {}, status="error", output={"content": [{"type": "text", "text": "title: must be 1-120 characters"}]}),
        rich_item("c", {}, status="cancelled", output=None),
        rich_item("u", {"version": 2, "title": "future", "blocks": []}),
        Item("error:6", "error", 1, {"message": "The agent exited with code 3 during the turn.", "exit_code": 3,
                                     "stderr": ["fatal: connection dropped"]}),
        Item("turn_end:7", "turn_end", 1, {"stop_reason": "end_turn"}),
    ]


def block_items() -> list[Item]:
    doc = {"version": 1, "title": "Blocks", "description": "One of each block", "blocks": [
        {"type": "chart", "chart_type": "line", "title": "Latency", "summary": "p95 settled after the fix.",
         "labels": ["2026-09-01T10:00:00Z", "2026-09-01T11:00:00Z", "2026-09-01T12:00:00Z", "2026-09-01T13:00:00Z"],
         "series": [{"label": "p95", "values": [420, 380, None, 180]}, {"label": "p50", "values": [90, 85, 80, 0]}]},
        {"type": "metrics", "items": [{"label": "Requests", "value": "1.2M"}, {"label": "Errors", "value": "0.4%", "detail": "down"},
                                      {"label": "Apdex", "value": "0.97"}]},
        {"type": "file", "path": "reports/latency.json", "title": "Raw data", "caption": "From the load test",
         "mime_type": "application/json"}]}
    return [message_item(1, "A chart, metrics and a file:"), rich_item("b", doc)]


async def plot_visible(pilot) -> None:
    app = pilot.app
    await settle(pilot)
    app.view.check_charts(at_once=True)
    await pilot.pause(0.1)


async def park(pilot, widget) -> None:
    """The deterministic last step of a scene: the widget at the top of the view (or the view at its end), every
    item on screen, nothing moving: looked at again until two looks agree, however loaded the machine is."""
    app, view = pilot.app, pilot.app.view
    view.set_following(False)
    last = None
    for _ in range(400):
        await pilot.pause(0.02)
        view.scroll_to_widget(widget, animate=False, top=True, immediate=True)
        view.check_charts(at_once=True)
        await pilot.pause(0.02)
        now = (widget.virtual_region, view.scroll_y, view.max_scroll_y, view.virtual_size, view.lo, view.hi,
               app.transcript_screen.badge.display)  # (the scrollbar's thumb: everything mounted below counts)
        if app.session.settled and now == last:
            break
        last = now
    await pilot.pause(0.05)


async def scroll_home(pilot) -> None:
    await plot_visible(pilot)
    view = pilot.app.view
    await park(pilot, next(w for w in view.children if w.display and w is not view.mounted.top))


async def scroll_to_first_chart(pilot) -> None:
    await plot_visible(pilot)
    card = next(c for c in pilot.app.view.query(ToolCard) if c.query(ChartBlock))
    await park(pilot, card)


async def scroll_to_csv_chart(pilot) -> None:
    """The second chart card: Kandev resolved its CSV into the snapshot it stored."""
    await plot_visible(pilot)
    cards = [c for c in pilot.app.view.query(ToolCard) if c.query(ChartBlock)]
    await park(pilot, cards[1])


async def expand_group(pilot) -> None:
    await plot_visible(pilot)
    group = pilot.app.view.query_one(ToolGroup)
    group.focus()
    await pilot.press("enter")
    for _ in range(400):  # every call of the group mounted, however busy the machine is
        calls = list(group.query(ToolCallView))
        if len(calls) == len(group.items) and all(call.is_mounted for call in calls):
            break
        await pilot.pause(0.02)
    await park(pilot, group)


async def inspect_chart(pilot) -> None:
    await plot_visible(pilot)
    chart = pilot.app.view.query_one(ChartBlock)
    chart.ensure_plotted()
    chart.focus()
    await pilot.press("2", "right", "right")
    preview = pilot.app.view.query_one(FilePreview)
    preview.focus()
    await pilot.press("enter")
    for _ in range(50):
        await pilot.pause(0.02)
        if preview.state != "loading":
            break
    chart.focus()
    await park(pilot, chart)


FLEET_ERRORS = {
    "entity_card": 'Entity not found: "bad"', "health_summary": "scope \"prod-us\" is not visible to this agent",
    "lxc_list": "host pve-9 is unreachable", "entity_table": "unknown tier \"gpu\"",
    "knowledge_results": "knowledge index is rebuilding, try again in a minute",
    "metric_chart": "no metric named \"p99_latency\"", "blast_radius": 'Entity not found: "bad"',
    "change_log": "since must be within the last 30 days", "fleet_snapshot": "snapshot store timed out after 30 s",
}
FLEET_EMPTY = {
    "health_summary": {"healthy": 0, "degraded": 0, "down": 0}, "lxc_list": {"lxcs": []},
    "entity_table": {"entities": []}, "knowledge_results": {"results": []},
    "metric_chart": {"metric": "p95_latency_ms", "buckets": []}, "blast_radius": {"root": "cache-01", "impacted": []},
    "change_log": {"entries": []}, "fleet_snapshot": {"healthy": 0, "degraded": 0, "down": 0},
}


def fleet_items(renderer_id: str) -> list[Item]:
    """One renderer in its four states: skeleton, error, empty, card (demo data, lists trimmed to fit 80x24)."""
    from kandev_tui.demo import fleet
    from kandev_tui.packs.fleet import PACK

    step = next(s for s in fleet.STEPS if isinstance(s[3], dict) and s[3].get("__renderer") == renderer_id)
    _, tool, arguments, result, _ = step
    result = {key: value[:5] if isinstance(value, list) and key != "buckets" else value for key, value in result.items()}
    if renderer_id == "knowledge_results":
        result["results"] = result["results"][:1]
    other_tool = PACK[renderer_id][0][-1]
    return [
        fleet_item("s", tool, arguments=arguments, status="pending"),
        fleet_item("e", tool, FLEET_ERRORS[renderer_id], arguments={"slug": "bad"}, status="error", codex=True),
        fleet_item("m", other_tool, FLEET_EMPTY.get(renderer_id), arguments=arguments),
        fleet_item("c", tool, result, arguments=arguments, codex=True),
    ]


def fleet_fallback_items() -> list[Item]:
    return [
        message_item(1, "Results the pack does not draw fall back to the generic display:"),
        fleet_item("a", "get_entity", {"name": "web-02 (no slug)", "status": "ok"}, arguments={"slug": "web-02"}),
        fleet_item("b", "get_topology", {"__renderer": "topology_graph", "nodes": 7}),
        fleet_item("c", "ping_service", {"reachable": True}, codex=True),
        fleet_item("d", "fleet_digest", {"__renderer": "health_summary", "healthy": 9, "degraded": 1, "down": 0}),
    ]


def kandev_items() -> list[Item]:
    """Rows captured from a real Kandev 0.95.1 session, through the attach adapter."""
    import json

    from kandev_tui.kandev.rows import row_item

    path = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "kandev" / "build-session.rows.json"
    rows = json.loads(path.read_text())["messages"]
    return [item for item in (row_item(r) for r in rows) if item is not None]


RECORDINGS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "recordings"


async def scroll_to_edit(pilot) -> None:
    """Claude's second edit card (two hunks of a recorded real session)."""
    from kandev_tui.widgets.entries.edit_card import EditCard

    await plot_visible(pilot)
    cards = list(pilot.app.view.query(EditCard))
    await park(pilot, cards[-1].parent)


async def expand_commands(pilot) -> None:
    """Codex's commands (a recorded real session): the group expanded, output in colour, exit codes."""
    await plot_visible(pilot)
    group = pilot.app.view.query(ToolGroup).first()
    group.focus()
    await pilot.press("enter")
    for _ in range(400):
        calls = list(group.query(ToolCallView))
        if len(calls) == len(group.items) and all(call.is_mounted for call in calls):
            break
        await pilot.pause(0.02)
    await park(pilot, group)


async def scroll_to_rich_output(pilot) -> None:
    """The rich output of a recorded real Gemini CLI or OpenCode session: its native card, the edit cards above."""
    from kandev_tui.widgets.entries.presentation_card import PresentationCard

    await plot_visible(pilot)
    cards = list(pilot.app.view.query(PresentationCard))
    await park(pilot, cards[-1])


REAL_RECORDINGS = {"claude_edit": "claude-real.jsonl", "codex_commands": "codex-real.jsonl",
                   "gemini_rich": "gemini-real.jsonl", "opencode_rich": "opencode-real.jsonl"}


def make(scene: str, tmp_path: Path, theme: str):
    if scene in REAL_RECORDINGS:
        return replay_app(tmp_path, RECORDINGS / REAL_RECORDINGS[scene], theme=theme)
    if scene == "kandev_chart":
        return stored_app(tmp_path, kandev_items(), theme=theme)
    if scene.startswith("fleet_"):
        from kandev_tui.renderers import Registry

        items = fleet_fallback_items() if scene == "fleet_fallbacks" else fleet_items(scene[len("fleet_"):])
        return stored_app(tmp_path, items, theme=theme, registry=Registry.from_entry_points())
    if scene in ("demo_top", "demo_chart", "demo_end"):
        return replay_app(tmp_path, theme=theme)
    if scene in ("states", "group_expanded"):
        return stored_app(tmp_path, state_items(), theme=theme)
    workspace = tmp_path / "ws"
    (workspace / "reports").mkdir(parents=True)
    (workspace / "reports" / "latency.json").write_text('{"p95": [420, 380, null, 180], "unit": "ms"}')
    return stored_app(tmp_path, block_items(), theme=theme, workspace=str(workspace))


async def at_end(pilot) -> None:
    await plot_visible(pilot)
    pilot.app.view.jump_to_latest()
    for _ in range(3):
        await pilot.pause(0.05)
        pilot.app.view.scroll_end(animate=False, immediate=True)
    await pilot.pause(0.1)


RUN_BEFORE = {"claude_edit": scroll_to_edit, "codex_commands": expand_commands, "gemini_rich": scroll_to_rich_output,
              "opencode_rich": scroll_to_rich_output, "kandev_chart": scroll_to_csv_chart, "demo_top": scroll_home, "demo_chart": scroll_to_first_chart, "demo_end": at_end,
              "states": scroll_home, "group_expanded": expand_group, "blocks": inspect_chart}


# -- session control: the login screen, the mode and model picker, the slash commands (a live session's screens) ----

CLAUDE_INFO = {
    "modes": {"currentModeId": "default", "availableModes": [
        {"id": "default", "name": "Default", "description": "Standard behavior, prompts for dangerous operations"},
        {"id": "acceptEdits", "name": "Accept Edits", "description": "Auto-accept file edit operations"},
        {"id": "plan", "name": "Plan Mode", "description": "Planning mode, no actual tool execution"}]},
    "config": [
        {"id": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": "default", "options": [
            {"value": "default", "name": "Default", "description": "Standard behavior, prompts for dangerous operations"},
            {"value": "acceptEdits", "name": "Accept Edits", "description": "Auto-accept file edit operations"},
            {"value": "plan", "name": "Plan Mode", "description": "Planning mode, no actual tool execution"}]},
        {"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": "default", "options": [
            {"value": "default", "name": "Default (recommended)", "description": "Use the default model"},
            {"value": "sonnet", "name": "Sonnet", "description": "Efficient for routine tasks"},
            {"value": "haiku", "name": "Haiku", "description": "Fastest for quick answers"}]},
        {"id": "effort", "name": "Effort", "category": "thought_level", "type": "select", "currentValue": "default",
         "options": [{"value": "default", "name": "Default"}, {"value": "high", "name": "High"}]}],
    "mode": "default",
    "commands": [
        {"name": "code-review", "description": "Review the current diff for correctness bugs",
         "input": {"hint": "[low|medium|high] [--fix]"}},
        {"name": "compact", "description": "Summarize the conversation to free context", "input": None},
        {"name": "debug", "description": "Enable debug logging for this session", "input": {"hint": "[issue description]"}},
        {"name": "simplify", "description": "Review the changed code for reuse and simplification",
         "input": {"hint": "[<target>]"}}],
    "title": "Fix the flaky test"}

LOGIN_METHODS = [
    {"id": "claude-ai-login", "type": "terminal", "name": "Claude Subscription", "description": "Use Claude subscription",
     "args": ["--cli", "auth", "login", "--claudeai"]},
    {"id": "api-key", "name": "API Key", "description": "Use an API key to authenticate"},
    {"id": "anthropic-key", "type": "env_var", "name": "Anthropic API key", "description": "From console.anthropic.com",
     "vars": [{"name": "ANTHROPIC_API_KEY", "label": "API key"}]}]


def control_app(tmp_path: Path, view: str):
    from tests.support.app_helpers import ScriptedSource

    from kandev_tui.app.snapshot import deterministic_app

    items = [Item("session_info", "session_info", 1, CLAUDE_INFO),
             message_item(1, "I'll look at the flaky test first.")]
    state = "login" if view == "login" else "idle"
    detail = "The agent needs a login: Authentication required" if view == "login" else ""
    return deterministic_app(ScriptedSource(items, state=state,
                                                                       detail=detail, login_methods=LOGIN_METHODS),
                             tmp_path / "config.toml")


async def show_control(pilot, view: str) -> None:
    from tests.support.app_helpers import until

    from kandev_tui.screens.choices import ChoicesScreen
    from kandev_tui.screens.login import LoginScreen

    app = pilot.app
    if view == "login":  # what the agent sent goes on screen with the state that stops for the login, then the
        # login screen covers it
        await until(pilot, lambda: isinstance(app.screen, LoginScreen))
        await until(pilot, lambda: app.source.state == "login")
    elif view == "choices":
        await settle(pilot)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, ChoicesScreen) and app.screen.options.highlighted is not None)
    else:
        await settle(pilot)
        app.transcript_screen.prompt.focus()
        await pilot.press("/", "c")
        await until(pilot, lambda: app.transcript_screen.command_menu.open)
    await pilot.pause(0.2)


# -- an agent's questions (elicitation): a form, and a link to open, waiting for the user -------------------------

QUESTION_FORM = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string", "title": "Release name", "minLength": 3, "description": "As it goes in the changelog"},
    "builds": {"type": "integer", "title": "Builds", "minimum": 1, "maximum": 3, "default": 1},
    "channel": {"type": "string", "title": "Channel", "oneOf": [{"const": "beta", "title": "Beta"},
                                                               {"const": "stable", "title": "Stable"}]},
    "notify": {"type": "boolean", "title": "Tell the team", "default": True}}}


def question_app(tmp_path: Path, mode: str):
    from tests.support.app_helpers import ScriptedSource

    from kandev_tui.app.snapshot import deterministic_app

    if mode == "form":
        payload = {"mode": "form", "message": "Which release should I cut?", "schema": QUESTION_FORM,
                   "agent": "Claude Agent", "scope": "session"}
    else:  # a host with a look-alike letter and a user-info part: shown as what it is
        url = "https://github.com@gíthub.example/login/oauth?client=kandev"
        from kandev_tui.transcript.elicitation import url_target

        payload = {"mode": "url", "message": "Sign in to GitHub so that I can open the pull request.", "url": url,
                   "host": url_target(url)[0], "elicitation_id": "e-1", "agent": "Claude Agent", "scope": "session"}
    items = [Item("session_info", "session_info", 1, {"title": "Cut the release"}),
             Item("user:1", "user_message", 1, {"text": "Cut the release"}, final=True),
             message_item(1, "I need two things from you first."),
             Item("elicitation:3", "elicitation", 1, payload, status="pending")]
    return deterministic_app(ScriptedSource(items, state="waiting",
                                                                       detail="the agent asks you a question",
                                                                       waiting=("elicitation:3",)),
                             tmp_path / "config.toml")


async def show_question(pilot) -> None:
    from kandev_tui.widgets.entries.elicitation import ElicitationCard

    app = pilot.app
    await shown_when(pilot, lambda: any(card.answerable and card.has_focus_within for card in app.query(ElicitationCard)))
    app.view.scroll_end(animate=False, immediate=True)
    await pilot.pause(0.1)


def event_items() -> list[Item]:
    """What an agent tells the user beside its messages: a Markdown plan, notices of each severity, compactions."""
    return [Item("user:1", "user_message", 1, {"text": "Carry on with the migration"}, final=True),
            Item("plan:7", "plan", 1, {"plan_id": "p1", "markdown": "**Migration**: `0042` first, then:\n\n"
                                                                  "1. backfill\n2. drop the old column"}),
            Item("notice:2", "agent_notice", 1, {"severity": "info", "title": "Using the project's Python 3.11",
                                                 "description": ""}, final=True),
            Item("notice:3", "agent_notice", 1, {"severity": "warning", "title": "Rate limited by the provider",
                                                 "description": "Retrying in 20 s (attempt 2 of 5)."}, final=True),
            Item("compaction:4", "compaction", 1, {"status": "completed", "summary": "Kept: the plan."},
                 status="completed", final=True),
            Item("compaction:5", "compaction", 1, {"status": "failed", "summary": "", "error": "context too large"},
                 status="failed", final=True),
            Item("notice:6", "agent_notice", 1, {"severity": "error", "title": "The sandbox refused a write",
                                                 "description": "migrations/0042.sql is outside the workspace."},
                 final=True),
            message_item(1, "The migration is written; the sandbox kept one file out.")]


def subagent_items() -> list[Item]:
    """A call that spawned a subagent, and the subagent inside it, at work (expanded by the scene)."""
    return [Item("user:1", "user_message", 1, {"text": "Review the change"}, final=True),
            tool_item("spawn-1", name="spawn_agent", kind="other", title="Spawn a reviewer", status="in_progress"),
            Item("subagent:3", "subagent", 1, {
                "session_id": "kid-1", "title": "Reviewer", "description": "Reviews the diff for correctness",
                "state": "running", "spawned_by": "spawn-1",
                "tools": [{"id": "k1", "title": "Read kandev_tui/app.py", "status": "completed"},
                          {"id": "k2", "title": "Run the tests", "status": "in_progress"}],
                "text": "The start of the sources is now idempotent; checking the timer path.",
                "parts": [{"n": 0, "told": "Review the diff of the app split for correctness."},
                          {"n": 1, "text": "Reading **the app** first: `_run_sources` is where it starts."},
                          {"n": 2, "call": "k1"}, {"n": 3, "call": "k2"},
                          {"n": 4, "text": "The start of the sources is now idempotent; checking the timer path."}]})]


async def expand_subagent(pilot) -> None:
    from kandev_tui.ui.textual_hooks import screen_text
    from kandev_tui.widgets.entries.subagent import SubagentCard

    app = pilot.app
    await shown_when(pilot, lambda: bool(app.query(SubagentCard)))
    app.query_one(SubagentCard).query_one("Collapsible").collapsed = False
    await shown_when(pilot, lambda: "Run the tests" in screen_text(app))
    await scroll_home(pilot)


async def open_subagent(pilot) -> None:
    """The subagent full screen (``o`` on its row)."""
    from kandev_tui.screens.subagent import SubagentScreen
    from kandev_tui.ui.textual_hooks import screen_text
    from kandev_tui.widgets.entries.subagent import SubagentCard

    app = pilot.app
    await shown_when(pilot, lambda: bool(app.query(SubagentCard)))
    app.query_one(SubagentCard).query_one("CollapsibleTitle").focus()
    await pilot.press("o")
    await shown_when(pilot, lambda: isinstance(app.screen, SubagentScreen) and "timer path" in screen_text(app))


# -- several sessions in one app: the sessions list (ctrl+s) over three replayed real sessions ----------------------

def sessions_app(tmp_path: Path):
    """The app with three sessions: Claude Code's, Codex's and Gemini CLI's recorded sessions, replayed."""
    from kandev_tui.sources import ReplaySource

    app = replay_app(tmp_path, RECORDINGS / "claude-real.jsonl")
    for name in ("codex-real.jsonl", "gemini-real.jsonl"):
        app.open_session(ReplaySource(RECORDINGS / name))
    return app


async def shown_when(pilot, condition, seconds: float = 60) -> None:
    """A turn of the pilot at a time until ``condition()`` holds (``seconds`` at most), then a moment to draw it."""
    for _ in range(int(seconds / 0.02)):
        if condition():
            break
        await pilot.pause(0.02)
    await pilot.pause(0.1)


async def sessions_replayed(pilot) -> None:
    """Every session replayed to its end (the first one's transcript drawn)."""
    app = pilot.app
    await shown_when(pilot, lambda: all(s.last_state == "replayed" for s in app.sessions) and app.session.settled)


async def show_sessions(pilot) -> None:
    """Every session replayed to its end, then the list (beside the transcript at 120 columns, focused)."""
    from kandev_tui.screens.sessions import SessionsScreen

    app = pilot.app
    await sessions_replayed(pilot)
    await pilot.press("ctrl+s")
    if app.lists.sidebar_shown:
        await pilot.pause(0.1)
        return
    await shown_when(pilot, lambda: isinstance(app.screen, SessionsScreen))


def home_app(tmp_path: Path):
    """The bare kandev-tui's sessions list over three stored sessions (one its agent can continue, one interrupted,
    one with a hostile title), their times fixed in UTC."""
    import os
    import sqlite3
    import time

    from kandev_tui.app.home import HomeApp
    from kandev_tui.sources.launch import Launcher
    from kandev_tui.transcript import Store
    from tests.support.app_helpers import settings_at

    os.environ["TZ"] = "UTC"
    time.tzset()
    store = Store(tmp_path / "home.db")
    rows = [("Fix the flaky login test", ["npx", "-y", "@agentclientprotocol/claude-agent-acp"], "/tmp",  # a folder
             "ended", "C1", "resume"),  # that is there (else the row says it is gone, not "c continues")
            ("Migrate the orders table", ["codex-acp"], "/home/me/src/shop", "interrupted", None, None),
            ("\x1b]2;pwned\x07Review \x1b[31mred\x1b[0m\u202e title", ["opencode", "acp"], "/home/me/src/site", "failed",
             None, None)]
    for number, (title, command, workspace, state, agent_session, continues) in enumerate(rows):
        session_id = store.create_session(title=title, agent_command=command, workspace=workspace, state=state)
        store.update_session(session_id, agent_session_id=agent_session, continues=continues)
        stamp = 1796300000 - number * 3600
        with sqlite3.connect(tmp_path / "home.db") as db:
            db.execute("UPDATE sessions SET created = ?, updated = ?, owner = NULL WHERE id = ?", (stamp, stamp, session_id))
    settings = settings_at(tmp_path, chart_animation=False)
    return HomeApp(Launcher(store, settings), settings_store=settings)


async def show_home(pilot) -> None:
    """The stored sessions listed."""
    await shown_when(pilot, lambda: len(pilot.app.home.stored) == 3)


async def show_new_session(pilot) -> None:
    """ctrl+n's dialog, asking for a worktree, over the list; its folder a fixed one."""
    from kandev_tui.screens.new_session import NewSessionScreen

    app = pilot.app
    await show_home(pilot)
    await pilot.press("ctrl+n")
    await shown_when(pilot, lambda: isinstance(app.screen, NewSessionScreen))
    app.screen.query_one("#workspace").value = "/home/me/src/app"
    app.screen.query_one("#worktree").value = True
    app.screen.query_one("#branch").value = "kandev/claude-1"
    await pilot.pause(0.2)


# -- what a turn changed: the changes card and its review, from checkpoints of a real git repository --------------

def changes_items(tmp_path: Path) -> list[Item]:
    """A turn that changed a real repository (checkpoints taken around the change): its message, then its card; two
    of its files the agent's own state, which no tool call named."""
    import os
    import subprocess

    from kandev_tui.workspace import checkpoints

    root = tmp_path / "repo"
    root.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u",
           "GIT_COMMITTER_EMAIL": "u@x"}
    (root / "app.py").write_text("def total(items):\n    result = 0\n    for item in items:\n"
                                 "        result += item\n    return result\n\n\ndef main():\n    print(total([1, 2]))\n")
    (root / "notes.txt").write_text("kept\n")
    (root / "logo.bin").write_bytes(b"\x00\x01")
    for args in (["init", "-q", "-b", "main", "."], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)
    before = checkpoints.take(root, "refs/kandev-tui/snap/1-start")
    (root / "app.py").write_text("def total(items):\n    return sum(items)\n\n\ndef main():\n"
                                 "    print(total([1, 2, 3]))\n")
    subprocess.run(["git", "mv", "notes.txt", "NOTES.md"], cwd=root, check=True, env=env)
    (root / "logo.bin").write_bytes(b"\x00\x02\x03")
    (root / "tests").mkdir()
    (root / "tests" / "test_app.py").write_text("from app import total\n\n\ndef test_total():\n"
                                                "    assert total([1, 2, 3]) == 6\n")
    (root / ".agentstate").mkdir()  # the agent's own state, written by its process: no tool call named it
    (root / ".agentstate" / "session.json").write_text('{"turns": 1}\n')
    (root / ".agentstate" / "history.jsonl").write_text('{"role": "user"}\n{"role": "agent"}\n')
    after = checkpoints.take(root, "refs/kandev-tui/snap/1-end")
    found = checkpoints.changes(root, before.commit, after.commit)
    files = [{**f.to_json(), **({"unnamed": True} if f.path.startswith(".agentstate/") else {})} for f in found.files]
    payload = {"state": "ready", "files": files, "count": found.count,
               "added": found.added, "removed": found.removed, "skipped": 0, "overlapped": True,
               "before": before.commit, "after": after.commit, "session": "snap", "repository": str(root)}
    return [Item("user:1", "user_message", 1, {"text": "Simplify total and test it"}, final=True),
            message_item(2, "Done: `total` uses `sum`, with a test.", turn=1),
            Item("changes:3", "changes", 1, payload, final=True)]


async def show_changes(pilot) -> None:
    from kandev_tui.ui.textual_hooks import screen_text

    await shown_when(pilot, lambda: "files changed" in screen_text(pilot.app))


async def show_review(pilot) -> None:
    from kandev_tui.screens.review import ReviewScreen
    from kandev_tui.ui.textual_hooks import screen_text
    from kandev_tui.widgets.entries.changes_card import ChangesCard

    app = pilot.app
    await shown_when(pilot, lambda: bool(app.query(ChangesCard)))
    app.query_one(ChangesCard).focus()
    await pilot.press("enter")
    await shown_when(pilot, lambda: isinstance(app.screen, ReviewScreen) and "text is unchanged" in screen_text(app))
    await pilot.press("n")  # the next file: app.py's diff
    await shown_when(pilot, lambda: "return sum(items)" in screen_text(app))
