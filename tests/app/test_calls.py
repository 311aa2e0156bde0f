"""What tool calls show: diffs, command output with its colours, content blocks, locations; the normaliser's
command output (Codex's terminal meta, bounded tails); the real agents' recorded sessions in the app."""

from __future__ import annotations

import pytest

from kandev_tui.transcript.frames import read_recording
from kandev_tui.transcript.replay import items_from_frames

from ..support.app_helpers import FIXTURES, replay_app, settle, stored_app, tool_item, until
from ..support.frames import CLAUDE, CODEX
from ..support.app_helpers import open_the_group

# -- the real sessions in the app ---------------------------------------------------------------------------------


async def test_claudes_recorded_session_shows_edits_as_cards_with_their_diffs(tmp_path):
    from kandev_tui.widgets.entries.edit_card import EditCard

    app = replay_app(tmp_path, CLAUDE)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        cards = list(app.view.query(EditCard))
        assert [c.item.payload["title"] for c in cards] == ["Write probe/notes.txt", "Edit probe/notes.txt"]
        edit = cards[1]
        shown = "\n".join(edit.render_line(y).text for y in range(edit.size.height))
        assert "+1 −1" not in shown and "+2 −2" in shown and "@@ -9," in shown and "m: " in shown
        edit.focus()
        await pilot.press("m")
        await pilot.pause(0.1)
        assert "more line" not in "\n".join(edit.render_line(y).text for y in range(edit.size.height))


