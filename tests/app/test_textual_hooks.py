"""Each use of Textual's private names (kandev_tui/ui/textual_hooks.py) fails here when an upgrade breaks it."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from kandev_tui.screens.help import HelpScreen
from kandev_tui.ui.textual_hooks import screen_text, send_as_terminal, watch_frames

from ..support.app_helpers import apply_now, message_item, settle, stored_app, until


class Two(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("first line of the screen")
        yield Static("second line")


async def test_screen_text_is_what_the_screen_shows():
    app = Two()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        text = screen_text(app)
    lines = text.splitlines()
    assert len(lines) == 5 and lines[0].rstrip() == "first line of the screen" and lines[1].rstrip() == "second line"


class _Part(Static):
    pass


class _Card(Static):
    def compose(self) -> ComposeResult:
        yield _Part("made when the card composes")


async def test_the_suites_wait_returns_once_what_was_just_mounted_has_made_its_parts():
    """A card mounted and not awaited is in the DOM at once, and composed later by its own loop (Pilot.pause() does
    not wait for a loop that is not running yet): the suite's wait (app_helpers.until) says its condition holds only
    once the card has made its parts."""
    app = Two()
    async with app.run_test(size=(40, 5)) as pilot:
        app.mount(_Card())
        await until(pilot, lambda: bool(app.query(_Card)))
        assert app.query_one(_Card).query(_Part)


# -- the hooks' behaviour: each of these fails when Textual's internals change under a hook -------------------

async def test_an_input_is_noted_when_the_driver_hands_it_over(tmp_path):
    """Before the app's queue reaches it: from then on the agent's output and the transcript's frames wait for it."""
    from textual import events

    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.user_input.at = app.user_input.served_at = float("-inf")
        send_as_terminal(app, events.Key("pageup", None))  # as the terminal's input thread does
        assert app.user_input.holding() > 0 and app.user_input.waiting()  # noted at once, before any turn of the event loop
        await settle(pilot)
        assert not app.user_input.waiting()  # dispatched: frames go on


async def test_a_frame_waits_for_an_input_on_its_way_but_not_for_long(tmp_path):
    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.transcript_screen
        try:
            screen.refresh(layout=True)
            app.user_input.note()  # a key on its way: the frame waits
            screen._on_timer_update()
            assert screen._layout_required
            app.user_input.at -= 1  # noted a second ago and still not dispatched: the frame no longer waits for it
            screen._on_timer_update()
            assert not screen._layout_required
            screen.refresh(layout=True)
            app.user_input.note()
            app.user_input.served()  # dispatched: drawn at once
            screen._on_timer_update()
            assert not screen._layout_required
        finally:
            app.user_input.at = app.user_input.served_at = float("-inf")


def how_drawn(screen_class: type, monkeypatch) -> list[str]:
    """How each frame of ``screen_class`` is drawn from now: "timer" (its update timer's tick) or "at once"."""
    import traceback

    how: list[str] = []
    update = screen_class._on_timer_update

    def drawing(self):
        how.append("timer" if any(f.name == "_tick" for f in traceback.extract_stack()) else "at once")
        return update(self)

    monkeypatch.setattr(screen_class, "_on_timer_update", drawing)
    return how


async def first_drawn(how: list[str]) -> str | None:
    """How the first frame since was drawn, once there is one (a second at most)."""
    import asyncio

    for _ in range(500):
        if how:
            break
        await asyncio.sleep(0.002)
    return how[0] if how else None


