"""kandev-tui attach against a real Kandev 0.95.1 backend with the demo agent as its mock agent.

The demo agent advertises MCP over HTTP, receives Kandev's own MCP server in session/new, and calls Kandev's
real show_rich_output_kandev (inline chart, a CSV chart from its workspace, metrics and a file, one invalid
call); kandev-tui renders the charts from the rows Kandev stored.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path

import pytest

from kandev_tui.kandev import Attachment
from kandev_tui.presentation.stored import State, read_stored_call
from kandev_tui.renderers import Registry
from kandev_tui.session.changes import TranscriptModel
from kandev_tui.ui.textual_hooks import screen_text
from kandev_tui.transcript import Store
from kandev_tui.transcript.items import NOTE, PERMISSION, TOOL, USER

from ..support.app_helpers import until
from ..support.kandev_backend import Backend, Client, Proxy, is_row

# a coroutine never awaited (a session's start scheduled twice, the first dropped) fails the test that left it
pytestmark = [pytest.mark.timeout(300), pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")]
LAST_WORDS = "Ask me anything else"


async def run_turn(backend: Backend, task_id: str, session_id: str, prompt: str = "Show me the build times",
                   *, answer: bool = True) -> list[dict]:
    """Play one whole turn as Kandev's web UI would (prompt, allow the write); return the rows."""
    async with Client(backend) as client:
        await client.start_turn(task_id, session_id, prompt)
        if answer:
            frame = await client.wait_for(lambda f: is_row(f, "permission_request", session_id))
            await client.answer_permission(frame["payload"] | {"id": frame["payload"]["message_id"]})
        await client.wait_for(lambda f: f.get("action") == "session.turn.completed"
                              and f["payload"].get("session_id") == session_id)
        return await client.rows(session_id)


@pytest.fixture(scope="session")
def finished(backend):
    """A session with one finished turn (25 rows): (task id, session id, rows)."""
    task_id, session_id = backend.quick_chat("finished turn")
    rows = asyncio.run(run_turn(backend, task_id, session_id))
    return task_id, session_id, rows


def chart_labels(payload: dict) -> list[str] | None:
    stored = read_stored_call(payload["name"], payload["title"], payload["status"], payload["input"], payload["output"])
    if stored.state is not State.READY:
        return None
    return [label for block in stored.presentation.blocks if block.type == "chart" for label in block.labels]


def test_rich_output_goes_through_kandevs_own_mcp_server(finished):
    """Kandev 0.95.1 offers its MCP server to an agent that advertises mcpCapabilities.http, over HTTP."""
    _, _, rows = finished
    calls = [r for r in rows if r["type"] == "tool_call" and "show_rich_output_kandev" in r["content"]]
    assert [r["metadata"]["status"] for r in calls] == ["complete", "complete", "complete", "error"]
    from kandev_tui.kandev.rows import row_item

    trend = row_item(calls[1]).payload
    labels = chart_labels(trend)  # the CSV was resolved by Kandev into a snapshot, read back here
    assert labels is not None and labels[0] == "2026-08-10T09:12:00Z" and len(labels) == 8
    assert "series values must match labels" in json.dumps(calls[3]["metadata"])