async def test_edits_fold_into_the_group_when_the_setting_says_so(tmp_path):
    from kandev_tui.widgets.entries.edit_card import EditCard
    from kandev_tui.widgets.entries.tool_group import ToolGroup

    app = replay_app(tmp_path, CLAUDE, edits_inline=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert not list(app.view.query(EditCard))
        assert any("edit" in g.summary for g in app.view.query(ToolGroup))


async def test_a_diffs_path_inside_the_workspace_is_shown_relative_to_it(tmp_path):
    """Agents send absolute paths ("/home/me/src/app/src/main.py"): inside the session's workspace, the edit's card
    and the request to make it say "src/main.py"; a path elsewhere stays whole."""
    from kandev_tui.transcript import Item
    from kandev_tui.widgets.entries.permission import PermissionRequest
    from kandev_tui.widgets.entries.tool_call import ToolCallView

    from ..support.app_helpers import stored_app, tool_item

    workspace = tmp_path / "project"
    inside, outside = str(workspace / "src" / "main.py"), "/etc/hosts"
    edit = {"toolCallId": "t1", "title": "Edit main.py", "kind": "edit", "status": "completed",
            "content": [{"type": "diff", "path": inside, "oldText": "x = 1\n", "newText": "x = 2\n"}]}
    asked = {"toolCallId": "t2", "title": "Edit hosts", "kind": "edit",
             "content": [{"type": "diff", "path": outside, "oldText": "a\n", "newText": "b\n"}]}
    items = [tool_item("t1", name="edit", kind="edit", title="Edit main.py", content=edit["content"]),
             Item("permission:1", "permission", 1, {"tool_call": asked, "options": []}, status="pending")]
    app = stored_app(tmp_path, items, workspace=str(workspace))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        card = app.view.query(ToolCallView).first()
        request = app.view.query_one(PermissionRequest)

        def drawn(widget) -> str:
            return "\n".join(w.render_line(y).text for w in widget.walk_children(with_self=True) if w.size.area
                             for y in range(w.size.height))

        await until(pilot, lambda: "src/main.py  +1 −1" in drawn(card))
        assert str(workspace) not in drawn(card)
        assert "/etc/hosts  +1 −1" in drawn(request)


async def test_a_waiting_edit_request_shows_the_change_and_every_option_at_45_columns(tmp_path):
    from kandev_tui.transcript import Item
    from kandev_tui.widgets.entries.permission import PermissionRequest

    from ..support.app_helpers import stored_app

    options = [{"optionId": "allow_always", "name": "Always Allow all Edit for the rest of this session",
                "kind": "allow_always"}, {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
               {"optionId": "reject", "name": "Reject", "kind": "reject_once"}]
    tool_call = {"toolCallId": "t1", "title": "Edit app.py", "kind": "edit",
                 "content": [{"type": "diff", "path": "app.py", "oldText": "x = 1\n", "newText": "x = 2\n"}]}
    item = Item("permission:1", "permission", 1, {"tool_call": tool_call, "options": options}, status="pending")
    app = stored_app(tmp_path, [item])
    async with app.run_test(size=(45, 30)) as pilot:
        await settle(pilot)
        request = app.view.query_one(PermissionRequest)
        drawn = "\n".join(w.render_line(y).text for w in request.walk_children() if w.size.area
                          for y in range(w.size.height))
        assert "asks to edit" in drawn and "- x = 1" in drawn and "+ x = 2" in drawn
        from textual.widgets import Button

        for button in request.query(Button):
            assert button.region.right <= 45 and button.region.width > 0  # nothing pushed off the screen
        assert "rest of this session" in drawn  # the long label wraps, whole


@pytest.mark.parametrize("recording, title, detail", [
    ("claude-real.jsonl", "The agent asks to show rich output: Probe results", "2 metrics · bar chart: Tests by module"),
    ("gemini-real.jsonl", "The agent asks to show rich output: Probe results", "2 metrics · bar chart: Tests by module")])
async def test_a_request_to_show_rich_output_names_the_presentation_and_what_it_holds(tmp_path, recording, title,
                                                                                     detail):
    """Claude asks before each call of an MCP tool: its request for kandev's own tool said "asks to use:
    mcp__kandev__show_rich_output_kandev", not what would be shown. It now names the presentation and its blocks,
    from the arguments the request carries: in its rawInput (Claude's) or as JSON text in its content (Gemini's)."""
    from textual.widgets import Static

    from kandev_tui.transcript import Item
    from kandev_tui.widgets.entries.permission import PermissionRequest

    from ..support.app_helpers import stored_app

    asked = [i for i in items_from_frames(read_recording(FIXTURES / "recordings" / recording)) if i.kind == "permission"
             and "show_rich_output_kandev" in i.payload["tool_call"]["title"]]
    assert len(asked) == 1
    pending = Item(asked[0].key, "permission", 1, {k: v for k, v in asked[0].payload.items() if k != "answer"},
                   status="pending")
    app = stored_app(tmp_path, [pending])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        request = app.view.query_one(PermissionRequest)
        drawn = [w.render_line(y).text.strip() for w in request.query(Static) if w.display and w.size.area
                 for y in range(w.size.height)]
        assert drawn[0] == f"? {title}"
        assert drawn[1] == detail


async def test_codex_commands_show_their_output_in_colour_and_their_exit_codes(tmp_path):
    from kandev_tui.widgets.entries.tool_call import ToolCallView
    from kandev_tui.widgets.entries.tool_group import ToolGroup

    app = replay_app(tmp_path, CODEX)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        group = app.view.query(ToolGroup).first()
        group.action_toggle()
        await until(pilot, lambda: group.query(ToolCallView) and all(v.size.height for v in group.query(ToolCallView)))
        views = list(group.query(ToolCallView))
        colored = next(v for v in views if "red" in str(v.item.payload.get("shell", {}).get("stdout")))
        strips = [colored.render_line(y) for y in range(colored.size.height)]
        red = [seg for strip in strips for seg in strip if seg.text == "red"]
        assert red and red[0].style.color is not None  # the SGR colour kept
        assert not any("\x1b" in seg.text for strip in strips for seg in strip)
        failing = next(v for v in views if v.item.status == "error")
        assert "exit code 2" in "\n".join(failing.render_line(y).text for y in range(failing.size.height))


async def test_a_big_diff_is_computed_off_the_event_loop_and_drawn_when_done(tmp_path, monkeypatch):
    """An edit rewriting a big file: the card says it is computing, the diff is computed in a thread (never on the
    event loop), then drawn; the expanded view is bounded."""
    import threading

    from kandev_tui.transcript import Item
    from kandev_tui.widgets.entries.calls import diff as diff_view
    from kandev_tui.widgets.entries.edit_card import EditCard

    from ..support.app_helpers import stored_app

    threads = []
    compute = diff_view.file_diff

    def recording(*args, **kwargs):
        threads.append(threading.current_thread() is threading.main_thread())
        return compute(*args, **kwargs)

    monkeypatch.setattr(diff_view, "file_diff", recording)
    old = "".join(f"row {n} = {n}\n" for n in range(30_000))
    new = old.replace(" = ", " == ")
    payload = {"tool_call_id": "e", "name": "edit", "kind": "edit", "title": "Edit rows.py", "status": "complete",
               "input": {"kind": "edit", "raw_input": {}}, "output": None,
               "content": [{"type": "diff", "path": "rows.py", "oldText": old, "newText": new}]}
    app = stored_app(tmp_path, [Item("tool:e", "tool_call", 1, payload, status="complete", tool_call_id="e", final=True)])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        card = app.view.query_one(EditCard)

        def text() -> str:
            return "\n".join(card.render_line(y).text for y in range(card.size.height))

        for _ in range(300):
            if "+30000 −30000" in text():
                break
            await pilot.pause(0.05)
        assert "+30000 −30000" in text() and threads == [False]  # computed once, in a thread
        card.focus()
        await pilot.press("m")
        for _ in range(300):  # laid out in a thread
            if "o opens the file: " in text():
                break
            await pilot.pause(0.05)
        assert "o opens the file: " in text()  # bounded: 2,000 lines, the rest in the viewer
        # drawn anew (its focus changes its background: the help over it and back does so) it draws the lines in
        # view, not all 2,000 again on the event loop (20-60 ms, keys held back)
        from kandev_tui.widgets.entries.tool_call import LaidOut

        drawn: list[int] = []
        line = LaidOut.line
        monkeypatch.setattr(LaidOut, "line", lambda self, y, base: (drawn.append(y), line(self, y, base))[1])
        app.view.focus()
        await pilot.pause()
        card.focus()
        await pilot.pause()
        assert card.virtual_size.height > 2000 and 0 < len(drawn) <= 4 * 30, len(drawn)  # two draws of a screen


async def test_a_big_diff_laid_out_in_a_thread_looks_at_the_users_input_as_it_goes(tmp_path):
    """The expanded view of a big edit (2,000 highlighted lines) is built and laid out in a thread, a few dozen lines
    at a time, asking between them whether the user's input is on its way (it then pauses: the UI's thread waited for
    the interpreter's lock at every step of serving a key, 40-55 ms a key). It asks from that thread, not the loop."""
    import threading

    from kandev_tui.transcript import Item
    from kandev_tui.ui.user_input import UserInput
    from kandev_tui.widgets.entries.edit_card import EditCard

    from ..support.app_helpers import stored_app

    class Watched(UserInput):
        def gives_way(self) -> bool:
            asked.append(threading.current_thread() is threading.main_thread())
            return super().gives_way()

    asked: list[bool] = []
    old = "".join(f"row {n} = {n}\n" for n in range(30_000))
    payload = {"tool_call_id": "e", "name": "edit", "kind": "edit", "title": "Edit rows.py", "status": "complete",
               "input": {"kind": "edit", "raw_input": {}}, "output": None,
               "content": [{"type": "diff", "path": "rows.py", "oldText": old, "newText": old.replace(" = ", " == ")}]}
    app = stored_app(tmp_path, [Item("tool:e", "tool_call", 1, payload, status="complete", tool_call_id="e", final=True)])
    app.user_input = Watched()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        card = app.view.query_one(EditCard)
        text = lambda: "\n".join(card.render_line(y).text for y in range(card.size.height))  # noqa: E731
        await until(pilot, lambda: "+30000 −30000" in text())
        card.focus()
        asked.clear()
        await pilot.press("m")
        await until(pilot, lambda: "o opens the file: " in text())
    assert asked.count(False) >= 2000 // 32  # the layout's thread, every 32 lines or parts at most


async def test_o_opens_an_edits_file_at_its_first_changed_line(tmp_path):
    from kandev_tui.screens.file_viewer import FileViewerScreen
    from kandev_tui.transcript import Item
    from kandev_tui.widgets.entries.edit_card import EditCard

    from ..support.app_helpers import stored_app

    workspace = tmp_path / "ws"
    workspace.mkdir()
    text = "".join(f"line {n}\n" for n in range(1, 60))
    (workspace / "notes.txt").write_text(text.replace("line 40\n", "line forty\n"))
    payload = {"tool_call_id": "e", "name": "edit", "kind": "edit", "title": "Edit notes.txt", "status": "complete",
               "input": {"kind": "edit", "raw_input": {}}, "output": None,
               "content": [{"type": "diff", "path": str(workspace / "notes.txt"), "oldText": text,
                            "newText": text.replace("line 40\n", "line forty\n")}]}
    app = stored_app(tmp_path, [Item("tool:e", "tool_call", 1, payload, status="complete", tool_call_id="e",
                                     final=True)], workspace=str(workspace))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.view.query_one(EditCard).focus()
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, FileViewerScreen))
        assert app.screen.path == "notes.txt" and app.screen.line == 40 and "line forty" in app.screen.text


