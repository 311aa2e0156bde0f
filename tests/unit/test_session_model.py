"""The headless session model (kandev_tui.session): the batch policy with an injected clock, the prompt's rules per
state, and the Source protocol's declared capabilities, without a terminal."""

from __future__ import annotations

import pytest

from kandev_tui.session import Batcher, NullSource, SessionState, prompt_state
from kandev_tui.session.batch import BUSY_WAIT_AT_MOST, FLUSH_SECONDS, SETTLE_AT_MOST, UNTIL_SHOWN

from ..support.app_helpers import bar_chart, message_item, rich_item, tool_item


def test_updates_merge_by_key_and_leave_in_the_order_their_key_first_came():
    """The batch keeps keys and clocks, never the items (the transcript model's change set holds them)."""
    batch = Batcher(Clock(), Clock())
    batch.add(["message:1", "message:2"])
    batch.add(["message:1", "message:3"])
    assert batch.keys == ["message:1", "message:2", "message:3"]
    assert batch.take() == ["message:1", "message:2", "message:3"] and not batch and batch.keys == []


def test_the_users_input_and_a_covering_screen_hold_the_batch():
    batch = Batcher(Clock(), Clock())
    batch.add(["message:1"])
    assert batch.wait() == 0  # nothing holds it: it goes now
    assert batch.wait(holding=0.1) == 0.1  # the input's effect is drawn first
    assert batch.wait(covered=True) == UNTIL_SHOWN  # under the help: until it is shown again
    assert batch.wait(holding=0.4, covered=True) == UNTIL_SHOWN


def test_one_batch_on_its_way_at_a_time_but_never_held_for_ever():
    clock = Clock()
    batch = Batcher(clock, Clock())
    batch.add(["message:1"])
    batch.take()
    batch.add(["message:2"])
    clock.now += 2 * FLUSH_SECONDS  # its turn has come
    assert batch.wait(settling=True) == FLUSH_SECONDS  # the last batch is still being put on screen
    clock.now += SETTLE_AT_MOST + 0.01
    assert batch.wait(settling=True) == 0  # waited long enough: it goes


def test_a_lone_update_goes_at_once_and_a_stream_at_most_every_frame_or_so():
    clock = Clock()
    batch = Batcher(clock, Clock())
    assert batch.first_wait() == 0  # nothing went on screen lately
    batch.add(["message:1"])
    batch.take()
    assert batch.first_wait() == pytest.approx(FLUSH_SECONDS)  # just taken: the next waits its turn
    clock.now += FLUSH_SECONDS / 2
    assert batch.first_wait() == pytest.approx(FLUSH_SECONDS / 2)
    clock.now += 1
    assert batch.first_wait() == 0


def test_while_the_source_streams_the_ui_thread_works_at_most_a_third_of_the_time():
    """While the source takes in output as fast as it can, the UI thread's processor time since the last batch
    (putting it on screen, and anything else) decides when the next may go: 20 ms of work waits for 60 ms since, so
    that two thirds stay free for keys and for the source's thread; a UI busy with something else holds a batch
    back for BUSY_WAIT_AT_MOST after the last at most. The stream's last batch goes at once."""
    clock, ui = Clock(), Clock()
    batch = Batcher(clock, ui)
    batch.add(["message:1"])
    batch.take()
    ui.now += 0.020  # the batch cost the UI 20 ms
    clock.now += 0.040
    batch.add(["message:1"])
    assert batch.wait(streaming=True) == pytest.approx(0.020)  # 60 ms after the last batch
    assert batch.wait(streaming=False) == 0  # the source has nothing more for now: this one goes
    clock.now += 0.020
    assert batch.wait(streaming=True) == 0
    ui.now += 5.0  # the UI was busy with something else for a long time
    clock.now -= 0.040
    assert batch.wait(streaming=True) == pytest.approx(BUSY_WAIT_AT_MOST - 0.020)


