"""The app's collaborators, each alone, given a small stand-in for the app members it uses (its protocol): no app is
mounted and no process starts. What the app does with them on screen is tested in the app tests."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from kandev_tui.app.actions import UserActions
from kandev_tui.app.lifecycle import Lifecycle
from kandev_tui.app.looks import DARK_ANSI, Looks
from kandev_tui.app.session_subagents import Subagents
from kandev_tui.app.switching import TOAST_REASON, Switching
from kandev_tui.session import SessionState
from kandev_tui.transcript.items import Item


class Said:
    """Toasts, as the app would show them."""

    def __init__(self) -> None:
        self.toasts: list[tuple[str, dict[str, Any]]] = []

    def notify(self, message: str, **options: Any) -> None:
        self.toasts.append((message, options))


def subagent(key: str, title: str, state: str = "running") -> Item:
    return Item(key, "subagent", 1, {"title": title, "state": state})


def test_a_sessions_subagents_are_rows_with_their_titles_made_visible_and_cut():
    items = {"s1": subagent("s1", "Explore\x1b[31m the code"), "m1": Item("m1", "agent_message", 1, {"text": "hi"}),
             "s2": subagent("s2", "x" * 500, "completed")}
    agents = Subagents(lambda: items, owner=object())
    agents.note(["m1", "s1", "s2", "gone"])
    rows = agents.rows
    assert [key for key, _, _ in rows] == ["s1", "s2"] and rows[1][2] == "completed"
    assert "\x1b" not in rows[0][1] and len(rows[1][1]) == 120
    agents.noted_again(["s2"])  # the transcript reset: the rows from what it holds now
    assert [key for key, _, _ in agents.rows] == ["s2"]
    assert agents.screen_for("gone") is None and not agents.shown_by(object())


class LooksApp(Said):
    def __init__(self, *, dark: bool = True, sixteen: bool = False, animation: str = "full",
                 animate_charts: bool = True) -> None:
        super().__init__()
        self.settings_store = SimpleNamespace(settings=SimpleNamespace(chart_animation=animate_charts,
                                                                       theme="nope"), warnings=["old key"])
        self.sixteen_colors = sixteen
        self.theme = ""
        self.animation_level = animation
        self.app_focus = True
        self.available_themes = {"textual-dark": None}
        self.current_theme = SimpleNamespace(dark=dark, primary="#0000ff", warning=None, success=None, error=None)
        self.is_headless = True
        self.console = None
        self.classes: set[str] = set()
        self.css_refreshed = 0

    def has_class(self, *names: str) -> bool:
        return set(names) <= self.classes

    def set_class(self, add: bool, *names: str, update: bool = True) -> None:
        self.classes = self.classes | set(names) if add else self.classes - set(names)

    def refresh_css(self, animate: bool = True) -> None:
        self.css_refreshed += 1


def test_looks_take_the_settings_theme_or_say_why_not_and_keep_sixteen_colours_readable():
    app = LooksApp(dark=False, sixteen=True)
    looks = Looks(app)
    looks.apply_settings()
    assert app.theme == "textual-dark" and "'nope'" in app.toasts[0][0] and app.toasts[1][0] == "old key"
    assert app.has_class("-colors-16") and app.css_refreshed == 1
    assert looks.css_variables({})["text-muted"] == "auto 70%" and looks.series_colors() == DARK_ANSI


def test_a_chart_animates_once_and_never_under_reduced_motion_or_the_setting(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    looks = Looks(LooksApp())
    assert looks.should_animate("c1") and not looks.should_animate("c1") and looks.should_animate("c2")
    assert len(looks.series_colors() or ()) == 4
    assert not Looks(LooksApp(animation="none")).should_animate("c1")
    assert not Looks(LooksApp(animate_charts=False)).should_animate("c1")
    monkeypatch.setenv("NO_COLOR", "1")
    assert looks.series_colors() is None


class Session(SimpleNamespace):
    pass


class SwitchingApp(Said):
    def __init__(self, sessions: list[Session], *, home: bool = False) -> None:
        super().__init__()
        self.sessions = sessions
        self.current = sessions[0]
        self.has_home = home
        self.bindings_refreshed = 0
        self.called: list[tuple[Any, ...]] = []
        self.attention = SimpleNamespace(state_changed=lambda *args: self.called.append(("attention", *args)))
        self.lists = SimpleNamespace(show_soon=lambda: self.called.append(("show soon",)),
                                     show=lambda: self.called.append(("show",)),
                                     switch_to=lambda s: self.called.append(("switch", s.number)))

    def refresh_bindings(self) -> None:
        self.bindings_refreshed += 1


def session(number: int, *, on_screen: bool = False, closed: bool = False) -> Session:
    async def close(reason: str = "") -> None:
        one.closed = True

    one = Session(number=number, on_screen=on_screen, closed=closed, closing_note="", close=close)
    return one


def test_a_failed_session_on_screen_is_said_short_and_every_change_calls_the_lists_and_the_user():
    app = SwitchingApp([session(1, on_screen=True), session(2)])
    switching = Switching(app, quit=None, show_list=lambda: None)  # type: ignore[arg-type]
    change = SimpleNamespace(state=SessionState.ERROR, detail="x" * 200)
    switching.state_changed(app.sessions[0], change, SessionState.RUNNING)
    said, options = app.toasts[0]
    assert options["title"] == "Session 1 stopped" and len(said) < TOAST_REASON + 30 and said.endswith("transcript)")
    assert app.bindings_refreshed == 1 and ("show soon",) in app.called
    assert app.called[0][0] == "attention"


async def test_ctrl_w_asks_first_then_closes_and_shows_the_next_live_session_and_the_last_one_quits():
    quits: list[bool] = []

    async def quit() -> None:
        quits.append(True)

    app = SwitchingApp([session(1, on_screen=True), session(2)])
    switching = Switching(app, quit=quit, show_list=lambda: None)
    await switching.close()
    assert "ctrl+w again to close session 1" in app.toasts[-1][0] and not app.sessions[0].closed
    await switching.close()
    assert app.sessions[0].closed and ("switch", 2) in app.called and not quits
    app.current = app.sessions[1]
    await switching.close_current()  # the palette's: at once
    assert quits == [True]


class LifeApp(Said):
    def __init__(self, sessions: list[Any]) -> None:
        super().__init__()
        self.sessions = sessions
        self.is_running = True
        self.timers: list[tuple[float, Any]] = []
        self.user_input = SimpleNamespace(at=0.0)
        self.gc_policy = SimpleNamespace(tick=lambda at: None, due=False)
        self.lists = SimpleNamespace(refresh=lambda: None)
        self.stats_path = None
        self.exit_code = 1
        self.exits: list[tuple[Any, int]] = []

    def set_timer(self, delay: float, callback: Any = None, **options: Any) -> Any:
        self.timers.append((delay, callback))
        return object()

    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None:
        self.exits.append((result, return_code))


def stopped(number: int, failure: str = "", unsent: tuple[str, ...] = (), note: str = "") -> Any:
    async def close(reason: str = "") -> None:
        stopped.closed.append((number, reason))

    return SimpleNamespace(number=number, model=SimpleNamespace(failure=failure, batch=SimpleNamespace(received_at=0)),
                           unsent=lambda: list(unsent), closing_note=note, close=close)


stopped.closed = []  # type: ignore[attr-defined]


async def test_the_app_looks_with_one_timer_at_a_time_closes_every_session_once_and_says_what_is_left():
    app = LifeApp([stopped(1, "it died", ("queued",)), stopped(2, note="worktree kept")])
    life = Lifecycle(app, prepare_help=lambda: None)
    life.keep_looking()
    life.keep_looking()
    assert len(app.timers) == 1 and life.looking
    life.look_around()  # quiet: no further look
    assert not life.looking and len(app.timers) == 1
    await life.quit()
    await life.close_sources()  # once only
    assert sorted(stopped.closed) == [(1, ""), (2, "")] and app.exits == [(1, 1)]
    assert life.failures() == ["session 1: it died"] and life.unsent() == [(1, "queued")]
    assert life.closing_notes() == ["session 2: worktree kept"]


async def test_ctrl_c_copies_a_selection_else_asks_and_quits_when_pressed_again():
    quits: list[bool] = []

    async def quit() -> None:
        quits.append(True)

    class App(Said):
        focused = None
        copied: list[str] = []
        selected = "some\ntext"

        @property
        def screen(self) -> Any:
            return SimpleNamespace(get_selected_text=lambda: self.selected)

        def copy_to_clipboard(self, text: str) -> None:
            self.copied.append(text)

    app = App()
    actions = UserActions(app, quit=quit)  # type: ignore[arg-type]
    await actions.interrupt()
    assert app.copied == ["some\ntext"] and app.toasts[-1][0] == "Copied 2 lines." and not quits
    app.selected = ""
    await actions.interrupt()
    assert "again to quit" in app.toasts[-1][0] and not quits
    await actions.interrupt()
    assert quits == [True]
    await asyncio.sleep(0)
