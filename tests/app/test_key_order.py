"""Keys typed in one burst reach the widget that has the focus when their turn comes: a key that moves the focus
(tab, an answer) moves it before the keys behind it are handed out (``kandev_tui/ui/key_order.py``)."""

from __future__ import annotations

from textual import events

from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.transcript import Item
from kandev_tui.ui.key_order import KeyOrder
from kandev_tui.ui.textual_hooks import send_as_terminal
from kandev_tui.widgets.entries.permission import PermissionRequest

from ..support.app_helpers import ScriptedSource, message_item, settings_at, until

OPTIONS = [{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
           {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]


def asking_source():
    """A session whose turn waits for a permission (a scripted source: no agent process)."""
    tool_call = {"toolCallId": "t1", "title": "Write hello.py", "kind": "edit"}
    items = [message_item(1, "Writing it."),
             Item("permission:1", "permission", 1, {"tool_call": tool_call, "options": OPTIONS}, status="pending")]
    return ScriptedSource(items, state="waiting", detail="asks",
                                                     waiting=("permission:1",))


def asking(tmp_path) -> KandevApp:
    app = KandevApp(asking_source(), settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    return app


def burst(app: KandevApp, keys: list[str]) -> None:
    """The keys as one read of the terminal delivers them: all handed to the app before it handles the first."""
    for key in keys:
        character = {"tab": "\t", "enter": "\r", "space": " "}.get(key, key if len(key) == 1 else None)
        send_as_terminal(app, events.Key(key, character))


async def test_text_typed_right_after_tab_goes_where_tab_moved_the_focus(tmp_path):
    """The real Claude test's flake (CI of e37618d): tab from the waiting request, the message and enter in one
    burst. The text went to the request (which ignores letters), tab then moved to the prompt, and enter sent an
    empty prompt: the message was lost."""
    app = asking(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.view.query(PermissionRequest) and app.view.query_one(PermissionRequest).has_focus)
        prompt = app.transcript_screen.prompt
        flights = app.key_order.flights
        burst(app, ["tab", *"and the queued one", "enter"])
        await until(pilot, lambda: app.current.prompts.queue == ["and the queued one"])
        assert prompt.has_focus and prompt.text == ""
        assert app.key_order.flights == flights + 2 and app.key_order.held is None  # tab and enter; the text none


async def test_text_typed_before_tab_stays_in_the_prompt_and_tab_after_it_leaves(tmp_path):
    """The other order: the text typed first is the prompt's (and starts no flight: typing is not slowed), tab and
    shift+tab come back to it, and the text after them joins it."""
    app = asking(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.view.query(PermissionRequest) and app.view.query_one(PermissionRequest).has_focus)
        prompt = app.transcript_screen.prompt
        prompt.focus()
        await until(pilot, lambda: prompt.has_focus)
        flights = app.key_order.flights
        burst(app, [*"draft", "tab", "shift+tab", *" more"])
        await until(pilot, lambda: prompt.text == "draft more" and prompt.has_focus)
        assert app.current.prompts.queue == [] and app.key_order.flights == flights + 2


async def test_a_key_whose_handler_hangs_holds_the_keys_behind_it_a_moment_only():
    """An ancestor's handler that does not return keeps its key in flight: the text typed behind it still reaches the
    focused box, KEY_HELD_AT_MOST later, in its order (the keyboard is not frozen by a handler that hangs)."""
    import asyncio

    from textual.app import App, ComposeResult
    from textual.containers import Vertical
    from textual.widgets import Input

    hang = asyncio.Event()

    class Stuck(Vertical):
        async def on_key(self, event: events.Key) -> None:
            if event.key == "f5":
                await hang.wait()

    class Boxed(App[None]):
        def __init__(self) -> None:
            super().__init__()
            self.key_order = KeyOrder(self, super().on_event)

        def compose(self) -> ComposeResult:
            with Stuck():
                yield Input()

        async def on_event(self, event: events.Event) -> None:
            await self.key_order.on_event(event)

    app = Boxed()
    async with app.run_test() as pilot:
        box = app.query_one(Input)
        box.focus()
        await until(pilot, lambda: box.has_focus)
        burst(app, ["f5", *"after"])  # f5: the box lets it climb to the container, whose handler hangs
        try:
            # not the pilot's waits: they wait for every widget's queue, the stuck one's too
            for _ in range(3000):
                if box.value == "after":
                    break
                await asyncio.sleep(0.01)
            assert box.value == "after" and app.key_order.held is None
        finally:
            hang.set()  # the app can close


async def test_the_message_typed_right_after_an_answer_goes_to_the_prompt(tmp_path):
    """"1" answers the request and the message follows in the same burst: the request, answered, binds no letter,
    so they go to the prompt (which takes the focus), not nowhere; a digit is still the request's."""
    app = asking(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.view.query(PermissionRequest) and app.view.query_one(PermissionRequest).has_focus)
        request = app.view.query_one(PermissionRequest)
        prompt = app.transcript_screen.prompt
        answered = []
        app.actions.answer = lambda key, option_id: answered.append((key, option_id))  # what the source is told
        burst(app, ["1", *"hello there"])
        await until(pilot, lambda: prompt.text == "hello there" and prompt.has_focus)
        assert answered == [("permission:1", "allow")]
        request.focus()
        await until(pilot, lambda: request.has_focus)
        burst(app, ["2", "x"])
        await until(pilot, lambda: prompt.text == "hello therex")
        assert answered == [("permission:1", "allow"), ("permission:1", "reject")]  # the digit stayed the request's


async def test_ctrl_g_then_a_digit_in_one_burst_answers_the_request_it_reached(tmp_path):
    """From another session, f4 and the answer typed at once: the digit goes to the waiting session's request,
    not to the session left, nor lost, nor typed into the prompt (the request is mounted only once its session is
    shown: the transcript keeps the keys for it until then); the letters after it go to the prompt."""
    app = KandevApp(ScriptedSource([message_item(1, "Elsewhere.")]),
                    settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    app.open_session(asking_source())
    async with app.run_test(size=(100, 30)) as pilot:
        # the waiting session's screen mounted ahead (the app does so after its first frame; before: the next test)
        await until(pilot, lambda: app.sessions[1].waiting_since is not None and app.current is app.sessions[0]
                    and app.sessions[1].view.is_mounted)
        answered = []
        app.actions.answer = lambda key, option_id: answered.append((key, option_id))
        burst(app, ["f4", "2", *"ok"])  # the request is mounted once its session is shown: the keys wait for it
        await until(pilot, lambda: answered == [("permission:1", "reject")], fail=False)
        assert answered == [("permission:1", "reject")], (app.focused, app.transcript_screen.prompt.text,
                                                          app.view.requests.kept, app.current.number)
        await until(pilot, lambda: app.transcript_screen.prompt.text == "ok")  # the rest, after the answer
        assert app.current is app.sessions[1]


async def test_f4_and_a_digit_before_the_waiting_sessions_screen_was_ever_mounted(tmp_path, monkeypatch):
    """The window the test above waits out: the app has not mounted the waiting session's screen yet (it does so
    ahead, after its first frame). f4 shows a screen that is still to be composed: the keys typed behind it wait
    for its first frame, and the digit still answers the request, the letters after it go to the prompt."""
    from kandev_tui.app import kandev_app, lifecycle

    monkeypatch.setattr(kandev_app, "mount_screen_ahead", lambda app, name: None)
    monkeypatch.setattr(lifecycle, "mount_screen_ahead", lambda app, name: None)
    app = KandevApp(ScriptedSource([message_item(1, "Elsewhere.")]),
                    settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    app.open_session(asking_source())
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.sessions[1].waiting_since is not None and app.current is app.sessions[0])
        assert not app.sessions[1].view.is_mounted
        answered = []
        app.actions.answer = lambda key, option_id: answered.append((key, option_id))
        burst(app, ["f4", "2", *"ok"])
        await until(pilot, lambda: answered == [("permission:1", "reject")], fail=False)
        assert answered == [("permission:1", "reject")], (app.focused, app.transcript_screen.prompt.text)
        await until(pilot, lambda: app.transcript_screen.prompt.text == "ok")
        assert app.current is app.sessions[1]


async def test_keys_kept_for_a_request_that_is_answered_elsewhere_go_to_the_prompt(tmp_path):
    """The transcript keeps the keys for a request not on screen yet; answered elsewhere instead (another client of
    the session), nothing waits any more: what was typed meanwhile goes on, to the prompt, not kept for ever."""
    app = KandevApp(ScriptedSource([message_item(1, "Elsewhere.")]),
                    settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    waits = ["permission:9"]  # its request, not in its transcript: it never mounts
    app.open_session(ScriptedSource([message_item(1, "Asking.")],
                                                               state="waiting", detail="asks", waiting=waits))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.sessions[1].waiting_since is not None and app.current is app.sessions[0]
                    and app.sessions[1].view.is_mounted)  # mounted ahead (see the tests above)
        burst(app, ["f4", *"hi"])
        await until(pilot, lambda: app.current is app.sessions[1] and app.view.has_focus)
        await until(pilot, lambda: app.view.requests.kept == [("h", "h"), ("i", "i")])
        assert app.transcript_screen.prompt.text == ""
        waits.clear()  # answered elsewhere: nothing waits, the turn goes on
        app.sessions[1].model.source._set_state("running", "")
        await until(pilot, lambda: app.transcript_screen.prompt.text == "hi", fail=False)
        assert app.transcript_screen.prompt.text == "hi", (app.focused, app.view.requests.kept,
                                                           app.sessions[1].last_state, app.transcript_screen.prompt.disabled)