async def test_s_toggles_side_by_side_where_the_width_allows(tmp_path):
    from kandev_tui.widgets.entries.edit_card import EditCard

    for width, expected in ((120, True), (80, False)):
        (tmp_path / str(width)).mkdir()
        app = replay_app(tmp_path / str(width), CLAUDE)
        async with app.run_test(size=(width, 40)) as pilot:
            await settle(pilot)
            card = list(app.view.query(EditCard))[-1]
            card.focus()
            await pilot.press("s")
            await until(pilot, lambda card=card, expected=expected: card.side_by_side is expected)


async def test_a_calls_output_can_be_selected_with_the_mouse_and_copied(tmp_path):
    """A call draws a Rich group (its command, its output), which Textual cannot select in: its lines carry each
    character's place, so a drag over two lines of its output selects them, and ctrl+c copies them."""
    from kandev_tui.ui.textual_hooks import screen_text

    run = tool_item("c1", name="bash", kind="execute", title="Run the tests", raw_input={"command": "pytest -q"},
                    output="....F\nFAILED tests/test_x.py::test_y - assert 1 == 2\n1 failed, 4 passed in 0.1s")
    app = stored_app(tmp_path, [run])
    async with app.run_test(size=(80, 24)) as pilot:
        await open_the_group(pilot, app, calls=1)
        rows = screen_text(app).splitlines()
        y = next(n for n, row in enumerate(rows) if "FAILED" in row)
        x = rows[y].index("FAILED")
        await pilot.mouse_down(offset=(x, y))
        await pilot.hover(offset=(x + 10, y))
        await pilot.hover(offset=(x + 20, y + 1))
        await pilot.mouse_up(offset=(x + 20, y + 1))
        await until(pilot, lambda: bool(app.screen.get_selected_text()))
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running and app.clipboard == "FAILED tests/test_x.py::test_y - assert 1 == 2\n1 failed, 4 passed in"