async def _headless(backend: Backend, session_id: str, db: Path, *extra: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "kandev_tui", "attach", backend.url, "--session", session_id, "--headless",
        "--db", str(db), *extra, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def test_headless_follow_prints_a_turn_live(backend, tmp_path):
    task_id, session_id = backend.quick_chat("headless follow")
    async with Client(backend) as client:
        await client.request("session.subscribe", {"session_id": session_id})
        await client.wait_for(lambda f: f.get("action") == "session.agent_capabilities")
        process = await _headless(backend, session_id, tmp_path / "db.sqlite", "--follow", "--page-size", "5")
        lines: list[dict] = []

        async def read() -> None:
            assert process.stdout is not None
            while line := await process.stdout.readline():
                lines.append(json.loads(line))

        reader = asyncio.ensure_future(read())
        for _ in range(300):  # the history comes first
            if lines:
                break
            await asyncio.sleep(0.05)
        history = len(lines)
        assert history >= 1
        await client.request("message.add", {"task_id": task_id, "session_id": session_id,
                                             "content": "Show me the build times"})
        frame = await client.wait_for(lambda f: is_row(f, "permission_request", session_id))
        await client.answer_permission(frame["payload"] | {"id": frame["payload"]["message_id"]})
        await client.wait_for(lambda f: f.get("action") == "session.turn.completed")
        rows = await client.rows(session_id)
        for _ in range(400):  # the live lines catch up with the backend
            if any(LAST_WORDS in (line["payload"].get("text") or "") for line in lines):
                break
            await asyncio.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 20) == 0
        await reader
    final: dict[str, dict] = {}
    first_seen: list[str] = []
    for line in lines:
        if line["key"] not in final:
            first_seen.append(line["key"])
        final[line["key"]] = line
    assert first_seen == [f"kandev:{r['id']}" for r in rows]  # every row, once, in Kandev's order
    assert len(lines) > len(rows)  # rows that changed were printed again (live), under the same key
    users = [v for v in final.values() if v["kind"] == USER]
    assert [u["payload"]["text"] for u in users] == ["Show me the build times"]
    charts = [v for v in final.values() if v["kind"] == TOOL and "show_rich_output" in (v["payload"]["title"] or "")]
    assert [c["status"] for c in charts] == ["complete", "complete", "complete", "error"]
    assert chart_labels(charts[1]["payload"])[0] == "2026-08-10T09:12:00Z"
    assert any(v["kind"] == PERMISSION and v["status"] == "answered" for v in final.values())


async def test_history_pages_then_the_cache_fetches_only_what_is_missing(backend, finished, tmp_path):
    _, session_id, rows = finished
    store = Store(tmp_path / "db.sqlite")
    shown: list[str] = []
    resets: list[list[str]] = []
    first = Attachment(backend.url, session_id, store=store, page_size=4,
                       on_items=lambda items: shown.extend(i.key for i in items),
                       on_reset=lambda items: resets.append([i.key for i in items]))
    await first.connect_once()
    assert shown == [f"kandev:{r['id']}" for r in rows[-4:]]  # the newest page first
    assert not first.complete
    pages = 0
    while await first.history.load_older():  # older pages, as when scrolling up
        pages += 1
    assert first.complete and pages == (len(rows) - 4 + 3) // 4
    assert resets[-1] == [f"kandev:{r['id']}" for r in rows]  # in order, each once
    await first.stop()
    assert first.fetched == len(rows)
    store.close()

    store = Store(tmp_path / "db.sqlite")  # reopening: the cache at once, then only what is missing
    shown.clear()
    again = Attachment(backend.url, session_id, store=store, page_size=4, on_items=lambda items: shown.extend(
        i.key for i in items))
    assert again.history.load_cache() == len(rows)
    assert shown == [f"kandev:{r['id']}" for r in rows]
    await again.connect_once()
    assert again.fetched == 4  # one page: it overlaps the cache and nothing was unsettled
    assert again.complete
    await again.stop()
    store.close()


async def test_headless_without_follow_prints_the_whole_history_in_order(backend, finished, tmp_path):
    _, session_id, rows = finished
    process = await _headless(backend, session_id, tmp_path / "db.sqlite", "--page-size", "6")
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    keys = [json.loads(line)["key"] for line in out.decode().splitlines()]
    assert keys == [f"kandev:{r['id']}" for r in rows]


@pytest.mark.reliability("Kandev attach", "the WebSocket to a real Kandev backend cut mid-turn (a loopback proxy aborts it and "
                         "refuses reconnects while the turn finishes)", cases=1,
                         held="reconnected with backoff, resubscribed, refetched: every row once, in order, at its "
                              "latest state")