def test_a_batch_that_costs_the_ui_a_frame_of_charts_still_leaves_the_source_two_thirds():
    """A batch of a flood with charts in it costs the UI's thread 60-80 ms (mounting, laying out, plotting what comes
    into view). The share holds for those too: a cap of 0.1 s left the source's thread a fifth of the time, so it fell
    0.3-0.45 s behind the agent, and the last chunk of a 5,000-chunk stream reached a real terminal 0.6 s after the
    agent sent it (benchmarks/terminal.py; 0.24 s with the share kept)."""
    clock, ui = Clock(), Clock()
    batch = Batcher(clock, ui)
    for _ in range(5):
        batch.add(["message:1"])
        clock.now += batch.wait(streaming=True)
        batch.take()
        ui.now += 0.080  # the batch's frame of charts
        clock.now += 0.080
        batch.add(["message:1"])
        waited = batch.wait(streaming=True)
        assert 0.080 / (0.080 + waited) <= 1 / 3 + 1e-9  # the UI's share of the time between batches
        clock.now += waited


def test_when_the_turn_is_over_what_waits_does_not_wait_its_turn():
    """The last items of a turn (its end among them) have nothing more to be merged with: they go at once, not up to
    FLUSH_SECONDS after the batch before (benchmarks/terminal.py: the terminal showed a flood's end 25 ms later for
    it). The user's input, a covering screen and a batch still being put on screen hold them as ever; a source still
    streaming keeps its pace."""
    clock = Clock()
    batch = Batcher(clock, Clock())
    batch.add(["message:1"])
    batch.take()
    clock.now += FLUSH_SECONDS / 4
    batch.add(["message:1"])
    assert batch.wait() == pytest.approx(FLUSH_SECONDS * 3 / 4)
    assert batch.wait(final=True) == 0
    assert batch.wait(final=True, holding=0.1) == 0.1 and batch.wait(final=True, covered=True) == UNTIL_SHOWN
    assert batch.wait(final=True, settling=True) == FLUSH_SECONDS
    assert batch.wait(final=True, streaming=True) == pytest.approx(FLUSH_SECONDS * 3 / 4)


def test_nothing_waiting_needs_no_wait():
    assert Batcher(Clock(), Clock()).wait(holding=1.0) == 0


@pytest.mark.parametrize("state, can_prompt, enabled, reason, read_only", [
    ("idle", True, True, "", False),
    ("running", True, True, "a turn is running · enter queues · escape cancels", False),  # queued
    ("waiting", True, True, "a turn is running · enter queues · escape cancels", False),
    ("starting", True, True, "starting the agent… · enter: sent once it is ready", False),  # type-ahead
    ("connecting", True, False, "connecting to Kandev…", False),
    ("ended", False, False, "the agent has exited", True),
    ("stored", False, False, "the agent has exited", True),
    ("starting", False, False, "starting the agent…", False),  # not read-only yet: it may still take prompts
    ("loading", False, False, "the agent has exited", True),  # a stored session being read: read-only already
])
def test_the_prompt_follows_the_state(state, can_prompt, enabled, reason, read_only):
    prompt = prompt_state(state, "", can_prompt=can_prompt, read_only_reason="the agent has exited")
    assert (prompt.enabled, prompt.reason, prompt.read_only) == (enabled, reason, read_only)


def test_a_reconnection_says_what_it_is_doing():
    assert prompt_state("reconnecting", "reconnecting in 2 s…", can_prompt=True, read_only_reason="").reason == \
        "reconnecting in 2 s…"


def test_an_unknown_state_is_a_programming_error_not_a_blank_prompt():
    with pytest.raises(ValueError):
        prompt_state("sleeping", "", can_prompt=True, read_only_reason="")


def test_states_are_the_strings_stored_and_shown():
    assert SessionState.IDLE == "idle" and f"{SessionState.RUNNING}" == "running"


class Told:
    """What a source tells, as a session model would hear it (SourceEvents)."""

    def __init__(self) -> None:
        self.items, self.resets, self.states, self.notices = [], [], [], []

    def receive_items(self, items):
        self.items.append(items)

    def receive_reset(self, items):
        self.resets.append(items)

    def receive_status(self, status):
        self.states.append((status.state, status.detail))

    def receive_notice(self, text):
        self.notices.append(text)


