"""Closing a session where the agent offers ``session/close`` (the dialect kit's agent, a real process): the app
asks the agent to close it when the session closes or the app quits; an agent that does not offer it is not asked."""

from __future__ import annotations

import json

from ..support.app_helpers import until
from ..support.kit import agent_text, kit_app


async def test_quitting_closes_the_session_with_an_agent_that_offers_it(tmp_path):
    log = tmp_path / "asked.jsonl"
    store, app = kit_app(tmp_path, [{"op": "say", "text": "hello"}], session_caps={"close": {}},
                         session_log=str(log))
    async with app.run_test(size=(90, 30)) as pilot:
        await until(pilot, lambda: app.current.last_state == "idle" and "hello" in agent_text(app))
        await app.action_quit()
    assert [json.loads(line) for line in log.read_text().splitlines()] == [
        {"method": "session/close", "params": {"sessionId": "dialect-1"}}]


async def test_an_agent_that_does_not_offer_close_is_not_asked(tmp_path):
    log = tmp_path / "asked.jsonl"
    store, app = kit_app(tmp_path, [{"op": "say", "text": "hello"}], session_log=str(log))
    async with app.run_test(size=(90, 30)) as pilot:
        await until(pilot, lambda: app.current.last_state == "idle" and "hello" in agent_text(app))
        await app.action_quit()
    assert not log.exists()  # nothing was sent it
    (session,) = store.sessions()
    assert session["state"] == "ended"