async def test_a_held_frame_is_drawn_at_the_first_idle_moment_once_nothing_holds_it(tmp_path, monkeypatch):
    """The transcript's frame waits while the entries a batch brought are mounted (or messages are drawn ahead);
    once nothing holds it, it is drawn as soon as the screen is idle, not at the update timer's next tick (a period
    later)."""
    import asyncio
    import traceback

    from kandev_tui.screens.transcript import TranscriptScreen

    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    hold = {"next_tick": False, "now": False}
    calls: list[tuple[str, bool]] = []  # each call of the screen's update: from the timer or at once, and held
    frame_hold, update = TranscriptScreen.frame_hold, TranscriptScreen._on_timer_update

    def holding(self) -> str | None:
        return "wait" if hold["now"] else frame_hold(self)

    def drawing(self) -> None:
        timer = any(frame.name == "_tick" for frame in traceback.extract_stack())
        hold["now"] = timer and hold["next_tick"]
        if hold["now"]:  # this tick's frame waits; what held it is over just after (the next tick: a period on)
            hold["next_tick"] = False
            self.app.call_later(self.check_idle)  # what ends a hold prompts the screen (a mounted entry's layout does)
        calls.append(("timer" if timer else "at once", hold["now"]))
        try:
            update(self)
        finally:
            hold["now"] = False

    monkeypatch.setattr(TranscriptScreen, "frame_hold", holding)
    monkeypatch.setattr(TranscriptScreen, "_on_timer_update", drawing)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        hold["next_tick"] = True
        apply_now(app, [message_item(10, "Something new to draw.")])
        for _ in range(500):
            if ("timer", True) in calls and calls[-1] != ("timer", True):
                break
            await asyncio.sleep(0.002)
        held = calls.index(("timer", True))
        assert calls[held + 1:held + 2] == [("at once", False)]  # the held frame, drawn at once


async def test_what_the_user_did_is_drawn_at_once_not_at_the_next_tick(tmp_path, monkeypatch):
    """Closing the help draws the transcript as soon as the screen is idle, not at the next tick of Textual's
    60 Hz update timer (up to 17 ms later), and opening it again draws the help so; the help is mounted ahead of the
    first F1."""
    from textual import events

    from kandev_tui.screens.transcript import TranscriptScreen

    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        help_screen = app.get_screen("help")
        assert isinstance(help_screen, HelpScreen) and help_screen.is_running  # composed before it is asked for
        await pilot.press("f1")
        assert app.screen is help_screen
        await settle(pilot)
        how = how_drawn(TranscriptScreen, monkeypatch)
        send_as_terminal(app, events.Key("escape", None))  # (the pilot would draw the screen itself)
        assert await first_drawn(how) == "at once" and app.screen is app.transcript_screen
        await settle(pilot)
        shown = how_drawn(HelpScreen, monkeypatch)
        send_as_terminal(app, events.Key("f1", None))  # F1 is pressed while agents stream: the help too, at once
        assert await first_drawn(shown) == "at once" and app.screen is help_screen


async def test_an_input_whose_only_work_is_a_recompose_is_drawn_at_once(tmp_path, monkeypatch):
    """Textual's own idle handler looks at the screen's pending recompose as well as its layout, scroll, repaint
    and dirty widgets; so does the hook that draws an input's effect at once (kandev_tui/ui/textual_hooks.py). Textual
    recomposes at its next turn, so the idle moment that finds only the recompose pending is met here by hand."""

    from textual import events

    from kandev_tui.screens.transcript import TranscriptScreen
    from kandev_tui.ui.user_input import user_input

    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(3)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TranscriptScreen)
        await pilot.pause()  # (it draws the screen itself)
        how = how_drawn(TranscriptScreen, monkeypatch)
        assert not (screen._layout_required or screen._scroll_required or screen._repaint_required
                    or screen._dirty_widgets)  # nothing else is waiting to be drawn
        user_input(app).served()  # an input was just dispatched, and all it asked is a recompose
        screen._recompose_required = True
        try:
            await screen._on_idle(events.Idle())
        finally:
            screen._recompose_required = False
        assert how == ["at once"]


async def test_a_transcript_under_the_help_is_not_laid_out_until_shown_again(tmp_path, monkeypatch):
    """Textual lays out and paints the screen beneath the top one in case it shows through; the help is opaque, so
    the transcript beneath it does no work for frames nobody sees, and is drawn when it is shown again."""
    from textual.screen import Screen

    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        laid_out: list[str] = []
        refresh_layout = Screen._refresh_layout

        def counting(self, *args, **kwargs):
            laid_out.append(type(self).__name__)
            return refresh_layout(self, *args, **kwargs)

        monkeypatch.setattr(Screen, "_refresh_layout", counting)
        apply_now(app, [message_item(100, "Changed behind the help.")])  # straight in (the app would hold it)
        await pilot.pause(0.2)
        assert "TranscriptScreen" not in laid_out and app.transcript_screen._layout_required
        await pilot.press("escape")
        await settle(pilot)
        assert "TranscriptScreen" in laid_out and "message:100" in app.view.widgets
        assert app.view.widgets["message:100"].size.height > 0