async def test_an_options_code_is_shown_as_code_without_its_backticks(tmp_path):
    """Codex names an option "Yes, and don't ask again for commands that start with `ls -la`": the button and the
    answer showed the backticks. The code is bold and the backticks are gone; a lone backtick stays as it came."""
    from textual.widgets import Button

    from kandev_tui.transcript import Item
    from kandev_tui.widgets.entries.base import code_spans
    from kandev_tui.widgets.entries.permission import PermissionRequest

    from ..support.app_helpers import stored_app

    asked = [i for i in items_from_frames(read_recording(FIXTURES / "recordings" / "codex-real.jsonl"))
             if i.kind == "permission" and any("`" in o.get("name", "") for o in i.payload.get("options", []))]
    assert asked
    request_item = asked[0]
    pending = Item(request_item.key, "permission", 1,
                   {k: v for k, v in request_item.payload.items() if k != "answer"}, status="pending")
    named = [o["name"] for o in pending.payload["options"] if "`" in o["name"]][0]
    command = named.split("`")[1]
    answered = Item("permission:2", "permission", 1, {**pending.payload, "answer": {"name": named}}, status="complete")
    app = stored_app(tmp_path, [pending, answered])
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        first, second = app.view.query(PermissionRequest)
        labels = [button.label for button in first.query(Button)]
        label = next(label for label in labels if command in label.plain)
        assert "`" not in label.plain and label.plain.endswith(f"start with {command}")
        assert any(label.plain[span.start:span.end] == command and "bold" in str(span.style) for span in label.spans)
        drawn = "\n".join(w.render_line(y).text for w in second.walk_children() if w.size.area
                          for y in range(w.size.height))
        assert f"start with {command}" in drawn and "`" not in drawn
    assert code_spans("a `b` c") == [("a ", ""), ("b", "bold"), (" c", "")]
    assert code_spans("a `b`", "bold", "italic") == [("a ", "bold"), ("b", "bold italic")]
    assert code_spans("it's `odd") == [("it's `odd", "")] and code_spans("``") == [("``", "")]


