"""The app over a live agent: the real demo agent process, its MCP server, the store."""

from __future__ import annotations

import pytest

from kandev_tui.acp import AgentOptions
from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.demo import agent_command, prepare_workspace
from kandev_tui.sources import LiveSource
from kandev_tui.transcript import Store
from kandev_tui.widgets.entries.permission import PermissionRequest
from kandev_tui.widgets.chrome.prompt_input import PromptInput

from ..support.app_helpers import footer_keys, ready, settings_at, until

DELAY_ENV = "KANDEV_DEMO_DELAY"


def live_app(tmp_path, **option_overrides) -> tuple[KandevApp, Store]:
    store = Store(tmp_path / "s.db")
    options = AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp_path / "ws"), **option_overrides)
    app = KandevApp(LiveSource(options, store),
                    settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    return app, store


async def send_when_idle(pilot, app, text: str) -> None:
    """Once the agent is ready, type ``text`` in the prompt and send it, as the user does."""
    await until(pilot, lambda: ready(app))
    app.transcript_screen.prompt.focus()
    await pilot.press(*text, "enter")
async def test_send_answer_permission_by_keyboard_and_finish(tmp_path, monkeypatch):
    monkeypatch.setenv(DELAY_ENV, "0")
    messages = []
    app, store = live_app(tmp_path)
    async with app.run_test(size=(100, 30), message_hook=messages.append) as pilot:
        await until(pilot, lambda: ready(app))
        prompt = app.transcript_screen.prompt
        assert not prompt.disabled
        prompt.focus()
        await pilot.press(*"Check the build")
        await pilot.press("enter")
        assert any(isinstance(m, PromptInput.Submitted) and m.text == "Check the build" for m in messages)
        await until(pilot, lambda: any(w.answerable for w in app.view.query(PermissionRequest)))
        request = app.view.query_one(PermissionRequest)
        await until(pilot, lambda: request.has_focus)  # the waiting request takes focus: 1-9 answer it
        await pilot.press("1")
        await until(pilot, lambda: ready(app))
        assert any(isinstance(m, PermissionRequest.Answered) and m.option_id == "allow" for m in messages)
        await until(pilot, lambda: app.focused is prompt)  # after the turn, typing goes to the prompt
        await pilot.press(*"Plot my words", "enter")
        users = lambda: [e for e in app.view.entries if e.key.startswith("user:")]  # noqa: E731 (mounted or not)
        await until(pilot, lambda: len(users()) == 2 and app.source.state == "idle"
                              and app.view.entries[-1].kind == "item" and "turn_end" in app.view.entries[-1].key)
        await app.action_quit()
    session = store.sessions()[0]
    items = store.items(session["id"])
    permission = next(i for i in items if i.kind == "permission")
    assert permission.payload["answer"]["option_id"] == "allow"
    assert items[-1].kind == "turn_end" and items[-1].payload["stop_reason"] == "end_turn"
    assert [i.payload["text"] for i in items if i.kind == "user_message"] == ["Check the build", "Plot my words"]
    assert (tmp_path / "ws" / "reports" / "summary.md").exists()
async def test_escape_cancels_a_running_turn(tmp_path, monkeypatch):
    monkeypatch.setenv(DELAY_ENV, "0.05")
    app, store = live_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await send_when_idle(pilot, app, "go")
        await until(pilot, lambda: app.source.state == "running" and len(app.view.children) > 2)
        await pilot.press("escape")
        await until(pilot, lambda: ready(app))
        await app.action_quit()
    items = store.items(store.sessions()[0]["id"])
    assert items[-1].kind == "turn_end" and items[-1].payload["stop_reason"] == "cancelled"
    assert not any(i.kind == "tool_call" and i.status in ("pending", "in_progress") for i in items)


async def test_agent_that_cannot_start_shows_an_error(tmp_path):
    store = Store(tmp_path / "s.db")
    options = AgentOptions(command=["no-such-agent-here"], workspace=tmp_path)
    app = KandevApp(LiveSource(options, store),
                    settings_store=settings_at(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.source.state == "error" and app.transcript_screen.prompt.disabled)
        texts = [getattr(w, "searchable_text", "") for w in app.view.children]
        assert any("Could not start the agent" in t for t in texts)
        await app.action_quit()
    assert app.return_code == 1 and "Could not start the agent" in app.life.failures()[0]  # the command exits 1, says why


async def test_fleet_scenario_live_matches_the_stored_session(tmp_path, monkeypatch):
    """The demo agent's operations session, live: fleet cards (one promoted from the group by its
    __renderer id), the error and empty states, the folded host checks; reopened from the store it
    lays out the same."""
    from kandev_tui.renderers import Registry
    from kandev_tui.session.layout import Layout
    from kandev_tui.widgets.entries.tool_card import ToolCard

    monkeypatch.setenv(DELAY_ENV, "0")
    store = Store(tmp_path / "s.db")
    options = AgentOptions(command=agent_command("fleet"), workspace=prepare_workspace(tmp_path / "ws"))
    app = KandevApp(LiveSource(options, store),
                    settings_store=settings_at(tmp_path, chart_animation=False))
    app.animation_level = "none"
    async with app.run_test(size=(100, 40)) as pilot:
        await send_when_idle(pilot, app, "why is web slow")
        await until(pilot, lambda: any(w.answerable and w.has_focus for w in app.view.query(PermissionRequest)))
        await pilot.press("1")  # the waiting request has focus: 1-9 answer it
        await until(pilot, lambda: app.source.state == "idle" and "turn_end" in app.view.entries[-1].key)
        live = [(e.kind, e.item_keys, e.renderer.id if e.renderer else None) for e in app.view.entries]
        cards = {card.key: card for card in app.view.query(ToolCard)}
        assert cards["tool:f-digest"].renderer.id == "health_summary" and cards["tool:f-digest"].state == "card"
        assert cards["tool:f-bad"].state == "error" and cards["tool:f-kb-empty"].state == "card"
        assert not any(card.failed for card in cards.values())
        await app.action_quit()
    session = store.sessions()[0]
    stored = Layout(Registry.from_entry_points(), 16)
    for item in store.items(session["id"]):
        stored.place(item)
    assert [(e.kind, e.item_keys, e.renderer.id if e.renderer else None) for e in stored.entries] == live
    groups = [keys for kind, keys, _ in live if kind == "group"]
    assert ["tool:f-topo", "tool:f-host-cache-01", "tool:f-host-lb-edge", "tool:f-log", "tool:f-exec"] in groups
async def test_escape_at_a_permission_prompt_cancels_the_turn_and_the_request(tmp_path, monkeypatch):
    """Escape while the agent waits for an answer: the turn is cancelled, the request shows as cancelled, and
    the app keeps running (the permission wait used to be a Task that cancel() tried to set a result on)."""
    monkeypatch.setenv(DELAY_ENV, "0")
    app, store = live_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await send_when_idle(pilot, app, "Check the build")
        await until(pilot, lambda: any(w.answerable for w in app.view.query(PermissionRequest)))
        assert app.source.state == "waiting"
        await pilot.press("escape")
        await until(pilot, lambda: ready(app))
        await pilot.pause(0.2)
        assert app.is_running and app.return_code in (None, 0)
        assert not any(w.answerable for w in app.view.query(PermissionRequest))
        await app.action_quit()
    items = store.items(store.sessions()[0]["id"])
    permission = next(i for i in items if i.kind == "permission")
    assert permission.status == "cancelled" and permission.payload["answer"]["outcome"] == "cancelled"
    assert items[-1].kind == "turn_end" and items[-1].payload["stop_reason"] == "cancelled"
async def test_the_footer_fits_and_offers_what_the_keys_do_now(tmp_path, monkeypatch):
    """Escape is offered as cancel only while a turn runs, as "close search" while the search is open, and not
    under the settings screen; at 45 columns every key shown fits, quit always among them."""
    monkeypatch.setenv(DELAY_ENV, "0")
    app, _store = live_app(tmp_path)
    async with app.run_test(size=(45, 30)) as pilot:
        await until(pilot, lambda: ready(app) and "Quit" in [d for _, d, _ in footer_keys(app)]
                    and all(right <= 45 for _, _, right in footer_keys(app)))
        idle = footer_keys(app)
        assert "Cancel turn" not in [d for _, d, _ in idle] and "Quit" in [d for _, d, _ in idle]
        assert all(right <= 45 for _, _, right in idle)
        assert not any(c.title.startswith("Cancel") for c in app.get_system_commands(app.screen))
        app.transcript_screen.prompt.focus()
        await pilot.press(*"Check the build", "enter")
        await until(pilot, lambda: app.source.state == "waiting"  # the footer rebuilt and laid out at 45 columns
                    and "Cancel turn" in [d for _, d, _ in footer_keys(app)]
                    and all(right <= 45 for _, _, right in footer_keys(app)))
        running = footer_keys(app)
        assert "Cancel turn" in [d for _, d, _ in running] and "Quit" in [d for _, d, _ in running]
        assert all(right <= 45 for _, _, right in running)
        assert any(c.title.startswith("Cancel") for c in app.get_system_commands(app.screen))
        await pilot.press("f2")
        await until(pilot, lambda: "Close" in [d for _, d, _ in footer_keys(app)])
        under_settings = [d for _, d, _ in footer_keys(app)]
        assert "Close" in under_settings and "Cancel turn" not in under_settings
        await pilot.press("escape")  # closes the settings, cancels nothing
        await pilot.pause(0.2)
        assert app.source.state == "waiting"
        await pilot.press("ctrl+f")
        await until(pilot, lambda: "Close search" in [d for _, d, _ in footer_keys(app)])
        searching = [d for _, d, _ in footer_keys(app)]
        assert "Close search" in searching and "Cancel turn" not in searching
        await pilot.press("escape")  # closes the search, cancels nothing
        await until(pilot, lambda: not app.transcript_screen.search_box.display)
        assert app.source.state == "waiting"
        await app.action_quit()
async def test_at_80_columns_a_turn_with_queued_messages_shows_only_whole_keys(tmp_path, monkeypatch):
    """A running turn waiting for an answer, with two messages queued and another session waiting, offers more keys
    than 80 columns hold: the footer shows whole keys only, none under the command palette's key (the last ran under
    it: "f4 Nex" cut, and one letter of the next key left at the right edge), and those of what waits for the user
    before the rest (the keys dropped from the end were f4's and the queue's, while ctrl+o's mode stayed)."""
    from kandev_tui.widgets.chrome.key_footer import KeyFooter

    monkeypatch.setenv(DELAY_ENV, "0")
    app, store = live_app(tmp_path)
    other = AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp_path / "ws2"))
    app.open_session(LiveSource(other, store), "Check the build")
    async with app.run_test(size=(80, 24)) as pilot:  # the second session waits too, covered: f4 is offered
        await send_when_idle(pilot, app, "Check the build")
        await until(pilot, lambda: all(s.waiting_since is not None for s in app.sessions))
        app.transcript_screen.prompt.focus()  # its keys (send, newline) are offered too
        await pilot.press(*"first", "enter", *"second", "enter")
        await until(pilot, lambda: len(app.current.prompts.queue) == 2)
        footer = app.transcript_screen.query_one(KeyFooter)

        def fits() -> bool:
            keys = [key for key in footer.children if hasattr(key, "key_display")]
            palette = [key.region for key in keys if key.has_class("-command-palette")]
            edge = palette[0].x if palette else footer.region.right
            return bool(keys) and all(key.region.right <= edge for key in keys if not key.has_class("-command-palette"))

        await until(pilot, lambda: "Cancel turn" in [d for _, d, _ in footer_keys(app)] and fits())
        shown = [d for _, d, _ in footer_keys(app)]
        assert {"Quit", "Next waiting", "Send queued now"} <= set(shown)
        await app.action_quit()
