"""Long sessions: a bounded window of mounted widgets, loading on scroll, search over unbuilt items."""

from __future__ import annotations

from kandev_tui.session import search
from kandev_tui.session.window import WINDOW_MAX
from kandev_tui.transcript import Item
from kandev_tui.widgets.entries.agent_message import AgentMessage

from ..support.app_helpers import apply_now, message_item, scroll_to_top_until, settle, stored_app, tool_item, until


def long_session(count: int) -> list[Item]:
    items = []
    for i in range(count):
        if i % 5 == 4:
            items.append(tool_item(f"t{i}", name="read", title=f"Read file {i}"))
        else:
            items.append(message_item(i, f"Message number {i}."))
    items[3] = message_item(3, "The needle is in an early message nobody has scrolled to.")
    return items


async def test_window_stays_bounded_while_scrolling_ten_thousand_items(tmp_path):
    app = stored_app(tmp_path, long_session(10_000))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.view
        total = len(view.entries)
        assert total > 8000 and view.hi == total and view.lo > 0
        assert len(view.widgets) < 60  # a few screens, not the session
        assert view.mounted.top.display and "earlier" in str(view.mounted.top.render())
        most = 0

        def count() -> None:
            nonlocal most
            most = max(most, len(view.widgets))

        # scroll to the top, step by step: earlier entries load, the far side unloads
        await scroll_to_top_until(pilot, view, lambda: view.lo < total - 600, each=count)
        assert view.lo < total - 200  # it really went up
        assert most <= WINDOW_MAX
        assert len(list(view.query(AgentMessage))) <= WINDOW_MAX
        await pilot.press("ctrl+end")
        for _ in range(200):
            await pilot.pause(0.02)
            if view.hi == total and view.following and view.scroll_y >= view.max_scroll_y - 1:
                break
        assert view.hi == total and view.following


