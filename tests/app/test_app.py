"""Pilot tests: the real app, real sources, keys pressed, state and posted messages asserted."""

from __future__ import annotations

import pytest

from kandev_tui.base import stats
from kandev_tui.packs.rich_output import RENDERER as RICH
from kandev_tui.renderers import Registry
from kandev_tui.transcript import Item
from kandev_tui.ui.textual_hooks import screen_text
from kandev_tui.widgets.entries.agent_message import AgentMessage
from kandev_tui.widgets.entries.chart_block import ChartBlock
from kandev_tui.widgets.entries.presentation_card import PresentationCard
from kandev_tui.widgets.entries.tool_call import ToolCallView
from kandev_tui.widgets.entries.tool_card import ToolCard
from kandev_tui.widgets.entries.tool_group import ToolGroup
from kandev_tui.widgets.transcript_view import TranscriptView

from ..support.app_helpers import counting_renderer
from ..support.app_helpers import bar_chart, message_item, replay_app, rich_item, settle, stored_app, tool_item, until


async def test_replayed_demo_renders_every_kind(tmp_path):
    app = replay_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.view
        kinds = {type(w).__name__ for w in view.children}
        assert {"UserMessage", "Thought", "Plan", "AgentMessage", "ToolGroup", "PermissionRequest", "ToolCard", "Notice"} <= kinds
        cards = [w.inner for w in view.query(ToolCard) if w.renderer.id == "rich_output"]
        assert all(isinstance(c, PresentationCard) for c in cards) and len(cards) == 4
        assert [c.result.state.value for c in cards] == ["ready", "ready", "ready", "failed"]
        edits = [w.inner for w in view.query(ToolCard) if w.renderer.id == "edit"]
        assert [e.item.payload["title"] for e in edits] == ["Write reports/summary.md"]  # a card of its own
        group = view.query_one(ToolGroup)
        assert group.summary == "4 tools: read, search, execute · 1 card"  # the edit, a card of its own in the run
        assert app.transcript_screen.prompt.disabled  # a replay is read-only


async def test_each_batch_in_the_transcript_is_published_with_its_keys(tmp_path):
    """ItemsApplied reaches the app's items_applied signal (what the suite's wait, app_helpers.until, wakes on):
    every item of the replay is in some batch, after its widget was placed."""
    app = replay_app(tmp_path)
    published: list[list[str]] = []
    async with app.run_test(size=(120, 40)) as pilot:
        app.items_applied.subscribe(app, lambda keys: published.append(
            [key for key in keys if app.view.model.entry_of.get(key) is not None]))
        await settle(pilot)
        keys = {key for batch in published for key in batch}
        layout = app.view.model  # what the UI was handed
        assert keys == {key for key in layout.items if key in layout.entry_of} and len(keys) > 15


async def test_following_and_unfollowing(tmp_path):
    """The user scrolls up: the view stops following, and the badge says there is more below, then that new output
    came (it said "new output below" of a stored session, where nothing comes); ctrl+end follows again."""
    messages = []
    app = replay_app(tmp_path)
    async with app.run_test(size=(80, 24), message_hook=messages.append) as pilot:
        await settle(pilot)
        view = app.view
        assert view.following and view.scroll_y >= view.max_scroll_y - 1
        view.action_scroll_home()  # the user's home key (the view's own moves never stop the following)
        await pilot.pause()
        badge = app.transcript_screen.badge
        assert not view.following and badge.display
        assert any(isinstance(m, TranscriptView.Below) and m.below == "more" for m in messages)
        assert "more below" in str(badge.render())  # nothing new came: it does not say so
        new = Item("message:999", "agent_message", 2, {"text": "late output"})
        app.session.receive_items([new])
        await settle(pilot)
        assert view.scroll_y < 5  # not dragged down while the user reads
        assert "new output below" in str(badge.render())
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert view.following and not app.transcript_screen.badge.display
        assert view.scroll_y >= view.max_scroll_y - 1


