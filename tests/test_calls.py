"""What tool calls show: diffs, command output with its colours, content blocks, locations; the normaliser's
command output (Codex's terminal meta, bounded tails); the real agents' recorded sessions in the app."""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from kandev_tui.ui.ansi import ansi_text
from kandev_tui.transcript import IN, OUT, Frame
from kandev_tui.transcript.frames import read_recording
from kandev_tui.transcript.diffs import diff_summary, file_diff
from kandev_tui.transcript.replay import items_from_frames
from kandev_tui.transcript.tools import OUTPUT_TAIL
from kandev_tui.widgets.calls import call_parts
from kandev_tui.widgets.calls.content import content_parts, locations_line

from .app_helpers import FIXTURES, replay_app, settle, stored_app, tool_item, until
from .hostile_corpus import CORPUS, NEVER_SHOWN

CLAUDE = FIXTURES / "recordings" / "claude-real.jsonl"
CODEX = FIXTURES / "recordings" / "codex-real.jsonl"


def plain(parts, width: int = 100) -> str:
    console = Console(width=width, color_system=None, record=True, force_terminal=False)
    for part in parts:
        console.print(part)
    return console.export_text()


def frames(*updates, prompt: bool = True) -> list[Frame]:
    out = [Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                       "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}})] if prompt else []
    return out + [Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": u}})
                  for u in updates]


# -- diffs -------------------------------------------------------------------------------------------------------


def test_a_diff_has_hunks_with_context_line_numbers_and_counts():
    old = "".join(f"line {n}\n" for n in range(1, 21))
    new = old.replace("line 3\n", "line three\n").replace("line 17\n", "")
    diff = file_diff("a.py", old, new)
    assert (diff.added, diff.removed, len(diff.hunks)) == (1, 2, 2)
    first = diff.hunks[0]
    assert [(line.sign, line.old, line.new) for line in first.lines][:4] == [(" ", 1, 1), (" ", 2, 2), ("-", 3, None),
                                                                             ("+", None, 3)]
    assert diff.first_changed_line == 3
    text = plain(call_parts({"content": [{"type": "diff", "path": "a.py", "oldText": old, "newText": new}]}, False)[1])
    assert "a.py  +1 −2" in text and "@@ -1,6 +1,6 @@" in text and "- line 17" in text
    assert "+ line three" in text  # signs read without colour (NO_COLOR)


def test_new_and_deleted_files_binary_text_and_no_change():
    assert file_diff("n.py", None, "a\nb\n").new_file and file_diff("n.py", None, "a\nb\n").added == 2
    gone = file_diff("d.py", "a\nb\n", None)
    assert gone.deleted and gone.removed == 2
    binary = file_diff("x.bin", "\x00\x01", "\x00\x02")
    assert binary.note and "binary" in binary.note and not binary.hunks
    assert file_diff("s.py", "same\n", "same\n").note == "no change"



@pytest.mark.parametrize("old, new", [
    (None, "one\ntwo\n"),  # a new file: "@@ -0,0 +1,2 @@", not "-1,0"
    ("one\ntwo\n", None),  # a deleted one: "+0,0"
    ("", "one\n"),  # an empty file written
    ("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nd\ne\nf\ng\nh\ni\n"),  # appended after line 8: "-6,3 +6,4"
    ("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nd\ne\nX\nf\ng\nh\n"),  # inserted in the middle
    ("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nd\ng\nh\n"),  # removed in the middle
    ("a\nb\n", "a\nB\nb\n"),  # an insertion whose context reaches the top
])
def test_a_hunks_header_says_its_ranges_as_a_unified_diff_does(old, new):
    """Each hunk's header as ``diff -u`` (and difflib) writes it: an empty range starts at the line before it. A new
    file's diff said "@@ -1,0 +1,5 @@", where a patch tool reads "@@ -0,0 +1,5 @@"."""
    import difflib

    expected = [line.rstrip("\n") for line in difflib.unified_diff((old or "").splitlines(True),
                                                                    (new or "").splitlines(True), n=3)
                if line.startswith("@@")]
    assert [hunk.header for hunk in file_diff("a.py", old, new, context=3).hunks] == expected
    shown = plain(call_parts({"content": [{"type": "diff", "path": "a.py", "oldText": old, "newText": new}]},
                             False)[1])
    assert all(header in shown for header in expected)

def test_claudes_hunks_are_numbered_from_their_locations():
    """A finished Claude edit: one block per hunk, with context; its line in locations."""
    content = [{"type": "diff", "path": "f.py", "oldText": "a\nb\nc", "newText": "a\nB\nc"},
               {"type": "diff", "path": "f.py", "oldText": "x\ny", "newText": "x\nY"}]
    locations = [{"path": "f.py", "line": 10}, {"path": "f.py", "line": 40}]
    view, parts = call_parts({"content": content, "locations": locations}, False)
    text = plain(parts)
    assert view == "diff" and text.count("f.py  +2 −2") == 1  # one header for the file, over both hunks
    assert "@@ -10,3 +10,3 @@" in text and "@@ -40,2 +40,2 @@" in text and "41    - y" in text


def test_a_compact_diff_says_how_much_more_there_is():
    new = "".join(f"row {n}\n" for n in range(100))
    view, parts = call_parts({"content": [{"type": "diff", "path": "big.txt", "oldText": None, "newText": new}]}, True)
    text = plain(parts)
    assert "m: 89 more lines" in text and text.count("+ row") == 11  # 12 lines: the hunk's header and 11 rows


def test_the_diff_summary_counts_without_repeating_the_text():
    content = [{"type": "diff", "path": "a", "oldText": "1\n2\n", "newText": "1\n3\n"}, {"type": "text"}]
    assert diff_summary(content) == [{"path": "a", "new_file": False, "added": 1, "removed": 1}]
    assert diff_summary([{"type": "content"}]) is None


# -- command output -----------------------------------------------------------------------------------------------


def test_sgr_colours_become_styles_and_every_other_escape_goes():
    text = ansi_text("\x1b[1;31mred bold\x1b[0m plain \x1b[38;5;208morange\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[m")
    assert text.plain == "red bold plain orange rgb"
    styles = {text.plain[s.start:s.end]: s.style for s in text.spans}
    assert styles["red bold"].color.name == "red" and styles["red bold"].bold
    assert styles["orange"].color.number == 208 and styles["rgb"].color.triplet == (1, 2, 3)
    for name in ("osc-title-bel", "osc-clipboard", "osc-hyperlink", "csi-clear", "csi-cursor", "dcs", "apc", "pm",
                 "sos", "c1-csi", "csi-alt-screen"):
        drawn = ansi_text(f"before {CORPUS[name]} after")
        assert not any(char in drawn.plain for char in NEVER_SHOWN), name
    assert ansi_text("10%\r50%\r100%").plain == "100%"  # what the terminal finally shows of a progress line


def test_the_whole_hostile_corpus_through_every_new_field_shows_nothing_but_styles():
    """Diff paths and text, command output, content blocks, locations: nothing of the corpus reaches the terminal
    as a control character."""
    for name, hostile in CORPUS.items():
        payload = {"title": hostile[:100], "kind": "execute", "shell": {"stdout": hostile, "stderr": hostile,
                                                                        "exit_code": hostile[:10]},
                   "input": {"kind": "execute", "raw_input": {"command": hostile}},
                   "content": [{"type": "content", "content": {"type": "text", "text": hostile}},
                               {"type": "content", "content": {"type": "resource_link", "uri": hostile}},
                               {"type": "content", "content": {"type": "image", "mimeType": hostile, "data": "AAAA"}},
                               {"type": "terminal", "terminalId": hostile}],
                   "locations": [{"path": hostile, "line": 3}]}
        diff = {"content": [{"type": "diff", "path": hostile or "p", "oldText": hostile, "newText": hostile + "x"}],
                "locations": [{"path": hostile, "line": 1}]}
        read = {"kind": "read", "input": {"kind": "read", "raw_input": {"path": hostile}}, "output": hostile or "x"}
        search = {"kind": "search", "input": {"kind": "search", "raw_input": {"query": hostile}}, "output": hostile or "x"}
        for parts in (call_parts(payload, False)[1], call_parts(payload, True)[1], call_parts(diff, False)[1],
                      call_parts(diff, False, side=True)[1], call_parts(read, False)[1], call_parts(search, True)[1],
                      content_parts(payload["content"])):
            console = Console(width=80, force_terminal=True, color_system="truecolor", record=True)
            for part in parts:
                console.print(part)
            drawn = console.export_text(styles=False)
            assert not any(char in drawn for char in NEVER_SHOWN), name


def test_codex_terminal_meta_streams_into_the_call_with_its_exit_code():
    call = {"sessionUpdate": "tool_call", "toolCallId": "c1", "kind": "read", "title": "List files", "status": "in_progress"}
    items = items_from_frames(frames(
        call,
        {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "_meta": {"terminal_output_delta": {"data": "a\n"}}},
        {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "_meta": {"terminal_info": {"cwd": "/w"}}},
        {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed", "rawOutput": {"exit_code": 2},
         "_meta": {"terminal_output_delta": {"data": "b\n"}}},
    ))
    tool = next(i for i in items if i.kind == "tool_call")
    assert tool.payload["shell"] == {"stdout": "a\nb\n", "cwd": "/w", "exit_code": 2}
    assert tool.status == "error"  # completed with a non-zero exit
    signalled = items_from_frames(frames(
        {**call, "toolCallId": "c2"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "c2", "status": "completed",
         "_meta": {"terminal_exit": {"exit_code": None, "signal": "SIGKILL"}}}))
    tool = next(i for i in signalled if i.kind == "tool_call")
    assert tool.payload["shell"]["signal"] == "SIGKILL" and tool.status == "error"
    assert "ended by signal SIGKILL" in plain(call_parts(tool.payload, False)[1])


@pytest.mark.reliability("Agent output", "a command printing 100,000 lines", cases=1,
                         held="a bounded tail kept in the item and drawn; the cut counted and said")
def test_a_flood_of_output_keeps_a_bounded_tail_and_says_how_much_was_cut():
    lines = [f"output line {n}" for n in range(100_000)]
    chunks = ["\n".join(lines[i:i + 1000]) + "\n" for i in range(0, len(lines), 1000)]
    updates = [{"sessionUpdate": "tool_call", "toolCallId": "f", "kind": "execute", "title": "yes", "status": "in_progress"}]
    updates += [{"sessionUpdate": "tool_call_update", "toolCallId": "f", "_meta": {"terminal_output_delta": {"data": c}}}
                for c in chunks]
    updates.append({"sessionUpdate": "tool_call_update", "toolCallId": "f", "status": "completed",
                    "_meta": {"terminal_exit": {"exit_code": 0}}})
    tool = next(i for i in items_from_frames(frames(*updates)) if i.kind == "tool_call")
    shell = tool.payload["shell"]
    assert len(shell["stdout"]) <= OUTPUT_TAIL and shell["stdout"].endswith("output line 99999\n")
    assert shell["stdout"].startswith("output line ")  # cut at a line start
    kept = shell["stdout"].count("\n")
    assert shell["cut_lines"] == 100_000 - kept
    text = plain(call_parts(tool.payload, True)[1])
    assert f"{100_000 - 12:,} earlier lines not shown" in text and "output line 99999" in text


def test_content_blocks_and_locations():
    content = [{"type": "content", "content": {"type": "text", "text": "**Verdict**: safe to run"}},
               {"type": "content", "content": {"type": "resource_link", "uri": "file:///w/a.py", "name": "a.py"}},
               {"type": "content", "content": {"type": "image", "mimeType": "image/png", "data": "A" * 4000}}]
    text = plain(content_parts(content))
    assert "Verdict: safe to run" in text and "file:///w/a.py" in text and "[image image/png, 2.9 KB]" in text
    one = [{"type": "content", "content": {"type": "image", "mimeType": "image/png", "data": "QQ=="}}]  # one byte
    assert "[image image/png, 1 byte]" in plain(content_parts(one))
    assert plain([locations_line([{"path": "a.py", "line": 3}, {"path": "b.py"}])]).strip() == "at a.py:3, b.py"
    # Claude's Bash: the console copy of the output is not shown twice, the description is
    bash = {"title": "ls", "kind": "execute", "shell": {"stdout": "x"}, "input": {"raw_input": {"command": "ls"}},
            "content": [{"type": "content", "content": {"type": "text", "text": "List it"}},
                        {"type": "content", "content": {"type": "text", "text": "```console\nx\n```"}}]}
    assert plain(call_parts(bash, False)[1]).count("x") == 1 and "List it" in plain(call_parts(bash, False)[1])


# -- the real sessions in the app ---------------------------------------------------------------------------------


async def test_claudes_recorded_session_shows_edits_as_cards_with_their_diffs(tmp_path):
    from kandev_tui.widgets.edit_card import EditCard

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
    from kandev_tui.widgets.edit_card import EditCard
    from kandev_tui.widgets.tool_group import ToolGroup

    app = replay_app(tmp_path, CLAUDE, edits_inline=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert not list(app.view.query(EditCard))
        assert any("edit" in g.summary for g in app.view.query(ToolGroup))


async def test_a_diffs_path_inside_the_workspace_is_shown_relative_to_it(tmp_path):
    """Agents send absolute paths ("/home/me/src/app/src/main.py"): inside the session's workspace, the edit's card
    and the request to make it say "src/main.py"; a path elsewhere stays whole."""
    from kandev_tui.transcript import Item
    from kandev_tui.widgets.permission import PermissionRequest
    from kandev_tui.widgets.tool_call import ToolCallView

    from .app_helpers import stored_app, tool_item

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
    from kandev_tui.widgets.permission import PermissionRequest

    from .app_helpers import stored_app

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
    from kandev_tui.widgets.permission import PermissionRequest

    from .app_helpers import stored_app

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


@pytest.mark.parametrize("width, line", [
    (100, "/tmp/pytest-of-root/pytest-643/test_claude_in_the_app_in_a_re0/workspace/hello.py (new file)  +1 −0"),
    (60, "…de_in_the_app_in_a_re0/workspace/hello.py (new file)  +1 −0"), (30, "…ce/hello.py (new file)  +1 −0")])
def test_a_diffs_header_stays_on_one_line_its_paths_start_giving_way(width, line):
    """A long absolute path (Claude's, for a file in the workspace) wrapped the header: "(new file)" and the counts
    fell onto a second line, split where the line ended. The path's start gives way instead; the search still marks
    the header's words (it is a Text)."""
    from rich.console import Group
    from rich.text import Text

    path = "/tmp/pytest-of-root/pytest-643/test_claude_in_the_app_in_a_re0/workspace/hello.py"
    header = call_parts({"content": [{"type": "diff", "path": path, "oldText": None, "newText": "x\n"}]}, True)[1][0]
    assert isinstance(header, Text)
    assert plain([Group(header)], width).splitlines()[0].rstrip() == line


def test_the_outline_of_a_presentation_asked_for_says_its_blocks_and_leaves_out_what_is_not_one():
    from kandev_tui.presentation.names import outline

    csv = {"type": "chart", "chart_type": "line", "title": "p50", "csv": {"path": "d.csv"}}
    assert outline({"blocks": [csv, {"type": "file", "path": "src/app.py"}, {"type": "metrics", "items": [{}]}]}) \
        == "line chart from a CSV file: p50 · file src/app.py · 1 metric"
    assert outline({"blocks": ["junk", 3, None, {"type": "chart"}, {"type": "x"}, {}]}) == "chart · 2 more"
    assert outline({"title": "no blocks"}) == "" and outline("not an object") == ""


async def test_codex_commands_show_their_output_in_colour_and_their_exit_codes(tmp_path):
    from kandev_tui.widgets.tool_call import ToolCallView
    from kandev_tui.widgets.tool_group import ToolGroup

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


def test_recorded_real_sessions_carry_their_diffs_and_output_as_data():
    from kandev_tui.transcript.frames import read_recording

    claude = items_from_frames(read_recording(CLAUDE))
    edit = next(i for i in claude if i.kind == "tool_call" and i.payload.get("title") == "Edit probe/notes.txt")
    assert [d["added"] for d in edit.payload["diffs"]] == [1, 1]
    codex = items_from_frames(read_recording(CODEX))
    shells = [i.payload["shell"] for i in codex if i.kind == "tool_call" and i.payload.get("shell")]
    assert any(s.get("exit_code") == 2 for s in shells) and any("\x1b[31m" in (s.get("stdout") or "") for s in shells)
    json.dumps([i.to_json() for i in claude + codex])  # JSON lines can carry them


async def test_a_big_diff_is_computed_off_the_event_loop_and_drawn_when_done(tmp_path, monkeypatch):
    """An edit rewriting a big file: the card says it is computing, the diff is computed in a thread (never on the
    event loop), then drawn; the expanded view is bounded."""
    import threading

    from kandev_tui.transcript import Item
    from kandev_tui.widgets.calls import diff as diff_view
    from kandev_tui.widgets.edit_card import EditCard

    from .app_helpers import stored_app

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
        from kandev_tui.widgets.tool_call import LaidOut

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
    from kandev_tui.widgets.edit_card import EditCard

    from .app_helpers import stored_app

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
    from kandev_tui.widgets.edit_card import EditCard

    from .app_helpers import stored_app

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


def test_side_by_side_pairs_removed_lines_with_the_lines_that_replace_them():
    old = "".join(f"line {n}\n" for n in range(1, 12))
    new = old.replace("line 3\n", "line three\n").replace("line 8\n", "")
    view, parts = call_parts({"content": [{"type": "diff", "path": "a.py", "oldText": old, "newText": new}]}, False,
                             side=True)
    rows = [line for line in plain(parts, 100).splitlines() if line.strip()]
    three = next(r for r in rows if "line three" in r)
    assert "3 - line 3" in three and "3 + line three" in three  # one row: the old beside its replacement
    eight = next(r for r in rows if "line 8" in r)
    assert "8 - line 8" in eight and "+" not in eight  # removed, nothing beside it


async def test_s_toggles_side_by_side_where_the_width_allows(tmp_path):
    from kandev_tui.widgets.edit_card import EditCard

    for width, expected in ((120, True), (80, False)):
        (tmp_path / str(width)).mkdir()
        app = replay_app(tmp_path / str(width), CLAUDE)
        async with app.run_test(size=(width, 40)) as pilot:
            await settle(pilot)
            card = list(app.view.query(EditCard))[-1]
            card.focus()
            await pilot.press("s")
            await until(pilot, lambda card=card, expected=expected: card.side_by_side is expected)


def test_a_read_shows_an_excerpt_and_a_search_its_matches():
    read = {"kind": "read", "title": "Read a.py", "input": {"kind": "read", "raw_input": {"path": "a.py"}},
            "output": "".join(f"line {n}\n" for n in range(40))}
    view, parts = call_parts(read, True)
    text = plain(parts)
    assert view == "read" and "line 11" in text and "line 12" not in text and "m: 28 more lines" in text
    search = {"kind": "search", "title": "Search TODO", "input": {"kind": "search", "raw_input": {"query": "TODO"}},
              "output": [{"type": "text", "text": "a.py:3: # TODO one\nb.py:9: # todo two\n"}]}
    view, parts = call_parts(search, False)
    assert view == "search" and "2 matches for TODO" in plain(parts) and "b.py:9" in plain(parts)
    structured = {**read, "output": {"lines": 3}}  # not text: the generic view (arguments and output as sent)
    assert call_parts(structured, True)[0] is None


def test_a_read_or_a_search_whose_result_is_also_sent_as_content_shows_it_once():
    """The demo, Claude and others send a read's or a search's result both as the result and as a content block:
    the excerpt shows it, the content block saying it again is left out (other content stays)."""
    found = "src/auth.py:5: TOKEN_TTL = 3600  # HACK: make configurable\nsrc/billing.py:9: # HACK: support JPY"
    search = {"kind": "search", "title": "Search for HACK", "input": {"kind": "search", "raw_input": {"query": "HACK"}},
              "output": found, "content": [{"type": "content", "content": {"type": "text", "text": found + "\n"}},
                                           {"type": "content", "content": {"type": "text", "text": "2 files"}}]}
    text = plain(call_parts(search, False)[1])
    assert text.count("TOKEN_TTL") == 1 and "2 files" in text
    report = '{"suite": "kandev-demo", "tests": {"passed": 412}}'
    read = {"kind": "read", "title": "Read build.json", "input": {"kind": "read", "raw_input": {"path": "build.json"}},
            "output": report, "content": [{"type": "content", "content": {"type": "text", "text": report}}]}
    for compact in (True, False):
        assert plain(call_parts(read, compact)[1]).count("kandev-demo") == 1


def test_two_calls_with_one_name_and_title_never_get_each_others_renderer():
    """The registry remembers name matching by (name, title); a renderer's own rule (the edit renderer reads the
    call's kind) is asked for every call: a Kandev row named ``edit`` that is no edit is not drawn as one after an
    edit of the same name, and the other way round."""
    from kandev_tui.renderers import Registry, Renderer

    registry = Registry.from_entry_points()
    edit = {"name": "edit", "title": "edit", "kind": "edit", "mcp": False}
    other = {"name": "edit", "title": "edit", "kind": "other", "mcp": False}
    assert registry.match(edit).id == "edit"
    assert registry.match(other) is None  # remembered wrongly before: the edit's renderer
    assert registry.match(edit).id == "edit"
    named = Registry([Renderer(id="by-name", widget=lambda item: None, tool_names=frozenset({"lookup"}))])
    assert named.match({"name": "mcp__ops__lookup", "title": "x"}).id == "by-name"
    assert named.match({"name": "mcp__ops__lookup", "title": "x", "kind": "read"}).id == "by-name"  # by name only


async def open_the_group(pilot, app, calls: int) -> None:
    """The session's tool group opened with enter, its ``calls`` calls drawn."""
    from kandev_tui.widgets.tool_call import ToolCallView
    from kandev_tui.widgets.tool_group import ToolGroup

    await settle(pilot)
    group = app.view.query_one(ToolGroup)
    group.focus()
    await pilot.press("enter")
    await until(pilot, lambda: len(group.query(ToolCallView)) == calls)
    await settle(pilot)


async def test_a_call_no_view_knows_says_its_output_once(tmp_path):
    """Claude's failed edit (recorded in tmux): its error came as ``rawOutput`` and again as a fenced text block of
    its content, and the card showed it twice. A call whose only output is its content's text showed that text as
    its output and again as content. Each is said once; other text of the content stays. Its location inside the
    workspace is relative to it, as its diff's header would be."""
    from kandev_tui.ui.textual_hooks import screen_text

    (tmp_path / "ws").mkdir()
    error = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
    failed_edit = tool_item("e1", name="edit", kind="edit", status="error", title="Edit app.py", output=error,
                            raw_input={"file_path": f"{tmp_path}/ws/app.py", "old_string": "a", "new_string": "b"},
                            content=[{"type": "content", "content": {"type": "text", "text": f"```\n{error}\n```"}}],
                            locations=[{"path": f"{tmp_path}/ws/app.py"}])
    content_only = tool_item("o1", name="probe", kind="other", status="error", title="Probe the port",
                             content=[{"type": "content", "content": {"type": "text", "text": "connection refused"}}])
    told_more = tool_item("o2", name="probe", kind="other", title="Probe again", output="port 80 open",
                          content=[{"type": "content", "content": {"type": "text", "text": "and a note beside it"}}])
    app = stored_app(tmp_path, [failed_edit, content_only, told_more], edits_inline=True,
                     workspace=str(tmp_path / "ws"))
    async with app.run_test(size=(120, 60)) as pilot:
        await open_the_group(pilot, app, calls=2)
        text = screen_text(app)
        assert text.count("File has not been read yet") == 1 and "at app.py" in text  # inside the workspace
        assert text.count("connection refused") == 1
        assert text.count("port 80 open") == 1 and "and a note beside it" in text


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
    from kandev_tui.widgets.base import code_spans
    from kandev_tui.widgets.permission import PermissionRequest

    from .app_helpers import stored_app

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
    from kandev_tui.widgets.permission import PermissionRequest

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

    from kandev_tui.widgets.permission import PermissionRequest
    from kandev_tui.widgets.tool_call import ToolCallView

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
    from kandev_tui.widgets.permission import answered_mark

    assert request_item.payload["answer"]["option_kind"].startswith("allow")
    assert answered_mark({"outcome": "selected", "option_kind": "reject_once"})[0] == "✖ "
    assert answered_mark({"outcome": "cancelled"})[0] == "⊘ " and answered_mark(None)[0] == "? "


async def test_an_agents_notice_shows_its_code_as_a_message_does(tmp_path):
    """Codex's warning "Model metadata for `gpt-5.1-codex-max` not found" (a session notice, as the real adapter sent
    it today, stored whole) showed its backticks; its code is drawn as a message's `code` is (bold, in the theme's
    accent), without them, in its title and its description."""
    from kandev_tui.transcript import Item
    from kandev_tui.widgets.notice import Notice

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