async def test_a_screen_shown_during_a_batch_of_updates_is_drawn_when_the_batch_ends(tmp_path):
    """Textual skips a screen's update while a batch is open (a footer rebuilding its keys) and then prompts only the
    app: the help, shown meanwhile and getting no further message, was never drawn (1 F1 in 4 under a flood, in
    stream.py). It is drawn once the batch is over."""
    import asyncio

    from textual import events

    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        drawn: list[str] = []
        watch_frames(app, lambda screen: drawn.append(type(screen).__name__))
        app._begin_batch()  # as a recomposing widget holds it across its awaits
        send_as_terminal(app, events.Key("f1", None))
        for _ in range(100):
            await asyncio.sleep(0.002)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert help_screen._layout_required or help_screen._repaint_required  # not laid out or drawn in full yet
        before = drawn.count("HelpScreen")
        app._end_batch()
        for _ in range(250):
            await asyncio.sleep(0.002)
            if not (help_screen._layout_required or help_screen._repaint_required):
                break
        assert not (help_screen._layout_required or help_screen._repaint_required or help_screen._dirty_widgets)
        assert drawn.count("HelpScreen") > before


async def test_the_terminal_title_is_written_through_the_driver(tmp_path):
    """set_terminal_title writes OSC 2 (printable text only, bounded) through the app's driver."""
    from kandev_tui.ui.textual_hooks import set_terminal_title

    app = stored_app(tmp_path, [message_item(1, "Hello.")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        written = []
        app._driver.write = written.append  # the driver's own write: what reaches the terminal
        assert set_terminal_title(app, "kandev-tui: waiting \x1b]52;c;evil\x07 for you" + "x" * 300)
        assert written == ["\x1b]2;" + ("kandev-tui: waiting ]52;c;evil for you" + "x" * 300)[:120] + "\x07"]


async def test_the_transcript_gaining_or_losing_focus_restyles_only_itself(tmp_path):
    """Textual restyles a container and everything in it when its focus changes; the transcript holds a screenful
    of entries and no rule styles them by its focus, so a focus move into or out of it (a turn's start and end, a
    Tab) restyles the transcript alone (FocusRestylesItself)."""
    from ..support.app_helpers import tool_item

    items = []
    for n in range(12):
        items += [message_item(n, f"Message {n}."), tool_item(f"c{n}")]
    app = stored_app(tmp_path, items)
    async with app.run_test(size=(80, 40)) as pilot:
        await settle(pilot)
        inside = len(list(app.view.walk_children()))
        assert inside > 20
        restyled: list[int] = []
        update_nodes = app.stylesheet.update_nodes

        def counting(nodes, *args, **kwargs):
            nodes = list(nodes)
            restyled.append(len(nodes))
            return update_nodes(nodes, *args, **kwargs)

        app.stylesheet.update_nodes = counting
        for _ in range(2):
            app.set_focus(None)
            await settle(pilot)
            assert app.focused is None
            app.view.focus()
            await settle(pilot)
            assert app.focused is app.view
        assert restyled and max(restyled) < inside  # never the transcript's whole subtree


async def test_a_screen_mounted_ahead_is_shown_without_restyling_the_app():
    """mount_screen_ahead: the first switch to a session's mode re-applies no stylesheet (it cost 0.1-0.2 s a
    switch); a theme changed afterwards still restyles it when it is shown."""
    from textual.screen import Screen

    from kandev_tui.ui.textual_hooks import mount_screen_ahead

    class Modes(App[None]):
        def on_mount(self) -> None:
            for name in ("one", "two"):
                self.install_screen(Screen(), name)
                self.add_mode(name, name)

    app = Modes()
    restyled = []
    async with app.run_test(size=(40, 5)) as pilot:
        original = app.refresh_css
        app.refresh_css = lambda animate=True: (restyled.append(animate), original(animate))[1]  # type: ignore
        mount_screen_ahead(app, "one")
        mount_screen_ahead(app, "two")
        await pilot.pause()
        await app.switch_mode("one")
        await pilot.pause()
        assert restyled == []
        app.theme = "nord"  # the stylesheet changes: the other mode is restyled when it is shown
        await pilot.pause()
        restyled.clear()
        await app.switch_mode("two")
        await pilot.pause()
        assert restyled