async def test_a_source_declares_what_it_cannot_do_and_tells_only_once_bound():
    source = NullSource()
    source._set_state("starting", "")  # not bound yet: nobody hears it (nothing fails)
    told = Told()
    source.bind(told)
    states = told.states
    assert not (source.can_prompt or source.can_cancel or source.can_pick_session or source.more_above)
    assert source.waiting_for == set() and not source.answer("permission:1", "allow")
    assert await source.load_older() == 0 and await source.sessions() == []
    source._set_state("running", "")
    assert states == [(SessionState.RUNNING, "")] and source.state is SessionState.RUNNING
    from kandev_tui.acp import AgentError

    with pytest.raises(AgentError):
        await source.send("hello")
    source.notify("a page did not load")
    assert told.notices == ["a page did not load"] and told.items == []


# -- the window arithmetic (kandev_tui/session/window.py) -------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st

from kandev_tui.renderers import Registry  # noqa: E402
from kandev_tui.session import window as W  # noqa: E402
from kandev_tui.session.changes import TranscriptModel  # noqa: E402
from kandev_tui.session.layout import Entry  # noqa: E402
from kandev_tui.session.window import Window  # noqa: E402

from ..support.models import UI, Clock, Loop, said, session_model


def entries(count: int) -> list[Entry]:
    return [Entry(f"e{i}", "item", 1, i, [f"e{i}"], index=i) for i in range(count)]


def lines(n: int):
    return lambda entry: n


def test_opening_mounts_a_small_session_whole_and_a_large_one_from_its_end():
    assert W.at_end(Window(), entries(80), True, 40, lines(4)) == Window(0, 80)
    opened = W.at_end(Window(), entries(5000), True, 40, lines(4))
    assert opened == Window(5000 - 30, 5000)  # three screens of 40 lines, 4 lines an entry


def test_following_keeps_a_screen_and_a_half_and_a_window_scrolled_up_in_waits_at_its_limit():
    assert W.at_end(Window(4000, 4030), entries(5000), True, 40, lines(4)) == Window(5000 - 15, 5000)
    assert W.at_end(Window(4000, 4030), entries(5000), True, 40, lines(40)) == Window(5000 - W.MIN_FOLLOW, 5000)
    # scrolled up (not following): the window keeps its top and grows to WINDOW_MAX; the rest waits below
    assert W.at_end(Window(4000, 4030), entries(5000), False, 40, lines(4)) == Window(4000, 4000 + W.WINDOW_MAX)
    assert W.at_end(Window(4000, 4030), entries(4100), False, 40, lines(4)) == Window(4000, 4100)


def test_scrolling_mounts_two_screens_and_keeps_the_window_bounded():
    full = Window(1000, 1000 + W.WINDOW_MAX)
    assert W.earlier(full, entries(5000), 40, lines(4)) == Window(980, 980 + W.WINDOW_MAX)
    assert W.later(full, entries(5000), 40, lines(4)) == Window(1020, 1020 + W.WINDOW_MAX)
    assert W.earlier(Window(5, 20), entries(100), 40, lines(4)) == Window(0, 20)
    assert W.later(Window(90, 95), entries(100), 40, lines(4)) == Window(90, 100)
    assert W.around(3, 5000) == Window(0, 2 * W.LOAD_STEP) and W.around(2500, 2510) == Window(2460, 2510)


def test_the_height_of_an_entry_is_estimated_from_its_text_at_the_width():
    viewport = W.Viewport(80, 40)
    items = {"m": message_item(1, "a line\n" * 9 + "x" * 148)}
    message = Entry("m", "item", 1, 1, ["m"])
    assert viewport.entry_height(message, items) == 2 + 9 + (9 * 7 + 148) // 74
    assert viewport.entry_height(Entry("g", "group", 1, 1, []), items) == 2
    assert viewport.entry_height(Entry("c", "card", 1, 1, []), items) == 24


