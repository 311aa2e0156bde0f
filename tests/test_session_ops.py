"""Closing a session where the agent offers ``session/close`` (the dialect kit's agent, a real process): the app
asks the agent to close it when the session closes or the app quits; an agent that does not offer it is not asked."""

from __future__ import annotations

import json

from .app_helpers import until
from .test_elicitation_app import agent_text, kit_app


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