async def test_a_dropped_connection_mid_turn_loses_and_repeats_nothing(backend, tmp_path):
    task_id, session_id = backend.quick_chat("dropped connection")
    proxy = await Proxy(backend.port).start()
    emitted: list[tuple[str, list]] = []  # ("items" or "reset", the items), as the session model is handed them
    statuses: list[str] = []
    attachment = Attachment(proxy.url, session_id, store=Store(tmp_path / "db.sqlite"), page_size=10,
                            on_items=lambda items: emitted.append(("items", list(items))),
                            on_reset=lambda items: emitted.append(("reset", list(items))),
                            on_status=lambda status, detail: statuses.append(status))
    async with Client(backend) as client:
        await client.request("session.subscribe", {"session_id": session_id})
        await client.wait_for(lambda f: f.get("action") == "session.agent_capabilities")
        runner = asyncio.ensure_future(attachment.run(await attachment.connect_once()))
        await client.request("message.add", {"task_id": task_id, "session_id": session_id,
                                             "content": "Show me the build times"})
        frame = await client.wait_for(lambda f: is_row(f, "permission_request", session_id))
        for _ in range(200):  # the attachment saw the request too
            if attachment.pending_permissions():
                break
            await asyncio.sleep(0.05)
        assert attachment.pending_permissions()
        proxy.refusing = True  # the network goes away mid-turn...
        proxy.drop()
        await client.answer_permission(frame["payload"] | {"id": frame["payload"]["message_id"]})
        await client.wait_for(lambda f: f.get("action") == "session.turn.completed")  # ...while the turn finishes
        assert attachment.status == "reconnecting"
        proxy.refusing = False
        for _ in range(600):
            if attachment.status == "live" and attachment.connects >= 2:
                break
            await asyncio.sleep(0.05)
        rows = await client.rows(session_id)
    assert attachment.connects >= 2 and attachment.refetches >= 1
    assert "reconnecting" in statuses and statuses[-1] == "live"
    await attachment.stop()
    runner.cancel()
    await proxy.stop()
    assert [attachment.rows[r["id"]]["updated_at"] for r in rows] == [r["updated_at"] for r in rows]
    assert [i.key for i in attachment.items()] == [f"kandev:{r['id']}" for r in rows]
    transcript = TranscriptModel(Registry.from_entry_points())  # what the view would hold: every row once, nothing twice
    for how, batch in emitted:  # a reset puts every row in order again (a row that came late, out of order)
        transcript.reset(batch) if how == "reset" else transcript.apply(batch)
    assert list(transcript.items) == [f"kandev:{r['id']}" for r in rows]
    assert LAST_WORDS in transcript.items[f"kandev:{rows[-1]['id']}"].payload["text"]


@pytest.mark.reliability("Kandev attach", "a gap in conversation_receipt revisions (missed notifications)", cases=1,
                         held="detected and refetched; no refetch without a gap")
async def test_a_receipt_gap_triggers_a_refetch(backend, finished):
    _, session_id, _ = finished
    attachment = Attachment(backend.url, session_id, on_items=lambda items: None)
    await attachment.connect_once()
    before = attachment.fetched
    attachment.revision = 40
    attachment._notification("session.turn.started", {"session_id": session_id, "conversation_receipt": {
        "session_id": session_id, "base_revision": 40, "revision": 41}})
    assert attachment._resync is None and attachment.revision == 41  # no gap: nothing fetched
    attachment._notification("session.turn.started", {"session_id": session_id, "conversation_receipt": {
        "session_id": session_id, "base_revision": 45, "revision": 46}})  # 42–45 were missed
    assert attachment._resync is not None
    await attachment._resync
    assert attachment.refetches == 1 and attachment.fetched > before
    await attachment.stop()


