"""Agent messages as one widget that keeps its lines: a streamed message draws each finished block once, a final
one draws exactly as its replay does, only http(s) links are links, and a frame reads only the visible lines."""

from __future__ import annotations

from kandev_tui.transcript.items import Item
from kandev_tui.widgets.entries.agent_message import AgentMessage
from kandev_tui.widgets.markdown_lines import MarkdownLines

from ..support.app_helpers import apply_now, message_item, settle, stored_app
from ..support.drawing import counting_draws, plain


async def test_a_long_message_in_the_app_draws_only_its_visible_lines(tmp_path, monkeypatch):
    lines_read: list[int] = []
    render_line = AgentMessage.render_line

    def counted(self, y):
        lines_read.append(y)
        return render_line(self, y)

    monkeypatch.setattr(AgentMessage, "render_line", counted)
    whole: list[int] = []  # the message drawn whole (every line turned into segments again)
    rich_console = MarkdownLines.__rich_console__
    monkeypatch.setattr(MarkdownLines, "__rich_console__", lambda *args: whole.append(1) or rich_console(*args))
    text = "\n\n".join(f"Paragraph {index} of a long answer." for index in range(1500))
    app = stored_app(tmp_path, [message_item(1, text)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        message = app.view.widgets["message:1"]
        assert message.size.height == 2 * 1500 - 1  # measured from the kept lines: every paragraph
        lines_read.clear()
        message.refresh()
        await settle(pilot)
        assert 0 < len(set(lines_read)) <= 24  # one screen at most, of its 2,999 lines
        assert not whole  # neither to measure it nor to paint it


async def test_a_streaming_message_in_the_app_grows_in_place(tmp_path, monkeypatch):
    drawn = counting_draws(monkeypatch)
    app = stored_app(tmp_path, [message_item(0, "Before.")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = ""
        for index in range(30):
            text += f"Paragraph {index}.\n\n"
            apply_now(app, [Item("message:1", "agent_message", 1, {"text": text}, final=False)])
            await settle(pilot)
        message = app.view.widgets["message:1"]
        assert message.size.height == 2 * 30 - 1
        assert sum(1 for piece in drawn if piece.startswith("Paragraph 0.")) == 1  # drawn once, not per update
        apply_now(app, [Item("message:1", "agent_message", 1, {"text": text}, final=True)])
        await settle(pilot)
        replayed = MarkdownLines(text)
        assert message.size.height == len(plain(replayed, message.content_region.width))


async def test_while_the_session_floods_only_the_blocks_in_view_are_drawn(tmp_path, monkeypatch):
    """A long message that floods in: the blocks on screen are drawn, those above wait until the flood pauses (they
    took 40% of the interpreter from the reader of the flood: stream.py long), then they are drawn too.

    The message is split into blocks 4,096 characters at a time, as slices go by; until the last is split, the
    message ends at the block split last, and the following view shows that end: blocks drawn then were on screen
    then (the first two splits end at paragraph 307; a loaded CI run found "Paragraph 300" drawn, most likely so).
    So what is drawn is looked at from the moment the whole message is split: each slice after it draws nothing
    above the screen (without the flood's rule, the slices draw paragraphs 327, 317… from the end back)."""
    import re

    from ..support.app_helpers import until

    def above_the_screen(piece: str) -> bool:  # 600 paragraphs of two rows, 24 rows: about the last 12 show
        return any(int(number) < 550 for number in re.findall(r"Paragraph (\d+) ", piece))

    drawn = counting_draws(monkeypatch)
    slices: list[int] = []
    draw_more = AgentMessage.draw_more
    monkeypatch.setattr(AgentMessage, "draw_more", lambda self: (slices.append(1), draw_more(self)))
    flooding = [True]
    app = stored_app(tmp_path, [message_item(0, "Before.")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.view.draw_context.flooding = lambda: flooding[0]
        text = "".join(f"Paragraph {index} of a flood.\n\n" for index in range(600))
        apply_now(app, [Item("message:1", "agent_message", 1, {"text": text}, final=False)])
        message = app.view.widgets["message:1"]
        await until(pilot, lambda: message.backlog == 0 and any("Paragraph 598 " in piece for piece in drawn))
        drawn.clear()  # the whole message split, its end in view and drawn
        slices.clear()
        await until(pilot, lambda: len(slices) >= 5)  # slices went by: each drew nothing above the screen
        assert not any(above_the_screen(piece) for piece in drawn), [piece[:30] for piece in drawn]
        flooding[0] = False
        await until(pilot, lambda: any("Paragraph 0 " in piece for piece in drawn), rounds=2400)
        await until(pilot, lambda: message.size.height == 2 * 600 - 1, rounds=2400)  # every block drawn


async def test_a_following_view_draws_the_end_of_a_flooding_message_whatever_its_scroll_says(tmp_path, monkeypatch):
    """A view that follows is at its end, or on its way there: a slice drawn before the frame that scrolls it there
    (a loaded machine: the CI run that found it) drew the top of the message, which nobody was going to see. Here
    the view is moved to its top by the program (it still follows: only the user stops that) and a slice is drawn."""
    from ..support.app_helpers import until

    drawn = counting_draws(monkeypatch)
    app = stored_app(tmp_path, [message_item(0, "Before.")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.view.draw_context.flooding = lambda: True
        text = "".join(f"Paragraph {index} of a flood.\n\n" for index in range(600))
        apply_now(app, [Item("message:1", "agent_message", 1, {"text": text}, final=False)])
        await until(pilot, lambda: any("Paragraph 598 " in piece for piece in drawn))  # the end, in view
        message = app.view.widgets["message:1"]
        app.view.scroll_to(y=0, animate=False, immediate=True)
        assert app.view.following and app.view.scroll_y == 0
        drawn.clear()
        message.draw_more()
        assert not any("Paragraph 0 " in piece or "Paragraph 1 " in piece for piece in drawn)
