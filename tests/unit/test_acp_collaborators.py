"""The ACP client's collaborators, each alone: what it asks of the agent and withdraws (``Asker``), the files an edit
names read before it (``FilesBefore``), the agent's requests served (``AgentRequests``) and what the agent is offered
(``Offering``). Real files in the test's folder; the connection is a stand-in that records what would be sent."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from kandev_tui.acp.asking import Asker
from kandev_tui.acp.before_edit import FilesBefore
from kandev_tui.acp.files import ClientFiles
from kandev_tui.acp.offering import Offering
from kandev_tui.acp.options import AgentOptions
from kandev_tui.acp.serving import AgentRequests
from kandev_tui.acp.terminals import Terminals


class Connection:
    """Sends nothing: requests wait forever (or fail), notifications are recorded."""

    def __init__(self, fails: bool = False) -> None:
        self.told: list[tuple[str, Any]] = []
        self.fails = fails

    async def send_request(self, method: str, params: Any) -> Any:
        await asyncio.Event().wait()

    async def send_notification(self, method: str, params: Any) -> None:
        if self.fails:
            raise ConnectionError("gone")
        self.told.append((method, params))


async def test_a_request_given_up_on_is_withdrawn_and_a_gone_agent_is_no_error():
    from kandev_tui.acp.transport import SENT_IDS

    asker = Asker()
    asker.conn = connection = Connection()

    async def send_request(method: str, params: Any) -> Any:
        SENT_IDS.get().append(41)  # as the transport notes the id it sends
        await asyncio.Event().wait()

    connection.send_request = send_request  # type: ignore[method-assign]
    with pytest.raises(asyncio.TimeoutError):
        await asker.ask("session/list", {}, timeout=0.01)
    await asyncio.wait(set(asker.withdrawing), timeout=5)
    assert connection.told == [("$/cancel_request", {"requestId": 41})] and not asker.withdrawing
    asker.conn = Connection(fails=True)
    assert await asker.tell("session/cancel", {"sessionId": "s"}) is False


def test_a_file_an_edit_names_is_read_once_before_it_for_each_call(tmp_path):
    (tmp_path / "a.py").write_text("old\n")
    frames: list[Any] = []
    before = FilesBefore(ClientFiles(tmp_path), frames.append)
    edit = {"method": "session/update", "params": {"update": {"sessionUpdate": "tool_call", "toolCallId": "c1",
                                                              "kind": "edit", "status": "pending",
                                                              "locations": [{"path": str(tmp_path / "a.py")}]}}}
    before.look(edit)
    before.look(edit)  # the same call and file: read once
    before.look({"method": "session/update", "params": {"update": {"sessionUpdate": "agent_message_chunk"}}})
    assert [f.msg["event"] for f in frames] == ["file_before"] and frames[0].msg["text"] == "old\n"
    done = {"method": "session/update", "params": {"update": {**edit["params"]["update"], "toolCallId": "c2",
                                                               "status": "completed"}}}
    before.look(done)  # finished: too late to read what was there
    assert len(frames) == 1


def requests(tmp_path: Path, ask_permission: Any = None, **options: Any) -> tuple[AgentRequests, list[str]]:
    files = ClientFiles(tmp_path)
    notes: list[str] = []
    served = AgentRequests(AgentOptions(["agent"], tmp_path, **options), files, Terminals(files, lambda f: None),
                           lambda frame: None, notes.append, ask_permission, None)
    return served, notes


async def test_what_kandev_tui_does_not_serve_is_method_not_found_and_its_own_methods_mark_an_echo(tmp_path):
    from acp.exceptions import RequestError

    served, _ = requests(tmp_path, fs_write=False)
    with pytest.raises(RequestError):
        await served.handle("fs/write_text_file", {"path": "x", "content": ""}, False)
    assert not served.echoed
    with pytest.raises(RequestError):
        await served.handle("session/prompt", {}, False)
    assert served.echoed  # the agent asked what kandev-tui asks agents: a command that echoes its input
    (tmp_path / "r.txt").write_text("read me")
    assert (await served.handle("fs/read_text_file", {"path": str(tmp_path / "r.txt")}, False))["content"] == "read me"


async def test_a_permission_is_the_option_chosen_and_cancelled_when_the_turn_is(tmp_path):
    asked: list[asyncio.Future[str]] = []

    async def ask(params: dict[str, Any]) -> str:
        asked.append(asyncio.get_running_loop().create_future())
        return await asked[-1]

    served, _ = requests(tmp_path, ask_permission=ask)
    params = {"options": [{"optionId": "yes"}, {"optionId": "no"}]}
    answer = asyncio.ensure_future(served.handle("session/request_permission", params, False))
    while not asked:
        await asyncio.sleep(0)
    asked[0].set_result("yes")
    assert await answer == {"outcome": {"outcome": "selected", "optionId": "yes"}}
    waiting = asyncio.ensure_future(served.handle("session/request_permission", params, False))
    while len(asked) < 2:
        await asyncio.sleep(0)
    served.cancel_waits()
    assert await waiting == {"outcome": {"outcome": "cancelled"}}
    nobody, _ = requests(tmp_path)  # nobody to ask: cancelled at once
    assert await nobody.handle("session/request_permission", params, False) == {"outcome": {"outcome": "cancelled"}}


def test_the_guidance_goes_where_the_agent_takes_a_system_prompt_and_nowhere_when_turned_off(tmp_path):
    offering = Offering(AgentOptions(["agent"], tmp_path))
    assert offering.guidance({}, {"systemPrompt": {}})["systemPrompt"]["mode"] == "append"
    assert "append" in offering.guidance({"_meta": {"claudeCode": {}}}, {})["_meta"]["systemPrompt"]
    assert offering.guidance({}, {}) == {}  # elsewhere: before the first prompt (the client's own)
    assert Offering(AgentOptions(["agent"], tmp_path, inject_guidance=False)).guidance({}, {"systemPrompt": {}}) == {}
    server = offering.our_server({})  # no hub: the stdio server, which reads the workspace
    assert server["command"] and offering.scrub("no secret here") == "no secret here"