@pytest.mark.reliability("Kandev attach", "an unknown session id; no backend at the address", cases=2,
                         held="exit 1 with a one-line reason and what to do; no traceback")
async def test_unknown_session_and_unreachable_backend_say_what_to_do(backend, tmp_path):
    process = await _headless(backend, "00000000-0000-0000-0000-000000000000", tmp_path / "db.sqlite")
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 1 and out == b""
    assert "no session" in err.decode() and "Traceback" not in err.decode()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "kandev_tui", "attach", "127.0.0.1:9", "--session", "x", "--headless",
        "--db", str(tmp_path / "db.sqlite"), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 1 and "cannot reach ws://127.0.0.1:9/ws" in err.decode()
    assert "Is Kandev running?" in err.decode() and "Traceback" not in err.decode()


async def test_list_prints_sessions_newest_first(backend, finished, tmp_path):
    _, session_id, _ = finished
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "kandev_tui", "attach", backend.url, "--list", stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    entries = [json.loads(line) for line in out.decode().splitlines()]
    assert session_id in [e["session_id"] for e in entries]
    stamps = [e["updated_at"] for e in entries]
    assert stamps == sorted(stamps, reverse=True)


# -- the app -------------------------------------------------------------------------------------------


def attached_app(backend: Backend, session_id: str | None, tmp_path: Path, page_size: int = 10):
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.sources.launch import KandevBackend
    from kandev_tui.sources import KandevSource

    from ..support.app_helpers import settings_at

    store = Store(tmp_path / "db.sqlite")
    app = KandevApp(KandevSource(backend.url, session_id, store=store,
                                                            page_size=page_size),
                    settings_store=settings_at(tmp_path, chart_animation=False),
                    kandev=KandevBackend(backend.url, None, store, page_size))
    app.animation_level = "none"
    return app