async def test_a_transcript_that_fits_in_view_keeps_following_and_shows_no_badge(tmp_path):
    """ctrl+home or an up key over a transcript that fits has nothing to leave: no "more below" badge (nothing is
    below), and what comes next shows as it comes."""
    app = stored_app(tmp_path, [message_item(1, "Done.")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.view
        assert view.max_scroll_y == 0
        await pilot.press("ctrl+home")
        view.focus()
        await pilot.press("up", "pageup")
        await pilot.pause()
        assert view.following and not app.transcript_screen.badge.display


async def test_a_view_that_does_not_follow_is_not_made_to_by_its_size(tmp_path):
    """The user stopped following at the end (ctrl+home, whose scroll to the top comes after the next frame); the
    view made taller meanwhile moves up to its new end, which is no scroll of the user's: it still does not follow,
    and new output does not pull it away (the snapshot command's --at top picture came out either way). Standing at
    the very end, it says nothing is below (it said "more below"), until output comes there."""
    app = replay_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.view
        badge = app.transcript_screen.badge
        await until(pilot, lambda: view.following and view.scroll_y >= view.max_scroll_y - 1 > 0)
        view.set_following(False)
        await pilot.resize_terminal(80, 30)
        await until(pilot, lambda: view.size.height > 18 and view.scroll_y <= view.max_scroll_y)
        await pilot.pause()
        assert not view.following
        assert view.scroll_y == view.max_scroll_y and not badge.display
        at = view.scroll_y
        app.session.receive_items([Item("message:999", "agent_message", 2, {"text": "late output"})])
        await until(pilot, lambda: badge.display)
        await settle(pilot)
        assert "new output below" in str(badge.render()) and view.scroll_y == at and not view.following
        view.focus()
        await pilot.press("end")  # the user asks for the end, where it is: following again
        await until(pilot, lambda: view.following)


@pytest.mark.parametrize("size", [(120, 24), (60, 24)])
async def test_a_following_view_made_smaller_stays_at_its_end(tmp_path, size):
    """Made shorter or narrower (a terminal window resized, the sidebar gone below 120 columns), a view that follows
    the output still shows its end: it stood where it was, the transcript's last lines under the prompt, and no badge
    said so."""
    app = replay_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        view = app.view
        await until(pilot, lambda: view.following and view.scroll_y >= view.max_scroll_y > 0)
        await pilot.resize_terminal(*size)
        await until(pilot, lambda: view.size.width < 110 or view.size.height < 20)
        await settle(pilot)
        assert view.following and view.scroll_y == view.max_scroll_y
        assert not app.transcript_screen.badge.display


async def test_group_expand_and_collapse(tmp_path):
    messages = []
    app = replay_app(tmp_path)
    async with app.run_test(size=(120, 40), message_hook=messages.append) as pilot:
        await settle(pilot)
        group = app.view.query_one(ToolGroup)
        group.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert group.expanded and len(group.query(ToolCallView)) == 4
        assert any(isinstance(m, ToolGroup.Toggled) and m.expanded for m in messages)
        first = group.query(ToolCallView).first()
        assert "reports/build.json" in first.item.payload["title"]
        await pilot.press("enter")
        await pilot.pause()
        assert not group.expanded and not group.has_class("expanded")


async def test_an_entry_that_grows_inside_is_measured_again(tmp_path):
    """The transcript's stream layout reuses the heights of entries that did not change: a group that expands
    (its calls mount two levels down) must be measured again, every time."""
    app = replay_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        group = app.view.query_one(ToolGroup)
        group.focus()
        for _ in range(3):
            await pilot.press("enter")
            for _ in range(50):
                await pilot.pause(0.02)
                calls = group.query(ToolCallView)
                if len(calls) == 5 and all(call.is_mounted for call in calls) and group._calls.size.height > 5:
                    break
            await until(pilot, lambda: group.size.height == 1 + group._calls.outer_size.height > 5)  # not a stale 1
            await pilot.press("enter")
            await until(pilot, lambda: group.size.height == 1)


def _broken_pack(root):
    """A pack installed on ``root`` (a real dist-info that importlib.metadata reads) whose renderer fails to import."""
    info = root / "broken_pack-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-pack\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[kandev_tui.renderers]\nbroken = broken_pack_renderer:RENDERER\n")
    (root / "broken_pack_renderer.py").write_text("raise ImportError('this pack needs a newer kandev-tui')\n")


async def test_typing_into_a_read_only_session_says_why_once(tmp_path):
    """Keys typed where the prompt takes nothing (a stored session) went nowhere, and the reason under the prompt is
    cut at 80 columns and less: the first key says it whole in a notice; the next ones, within a few seconds, do
    not stack more."""
    app = stored_app(tmp_path, [message_item(1, "Done.")])
    async with app.run_test(size=(45, 30), notifications=True) as pilot:
        await settle(pilot)
        assert app.transcript_screen.prompt.disabled
        app.view.focus()
        await pilot.press("x")

        def said() -> list[str]:
            return [" ".join(str(toast.render()).split()) for toast in app.screen.query("Toast")]

        await until(pilot, lambda: len(said()) == 1)
        assert said() == ["Read-only: a stored session is read-only; start a new one with kandev-tui run"]
        await pilot.press(*"yz")
        await pilot.pause(0.1)
        assert len(said()) == 1


async def test_a_broken_renderer_pack_is_said_after_the_first_frame_and_the_rest_still_draw(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    _broken_pack(site)
    monkeypatch.syspath_prepend(str(site))
    app = stored_app(tmp_path, [rich_item("c1", bar_chart("Build times"))], registry=None)
    async with app.run_test(size=(100, 30), notifications=True) as pilot:  # toasts shown, as in a terminal
        await settle(pilot)
        await until(pilot, lambda: any("this pack needs a newer kandev-tui" in str(toast.render())
                                       for toast in app.screen.query("Toast")))
        assert "'broken' failed to load: ImportError" in " ".join(app.registry.errors)
        assert len(app.view.query(PresentationCard)) == 1  # the built-in packs still draw


@pytest.mark.parametrize("calls, line", [
    # one command, running then finished (failed or not): the line keeps the command it ran
    ([("c", "execute", "in_progress", "./check.sh")], "1 tool: execute  ◐  ./check.sh"),
    ([("c", "execute", "error", "./check.sh")], "1 tool: execute  ✖  ./check.sh"),
    ([("c", "execute", "complete", "./check.sh")], "1 tool: execute  ✔  ./check.sh"),
    # several: the running one's, else the last that failed, else none (the names say what ran)
    ([("a", "read", "complete", None), ("b", "execute", "error", "make"), ("c", "read", "complete", None)],
     "3 tools: read, execute  ✔✖✔  make"),
    ([("a", "read", "complete", None), ("b", "read", "complete", None)], "2 tools: read  ✔✔"),
    # a title that only repeats the kind, with nothing else to say: said once, not "execute ○ execute"
    ([("c", "execute", "pending", "")], "1 tool: execute  ○"),
    # a title with a trailing colon names the tool without it
    ([("c", "other", "complete", "")], "1 tool: Read  ✔  Read: notes.md")])
async def test_a_closed_groups_line_names_what_its_calls_ran(tmp_path, calls, line):
    items = []
    for call_id, kind, status, command in calls:
        raw = {"command": command} if command else {}
        title = {"execute": "execute", "other": "Read: notes.md"}.get(kind, f"read {call_id}")
        items.append(tool_item(call_id, name=kind, kind=kind, status=status, title=title, raw_input=raw or {"k": 1}))
    app = stored_app(tmp_path, items)
    async with app.run_test(size=(100, 20)) as pilot:
        await settle(pilot)
        group = app.view.query_one(ToolGroup)
        assert group.render().plain.strip() == f"▸ {line}"


async def test_renderer_cards_and_failure_fallback(tmp_path):
    registry = Registry([counting_renderer(tool_names=["good"], rid="good"),
                         counting_renderer(tool_names=["bad"], rid="bad", fail=True),
                         counting_renderer(tool_names=["worse"], rid="worse", fail="build"), RICH])
    items = [tool_item(str(n), name=name, kind="other", title=name, output={"result": n})
             for n, name in enumerate(("good", "bad", "worse"), start=1)]
    app = stored_app(tmp_path, items, registry=registry)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        cards = list(app.view.query(ToolCard))
        assert [c.renderer.id for c in cards] == ["good", "bad", "worse"]
        assert [c.failed for c in cards] == [False, True, True]
        assert isinstance(cards[1].inner, ToolCallView) and isinstance(cards[2].inner, ToolCallView)
        assert not app.view.query(ToolGroup)


async def test_card_limit_folds_further_cards_into_the_group(tmp_path):
    registry = Registry([counting_renderer(tool_names=["probe"], rid="probe"), RICH])
    items = [tool_item(str(n), name="probe", kind="other", title="probe") for n in range(5)]
    items.append(rich_item("r", bar_chart("never folded")))
    app = stored_app(tmp_path, items, registry=registry, card_limit=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        cards = list(app.view.query(ToolCard))
        assert [c.renderer.id for c in cards] == ["probe", "probe", "rich_output"]
        group = app.view.query_one(ToolGroup)
        assert len(group.items) == 3 and group.summary == "3 tools: probe · 3 cards"


async def test_rich_output_states_and_neighbours(tmp_path):
    unavailable = rich_item("u", {"version": 9, "title": "x", "blocks": []})
    items = [
        rich_item("p", {}, status="pending", output=None),
        rich_item("r", {}, status="in_progress", output=None),
        rich_item("f", {}, status="error", output={"content": [{"type": "text", "text": "title: must be 1-120 characters"}]}),
        rich_item("c", {}, status="cancelled", output=None),
        unavailable,
        message_item(1, "a neighbour survives"),
        rich_item("ok", bar_chart("Fine")),
    ]
    app = stored_app(tmp_path, items)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        cards = [c.inner for c in app.view.query(ToolCard)]
        texts = [c.searchable_text for c in cards]
        assert texts[0] == texts[1] == "Visual output"
        assert texts[2] == "Visual output failed: title: must be 1-120 characters"
        assert texts[3] == "Visual output cancelled"
        assert texts[4] == "This presentation is unavailable."
        assert app.view.query_one(AgentMessage).searchable_text == "a neighbour survives"
        assert cards[5].result.state.value == "ready" and len(cards[5].charts) == 1
        assert not app.view.query(ToolGroup)  # rich output never folds into a group


async def test_reduced_motion_overrides_the_setting(tmp_path):
    stats.reset()
    app = replay_app(tmp_path, animation=True)
    app.animation_level = "none"  # what TEXTUAL_ANIMATIONS=none sets
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.view.scroll_home(animate=False)
        for _ in range(10):
            app.view.scroll_relative(y=12, animate=False)
            await pilot.pause(0.05)
        charts = list(app.view.query(ChartBlock))
        assert charts and all(c.plotted for c in charts)
        assert not app.looks.should_animate("anything")
    assert stats.COUNTERS["plot_frames"] == stats.COUNTERS["charts_plotted"] > 0


async def test_animation_on_draws_frames_once(tmp_path):
    stats.reset()
    app = replay_app(tmp_path, animation=True)
    app.animation_level = "full"
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.view.scroll_home(animate=False)
        for _ in range(10):
            app.view.scroll_relative(y=12, animate=False)
            await pilot.pause(0.1)
        await until(pilot, lambda: all(c.frame == 1.0 for c in app.view.query(ChartBlock)))  # each animated once
        charts = list(app.view.query(ChartBlock))
        assert all(c.frame == 1.0 for c in charts)
        plotted = stats.COUNTERS["charts_plotted"]
        assert stats.COUNTERS["plot_frames"] > plotted  # animation frames were drawn
        charts[0].action_toggle_series(1)  # a legend toggle never restarts the animation
        await pilot.pause()
        assert charts[0].frame == 1.0 and charts[0]._timer is None


async def test_quit_with_ctrl_c_twice(tmp_path):
    app = replay_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


async def test_text_selected_with_the_mouse_or_in_the_prompt_is_copied_by_ctrl_c_which_then_does_not_quit(tmp_path):
    """An agent's message draws its own lines: each character knows its place, so a drag selects part of it (drawn in
    the selection's colours) and ctrl+c copies just that, as it copies what is selected in the prompt. With text
    selected, ctrl+c is a copy, never the first of the two that quit; with none, it is."""
    from kandev_tui.ui.textual_hooks import screen_text
    from kandev_tui.widgets.entries.agent_message import AgentMessage

    from ..support.app_helpers import message_item, stored_app

    app = stored_app(tmp_path, [message_item(1, "Hello world, this is the **agent** speaking.\n\n"
                                                "```python\nprint('copy me')\n```\n")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert screen_text(app).splitlines()[2].startswith("  Hello world, this is the agent speaking.")
        await pilot.mouse_down(offset=(8, 2))  # on "world"
        await pilot.hover(offset=(20, 2))
        await pilot.hover(offset=(19, 5))  # past the end of the code's line
        await pilot.mouse_up(offset=(19, 5))
        await until(pilot, lambda: bool(app.screen.get_selected_text()))
        message = app.view.query_one(AgentMessage)
        first = list(message.render_line(0))
        selected = [segment.text for segment in first if segment.style and segment.style.bgcolor
                    and segment.style.bgcolor == message.selection_style.bgcolor]
        assert "".join(selected).strip() == "world, this is the agent speaking."  # drawn as selected
        for _ in range(2):
            await pilot.press("ctrl+c")
            await pilot.pause()
        assert app.is_running
        assert app.clipboard == "world, this is the agent speaking.\n\n\n print('copy me')"
        app.screen.clear_selection()
        prompt = app.transcript_screen.prompt
        prompt.disabled = False
        prompt.text = "a prompt to copy"
        prompt.focus()
        await pilot.press("end", "shift+home")
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running and app.clipboard == "a prompt to copy"
        await pilot.press("end")  # nothing selected: ctrl+c twice quits
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


async def test_help_screen_lists_keys(tmp_path):
    app = replay_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        from kandev_tui.screens.help import HelpScreen

        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


def test_system_commands_include_the_main_actions(tmp_path):
    app = replay_app(tmp_path)
    titles = [c.title for c in app.get_system_commands(app.transcript_screen)]
    assert {"Jump to the latest output", "Settings", "Help: keys"} <= set(titles)
    assert "Cancel the running turn" not in titles  # a replay has no turn to cancel (a live one: test_live_app)


async def test_the_palette_copies_the_agents_last_answer_as_markdown(tmp_path):
    """The command palette's "Copy the agent's last answer": the Markdown source of every message the agent said in
    its latest turn, in order, whole, even where longer than the screen (an agent that works between its words
    answered in several, and the last one alone was "Anything else?"); not an earlier turn's; a session where the
    agent has said nothing offers no such command."""
    answer = "## Done\n\n" + "\n".join(f"- point {n} with `code`" for n in range(40))
    app = stored_app(tmp_path, [message_item(1, "an earlier turn's answer"), message_item(2, "Let me look.", turn=2),
                                tool_item("t", name="bash", kind="execute", turn=2), message_item(3, answer, turn=2),
                                tool_item("u", name="bash", kind="execute", turn=2),
                                message_item(4, "Anything else?", turn=2)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.press(*"copy the agent")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await until(pilot, lambda: app.clipboard == f"Let me look.\n\n{answer}\n\nAnything else?")
    silent = stored_app(tmp_path / "silent", [tool_item("t", name="bash", kind="execute")])
    async with silent.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "Copy the agent's last answer" not in [c.title for c in silent.get_system_commands(silent.screen)]


async def test_card_lifecycle_states_drawn_by_the_host(tmp_path):
    registry = Registry([counting_renderer(tool_names=["probe"], rid="probe"), RICH])
    items = [tool_item("p", name="probe", kind="other", title="probe", status="pending", raw_input={"path": "hosts/db-1"}),
             tool_item("e", name="probe", kind="other", title="probe", status="error", output={"error": "Entity not found: \"bad\""}),
             tool_item("m", name="probe", kind="other", title="probe", status="complete", output=None),
             tool_item("c", name="probe", kind="other", title="probe", status="complete", output={"ok": 1})]
    app = stored_app(tmp_path, items, registry=registry)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        cards = {c.key: c for c in app.view.query(ToolCard)}
        assert [cards[k].state for k in ("tool:p", "tool:e", "tool:m", "tool:c")] == ["skeleton", "error", "empty", "card"]
        assert "probe" in str(cards["tool:p"].row.render()) and "hosts/db-1" in str(cards["tool:p"].row.render())
        assert 'Entity not found: "bad"' in str(cards["tool:e"].row.render())
        assert str(cards["tool:m"].row.render()).strip().endswith("✔")
        assert cards["tool:c"].inner is not None and cards["tool:c"].inner.display
        assert cards["tool:p"].inner is None  # the renderer is only asked for the finished card
        done = tool_item("p", name="probe", kind="other", title="probe", status="complete", output={"ok": 2})
        app.session.receive_items([done])
        await settle(pilot)
        assert cards["tool:p"].state == "card" and cards["tool:p"].inner is not None and cards["tool:p"].inner.display


async def test_stats_file_is_written_on_exit(tmp_path):
    import json

    path = tmp_path / "stats.json"
    app = replay_app(tmp_path, stats_path=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.view.check_charts(at_once=True)
        await pilot.pause(0.1)
        await app.action_quit()
    counters = json.loads(path.read_text())
    assert set(counters) == {"presentations_parsed", "charts_plotted", "plot_frames", "predraw_turns"}
    assert counters["presentations_parsed"] == 4 and counters["charts_plotted"] >= 1


async def test_no_cursor_blinks_in_a_test(tmp_path):
    """The autouse fixture (tests/conftest.py) makes the prompt and the search box with a still cursor."""
    app = stored_app(tmp_path, [message_item(1, "Hello.")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert not app.transcript_screen.prompt.cursor_blink and not app.transcript_screen.search_box.cursor_blink


async def test_the_agents_title_for_a_replayed_session_stays_whatever_arrives_last(tmp_path):
    """The title a session_info item brings is the source's too: a state shown after it (the replay's end) shows the
    same title, not the recording's file name (a snapshot once caught the other order)."""
    from kandev_tui.session import SessionState

    from ..support.app_helpers import FIXTURES, replay_app, settle

    app = replay_app(tmp_path, FIXTURES / "recordings" / "codex-real.jsonl")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.source.title == "Run the checks and chart them"
        assert app.transcript_screen.status.title == "Run the checks and chart them"
        app.current.show_state(app.session.state_change(SessionState.REPLAYED, "end of recording"))  # the state again, last
        assert app.transcript_screen.status.title == "Run the checks and chart them"


async def test_a_diffs_shades_follow_the_theme_even_once_drawn(tmp_path):
    """An edit's added and removed lines are shaded from the theme (dark shades under a light theme's dark text were
    black on black in 16 colours): a theme chosen after the card was drawn shades it anew."""
    from kandev_tui.widgets.entries.calls.diff import look_for

    edit = tool_item("e1", name="edit", kind="edit", title="Edit a.py",
                     content=[{"type": "diff", "path": "a.py", "oldText": "a = 1\n", "newText": "a = 2\n"}])
    app = stored_app(tmp_path, [edit])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)

        def shades_drawn() -> set:
            from kandev_tui.ui.textual_hooks import screen_svg

            svg = screen_svg(app)
            return {colour for colour in (look_for(app.current_theme).added.bgcolor.triplet.hex,
                                          look_for(app.current_theme).removed.bgcolor.triplet.hex) if colour in svg}

        assert len(shades_drawn()) == 2
        dark = look_for(app.current_theme)
        app.theme = "textual-light"
        await pilot.pause(0.2)
        light = look_for(app.current_theme)
        assert light != dark and len(shades_drawn()) == 2  # the light theme's own shades, on screen


async def test_a_theme_textual_does_not_have_is_said_and_the_default_used(tmp_path):
    app = replay_app(tmp_path, theme="nope")
    said: list[str] = []
    app.notify = lambda message, **kwargs: said.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.theme == "textual-dark"
    assert any("The theme 'nope' (settings) is not one kandev-tui has" in message for message in said)


@pytest.mark.parametrize("theme", ["textual-light", "textual-dark"])
async def test_under_no_color_every_card_border_stands_out_from_its_background(tmp_path, monkeypatch, theme):
    """NO_COLOR draws each colour as a grey of its lightness: a light theme's accent and warning borders became the
    grey of its background (white on light grey). Every card's border, as grey, stays far from its background's."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = replay_app(tmp_path, theme=theme)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+home")
        await settle(pilot)
        cards = [*app.view.walk_children(), app.transcript_screen.prompt]  # the transcript's cards and the prompt
        bordered = [w for w in cards if w.styles.border_top[0] in ("round", "thick", "tall")
                    or w.styles.border_left[0] == "thick"]
        assert {type(w).__name__ for w in bordered} >= {"PermissionRequest", "EditCard", "Plan", "UserMessage"}
        for widget in bordered:
            kind, color = widget.styles.border_top if widget.styles.border_top[0] else widget.styles.border_left
            background = widget.background_colors[1]
            grey, under = (background + color).monochrome, background.monochrome
            assert abs(grey.brightness - under.brightness) >= 0.25, (type(widget).__name__, widget.classes, color)


async def test_at_45_columns_no_settings_label_touches_its_switch(tmp_path):
    """A label that fills its column ("Rich-output guidance for▊") ran into the switch beside it: a gap stays."""
    from textual.widgets import Label

    from kandev_tui.screens.settings import SettingsScreen

    app = replay_app(tmp_path)
    async with app.run_test(size=(45, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await until(pilot, lambda: isinstance(app.screen, SettingsScreen) and app.screen.query(Label).first().size.width)
        beside = [(label, label.parent.children[1]) for label in app.screen.query(Label)
                  if label.parent is not None and len(label.parent.children) > 1 and label.parent.children[0] is label]
        assert beside
        for label, control in beside:
            text_right = label.content_region.right  # where its words may reach
            assert control.region.x - text_right >= 2, (str(label.render()), text_right, control.region.x)


async def test_settings_open_with_the_first_setting_focused_and_take_keys_at_once(tmp_path):
    from textual.widgets import Select

    app = replay_app(tmp_path)
    async with app.run_test(size=(45, 30)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await until(pilot, lambda: isinstance(app.focused, Select))
        await pilot.press("enter")  # the themes open, as enter on a choice does
        await until(pilot, lambda: app.focused is not None and app.focused.id != "theme")
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.theme == "textual-light")


async def test_f2_shows_the_theme_in_use_and_writes_nothing_the_user_did_not_change(tmp_path):
    """A theme the settings screen's old list lacked (dracula): F2 showed another and, closed untouched, switched to
    it and saved it. It shows the one in use, among the app's themes (the list the warning offers), and escape
    leaves the file as it was."""
    from textual.widgets import Select

    from kandev_tui.screens.settings import SettingsScreen

    app = replay_app(tmp_path, theme="dracula")
    config = tmp_path / "config.toml"
    written = config.read_bytes()
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot)
        assert app.theme == "dracula"
        await pilot.press("f2")
        await until(pilot, lambda: isinstance(app.focused, Select) and isinstance(app.screen, SettingsScreen))
        themes = app.screen.query_one("#theme", Select)
        assert themes.value == "dracula"  # among the app's themes: the old list of six lacked it
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, SettingsScreen))
        await pilot.pause(0.2)
        assert app.theme == "dracula"
    assert config.read_bytes() == written


async def test_the_palettes_screenshot_is_saved_or_says_why_not(tmp_path, monkeypatch):
    """The palette's Screenshot (Textual's command, which saved only to a Downloads folder and said "Failed to save
    screenshot" without a reason) saves as the action does, an SVG with no web font to fetch; where the folder
    cannot be written, the notice says where and why. Textual's "Keys" panel is not offered beside F1's."""
    from textual.command import CommandPalette

    downloads = tmp_path / "Downloads"
    downloads.mkdir()
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(downloads))
    app = replay_app(tmp_path)
    said: list[tuple[str, str]] = []
    app.notify = lambda message, **kwargs: said.append((str(message), kwargs.get("severity", "")))  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        offered = [command.title for command in app.get_system_commands(app.screen)]
        assert "Screenshot" in offered and "Keys" not in offered and "Help: keys" in offered
        app.action_command_palette()
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"Screenshot")
        await until(pilot, lambda: "Save an SVG picture" in screen_text(app))
        await pilot.press("enter")
        await until(pilot, lambda: any("Saved screenshot" in message for message, _ in said))
        (shot,) = downloads.glob("*.svg")
        assert str(shot) in said[-1][0] and said[-1][1] != "error"
        assert "<svg" in shot.read_text() and "@font-face" not in shot.read_text()
        not_a_folder = tmp_path / "a file"
        not_a_folder.write_text("")
        app.action_screenshot(path=str(not_a_folder))
        message, severity = said[-1]
        assert severity == "error" and message.startswith(f"The screenshot was not saved: {not_a_folder}/")
        assert message.endswith(": Not a directory"), message


@pytest.mark.parametrize("width", [100, 60])
async def test_the_status_lines_usage_stays_whole_and_the_title_gives_way(width):
    """At 100 columns OpenCode's status line ended "… chart  0% of 1…": the usage came after a long title and was
    cut. The title gives way (down to 12 columns), the usage and cost stay whole; narrower, the line's end is cut."""
    from textual.app import App

    from kandev_tui.widgets.chrome.status_line import StatusLine

    line = StatusLine()

    class One(App):
        def compose(self):
            yield line

    async with One().run_test(size=(width, 3)) as pilot:
        line.agent, line.branch, line.choices = "OpenCode", "master", "build · Scripted/Scripted"
        line.title = "look at the repository, fix what is broken in it and chart the results"
        line.usage = {"used": 1200, "size": 100000, "cost": {"amount": 0.42, "currency": "USD"}}
        await pilot.pause()
        shown = line.render_line(0).text.rstrip()
        assert len(shown) <= width
        if width == 100:
            assert shown.endswith("…  1% of 100k · $0.42") and "look at the reposito" in shown
        else:  # no room for 12 columns of title and the usage: as before, the line is cut at its end
            assert shown.endswith("…") and "$0.42" not in shown