async def test_the_help_over_a_running_turn_does_not_rebuild_the_footer_beneath(tmp_path, monkeypatch):
    """Under the help, escape cancels nothing, so the transcript's keys differ there; its footer, covered, is not
    rebuilt for them, and back on the transcript its keys are the same as before: no rebuild either (it cost a
    full layout, 20-30 ms of a key's latency, on every return during a turn)."""
    from textual.widgets._footer import FooterKey

    from kandev_tui.widgets.chrome.key_footer import KeyFooter

    monkeypatch.setenv(DELAY_ENV, "0")
    app, _store = live_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await send_when_idle(pilot, app, "Check the build")
        await until(pilot, lambda: app.source.state == "waiting")
        footer = app.transcript_screen.query_one(KeyFooter)
        # the request has the focus: the prompt's keys (send, newline) have left the footer; a loaded machine took
        # longer than a fixed 0.2 s pause for that
        await until(pilot, lambda: any(w.answerable for w in app.view.query(PermissionRequest)) and
                    "Send" not in [key.description for key in footer.query(FooterKey)])
        keys = list(footer.query(FooterKey))
        assert "Cancel turn" in [key.description for key in keys]
        await pilot.press("f1")
        await pilot.pause(0.2)
        assert list(footer.query(FooterKey)) == keys  # covered: not rebuilt
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.transcript_screen)
        assert app.source.state == "waiting"
        assert list(footer.query(FooterKey)) == keys  # the same widgets
        await pilot.press("f1")
        await pilot.pause(0.2)
        app.transcript_screen.set_turn_running(False)  # the keys change while the help covers them
        await pilot.press("escape")
        await until(pilot, lambda: "Cancel turn" not in [key.description for key in footer.query(FooterKey)])
        await app.action_quit()
