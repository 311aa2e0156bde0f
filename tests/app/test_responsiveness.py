"""The user comes first while an agent floods the transcript: input before output, a covered transcript waits,
and full garbage collections wait for quiet moments."""

from __future__ import annotations

import gc
import time

from kandev_tui.base import stats
from kandev_tui.base.gcpolicy import NO_AUTOMATIC_FULL
from kandev_tui.screens.help import HelpScreen

from ..support.app_helpers import apply_now, message_item, settle, stored_app, tool_item, until


async def test_a_long_messages_slices_keep_the_full_collection_waiting(tmp_path):
    from kandev_tui.transcript.items import Item

    app = stored_app(tmp_path, [message_item(0, "Before.")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        started = time.monotonic()
        text = "".join(f"Paragraph {index} of a long answer.\n\n" for index in range(3000))
        apply_now(app, [Item("message:1", "agent_message", 1, {"text": text}, final=False)])
        await until(pilot, lambda: app.gc_policy.worked_at > started)  # a slice of its blocks said so


async def test_the_app_gives_the_collector_back_when_it_closes(tmp_path):
    before = gc.get_threshold()
    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert gc.get_threshold()[2] == NO_AUTOMATIC_FULL
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


async def test_a_covered_transcript_catches_up_when_shown_again(tmp_path):
    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        count = len(app.view.entries)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        looked = app.session.looks
        app.session.receive_items([message_item(100, "Arrived while the help was open.")])
        await until(pilot, lambda: app.session.looks > looked)  # looked at, and left waiting for the help to close
        assert len(app.view.entries) == count and app.session.batch  # nothing built behind the help screen
        await pilot.press("escape")
        await settle(pilot)
        assert len(app.view.entries) == count + 1 and not app.session.batch


async def test_output_waits_for_what_the_user_just_did(tmp_path):
    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        count = len(app.view.entries)
        before = app.user_input.at
        await pilot.press("pageup")
        assert app.user_input.at > before  # a key counts as input
        app.user_input.at = time.monotonic() + 3600  # as if the user were pressing keys all along
        try:
            app.session.receive_items([message_item(100, "New output.")])
            await pilot.pause(0.3)
            assert len(app.view.entries) == count and app.session.batch
        finally:
            app.user_input.at = float("-inf")  # the user stops
        await settle(pilot)
        assert len(app.view.entries) == count + 1


async def test_the_agents_readers_give_way_from_a_key_until_its_effect_is_drawn(tmp_path):
    """A key noted at the terminal's driver makes every session's reader give way (asked from its thread) until the
    screen has drawn what the key did, FRAME_WAITS_AT_MOST at most; a key with nothing to draw frees them once it is
    served."""
    import asyncio

    from textual import events

    from kandev_tui.base.pacing import FRAME_WAITS_AT_MOST
    from kandev_tui.ui.textual_hooks import send_as_terminal

    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(40)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        clock = app.user_input
        assert not clock.gives_way()
        send_as_terminal(app, events.Key("f1", None))
        assert clock.gives_way()  # noted at the driver: the readers pause from now
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # until the help is drawn (however long a loaded machine takes)
            if clock.drawn_at > clock.at:
                break
            await asyncio.sleep(0.001)
        assert isinstance(app.screen, HelpScreen) and clock.drawn_at > clock.at
        assert not clock.gives_way()  # drawn: the readers go on
        await settle(pilot)
        clock.at = time.monotonic()  # an input noted, never served: the readers go on FRAME_WAITS_AT_MOST later
        assert clock.gives_way()
        await until(pilot, lambda: not clock.gives_way())
        assert time.monotonic() - clock.at >= FRAME_WAITS_AT_MOST


async def test_f1_opens_and_closes_the_help_at_once_and_keeps_it(tmp_path):
    """F1 is handled before the transcript's queue (a priority binding) and toggles the help; the screen is made once."""
    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.view.focus()
        await pilot.press("f1")
        first = app.screen
        assert isinstance(first, HelpScreen)
        await pilot.press("f1")  # F1 again closes it (it does not open a second one)
        assert not isinstance(app.screen, HelpScreen) and len(app.screen_stack) == 1
        await pilot.press("f1")
        assert app.screen is first  # the same screen, not composed again
        await pilot.press("escape")
        assert app.screen is app.transcript_screen


async def test_one_batch_at_a_time_on_its_way_to_the_screen(tmp_path, monkeypatch):
    """The next batch waits (coalescing by key) while the last one's widgets are still mounting, for a second at
    most; an agent message settles once it is mounted."""
    from kandev_tui.widgets.entries.agent_message import AgentMessage
    from kandev_tui.widgets.transcript_view import TranscriptView

    app = stored_app(tmp_path, [message_item(i, f"Message {i}.") for i in range(5)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.view
        assert not view.settling
        messages = [w for w in view.widgets.values() if isinstance(w, AgentMessage)]
        assert messages and not any(m.settling for m in messages)
        fresh = AgentMessage(message_item(99, "# Not mounted yet"))
        assert fresh.settling
        busy = True
        monkeypatch.setattr(TranscriptView, "settling", property(lambda self: busy))
        count = len(view.entries)
        app.session.receive_items([message_item(100, "First version.")])
        app.session.receive_items([message_item(100, "Second version.")])
        await pilot.pause(0.3)
        assert len(view.entries) == count and app.session.batch.keys == ["message:100"]  # waits, coalesced
        busy = False
        await settle(pilot)
        assert len(view.entries) == count + 1 and view.widgets["message:100"].searchable_text == "Second version."
        busy = True  # a batch that never settles holds the next one a second at most
        app.session.batch.taken_at -= 10
        app.session.receive_items([message_item(101, "Not held for ever.")])
        await until(pilot, lambda: len(view.entries) == count + 2)


async def test_the_footer_is_rebuilt_only_when_its_keys_change(tmp_path):
    """Closing the help (or any focus move that keeps the same keys) does not remove and mount the footer's keys."""
    from textual.widgets._footer import FooterKey

    from kandev_tui.widgets.chrome.key_footer import KeyFooter
    from kandev_tui.widgets.entries.tool_group import ToolGroup

    app = stored_app(tmp_path, [message_item(1, "Reading."), tool_item("c1"), tool_item("c2")])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        footer = app.transcript_screen.query_one(KeyFooter)
        keys = list(footer.query(FooterKey))
        assert keys
        await pilot.press("f1")
        await pilot.press("escape")
        await settle(pilot)
        assert list(footer.query(FooterKey)) == keys  # the same widgets
        app.view.query_one(ToolGroup).focus()  # a group's keys (expand/collapse): the footer shows them
        await settle(pilot)
        shown = list(footer.query(FooterKey))
        assert shown != keys and any(key.action == "toggle" for key in shown)


async def test_a_key_that_comes_and_goes_with_the_turn_leaves_the_other_keys_mounted(tmp_path):
    """Escape cancels a turn only while one runs: its key is mounted when the turn starts and removed when it ends,
    and the other keys stay mounted (rebuilding them all took 14-15 ms at each turn's end); what the footer shows is
    what composing it anew shows, in the same order."""
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    from kandev_tui.widgets.chrome.key_footer import KeyFooter

    def looks(key) -> tuple:
        return key.key, key.description, key.action, key.has_class("-disabled")

    app = stored_app(tmp_path, [message_item(1, "Reading."), tool_item("c1")])
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        screen = app.transcript_screen
        footer = screen.query_one(KeyFooter)
        keys = list(footer.query(FooterKey))
        screen.set_turn_running(True)
        await until(pilot, lambda: any(key.action == "cancel_turn" for key in footer.query(FooterKey)))
        running = list(footer.query(FooterKey))
        assert [key.action for key in running if key not in keys] == ["cancel_turn"] and set(keys) <= set(running)
        screen.set_turn_running(False)
        await until(pilot, lambda: not any(key.action == "cancel_turn" for key in footer.query(FooterKey)))
        assert list(footer.query(FooterKey)) == keys
        screen.set_turn_running(True)
        await until(pilot, lambda: any(key.action == "cancel_turn" for key in footer.query(FooterKey)))
        running = list(footer.query(FooterKey))
        await pilot.press("f1")  # a rebuild asked for before the help came, done under it: nothing changes
        footer.call_later(footer.recompose)
        await pilot.pause()
        assert list(footer.query(FooterKey)) == running
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        assert list(footer.query(FooterKey)) == running
        diffed = list(footer.query(FooterKey))
        footer.call_later(Footer.recompose, footer)  # Textual's own: every key anew
        await until(pilot, lambda: not set(footer.query(FooterKey)) & set(diffed))
        assert [looks(key) for key in footer.query(FooterKey)] == [looks(key) for key in diffed]


async def test_the_help_lays_out_its_key_tables_once_per_width(tmp_path, monkeypatch):
    """Textual measures a widget's content, then paints it, and a scrollbar appearing narrows it: the help's tables
    are laid out once (drawn once per width, and the scrollbar's column is kept from the start)."""
    from kandev_tui.screens.help import KeyTable

    laid_out: list[int] = []
    lay_out = KeyTable.lay_out

    def counted(console, width):
        laid_out.append(width)
        return lay_out(console, width)

    monkeypatch.setattr(KeyTable, "lay_out", staticmethod(counted))
    app = stored_app(tmp_path, [message_item(1, "Hello.")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        await pilot.press("escape")
        await pilot.press("f1")
        await settle(pilot)
        assert len(laid_out) == 1  # the one table of every key, laid out once, shown twice


async def test_repaints_use_kept_lines_and_blank_containers(tmp_path, monkeypatch):
    """The transcript drawn again after the help is made of the lines its widgets kept (no message line is rendered
    again), and the screen, the transcript and expanded tool groups (containers without content of their own,
    covered by their children) are painted as blanks, never rendered line by line: not after the help, not while
    scrolling, not when a group's line changes. A collapsed group is one widget that draws its line itself."""
    from textual._styles_cache import StylesCache
    from textual.widget import Widget

    from kandev_tui.screens.transcript import TranscriptScreen
    from kandev_tui.widgets.entries.tool_group import ToolGroup

    painted: list[str] = []
    rendered: list[str] = []
    render_lines, render_line = Widget.render_lines, StylesCache.render_line

    def painting(self, crop):
        painted.append(type(self).__name__)
        return render_lines(self, crop)

    def rendering(self, styles, y, size, content_size, padding, base, background, render_content_line, *rest):
        rendered.append(type(getattr(render_content_line, "__self__", None)).__name__)
        return render_line(self, styles, y, size, content_size, padding, base, background, render_content_line, *rest)

    items = [message_item(n, f"Step {n}: reading the repository. " * 6) for n in range(12)]
    items += [message_item(99, "Reading two files."), tool_item("c1"), tool_item("c2")]
    app = stored_app(tmp_path, items)
    containers = {"TranscriptScreen", "TranscriptView"}
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        monkeypatch.setattr(Widget, "render_lines", painting)
        monkeypatch.setattr(StylesCache, "render_line", rendering)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        # all of it is painted again (on a busy machine a refresh may come a little after the settling)
        await until(pilot, lambda: containers | {"AgentMessage", "ToolGroup"} <= set(painted))
        assert not (containers | {"AgentMessage", "ToolGroup"}) & set(rendered)  # from kept lines and blanks

        painted.clear(), rendered.clear()
        await pilot.press("pageup")
        await settle(pilot)
        assert "TranscriptView" in painted and "AgentMessage" in rendered  # lines that came into view
        assert not containers & set(rendered)

        painted.clear(), rendered.clear()
        app.view.jump_to_latest()
        await settle(pilot)
        group = app.view.query_one(ToolGroup)
        assert not group.children  # collapsed: one widget
        apply_now(app, [tool_item("c3")])  # the group's line changes
        await settle(pilot)
        assert len(group.items) == 3 and rendered.count("ToolGroup") == 1  # its one line was drawn again
        group.focus()
        await pilot.press("enter")  # expanded: its header and calls are children, it is a blank container
        await settle(pilot)
        assert group.expanded and len(group.children) == 2
        painted.clear(), rendered.clear()
        apply_now(app, [tool_item("c4")])  # the expanded group's line changes
        await settle(pilot)
        assert "Static" in rendered and "ToolGroup" not in rendered  # drawn by its header
        apply_now(app, [message_item(100, "One more."), tool_item("c5")])  # a new group comes on screen
        await settle(pilot)
        assert len(app.view.query(ToolGroup)) == 2
        assert not containers & set(rendered)


async def test_new_messages_are_drawn_ahead_of_their_frame(tmp_path, monkeypatch):
    """A batch of new messages is drawn a few at a time in turns of their own, before the frame that measures
    them: the frame draws no Markdown (a key pressed meanwhile waits for one slice, not a screen of messages)."""
    from textual.screen import Screen

    from kandev_tui.base import pacing
    from kandev_tui.widgets.markdown_lines import MarkdownLines

    monkeypatch.setattr(pacing, "PREDRAW_SLICE", 0.0)  # one message a turn
    # the frame waits for them however slow the machine (a loaded CI run outlasted the 50 ms, and the frame drew one)
    monkeypatch.setattr(pacing, "FRAME_WAITS_AT_MOST", 60.0)
    app = stored_app(tmp_path, [message_item(0, "The start.")])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        in_frame = [False]
        drawn: list[tuple[bool, int]] = []
        strips, refresh_layout = MarkdownLines.strips, Screen._refresh_layout

        def drawing(self, console, options, *args):
            drawn.append((in_frame[0], options.max_width))
            return strips(self, console, options, *args)

        def framing(self, *args, **kwargs):
            in_frame[0] = True
            try:
                return refresh_layout(self, *args, **kwargs)
            finally:
                in_frame[0] = False

        monkeypatch.setattr(MarkdownLines, "strips", drawing)
        monkeypatch.setattr(Screen, "_refresh_layout", framing)
        turns_before = stats.COUNTERS["predraw_turns"]
        apply_now(app, [message_item(n, f"**Message {n}** with `code` and words. " * 3) for n in range(1, 11)])
        await settle(pilot)
        assert len(drawn) == 10 and not any(frame for frame, _ in drawn)  # each once, none in a frame
        widths = {w.content_region.width for w in app.view.widgets.values() if type(w).__name__ == "AgentMessage"}
        assert {width for _, width in drawn} == widths  # at the width the frame then gave them
        assert stats.COUNTERS["predraw_turns"] - turns_before >= 10  # one per turn of the event loop


async def test_the_app_takes_the_full_collections_over_from_its_first_frame(tmp_path):
    """Before any session has started (here none is open: the bare kandev-tui's list). An automatic full pass while
    eight agents started (70-100 ms, benchmarks/sessions.py 8) held the user's first keys back for 100-200 ms."""
    from kandev_tui.app.home import HomeApp
    from kandev_tui.sources.launch import Launcher
    from kandev_tui.transcript import Store

    from ..support.app_helpers import settings_at

    before = gc.get_threshold()
    store = Store(tmp_path / "s.db")
    settings = settings_at(tmp_path)
    app = HomeApp(Launcher(store, settings), settings_store=settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.screen.is_mounted)
        assert not app.sessions and gc.get_threshold()[2] == NO_AUTOMATIC_FULL
    assert gc.get_threshold() == before
    store.close()


async def test_the_view_counts_the_entries_on_their_way_as_they_say_so(tmp_path):
    """The transcript's entries say when they are mounted and when a message's backlog (text not split into blocks
    yet) comes and goes: the view counts them (the batch policy asks each look) rather than asking each widget, and
    entries removed while on their way (the window moved on) are not counted for ever."""
    from kandev_tui.transcript.items import Item
    from kandev_tui.widgets.entries.agent_message import AgentMessage

    app = stored_app(tmp_path, [message_item(0, "Before.")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.view
        assert not view.settling and len(view.entries_settling) == 0
        text = "".join(f"Paragraph {index} of a long answer.\n\n" for index in range(3000))
        apply_now(app, [Item("message:1", "agent_message", 1, {"text": "Start.\n\n"}, final=False)])
        assert view.settling  # built, not mounted yet
        await until(pilot, lambda: not view.settling)
        message = view.widgets["message:1"]
        assert isinstance(message, AgentMessage)
        apply_now(app, [Item("message:1", "agent_message", 2, {"text": "Start.\n\n" + text}, final=False,
                             grown_from=1)])
        assert message.backlog > 0 and view.settling  # told by the message itself
        await until(pilot, lambda: message.backlog == 0)
        assert not view.settling
        apply_now(app, [message_item(index, f"Entry {index}.") for index in range(2, 40)])
        assert view.settling
        view.mounted.clear(False)  # removed while on their way
        await settle(pilot)
        assert not view.settling and len(view.entries_settling) == 0