@pytest.mark.parametrize("recording", ["codex-real.jsonl", "opencode-real.jsonl", "gemini-real.jsonl"])
async def test_a_request_to_run_a_command_says_the_command_once(tmp_path, recording):
    """Codex and OpenCode title a command's call with the command itself: the request said it in its title and again
    as "$ …" below. It is said once; a title that is not the command keeps the command below it (Gemini sends the
    command in the title alone)."""
    from textual.widgets import Static

    from kandev_tui.transcript import Item
    from kandev_tui.widgets.entries.permission import PermissionRequest

    asked = [i for i in items_from_frames(read_recording(FIXTURES / "recordings" / recording))
             if i.kind == "permission" and i.payload["tool_call"].get("kind") == "execute"]
    assert asked
    tool_call = asked[0].payload["tool_call"]
    titled = {**tool_call, "title": "Count the notes"}
    items = [Item(f"permission:{n}", "permission", 1, {**asked[0].payload, "tool_call": call, "answer": None},
                  status="pending") for n, call in enumerate([tool_call, titled])]
    app = stored_app(tmp_path, items)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        same, other = app.view.query(PermissionRequest)

        def drawn(request) -> str:  # its title and what it asks to approve (an option may name the command too)
            return "\n".join(w.render_line(y).text for w in request.query(Static) if w.size.area and w.display
                             for y in range(w.size.height))

        command = tool_call["title"]
        assert drawn(same).count(command) == 1 and "$ " not in drawn(same)
        if tool_call.get("rawInput"):
            assert f"$ {command}" in drawn(other) and "Count the notes" in drawn(other)


