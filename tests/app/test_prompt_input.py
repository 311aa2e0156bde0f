"""The prompt takes keys in the order they came, however fast they come (a burst, a paste)."""

from __future__ import annotations

from textual import events
from textual.app import App, ComposeResult

from kandev_tui.widgets.chrome.prompt_input import PromptInput

from ..support.app_helpers import until


class PromptApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []

    def compose(self) -> ComposeResult:
        yield PromptInput(id="prompt")

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        self.sent.append(event.text)


def burst(app: App, keys: list[tuple[str, str | None]]) -> None:
    """Every key posted at once, as the terminal driver does with one read of "Say hi\\r" (no turn in between)."""
    for key, character in keys:
        app.post_message(events.Key(key, character))


def typed(text: str) -> list[tuple[str, str | None]]:
    return [("space" if c == " " else c, c) for c in text]


async def test_a_burst_of_characters_and_enter_sends_them_all():
    app = PromptApp()
    async with app.run_test() as pilot:
        burst(app, typed("Say hi") + [("enter", "\r")] + typed("and more") + [("enter", "\r")])
        await until(pilot, lambda: len(app.sent) == 2)
        assert app.sent == ["Say hi", "and more"]
        assert app.query_one(PromptInput).text == ""


async def test_newline_keys_in_a_burst_land_where_they_were_typed():
    app = PromptApp()
    async with app.run_test() as pilot:
        burst(app, typed("one") + [("ctrl+j", None)] + typed("two") + [("alt+enter", None)] + typed("three")
              + [("enter", "\r")])
        await until(pilot, lambda: app.sent)
        assert app.sent == ["one\ntwo\nthree"]


async def test_a_bracketed_paste_then_enter_sends_the_whole_paste():
    app = PromptApp()
    async with app.run_test() as pilot:
        app.post_message(events.Paste("first line\nsecond line"))
        burst(app, [("enter", "\r")])
        await until(pilot, lambda: app.sent)
        assert app.sent == ["first line\nsecond line"]


async def test_enter_on_an_empty_prompt_sends_nothing_and_inserts_nothing():
    app = PromptApp()
    async with app.run_test() as pilot:
        await pilot.press("enter", "enter")
        assert app.sent == [] and app.query_one(PromptInput).text == ""


async def test_a_hint_in_square_brackets_is_shown_as_it_is_not_read_as_markup():
    """Claude Code's /debug takes "[issue description]": under the box, that text, not a markup tag that hides it."""
    app = PromptApp()
    async with app.run_test(size=(60, 6)) as pilot:
        prompt = app.query_one(PromptInput)
        prompt.say("[issue description]")
        await pilot.pause()
        assert "[issue description]" in app.export_screenshot().replace("&#160;", " ")
        prompt.set_reason("a turn is running · escape cancels")
        await pilot.pause()
        assert "a turn is running" in app.export_screenshot().replace("&#160;", " ")


async def test_the_cursor_stops_blinking_a_while_after_the_last_key_and_blinks_again_at_the_next(monkeypatch):
    """As GTK's cursor-blink-timeout: an idle app does not redraw twice a second for a blink (pacing.CURSOR_BLINKS_FOR,
    here 1.25 s: it stops while the cursor is blinked off, Textual's blink being 0.5 s on, 0.5 s off), and the cursor
    stays shown; a key, or the focus coming back, makes it blink again."""
    from kandev_tui.base import pacing

    monkeypatch.setattr(pacing, "CURSOR_BLINKS_FOR", 1.25)
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        prompt.cursor_blink = True  # the suite's prompts start still (tests/conftest.py): this one blinks, as a user's
        await pilot.press("a")
        assert prompt.cursor_blink
        await until(pilot, lambda: not prompt.cursor_blink)  # a while without a key: still, and shown
        cursor = prompt.get_component_rich_style("text-area--cursor")

        def cursor_drawn() -> bool:  # a cell in the cursor's colours, as the prompt draws its lines
            return any(segment.style is not None and segment.style.bgcolor == cursor.bgcolor
                       for y in range(prompt.size.height) for segment in prompt.render_line(y))

        assert cursor.bgcolor is not None
        await until(pilot, cursor_drawn)  # shown (a line kept while it blinked off once stayed without it)
        await pilot.press("b")
        assert prompt.cursor_blink and prompt.text == "ab"
        await until(pilot, lambda: not prompt.cursor_blink)
        prompt.blur()
        prompt.focus()
        await until(pilot, lambda: prompt.cursor_blink)


async def test_a_prompt_whose_owner_stopped_its_blinking_never_starts_it(monkeypatch):
    from kandev_tui.base import pacing

    monkeypatch.setattr(pacing, "CURSOR_BLINKS_FOR", 0.01)
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        prompt.cursor_blink = False  # a snapshot's, a test's: frames that never depend on the time
        await pilot.press("a", "b")
        await until(pilot, lambda: prompt.text == "ab")
        assert not prompt.cursor_blink


async def test_up_in_the_empty_prompt_recalls_the_messages_sent_and_down_comes_back():
    """↑ in the empty prompt: the last message sent, then the ones before (a multi-line one whole); ↓ the next,
    then the empty prompt; once a recalled message is edited, or something is typed, the arrows move the cursor."""
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press(*"first", "enter", *"two", "ctrl+j", *"lines", "enter", *"third", "enter")
        await until(pilot, lambda: len(app.sent) == 3)
        shown = []
        for key in ("up", "up", "up", "up", "down", "down", "down"):
            await pilot.press(key)
            shown.append(prompt.text)
        assert shown == ["third", "two\nlines", "first", "first", "two\nlines", "third", ""]
        await pilot.press("up", *"ly")  # edited: the user's text now, and ↑ moves its cursor
        await pilot.press("up")
        assert prompt.text == "thirdly" and prompt.cursor_location == (0, 0)  # (TextArea: ↑ on the first line)
        await pilot.press("enter")
        await until(pilot, lambda: app.sent[-1] == "thirdly")
        await pilot.press(*"draft", "up")  # something typed: ↑ recalls nothing over it
        assert prompt.text == "draft"
        await pilot.press("end", *["backspace"] * 5, "up")
        assert prompt.text == "thirdly" and prompt.cursor_location == (0, 7)  # the last sent, the cursor at its end
        await pilot.press("enter", "up", "up")  # the same message sent again is kept once
        assert prompt.text == "third"