def headless_kit_session(tmp_path, **dialect) -> str:
    """A session of the dialect kit's agent, run headless into ``tmp_path/s.db``: its id."""
    import os
    import subprocess

    from ..support.cli import KANDEV
    from ..support.kit import KIT

    (tmp_path / "w").mkdir(exist_ok=True)
    env = {**os.environ, "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "DIALECT": json.dumps({"steps": [{"op": "say", "text": "kept"}], **dialect})}
    done = subprocess.run([KANDEV, "run", "--headless", "--db", str(tmp_path / "s.db"), "--workspace",
                           str(tmp_path / "w"), "--prompt", "remember this", "--", *KIT],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    from kandev_tui.transcript import Store

    (row,) = Store(tmp_path / "s.db").sessions()
    return row["id"]


async def delete_from_the_home(tmp_path, monkeypatch, answer: str, **dialect) -> tuple[object, str]:
    """The bare kandev-tui's list; ``d`` on the stored session, then ``answer`` to the question. (The store, what
    the app said.) The agent started to delete its copy plays ``dialect``."""
    from kandev_tui.app.home import HomeApp
    from kandev_tui.screens.confirm import ConfirmScreen
    from kandev_tui.sources.launch import Launcher
    from kandev_tui.transcript import Store
    from kandev_tui.ui.textual_hooks import screen_text

    from ..support.app_helpers import footer_keys, settings_at

    monkeypatch.setenv("DIALECT", json.dumps(dialect))
    store = Store(tmp_path / "s.db")
    said: list[str] = []
    app = HomeApp(Launcher(store, settings_at(tmp_path, chart_animation=False)),
                  settings_store=settings_at(tmp_path, chart_animation=False))
    monkeypatch.setattr(app, "notify", lambda message, **kw: said.append(message))  # what the notices say, read
    async with app.run_test(size=(80, 24)) as pilot:
        home = app.home
        await until(pilot, lambda: app.screen is home and len(home.stored) == 1)
        home.options.highlighted = next(i for i in range(home.options.option_count)
                                        if (home.options.get_option_at_index(i).id or "").startswith("stored:"))
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "Delete the stored session “remember this”" in screen_text(app)
        # its own keys in the footer, not the list's ("d Delete" beneath it)
        await until(pilot, lambda: [d for _, d, _ in footer_keys(app)] == ["Yes", "No"])
        await pilot.press(answer)
        if answer == "y":
            await until(pilot, lambda: app.screen is home and not home.stored and said)
        else:
            await until(pilot, lambda: app.screen is home)
        await app.action_quit()
    return store, " ".join(said)


async def test_d_deletes_a_stored_session_here_and_at_its_agent_once_confirmed(tmp_path, monkeypatch):
    log = tmp_path / "asked.jsonl"
    dialect = {"session_caps": {"delete": {}}, "session_log": str(log)}
    session_id = headless_kit_session(tmp_path, **dialect)
    agent_log = tmp_path / "logs" / f"{session_id}.log"
    assert agent_log.exists()
    store, said = await delete_from_the_home(tmp_path, monkeypatch, "y", **dialect)
    assert store.sessions() == [] and store.items(session_id) == [] and not agent_log.exists()
    assert "deleted here and by its agent" in said
    assert [json.loads(line) for line in log.read_text().splitlines()] == [
        {"method": "session/delete", "params": {"sessionId": "dialect-1"}}]


async def test_an_agent_without_delete_keeps_its_copy_and_the_user_is_told(tmp_path, monkeypatch):
    log = tmp_path / "asked.jsonl"
    headless_kit_session(tmp_path, session_log=str(log))
    store, said = await delete_from_the_home(tmp_path, monkeypatch, "y", session_log=str(log))
    assert store.sessions() == [] and "its agent offers no way to delete its own copy" in said
    assert not log.exists()  # not asked


async def test_n_keeps_the_session(tmp_path, monkeypatch):
    session_id = headless_kit_session(tmp_path)
    store, _ = await delete_from_the_home(tmp_path, monkeypatch, "n")
    assert [row["id"] for row in store.sessions()] == [session_id]


async def kit_client(tmp_path, **dialect):
    """The dialect kit's agent, started through AgentClient (a real process): the client, what it recorded."""
    import os

    from kandev_tui.acp.client import AgentClient, AgentOptions, headless_permission_policy

    from ..support.kit import KIT

    (tmp_path / "w").mkdir(exist_ok=True)
    options = AgentOptions(command=KIT, workspace=tmp_path / "w", inject_guidance=False,
                           env={**os.environ, "DIALECT": json.dumps(dialect)})
    frames: list = []
    client = AgentClient(options, frames.append, headless_permission_policy("reject"))
    await client.start()
    return client, frames


async def logged(log, count: int) -> list[dict]:
    """The first ``count`` lines the kit noted, once it has noted them."""
    import asyncio

    for _ in range(2400):
        lines = log.read_text().splitlines() if log.exists() else []
        if len(lines) >= count:
            return [json.loads(line) for line in lines]
        await asyncio.sleep(0.025)
    raise AssertionError(f"the agent noted {lines}")


async def test_a_request_given_up_on_is_withdrawn_with_cancel_request(tmp_path):
    """The sessions picker closed while the agent lists its sessions: the waiting stops, and the agent is told
    (``$/cancel_request`` with the request's id); its answer, the error -32800, is dropped quietly."""
    import asyncio

    log = tmp_path / "asked.jsonl"
    client, frames = await kit_client(tmp_path, hang=["session/list"], session_caps={"list": {}},
                                      session_log=str(log))
    try:
        listing = asyncio.ensure_future(client.ops.list_sessions())
        (asked,) = await logged(log, 1)
        assert asked["method"] == "session/list" and not listing.done()
        listing.cancel()
        asked, withdrawn = await logged(log, 2)
        assert withdrawn == {"method": "$/cancel_request", "id": None, "params": {"requestId": asked["id"]}}
        assert listing.cancelled()
        # the agent's -32800 for it arrived and was dropped: the session still answers
        for _ in range(400):
            if any(f.dir == "in" and (f.msg or {}).get("id") == asked["id"] for f in frames):
                break
            await asyncio.sleep(0.025)
        answer = next(f.msg for f in frames if f.dir == "in" and (f.msg or {}).get("id") == asked["id"])
        assert answer["error"]["code"] == -32800
        assert client.turn_running is False and await client.prompt("hello") == "end_turn"
    finally:
        await client.close()


async def test_a_close_the_agent_does_not_answer_is_withdrawn_before_it_is_stopped(tmp_path):
    log = tmp_path / "asked.jsonl"
    client, _ = await kit_client(tmp_path, hang=["session/close"], session_caps={"close": {}}, session_log=str(log))
    await client.close()
    asked, withdrawn = await logged(log, 2)
    assert asked["method"] == "session/close" and asked["params"] == {"sessionId": "dialect-1"}
    assert withdrawn["method"] == "$/cancel_request" and withdrawn["params"] == {"requestId": asked["id"]}
