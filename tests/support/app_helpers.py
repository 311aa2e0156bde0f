"""Building the real app over a real source for pilot and snapshot tests."""

from __future__ import annotations

import asyncio
import weakref
from pathlib import Path
from typing import Any, Iterable

from textual.widget import Widget

from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.app.snapshot import deterministic_app
from kandev_tui.base.settings import SettingsStore
from kandev_tui.renderers import Registry, Renderer
from kandev_tui.sources import ReplaySource, StoredSource
from kandev_tui.transcript import Item, Store

from . import FIXTURES

DEMO_RECORDING = FIXTURES / "recordings" / "demo-turn.jsonl"


def settings_at(tmp_path: Path, **values) -> SettingsStore:
    path = tmp_path / "config.toml"
    lines = [f"{k} = {str(v).lower() if isinstance(v, bool) else repr(v) if isinstance(v, str) else v}" for k, v in values.items()]
    path.write_text("\n".join(lines).replace("'", '"') + "\n")
    return SettingsStore(path)


def home_app(tmp_path: Path) -> tuple[Any, Store]:
    """The bare kandev-tui (its sessions list, agents started from presets) over a new store in ``tmp_path``, charts
    not animated; and the store, for the test to close."""
    from kandev_tui.app.home import HomeApp
    from kandev_tui.sources.launch import Launcher

    store = Store(tmp_path / "s.db")
    settings = settings_at(tmp_path, chart_animation=False)
    return HomeApp(Launcher(store, settings), settings_store=settings), store


async def new_session_dialog(pilot) -> Any:
    """ctrl+n, and its dialog once it is on screen."""
    from kandev_tui.screens.new_session import NewSessionScreen

    await pilot.press("ctrl+n")
    await until(pilot, lambda: isinstance(pilot.app.screen, NewSessionScreen))
    return pilot.app.screen


def replay_app(tmp_path: Path, recording: Path = DEMO_RECORDING, *, registry: Registry | None = None,
               animation: bool = False, theme: str = "textual-dark", stats_path: Path | None = None, **settings) -> KandevApp:
    config = settings_at(tmp_path, chart_animation=animation, theme=theme, **settings).path
    return deterministic_app(ReplaySource(recording), config,
                             theme=theme, animation=animation, registry=registry, stats_path=stats_path)


def stored_app(tmp_path: Path, items: Iterable[Item], *, registry: Registry | None = None, animation: bool = False,
               theme: str = "textual-dark", workspace: str = "", **settings) -> KandevApp:
    db = Store(tmp_path / "sessions.db")
    session_id = db.create_session(title="Test session", agent_command=["test-agent"], workspace=workspace, state="ended")
    db.upsert_items(session_id, list(items))
    session = db.session(session_id)
    config = settings_at(tmp_path, chart_animation=animation, theme=theme, **settings).path
    return deterministic_app(StoredSource(db, session), config,
                             theme=theme, animation=animation, registry=registry)


async def settle(pilot, rounds: int = 1200) -> None:
    """Wait until the source has delivered everything and the view has drawn it (a minute at most); fail if it
    never does."""
    app = pilot.app

    def settled() -> bool:
        return app.source.state in ("stored", "replayed", "idle", "error", "ended", "login") and app.session.settled

    if not await until(pilot, settled, rounds, fail=False):
        raise AssertionError(f"the session never settled: {app.source.state}, settled={app.session.settled}")
    await pilot.pause(0.05)
    await pilot.pause()


_applied: weakref.WeakKeyDictionary[Any, asyncio.Event] = weakref.WeakKeyDictionary()


def items_applied(app) -> asyncio.Event:
    """An event set each time the app puts a batch of items in a transcript (its ``items_applied`` signal, which
    publishes the ``ItemsApplied`` message); one per app."""
    event = _applied.get(app)
    if event is None:
        event = _applied[app] = asyncio.Event()
        signal = getattr(app, "items_applied", None)
        if signal is not None:  # a KandevApp (not another test app)
            signal.subscribe(app, lambda keys: event.set())
    return event