async def test_a_call_whose_request_shows_the_diff_waits_for_it_without_its_raw_arguments(tmp_path):
    """OpenCode reports its edit call with its arguments alone (filePath, oldString, newString), and its permission
    request with the diff: while the request waited, the card above showed the arguments as raw JSON, the edit
    twice. The card says the diff is in the request below; once answered it shows what it has again. The request's
    title, the file's absolute path, is the path in the workspace, as the diff's header says it."""
    from textual.widgets import Static

    from kandev_tui.widgets.entries.permission import PermissionRequest
    from kandev_tui.widgets.entries.tool_call import ToolCallView

    frames = list(read_recording(FIXTURES / "recordings" / "opencode-real.jsonl"))
    asked_at = next(n for n, frame in enumerate(frames) if (frame.msg or {}).get("method") == "session/request_permission")
    pending = [i for i in items_from_frames(frames[:asked_at + 1]) if i.kind in ("tool_call", "permission")]
    call = next(i for i in pending if i.kind == "tool_call" and i.tool_call_id == pending[-1].tool_call_id)
    assert call.payload.get("asking") == "diff" and call.status != "complete"
    app = stored_app(tmp_path, [i for i in pending if i.key in (call.key, pending[-1].key)], workspace="/workspace")
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        card = next(w for w in app.view.query(ToolCallView) if w.item.key == call.key)
        shown = "\n".join(card.render_line(y).text for y in range(card.size.height))
        assert "its diff is in the permission request below" in shown and "arguments" not in shown
        request = app.view.query_one(PermissionRequest)  # titled with the file's absolute path: the workspace's own
        assert request.query(Static).first().render_line(0).text.strip() == "? The agent asks to edit: probe/new.txt"
    request_id = frames[asked_at].msg["id"]
    answered_at = next(n for n, frame in enumerate(frames) if n > asked_at and (frame.msg or {}).get("id") == request_id
                       and "result" in (frame.msg or {}))
    answered = items_from_frames(frames[:answered_at + 1])
    assert "asking" not in next(i for i in answered if i.key == call.key).payload
    request_item = next(i for i in answered if i.kind == "permission")
    later = stored_app(tmp_path / "later", [request_item], workspace="/workspace")
    async with later.run_test(size=(100, 40)) as pilot:  # answered (allowed, as the user did): no "?" any more
        await settle(pilot)
        request = later.view.query_one(PermissionRequest)
        assert request.query(Static).first().render_line(0).text.strip() == "✔ The agent asks to edit: probe/new.txt"
    # rejected, and withdrawn (the turn cancelled): each says so by its mark
    from kandev_tui.widgets.entries.permission import answered_mark

    assert request_item.payload["answer"]["option_kind"].startswith("allow")
    assert answered_mark({"outcome": "selected", "option_kind": "reject_once"})[0] == "✖ "
    assert answered_mark({"outcome": "cancelled"})[0] == "⊘ " and answered_mark(None)[0] == "? "


async def test_an_agents_notice_shows_its_code_as_a_message_does(tmp_path):
    """Codex's warning "Model metadata for `gpt-5.1-codex-max` not found" (a session notice, as the real adapter sent
    it today, stored whole) showed its backticks; its code is drawn as a message's `code` is (bold, in the theme's
    accent), without them, in its title and its description."""
    from kandev_tui.transcript import Item
    from kandev_tui.widgets.entries.notice import Notice

    title = ("Model metadata for `gpt-5.1-codex-max` not found. Defaulting to fallback metadata; this can degrade "
             "performance and cause issues.")
    notice = Item("agent_notice:1", "agent_notice", 1, {"severity": "warning", "title": title,
                                                        "description": "Set `model` in config.toml."})
    app = stored_app(tmp_path, [notice])
    async with app.run_test(size=(140, 20)) as pilot:
        await settle(pilot)
        widget = app.view.query_one(Notice)
        lines = [w.render_line(y) for w in [widget, *widget.walk_children()] if w.size.area
                 for y in range(w.size.height)]
        text = "\n".join(line.text for line in lines)
        assert "Model metadata for gpt-5.1-codex-max not found" in text and "Set model in config.toml." in text
        assert "`" not in text
        for name in ("gpt-5.1-codex-max", "model"):
            styles = [seg.style for line in lines for seg in line if seg.text.strip() == name]
            assert styles and styles[0].bold and styles[0].color is not None, name