async def test_an_app_that_ends_without_a_quit_still_stops_its_agent_and_its_source_thread(tmp_path, monkeypatch):
    """However the app ends (here a test's end in the middle of a turn, as after a crash: no quit key, no ExitApp),
    the source is closed: the agent process has exited and the source's thread has ended."""
    import os
    import threading

    monkeypatch.setenv(DELAY_ENV, "0.2")
    app, _store = live_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await send_when_idle(pilot, app, "go")
        await until(pilot, lambda: app.source.state == "running")
        pid = app.source.client.process.pid
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone, and reaped
    assert not [t.name for t in threading.enumerate() if t.name.startswith("kandev-tui agent")]
async def test_a_pending_edit_shows_its_diff_once_where_the_answer_is_given(tmp_path, monkeypatch):
    """The demo asks before it writes: while the request waits, the edit's card says its diff is in the request, and
    the request shows it; once answered, the card shows it and the request no longer does. Each diff line is on
    screen once, never twice."""
    from kandev_tui.ui.textual_hooks import screen_text
    from kandev_tui.widgets.entries.edit_card import EditCard

    monkeypatch.setenv(DELAY_ENV, "0")
    app, store = live_app(tmp_path)
    async with app.run_test(size=(100, 60)) as pilot:
        await send_when_idle(pilot, app, "Check the build")
        # the edit's card and the request can come in one batch: the request is answerable as it is mounted, the card
        # makes its EditCard as it composes, and the pilot's pause waits only for widgets whose message loop runs
        # (not for a card just mounted): both are waited for (CI, both cores busy: no EditCard yet)
        await until(pilot, lambda: any(w.answerable for w in app.view.query(PermissionRequest))
                    and bool(app.view.query(EditCard)))
        card = app.view.query_one(EditCard)
        assert card.item.payload.get("asking") == "diff"  # the request shows the diff
        await until(pilot, lambda: "its diff is in the permission request below" in screen_text(app))
        assert screen_text(app).count("+ # Build summary") == 1  # in the request
        await pilot.press("1")
        await until(pilot, lambda: ready(app))
        await until(pilot, lambda: "below" not in screen_text(app) and not card.item.payload.get("asking"))
        # as a user who scrolls up to it: the view stops following, so the turn's last items (what changed in the
        # workspace, its end), which may come after this, do not take it back to the bottom
        app.view.set_following(False)
        app.view.scroll_to_widget(card, animate=False, top=True, immediate=True)
        await until(pilot, lambda: "+ # Build summary" in screen_text(app))
        assert screen_text(app).count("+ # Build summary") == 1  # in the card
        await app.action_quit()
    store.close()