async def until(pilot, condition, rounds: int = 1200, *, fail: bool = True) -> bool:
    """Wait until ``condition()`` holds, looking again as soon as a batch of items is in the transcript
    (``ItemsApplied``) and at least every 0.05 s for what is not an item (a screen, a state): ``rounds`` of those
    (a minute at most); fail if it never holds (``fail=False``: say whether it did). The suite's one wait on a
    condition."""
    applied = items_applied(pilot.app)
    while rounds > 0:
        if condition():
            await composed(pilot)
            return True
        applied.clear()
        try:
            await asyncio.wait_for(applied.wait(), 0.05)
        except asyncio.TimeoutError:
            rounds -= 1
        await pilot.pause(0)  # the screen's messages handled, its timers' updates drawn
    if fail:
        assert condition()
    return condition()


async def composed(pilot, rounds: int = 200) -> None:
    """Every widget of the screen on top composed and mounted (0.01 s pauses, ``rounds`` at most). A widget put in
    the DOM is composed by its own message loop, and ``Pilot.pause()`` waits only for loops already running: a card
    mounted in the batch a test waited for had not made its parts yet (a fresh-clone CI run looked for a ToolCard's
    EditCard a moment too soon). :func:`until` waits for this before it says its condition holds."""
    screen = pilot.app.screen
    for _ in range(rounds):
        if all(node.is_mounted for node in screen.walk_children(Widget)):
            return
        await pilot.pause(0.01)


async def scroll_to_top_until(pilot, view, done, *, rounds: int = 400, pause: float = 0.03, each=None) -> None:
    """Scroll to the top again and again, as the user's home key does (each time more loads above), until ``done()``
    holds: a condition, not a number of rounds, since a loaded machine is slower."""
    for _ in range(rounds):
        view.action_scroll_home()
        await pilot.pause(pause)
        if each is not None:
            each()
        if done():
            return


def tool_item(call_id: str, *, name="read", kind="read", status="complete", title=None, output=None, turn=1,
              raw_input=None, **extra) -> Item:
    payload = {"tool_call_id": call_id, "name": name, "kind": kind, "title": title or f"{name} {call_id}",
               "input": {"kind": kind, "raw_input": raw_input or {"path": f"src/{call_id}.py"}}, "output": output,
               "status": status, "parent_id": None, "turn": turn, **extra}
    return Item(f"tool:{call_id}", "tool_call", turn, payload, status=status, tool_call_id=call_id, final=True)


def rich_item(call_id: str, arguments: dict, *, status="complete", output=None, turn=1) -> Item:
    payload = {"tool_call_id": call_id, "name": "kandev/show_rich_output_kandev", "kind": "execute", "mcp": True,
               "title": "mcp.kandev.show_rich_output_kandev", "input": arguments,
               "output": output if output is not None else {"content": [{"type": "text", "text": "Rich output accepted."}]},
               "status": status, "parent_id": None, "turn": turn}
    return Item(f"tool:{call_id}", "tool_call", turn, payload, status=status, tool_call_id=call_id, final=True)


def message_item(n: int, text: str, turn=1) -> Item:
    return Item(f"message:{n}", "agent_message", turn, {"text": text}, final=True)


def bar_chart(title: str, labels=("api", "web"), series=(("Count", (42, 7)),)) -> dict:
    return {"version": 1, "title": title, "blocks": [{
        "type": "chart", "chart_type": "bar", "title": title, "summary": f"Summary of {title}.",
        "labels": list(labels), "series": [{"label": l, "values": list(v)} for l, v in series]}]}


def fleet_item(call_id: str, tool: str, result=None, *, arguments=None, status="complete", codex=False,
               turn=1) -> Item:
    """An operations MCP call as agents report it: Claude-style (title ``mcp__fleet__tool``, text blocks)
    or Codex-style (an MCP name and a result with structured content)."""
    import json

    text = result if isinstance(result, str) else json.dumps(result)
    if result is None:
        output = None
    elif status == "error":
        output = {"error": text} if codex else [{"type": "text", "text": text}]
    elif codex:
        output = {"content": [{"type": "text", "text": text}],
                  **({"structuredContent": result} if isinstance(result, dict) else {})}
    else:
        output = [{"type": "text", "text": text}]
    if codex:
        payload = {"tool_call_id": call_id, "name": f"fleet/{tool}", "kind": "execute", "mcp": True,
                   "title": f"mcp.fleet.{tool}", "input": arguments or {}, "output": output, "status": status,
                   "parent_id": None, "turn": turn}
    else:
        payload = {"tool_call_id": call_id, "name": "other", "kind": "other", "mcp": False,
                   "title": f"mcp__fleet__{tool}", "input": {"kind": "other", "raw_input": arguments or {}},
                   "output": output, "status": status, "parent_id": None, "turn": turn}
    return Item(f"tool:{call_id}", "tool_call", turn, payload, status=status, tool_call_id=call_id, final=True)