async def test_the_app_prompts_answers_a_permission_and_renders_kandev_charts(backend, tmp_path, monkeypatch):
    """... and the connection, its rows and the cache are handled off the UI's thread (the source's own loop)."""
    import threading

    from kandev_tui.kandev.attach import Attachment
    from kandev_tui.widgets.entries.permission import PermissionRequest
    from kandev_tui.widgets.entries.presentation_card import PresentationCard

    merged_on: set[str] = set()
    merge = Attachment.merge
    monkeypatch.setattr(Attachment, "merge", lambda self, rows: (merged_on.add(threading.current_thread().name),
                                                                 merge(self, rows))[1])
    _, session_id = backend.quick_chat("app prompt")
    app = attached_app(backend, session_id, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.transcript_screen
        await until(pilot, lambda: app.source.state == "idle" and not screen.prompt.disabled)  # the agent is ready
        assert app.source.title == "Kandev session" or app.source.title
        screen.prompt.focus()
        await pilot.press(*"Show me the build times", "enter")
        await until(pilot, lambda: any(w.answerable and w.has_focus for w in app.query(PermissionRequest)))
        assert app.source.state == "waiting" and screen.status.state == "waiting"
        await pilot.press("1")  # Allow once, from the terminal (the waiting request has focus): permission.respond
        await until(pilot, lambda: app.source.state == "idle" and any(
            LAST_WORDS in str(i.payload.get("text")) for i in app.view.model.items.values()))
        await pilot.press("ctrl+end")
        await until(pilot, lambda: len(app.query(PresentationCard)) == 4)
        async with Client(backend) as client:
            rows = await client.rows(session_id)
        view = app.view
        assert list(view.model.items) == [f"kandev:{r['id']}" for r in rows]  # each row once, in order
        permission = [i for i in view.model.items.values() if i.kind == PERMISSION][0]
        assert permission.payload["answer"]["option_id"] == "allow" and permission.status == "answered"
        assert [r for r in rows if r["type"] == "message" and r["author_type"] == "user"][0]["content"] == \
            "Show me the build times"
        assert not screen.prompt.disabled  # the turn is over: it takes prompts again
        assert screen.status.state == "idle" and "Show me the build times" in screen.status.title
    assert merged_on and threading.current_thread().name not in merged_on


async def test_the_picker_lists_sessions_and_attaches_the_chosen_one(backend, finished, tmp_path):
    from kandev_tui.screens.session_picker import SessionPickerScreen

    _, session_id, rows = finished
    app = attached_app(backend, None, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and app.screen.entries)
        picker = app.screen
        ids = [e.session_id for e in picker.entries]
        assert session_id in ids
        picker.options.highlighted = ids.index(session_id)
        await pilot.press("enter")
        view = app.view
        await until(pilot, lambda: app.screen is app.transcript_screen and app.source.state == "idle"
                    and app.session.settled)
        assert app.source.session_id == session_id
        assert app.focused is app.transcript_screen.prompt  # typing goes to the prompt
        assert app.transcript_screen.status.title == "finished turn"  # the task's title
        assert 10 <= len(view.model.items) < len(rows)  # the newest pages: enough to fill the screen
        assert view.more_at_source and "older messages" in str(view.mounted.top.render())
        from ..support.app_helpers import scroll_to_top_until

        # scrolling up brings the older pages, one at a time, in place
        await scroll_to_top_until(pilot, view, lambda: len(view.model.items) == len(rows), pause=0.05)
        assert list(view.model.items) == [f"kandev:{r['id']}" for r in rows]
        await until(pilot, lambda: not view.more_at_source and not view.mounted.top.display)


async def test_the_backends_other_task_sessions_are_in_the_list_and_attach_beside_the_first(backend, finished,
                                                                                               tmp_path):
    """Attached to one task session, ctrl+s lists the backend's others (not the one open here); enter attaches the one
    picked as a second session of the app, on screen, the first one kept."""
    from kandev_tui.screens.sessions import SessionsScreen

    _, first_id, _rows = finished
    _, second_id = backend.quick_chat("another task")
    app = attached_app(backend, first_id, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.source.state == "idle")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.remote)
        listing = app.screen
        ids = [entry.session_id for entry in listing.remote]
        assert second_id in ids and first_id not in ids  # the one open here is in the app's own rows
        assert "Kandev task sessions" in screen_text(app)
        index = next(i for i in range(listing.options.option_count)
                     if listing.options.get_option_at_index(i).id == f"kandev:{ids.index(second_id)}")
        listing.options.highlighted = index
        await pilot.press("enter")
        # the backend's own agent may still be on its task's turn (a loaded CI run took over a minute): two minutes
        attached = await until(pilot, lambda: len(app.sessions) == 2 and app.current is app.sessions[1]
                               and app.current.status.session_id == second_id and app.current.last_state == "idle",
                               rounds=2400, fail=False)
        assert attached, (len(app.sessions), app.current.status.session_id == second_id, app.current.last_state)
        assert app.sessions[0].status.session_id == first_id and not app.sessions[0].closed
        assert app.current.status.title == "another task"  # its task's, as listed (it said "Kandev session")
        await pilot.press("ctrl+s")  # both are the app's own now: neither is offered again
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.remote is not None)
        assert len(app.screen.rows) == 2
        await until(pilot, lambda: not {first_id, second_id} & {e.session_id for e in app.screen.remote})