async def test_jump_to_latest_wins_over_a_pending_load_at_the_top(tmp_path):
    """ctrl+end pressed while an earlier page is still being placed: the view ends at the latest output."""
    app = stored_app(tmp_path, long_session(3_000))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.view
        total = len(view.entries)
        view.jump_to_first()
        await settle(pilot)
        view.show_entry(total // 2)  # a window in the middle, scrolled to its top
        await settle(pilot)
        view.scroll_home(animate=False, immediate=True)
        view.load_earlier()  # its keep-place step runs after the next refresh, at the top
        view.jump_to_latest()  # before that refresh
        for _ in range(100):
            await pilot.pause(0.02)
        assert view.following and view.hi == total


async def test_search_finds_an_item_that_was_never_built(tmp_path):
    app = stored_app(tmp_path, long_session(10_000))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.view
        assert "message:3" not in view.widgets  # never built
        await pilot.press("ctrl+f")
        await pilot.press(*"needle", "enter")
        await until(pilot, lambda: app.transcript_screen.hits == [(3, "message:3")] and "message:3" in view.widgets)
        widget = view.widgets.get("message:3")
        assert widget is not None and widget.is_mounted
        assert view.lo <= 3 < view.hi
        assert not view.following
        await pilot.press("escape")
        assert not app.transcript_screen.search_box.display


async def test_enter_again_goes_to_the_next_hit_without_searching_again(tmp_path, monkeypatch):
    """Search runs in a thread over a snapshot; enter with the same words steps through the hits, and wraps."""
    items = long_session(3000)
    items[2500] = message_item(2500, "A second NEEDLE, much later.")
    searches = []
    find = search.find

    def counted(snapshot, needle):
        searches.append(needle)
        return find(snapshot, needle)

    monkeypatch.setattr(search, "find", counted)
    app = stored_app(tmp_path, items)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen, view = app.transcript_screen, app.view
        await pilot.press("ctrl+f", *"needle", "enter")
        await until(pilot, lambda: [i for i, _ in screen.hits] == [3, 2500] and screen.hit == 0
                    and "message:3" in view.widgets)
        await pilot.press("enter")
        await until(pilot, lambda: screen.hit == 1 and "message:2500" in view.widgets)
        await pilot.press("enter")
        await until(pilot, lambda: screen.hit == 0)
        assert searches == ["needle"]  # the same words: no search again
        await pilot.press("backspace", "enter")  # other words: a new search
        await until(pilot, lambda: searches == ["needle", "needl"] and screen.hit == 1)
        assert searches == ["needle", "needl"] and [i for i, _ in screen.hits] == [3, 2500] and screen.hit == 1


async def test_the_search_reads_item_versions_in_a_thread_while_the_session_changes(tmp_path, monkeypatch):
    """The search reads a snapshot of item versions in a thread; the transcript goes on changing meanwhile (a newer
    version of an item in the snapshot arrives): the thread reads the versions it was given, whole, and finds the
    hit; nothing is searched again on the event loop."""
    import threading

    threads = []
    find = search.find
    arrived = threading.Event()

    def slow(snapshot, needle):
        threads.append(threading.current_thread() is threading.main_thread())
        assert arrived.wait(5)  # the newer version is in the transcript before the thread reads
        return find(snapshot, needle)

    monkeypatch.setattr(search, "find", slow)
    items = long_session(300)
    app = stored_app(tmp_path, items)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f", *"needle", "enter")
        await pilot.pause(0.05)
        apply_now(app, [items[3].but(payload={"text": "Rewritten: no longer a hit."})])
        arrived.set()
        await until(pilot, lambda: app.transcript_screen.hits)
        assert threads == [False] and app.transcript_screen.hits == [(3, "message:3")]
        assert app.view.model.items["message:3"].payload["text"] == "Rewritten: no longer a hit."


async def test_search_in_tool_arguments_and_no_match(tmp_path):
    app = stored_app(tmp_path, long_session(500))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        snapshot = search.snapshot(app.view.model)
        assert search.find(snapshot, "Read file 9") and search.find(snapshot, "read FILE 499")
        assert search.find(snapshot, "nothing like this") == []


async def test_following_a_flood_keeps_only_the_last_screens_mounted(tmp_path):
    """While following, many new entries replace the mounted ones: a screen and a half stays, not WINDOW_MAX."""
    from kandev_tui.session.window import MIN_FOLLOW

    app = stored_app(tmp_path, long_session(150))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.view
        for batch in range(10):  # live batches, as the pipeline delivers them
            app.session.receive_items([message_item(1000 + batch * 50 + i, f"Live {batch}-{i}.") for i in range(50)])
            await settle(pilot)
        assert view.following and view.hi == len(view.entries)
        assert MIN_FOLLOW <= len(view.widgets) < 60
        assert view.size.height < view.virtual_size.height <= 3 * view.size.height  # the screen is full, no more
        assert view.entries[-1].key in view.widgets  # the newest entry is on screen
        await scroll_to_top_until(pilot, view, lambda: view.lo < len(view.entries) - 60)  # more mounts, in place
        assert view.lo < len(view.entries) - 60


async def test_an_opened_session_keeps_its_payloads_packed(tmp_path):
    """Memory does not grow with the session's payloads: each is kept compressed and parsed when used (the
    window's widgets, search); only the last few hundred parsed ones are kept."""
    from kandev_tui.transcript.items import PackedItem, _unpack

    app = stored_app(tmp_path, long_session(3000))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.view
        assert all(isinstance(item, PackedItem) for item in view.model.items.values())
        assert search.find(search.snapshot(view.model), "needle is in an early message") == [(3, "message:3")]  # read from the packed payloads
        assert _unpack.cache_info().currsize <= _unpack.cache_info().maxsize < 3000


async def test_a_hit_in_a_collapsed_group_is_shown_marked_and_counted_where_it_covers_nothing(tmp_path):
    """The hit's group opens, its call is marked and unfolded (the match was past the folded preview), the match is
    drawn reversed, and the count sits in the search box's border: no notice piles over the box or the prompt."""
    from kandev_tui.widgets.entries.tool_call import PREVIEW_LINES
    from kandev_tui.widgets.entries.tool_group import ToolGroup

    long_output = "\n".join(f"line {n}" for n in range(PREVIEW_LINES + 20)) + "\nthe HAYSTACK ends here"
    items = [message_item(0, "Looking around."),
             tool_item("a", title="Read a.py", output="nothing here"),
             tool_item("b", title="Read b.py", output=long_output),
             message_item(3, "A haystack in a message too."),
             message_item(4, "The end.")]
    app = stored_app(tmp_path, items)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        screen, view = app.transcript_screen, app.view
        await pilot.press("ctrl+f", *"haystack", "enter")
        await until(pilot, lambda: [key for _, key in screen.hits] == ["tool:b", "message:3"]
                    and view.query_one(ToolGroup).expanded and screen.search_box.border_subtitle.startswith("match 1"))
        group = view.query_one(ToolGroup)
        assert group.expanded
        call = group.call_view("tool:b")
        assert call is not None and call.has_class("search-hit") and call.expanded
        shown = "\n".join(call.render_line(y).text for y in range(call.size.height))
        assert "the HAYSTACK ends here" in shown
        assert screen.search_box.border_subtitle.startswith("match 1 of 2")
        assert not list(app.screen.query("Toast"))  # nothing over the box
        await pilot.press("enter")
        await until(pilot, lambda: "message:3" in view.widgets and view.widgets["message:3"].has_class("search-hit"))
        message = view.widgets["message:3"]
        assert message.has_class("search-hit") and not call.has_class("search-hit")
        line = next(strip for strip in (message.render_line(y) for y in range(3)) if "haystack" in strip.text.lower())
        assert any(segment.style and segment.style.reverse and segment.text.lower() == "haystack"
                   for segment in line)
        assert screen.search_box.border_subtitle.startswith("match 2 of 2")
        await pilot.press("escape")
        assert not message.has_class("search-hit") and not screen.search_box.display


async def test_no_match_is_said_in_the_search_box(tmp_path):
    app = stored_app(tmp_path, long_session(50))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f", *"nothing like this", "enter")
        await until(pilot, lambda: "no match" in app.transcript_screen.search_box.border_subtitle)
        assert "no match" in app.transcript_screen.search_box.border_subtitle and not list(app.screen.query("Toast"))


async def test_following_survives_a_flood_that_moves_the_window_under_charts(tmp_path):
    """While output floods in, the view mounts new entries at the bottom and unmounts old ones at the top (the
    window), and charts grow as they are plotted; none of that is the user scrolling up. Found by
    benchmarks/terminal.py: after 20,000 chunks with 1,000 tools and 200 charts the view had stopped following
    ("new output below") without a key pressed, and the end of the stream never showed."""
    from ..support.app_helpers import bar_chart, rich_item

    app = stored_app(tmp_path, [message_item(i, f"Old {i}.") for i in range(20)])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.view
        assert view.following
        n = 1000
        for batch in range(12):
            items = []
            for i in range(200):  # more than the window: it starts afresh at the end (scroll_y back at 0)
                n += 1
                items.append(message_item(n, " ".join(f"c{n}-{w}" for w in range(60))))
                if i % 4 == 3:
                    items.append(rich_item(f"r{n}", bar_chart(f"Chart {n}")))
            app.session.receive_items(items)
            await pilot.pause(0.005)
            assert view.following, f"stopped following at batch {batch}"
        await settle(pilot)
        assert view.following and view.hi == len(view.entries)
        assert view.scroll_y >= view.max_scroll_y - 1


async def test_only_the_user_stops_the_following(tmp_path):
    """The view's own moves (its window unmounting entries above, starting afresh at the end, keeping its place as
    entries mount above) change scroll_y; only a wheel turn, a key or the scrollbar moving up stop the following."""
    from textual import events

    from kandev_tui.ui.textual_hooks import send_as_terminal

    app = stored_app(tmp_path, [message_item(i, " ".join(f"w{i}-{n}" for n in range(80))) for i in range(60)])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        view = app.view
        assert view.following and view.scroll_y > 10
        view.scroll_to(y=0, animate=False, immediate=True)  # as the view moves itself (no user input)
        await pilot.pause(0.1)
        assert view.following
        view.jump_to_latest()
        await settle(pilot)
        region = view.region
        send_as_terminal(app, events.MouseScrollUp(None, region.x + 5, region.y + 5, 0, -1, 0, False, False, False,
                                                   screen_x=region.x + 5, screen_y=region.y + 5))
        await pilot.pause(0.1)
        assert not view.following  # the user turned the wheel up
        view.jump_to_latest()
        await settle(pilot)
        assert view.following
        await pilot.press("pageup")
        await pilot.pause(0.1)
        assert not view.following  # and pageup


async def test_content_that_grows_past_the_screen_by_itself_is_followed(tmp_path):
    """Content that grows with no change set (a chart plotted, a Markdown block measured late) from fitting the view
    to past it: the following view goes to the end. Textual sets the new virtual size (its watcher is where the view
    follows) before it shows the scrollbar, and a view without a scrollbar refuses a scroll that is not forced; on a
    loaded machine that left the view at the top, following."""
    from textual.widgets import Static

    app = stored_app(tmp_path, [message_item(0, "A short answer.")])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        view = app.view
        assert view.following and view.max_scroll_y == 0
        view.mount(Static("\n".join(f"line {n}" for n in range(200))), before=view.mounted.bottom)
        await until(pilot, lambda: view.max_scroll_y > 100)
        await until(pilot, lambda: view.scroll_y == view.max_scroll_y)
        assert view.following
        await until(pilot, lambda: view.vertical_scrollbar.position == view.scroll_y)  # its thumb at the end too