def apply_now(app, items) -> None:
    """Put items on screen at once, past the batch policy (the session model's transcript, then the view)."""
    app.current.apply_changes(app.session.transcript.apply(items))


class ScriptedSource:
    """A session as a live agent's looks, from fixed items and a fixed state (deterministic snapshots of what only a
    live session shows: the login screen, the mode and model picker, the slash commands)."""

    def __new__(cls, items, *, state="idle", detail="", login_methods=(), agent="Claude Agent",
                waiting=()):
        from kandev_tui.session import NullSource

        class Scripted(NullSource):
            can_prompt = True
            can_cancel = True

            @property
            def waiting_for(self) -> set[str]:  # the requests (keys) that wait for the user's answer
                return set(waiting)

            async def start(self) -> None:
                self.take_title(list(items))  # as a real source does: the title its items bring is its own
                self.on_items(list(items))
                self._set_state(state, detail)

            async def send(self, text: str) -> None:
                self._set_state("running", "")

            def terminal_login(self, method_id: str):
                method = next((m for m in self.login_methods if m.get("id") == method_id), None)
                if method is None or method.get("type") != "terminal":
                    return None
                return ["claude-agent-acp", *method.get("args", [])], {}

        source = Scripted()
        source.agent_name, source.title, source.agent_command = agent, "Fix the flaky test", ["claude-agent-acp"]
        source.login_methods = list(login_methods)
        return source


def ready(app) -> bool:
    """The session is idle and the app shows it: the prompt takes text. (The source's state changes on its own thread
    first; the screen follows a moment later, and keys typed in between would go to a disabled prompt.)"""
    return app.source.state == "idle" and not app.transcript_screen.prompt.disabled


def footer_keys(app) -> list[tuple[str, str, int]]:
    """(key, description, right edge) of each key the footer of the screen shows."""
    from kandev_tui.widgets.chrome.key_footer import KeyFooter

    footer = app.screen.query_one(KeyFooter)
    return [(key.key_display, key.description, key.region.right) for key in footer.children if hasattr(key, "key_display")]


def counting_renderer(tool_names=(), renderer_ids=(), fail=False, priority=0, rid="test"):
    from textual.widgets import Static

    class Card(Static):
        def update_item(self, item):
            if fail:
                raise RuntimeError("renderer bug")
            self.update(f"CARD {item.payload.get('title')}")

    def widget(item):
        if fail == "build":
            raise RuntimeError("cannot build")
        card = Card()
        card.update_item(item)
        return card

    return Renderer(id=rid, widget=widget, tool_names=frozenset(tool_names), renderer_ids=frozenset(renderer_ids),
                    priority=priority)


def drawn_text(app) -> str:
    """Every line every mounted widget draws (not only what fits on the screen)."""
    from textual.geometry import Region

    lines = []
    for widget in app.screen.walk_children():
        if widget.display and widget.size.area:
            for strip in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height)):
                lines.append("".join(segment.text for segment in strip))
    return "\n".join(lines)


def press(app, key: str) -> None:
    """A key as the terminal's driver delivers it: the pilot's ``press`` also waits for the app to go idle, which it
    does not while an agent floods it (the agent's thread keeps the process busy)."""
    from textual import events

    from kandev_tui.ui.textual_hooks import send_as_terminal

    send_as_terminal(app, events.Key(key, key if len(key) == 1 else None))


def picker_app(tmp_path, store) -> KandevApp:
    app = KandevApp(StoredSource(store, None),
                    settings_store=settings_at(tmp_path))
    app.animation_level = "none"
    return app


async def open_the_group(pilot, app, calls: int) -> None:
    """The session's tool group opened with enter, its ``calls`` calls drawn."""
    from kandev_tui.widgets.entries.tool_call import ToolCallView
    from kandev_tui.widgets.entries.tool_group import ToolGroup

    await settle(pilot)
    group = app.view.query_one(ToolGroup)
    group.focus()
    await pilot.press("enter")
    await until(pilot, lambda: len(group.query(ToolCallView)) == calls)
    await settle(pilot)
