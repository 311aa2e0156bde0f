"""The user comes first while an agent floods the transcript: input before output, a covered transcript waits,
and full garbage collections wait for quiet moments."""

from __future__ import annotations

from ..support.app_helpers import until


async def test_a_live_agent_is_read_normalised_and_stored_off_the_ui_thread(tmp_path, monkeypatch):
    """The agent's frames are read, normalised and stored on a loop in a thread of the source's own; the UI's loop
    only takes merged batches (the session model's batch, from that thread) and puts them on screen."""
    import threading

    from kandev_tui.acp import AgentOptions
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.demo import agent_command, prepare_workspace
    from kandev_tui.session.model import SessionModel
    from kandev_tui.sources import LiveSource
    from kandev_tui.transcript import Store
    from kandev_tui.transcript.normalize import Normalizer

    from ..support.app_helpers import settings_at

    monkeypatch.setenv("KANDEV_DEMO_DELAY", "0")
    threads: dict[str, set[str]] = {"normalised": set(), "stored": set(), "handed over": set()}
    feed, upsert, receive = Normalizer.feed, Store.upsert_items, SessionModel.receive_items

    def seen(what, original):
        def wrapper(self, *args, **kwargs):
            threads[what].add(threading.current_thread().name)
            return original(self, *args, **kwargs)
        return wrapper

    monkeypatch.setattr(Normalizer, "feed", seen("normalised", feed))
    monkeypatch.setattr(Store, "upsert_items", seen("stored", upsert))
    monkeypatch.setattr(SessionModel, "receive_items", seen("handed over", receive))
    store = Store(tmp_path / "s.db")
    options = AgentOptions(command=agent_command(), workspace=prepare_workspace(tmp_path / "ws"))
    app = KandevApp(LiveSource(options, store),
                    settings_store=settings_at(tmp_path, chart_animation=False), initial_prompt="Check the build")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: any(e.key.startswith("turn_end") for e in app.view.entries) or app.source.waiting_for)
        ui = threading.current_thread().name
        assert all(names and ui not in names for names in threads.values()), threads
        # the agent's reader asks the app's input clock (kandev_tui/acp/transport.py gives way while it says so)
        assert options.gives_way is not None and options.gives_way.__self__.model is app.session  # type: ignore[attr-defined]
        assert not options.gives_way()
        app.user_input.note()
        await until(pilot, lambda: options.gives_way is not None and not options.gives_way())
        await app.action_quit()