windows = st.builds(lambda lo, size: Window(lo, lo + size), st.integers(0, 300), st.integers(0, 200))


@given(windows, windows)
def test_moves_take_the_mounted_entries_exactly_from_one_window_to_the_other(old, new):
    moves = W.moves(old, new)
    mounted = set(range(old.lo, old.hi))
    for gone in moves.unmount:
        assert set(gone) <= mounted
        mounted -= set(gone)
    above, below = set(moves.mount_above), set(moves.mount_below)
    assert not (above & mounted or below & mounted or above & below)
    assert mounted | above | below == set(range(new.lo, new.hi))
    assert all(i < min(mounted) for i in above) if mounted else True  # above what stays, in order
    assert all(i > max(mounted) for i in below) if mounted else True


@settings(max_examples=200)
@given(st.lists(st.sampled_from(["end", "end-unfollowed", "earlier", "later", "around"]), max_size=30),
       st.integers(1, 3000), st.integers(1, 30))
def test_the_window_stays_in_the_session_and_never_mounts_more_than_its_limit(steps, total, height):
    session, window = entries(total), Window()
    for step in steps:
        if step.startswith("end"):
            window = W.at_end(window, session, step == "end", 40, lines(height))
        elif step == "earlier":
            window = W.earlier(window, session, 40, lines(height))
        elif step == "later":
            window = W.later(window, session, 40, lines(height))
        else:
            window = W.around(total // 2, total)
        assert 0 <= window.lo <= window.hi <= total and len(window) <= max(W.WINDOW_MAX, W.OPEN_ALL)


# -- change sets (kandev_tui/session/changes.py) -------------------------------------------------------------------

def test_a_change_set_says_what_is_new_what_changed_and_what_is_for_the_status_line():
    from kandev_tui.transcript import Item

    model = TranscriptModel(Registry.from_entry_points())
    first = model.apply([message_item(1, "Hel"), tool_item("a", status="in_progress")])
    assert first.new_entries == 2 and not first.updated and first.keys == ["message:1", "tool:a"]
    assert first.summaries == {"group:tool:a": "1 tool: read"}
    grown = message_item(1, "Hello")
    later = model.apply([grown, tool_item("b"), Item("usage", "usage", 1, {"used": 5})])
    assert later.new_entries == 0 and later.updated == {"message:1": grown, "tool:b": later.updated["tool:b"]}
    assert later.summaries == {"group:tool:a": "2 tools: read"} and [i.kind for i in later.status] == ["usage"]
    card = model.apply([message_item(2, "And a chart:"), rich_item("r", bar_chart("Load"))])
    assert card.new_entries == 2 and [e.kind for e in model.entries] == ["item", "group", "item", "card"]


def test_a_grouped_call_promoted_to_a_card_is_rebuilt():
    """A call whose result names a renderer (``__renderer``) leaves its group for a card: the widget is rebuilt."""
    from kandev_tui.demo import fleet as demo

    from ..support.app_helpers import fleet_item

    model = TranscriptModel(Registry.from_entry_points())
    model.apply([fleet_item("d", "fleet_digest", status="pending")])
    changes = model.apply([fleet_item("d", "fleet_digest", demo.STEPS[14][3])])
    assert [(old, entry.key, entry.kind) for old, entry in changes.rebuilt] == [("group:tool:d", "tool:d", "card")]


def test_a_reset_places_everything_anew():
    model = TranscriptModel(Registry.from_entry_points())
    model.apply([message_item(5, "newest")])
    before = model.entries
    changes = model.reset([message_item(1, "older"), message_item(5, "newest")])
    assert changes.new_entries == 2 and [e.key for e in model.entries] == ["message:1", "message:5"]
    assert changes.reset_from is before  # where a view finds its place again


def test_the_source_is_handed_what_says_when_its_reading_gives_way_to_the_user():
    from kandev_tui.session.model import SessionModel

    handed = []

    class Reading(NullSource):
        def give_way_to(self, gives_way):
            handed.append(gives_way)

    model = SessionModel(Reading(), Registry.from_entry_points(),
                         clock=Clock(), ui_time=Clock())
    ui = UI()
    model.attach(ui, Loop(Clock()))  # type: ignore[arg-type]
    assert handed == [ui.gives_way] and not handed[0]()
    ui.hold = 0.1
    assert handed[0]()


def test_items_wait_for_the_users_input_then_go_as_one_batch():
    clock = Clock()
    model, ui, loop = session_model(clock)
    ui.hold = 0.1  # the user just pressed a key
    model.receive_items([message_item(1, "a")])
    model.receive_items([message_item(1, "ab"), message_item(2, "c")])
    loop.run(FLUSH_SECONDS)
    assert not ui.applied and not model.settled
    ui.hold = 0.0
    loop.run(0.1)
    assert [c.keys for c in ui.applied] == [["message:1", "message:2"]] and model.settled
    assert model.transcript.items["message:1"].payload["text"] == "ab"


def test_a_covered_session_waits_with_no_timer_and_catches_up_when_shown():
    """Twenty sessions off screen cost nothing while idle: a covered session's batch is looked at once when items
    arrive, then waits with no timer until the UI shows it again (look_now)."""
    clock = Clock()
    model, ui, loop = session_model(clock)
    ui.cover = True
    model.receive_items([message_item(1, "arrived off screen")])
    loop.run(FLUSH_SECONDS)
    assert not ui.applied and model.looks == 1 and not model.settled
    assert ui.held == 1  # the UI is told once (its sessions list says what arrived): it need not poll either
    assert not [h for _, h in loop.timers if not h.done]  # nothing polls
    loop.run(60.0)
    assert model.looks == 1 and not ui.applied and ui.held == 1  # a minute later: not looked at again
    ui.cover = False
    model.look_now()
    assert [c.keys for c in ui.applied] == [["message:1"]] and model.settled


def test_items_from_another_thread_wake_the_ui_loop_once_and_wait_there():
    import threading

    clock = Clock()
    model, ui, loop = session_model(clock)
    thread = threading.Thread(target=lambda: [model.receive_items([message_item(n, "x")]) for n in range(50)])
    thread.start()
    thread.join()
    assert len(loop.soon) == 1 and not ui.applied and not model.settled  # one wake for the fifty, nothing applied
    loop.run()
    loop.run(FLUSH_SECONDS)
    assert len(ui.applied) == 1 and ui.applied[0].new_entries == 50 and model.settled


def test_a_stored_sessions_thousands_of_calls_are_not_all_prepared_before_it_is_shown():
    """A batch of history (a stored session opened, a reset): only its newest calls are prepared ahead (the window
    opens at the end); the others are matched as they are placed, and prepared when a card shows them. Preparing
    all 5,000 charts of a 50,000-item session held its first paint back 0.7-0.9 s."""
    from kandev_tui.renderers.registry import Renderer
    from kandev_tui.session.changes import PREPARED_AT_MOST

    prepared: list[str] = []
    registry = Registry([Renderer(id="deploy", widget=lambda item: None, matches=lambda call: call["name"] == "deploy",
                                  prepare=lambda item: prepared.append(item.payload["tool_call_id"]))])
    model = TranscriptModel(registry)
    calls = [tool_item(f"c{n}", name="deploy") for n in range(PREPARED_AT_MOST * 4)]
    model.prepare(calls)
    assert prepared == [item.payload["tool_call_id"] for item in calls[-PREPARED_AT_MOST:]]
    model.apply(calls)
    assert len(model.items) == len(calls) and model.entries[0].kind == "card"  # placed, matched as they were


def test_calls_are_matched_and_prepared_on_the_sources_thread_and_only_placed_on_the_uis():
    """Matching (which may parse a call's result) and what a renderer prepares for its card are done where items
    arrive, before the hand-over: the UI's thread, placing them, finds both done and calls neither."""
    import threading

    from kandev_tui.renderers.registry import Renderer

    calls: list[tuple[str, int, str]] = []  # (what, thread, item key)

    def matches(call) -> bool:
        calls.append(("match", threading.get_ident(), call["tool_call_id"]))
        return call["name"] == "deploy"

    def prepare(item) -> None:
        calls.append(("prepare", threading.get_ident(), item.payload["tool_call_id"]))

    registry = Registry([Renderer(id="deploy", widget=lambda item: None, matches=matches, prepare=prepare)])
    model, ui, loop = session_model(Clock(), registry)
    items = [tool_item("a", name="deploy"), tool_item("b", name="read"), message_item(1, "done")]
    thread = threading.Thread(target=model.receive_items, args=(items,))
    thread.start()
    thread.join()
    loop.run()
    loop.run(FLUSH_SECONDS)
    assert [e.kind for e in model.transcript.entries] == ["card", "group", "item"]  # placed as the matches said
    assert [(what, key) for what, _, key in calls] == [("match", "a"), ("prepare", "a"), ("match", "b")]
    assert {ident for _, ident, _ in calls} == {thread.ident}  # none on the UI's thread


def test_calls_that_arrive_on_the_uis_thread_are_matched_as_placed_and_not_prepared():
    """A stored session is handed over on the UI's loop: preparing there only adds to its first paint the cards it
    will never show (a card parses its call when it is built)."""
    from kandev_tui.renderers.registry import Renderer

    prepared: list[str] = []
    registry = Registry([Renderer(id="deploy", widget=lambda item: None, matches=lambda call: call["name"] == "deploy",
                                  prepare=lambda item: prepared.append(item.key))])
    model, ui, loop = session_model(Clock(), registry)
    model.receive_items([tool_item("a", name="deploy"), tool_item("b", name="read")])  # on this (the UI's) thread
    loop.run()
    loop.run(FLUSH_SECONDS)
    assert [e.kind for e in model.transcript.entries] == ["card", "group"] and prepared == []


def test_a_rich_output_calls_presentation_is_validated_where_it_arrives():
    """The built-in rich-output renderer prepares the card's presentation (re-validated, its snapshot merged) on the
    source's thread: the card, drawn on the UI's, finds it parsed."""
    import threading

    from kandev_tui.base import stats
    from kandev_tui.session.parsed import presentation_of



    model, ui, loop = session_model(Clock())
    item = rich_item("c1", bar_chart("Requests"))
    before = stats.COUNTERS["presentations_parsed"]
    thread = threading.Thread(target=model.receive_items, args=([item],))
    thread.start()
    thread.join()
    assert item in presentation_of and stats.COUNTERS["presentations_parsed"] == before + 1  # parsed there
    loop.run()
    loop.run(FLUSH_SECONDS)
    assert [(e.kind, e.renderer and e.renderer.id) for e in model.transcript.entries] == [("card", "rich_output")]
    assert presentation_of(item).presentation is not None
    assert stats.COUNTERS["presentations_parsed"] == before + 1  # the card's look-up found it


def test_before_the_app_has_read_the_renderer_packs_the_agents_thread_does_not_wait_for_them():
    """The packs are read in a thread after the first frame (40-60 ms of imports): items that arrive before are not
    matched where they arrive (the agent's thread would wait for the packs), only when placed."""
    from kandev_tui.session.changes import TranscriptModel

    registry = Registry.from_entry_points(now=False)
    model = TranscriptModel(registry)
    model.prepare([tool_item("a", name="read")])
    assert not registry.discovered
    model.apply([tool_item("a", name="read")])  # placing matches: the packs are read now
    assert registry.discovered


def test_a_renderer_whose_preparation_fails_still_gets_its_card_placed():
    from kandev_tui.renderers.registry import Renderer

    def prepare(item) -> None:
        raise ValueError("a bug in a pack")

    registry = Registry([Renderer(id="deploy", widget=lambda item: None, tool_names=frozenset({"deploy"}),
                                  prepare=prepare)])
    model, ui, loop = session_model(Clock(), registry)
    model.receive_items([tool_item("a", name="deploy")])
    loop.run(FLUSH_SECONDS)
    assert [e.kind for e in model.transcript.entries] == ["card"]


def test_a_reset_goes_ahead_of_what_came_after_it_and_replaces_what_came_before():
    clock = Clock()
    model, ui, loop = session_model(clock)
    model.receive_items([message_item(9, "before the reset")])
    model.receive_reset([message_item(1, "older"), message_item(9, "before the reset")])
    model.receive_items([message_item(10, "after the reset")])
    loop.run(FLUSH_SECONDS)
    # what came after the reset is placed after it, and goes with it: the screen is built anew once
    assert ui.resets == [["message:1", "message:9", "message:10"]] and not ui.applied
    assert [e.key for e in model.transcript.entries] == ["message:1", "message:9", "message:10"]


@pytest.mark.parametrize("state", ["idle", "waiting", "ended", "error"])
def test_the_turns_last_items_go_on_screen_with_the_state_that_ends_it(state):
    clock = Clock()
    model, ui, loop = session_model(clock, can_prompt=True, can_cancel=True)
    said(model, "running", "")
    model.receive_items([message_item(1, "a")])
    loop.run()
    assert len(ui.applied) == 1  # a lone update: at once
    clock.now += FLUSH_SECONDS / 4
    model.receive_items([message_item(1, "ab"), message_item(2, "the end")])
    loop.run()
    assert len(ui.applied) == 1  # mid-turn: it waits its turn, to be merged with what comes next
    said(model, state, "")
    assert [c.keys for c in ui.applied[1:]] == [["message:1", "message:2"]] and model.settled
    assert ui.states[-1].state == state  # (said after the items it ended with are placed)
    said(model, "running", "")  # a new turn: batches wait their turn again
    model.receive_items([message_item(3, "x")])
    clock.now += FLUSH_SECONDS / 4
    model.receive_items([message_item(3, "xy")])
    loop.run()
    assert len(ui.applied) == 2 and not model.settled


def test_states_from_another_thread_reach_the_ui_on_its_loop_and_a_failure_sets_the_exit_status():
    import threading

    clock = Clock()
    model, ui, loop = session_model(clock, can_prompt=True, can_cancel=True)
    thread = threading.Thread(target=lambda: said(model, "running", ""))
    thread.start()
    thread.join()
    assert not ui.states
    loop.run()
    assert [(c.state, c.prompt.enabled, c.turn_running) for c in ui.states] == [("running", True, True)]  # the prompt queues
    model.source.notify("older messages could not be loaded")  # no state: the user is told
    said(model, "error", "Could not start the agent")
    assert ui.notices == ["older messages could not be loaded"] and (model.exit_code, model.failure) == (
        1, "Could not start the agent")
    assert ui.states[-1].prompt.enabled is False and not ui.states[-1].turn_running


def test_a_change_set_updates_only_entries_that_keep_their_widget():
    """A promotion rebuilds the group as a card and moves the rest of the group to a new entry: neither is updated
    in place (each is built from the newest versions), or a widget not yet composed would be told to update."""
    from kandev_tui.demo import fleet as demo

    from ..support.app_helpers import fleet_item

    model = TranscriptModel(Registry.from_entry_points())
    model.apply([fleet_item("d", "fleet_digest", status="pending"), fleet_item("p", "ping_service", status="pending")])
    changes = model.apply([fleet_item("p", "ping_service", {"ok": True}), fleet_item("d", "fleet_digest", demo.STEPS[14][3])])
    assert [entry.key for _, entry in changes.rebuilt] == ["tool:d"] and changes.new_entries == 1
    assert changes.updated == {}


def test_a_version_cache_works_each_version_out_once_and_stays_bounded():
    from kandev_tui.session.parsed import VersionCache

    worked: list[tuple[str, int]] = []
    cache = VersionCache(lambda item: worked.append((item.key, item.version)) or item.payload["text"], size=8)
    first = message_item(1, "one")
    assert cache(first) == "one" and cache(first) == "one" and worked == [("message:1", first.version)]
    newer = message_item(1, "one, more")  # a new version of the same key: worked out anew
    assert cache(newer) == "one, more" and len(worked) == 2 and first in cache and newer in cache
    items = [message_item(n, f"m{n}") for n in range(2, 40)]
    assert [cache(item) for item in items] == [f"m{n}" for n in range(2, 40)]
    assert len(cache._kept) <= 8 + 8 // 4  # bounded (a quarter more at most between two clear-outs)
    assert items[-1] in cache and first not in cache  # the newest kept, the oldest pushed out
    assert cache(first) == "one" and len(worked) == 2 + 38 + 1  # worked out again when asked


def test_a_covered_sessions_news_is_counted_as_it_grows_and_anew_once_taken():
    """What arrived off screen ("+N new" in its row): new keys only (a newer version of a waiting item or of one on
    screen is no news, the session's usage neither), counted from where the last count ended while nothing was
    taken, from the start once a batch is taken."""
    from kandev_tui.transcript.items import Item

    clock = Clock()
    model, ui, loop = session_model(clock)
    model.receive_items([message_item(1, "shown")])
    loop.run(FLUSH_SECONDS)
    assert [c.keys for c in ui.applied] == [["message:1"]] and model.unshown() == 0
    ui.cover = True

    received: dict[str, Item] = {}  # since the last batch was taken

    def naive() -> int:
        known = model.transcript.entry_of
        return sum(1 for i in received.values() if i.key not in known and i.kind != "usage")

    arrivals = [[message_item(1, "shown, and more"), message_item(2, "a")],  # on screen already, then news
                [message_item(2, "a, longer"), tool_item("c1")],  # a newer version: no more news
                [Item("usage", "usage", 1, {"used": 5}), message_item(3, "b")]]  # usage: not news
    for items, expected in zip(arrivals, (1, 2, 3)):
        received.update((item.key, item) for item in items)
        model.receive_items(items)
        loop.run(FLUSH_SECONDS)
        assert model.unshown() == naive() == expected
    assert not ui.applied[1:]  # all waits while covered
    ui.cover = False
    model.look_now()
    assert model.unshown() == 0
    ui.cover = True
    received = {"message:4": message_item(4, "c")}
    model.receive_items([message_item(4, "c")])
    loop.run(FLUSH_SECONDS)
    assert model.unshown() == naive() == 1


def test_a_running_turn_counts_how_long_the_agent_has_said_nothing():
    """An agent retrying a model API it cannot reach says nothing for minutes: the model counts the silence of a
    running turn from its start, or from the agent's last word, or from the user's answer; not outside a turn."""
    clock = Clock()
    model, _ui, loop = session_model(clock)
    said(model, "running", "")
    clock.now += 45
    assert model.quiet_for() == 45
    model.receive_items([message_item(1, "a word")])
    assert model.quiet_for() == 0
    clock.now += 10
    # a permission waits for the user: the agent is not quiet, the user is
    said(model, "waiting", "")
    assert model.quiet_for() == 0
    clock.now += 300
    said(model, "running", "")  # answered: quiet from here
    clock.now += 31
    assert model.quiet_for() == 31
    said(model, "idle", "")
    assert model.quiet_for() == 0


def test_the_model_shows_what_its_source_last_told_never_the_sources_attributes():
    from dataclasses import FrozenInstanceError

    clock = Clock()
    model, ui, loop = session_model(clock, can_prompt=True, title="first")
    model.source.title = "renamed, not told"
    assert model.status.title == "first"
    model.source.tell()  # a fact beside the state: kept, and no state change is said for it
    assert model.status.title == "renamed, not told" and not ui.states
    model.source.tell()  # nothing changed since: nothing told
    said(model, "running")
    model.source.can_prompt = False  # not told: the prompt stays as the last status said
    said(model, "idle")
    assert [(c.state, c.prompt.enabled) for c in ui.states] == [("running", True), ("idle", True)]
    with pytest.raises(FrozenInstanceError):
        model.status.title = "changed in place"  # type: ignore[misc]