async def test_escape_cancels_the_turn_in_kandev(backend, tmp_path):
    from kandev_tui.widgets.entries.permission import PermissionRequest

    _, session_id = backend.quick_chat("app cancel")
    app = attached_app(backend, session_id, tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        screen = app.transcript_screen
        await until(pilot, lambda: app.source.state == "idle" and not screen.prompt.disabled)
        screen.prompt.focus()
        await pilot.press(*"Show me the build times", "enter")
        await until(pilot, lambda: any(w.answerable for w in app.query(PermissionRequest)))
        await pilot.press("escape")  # agent.cancel
        await until(pilot, lambda: any(i.kind == NOTE and "cancelled" in i.payload["text"].lower()
                                       for i in app.view.model.items.values()))
        await until(pilot, lambda: not any(w.answerable for w in app.query(PermissionRequest)))
        request = [i for i in app.view.model.items.values() if i.kind == PERMISSION][0]
        assert request.status == "cancelled"
        await until(pilot, lambda: app.source.state == "idle" and not screen.prompt.disabled)


async def test_typing_goes_to_the_prompt_once_the_session_takes_prompts(backend, tmp_path):
    """Attached while the agent boots (the prompt disabled): when it is ready, keys land in the prompt."""
    _, session_id = backend.quick_chat("focus")
    app = attached_app(backend, session_id, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.source.state == "idle" and not app.transcript_screen.prompt.disabled)
        await until(pilot, lambda: app.focused is app.transcript_screen.prompt)
        await pilot.press(*"hi")
        assert app.transcript_screen.prompt.text == "hi"


async def test_a_commands_output_is_fetched_when_it_is_opened_and_kept(backend, finished, tmp_path):
    """Kandev's rows keep only the sizes of a command's output; opening the command fetches its text from the backend
    (GET …/messages/{id}/shell-output), shows it with its exit code, and keeps it in the cache with the row."""
    from kandev_tui.widgets.entries.tool_group import ToolGroup

    _, session_id, rows = finished
    commands = {r["id"]: r for r in rows if r["type"] == "tool_execute"}
    assert len(commands) == 2
    app = attached_app(backend, session_id, tmp_path, page_size=100)  # the whole session in one page
    async with app.run_test(size=(100, 60)) as pilot:
        await until(pilot, lambda: app.source.state == "idle" and len(app.view.model.items) == len(rows))
        items = app.view.model.items
        assert all(items[f"kandev:{rid}"].payload.get("output_at_source") == rid for rid in commands)
        group = next(g for g in app.view.query(ToolGroup) if any(k in g.items for k in
                                                                 (f"kandev:{rid}" for rid in commands)))
        app.view.scroll_to_widget(group, animate=False, top=True, immediate=True)
        group.focus()
        await pilot.press("enter")  # the group opened: its commands are shown, and their output fetched
        await until(pilot, lambda: all("shell" in items[f"kandev:{rid}"].payload for rid in commands))
        shells = [items[f"kandev:{rid}"].payload["shell"] for rid in commands]
        assert {"stdout": "412 passed, 3 failed, 7 skipped in 26.90s\n", "exit_code": 1} in shells
        assert any("No rule to make target 'lint'" in s.get("stderr", "") and s["exit_code"] == 2 for s in shells)
        await until(pilot, lambda: "412 passed, 3 failed" in "\n".join(
            w.render_line(y).text for w in group.query("ToolCallView") for y in range(w.size.height)))
    store = Store(tmp_path / "db.sqlite", create=False)
    try:
        cached = {r["id"]: r for r in store.kandev_rows(backend_key_of(backend), session_id)}
    finally:
        store.close()
    assert all(isinstance(cached[rid].get("kandev_tui_shell_output"), dict) for rid in commands)


async def test_a_command_the_backend_has_no_output_for_says_so(backend, finished):
    from kandev_tui.kandev import Attachment

    _, session_id, rows = finished
    said: list = []
    attachment = Attachment(backend.url, session_id, on_items=said.extend)
    command = next(r for r in rows if r["type"] == "tool_execute")
    gone = {**command, "id": "0000-no-such-message"}
    attachment.merge([gone])
    await attachment.shell_output(gone["id"])
    note = said[-1].payload["output"]["note"]
    assert note.endswith("bytes of stdout: Kandev has no output for this command") and "shell" not in said[-1].payload


def backend_key_of(backend: Backend) -> str:
    from kandev_tui.kandev import backend_key

    return backend_key(backend.url)
