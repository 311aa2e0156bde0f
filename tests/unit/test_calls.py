"""What tool calls show: diffs, command output with its colours, content blocks, locations; the normaliser's
command output (Codex's terminal meta, bounded tails); the real agents' recorded sessions in the app."""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from kandev_tui.transcript.diffs import diff_summary, file_diff
from kandev_tui.transcript.frames import read_recording
from kandev_tui.transcript.replay import items_from_frames
from kandev_tui.transcript.tools import OUTPUT_TAIL
from kandev_tui.ui.ansi import ansi_text
from kandev_tui.widgets.entries.calls import call_parts
from kandev_tui.widgets.entries.calls.content import content_parts, locations_line

from ..support.frames import CLAUDE, CODEX, frames
from ..support.drawing import parts_text
from ..support.hostile_corpus import CORPUS, NEVER_SHOWN

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
    text = parts_text(call_parts({"content": [{"type": "diff", "path": "a.py", "oldText": old, "newText": new}]}, False)[1])
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
    shown = parts_text(call_parts({"content": [{"type": "diff", "path": "a.py", "oldText": old, "newText": new}]},
                             False)[1])
    assert all(header in shown for header in expected)

def test_claudes_hunks_are_numbered_from_their_locations():
    """A finished Claude edit: one block per hunk, with context; its line in locations."""
    content = [{"type": "diff", "path": "f.py", "oldText": "a\nb\nc", "newText": "a\nB\nc"},
               {"type": "diff", "path": "f.py", "oldText": "x\ny", "newText": "x\nY"}]
    locations = [{"path": "f.py", "line": 10}, {"path": "f.py", "line": 40}]
    view, parts = call_parts({"content": content, "locations": locations}, False)
    text = parts_text(parts)
    assert view == "diff" and text.count("f.py  +2 −2") == 1  # one header for the file, over both hunks
    assert "@@ -10,3 +10,3 @@" in text and "@@ -40,2 +40,2 @@" in text and "41    - y" in text


def test_a_compact_diff_says_how_much_more_there_is():
    new = "".join(f"row {n}\n" for n in range(100))
    view, parts = call_parts({"content": [{"type": "diff", "path": "big.txt", "oldText": None, "newText": new}]}, True)
    text = parts_text(parts)
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
    assert "ended by signal SIGKILL" in parts_text(call_parts(tool.payload, False)[1])


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
    text = parts_text(call_parts(tool.payload, True)[1])
    assert f"{100_000 - 12:,} earlier lines not shown" in text and "output line 99999" in text


def test_content_blocks_and_locations():
    content = [{"type": "content", "content": {"type": "text", "text": "**Verdict**: safe to run"}},
               {"type": "content", "content": {"type": "resource_link", "uri": "file:///w/a.py", "name": "a.py"}},
               {"type": "content", "content": {"type": "image", "mimeType": "image/png", "data": "A" * 4000}}]
    text = parts_text(content_parts(content))
    assert "Verdict: safe to run" in text and "file:///w/a.py" in text and "[image image/png, 2.9 KB]" in text
    one = [{"type": "content", "content": {"type": "image", "mimeType": "image/png", "data": "QQ=="}}]  # one byte
    assert "[image image/png, 1 byte]" in parts_text(content_parts(one))
    assert parts_text([locations_line([{"path": "a.py", "line": 3}, {"path": "b.py"}])]).strip() == "at a.py:3, b.py"
    # Claude's Bash: the console copy of the output is not shown twice, the description is
    bash = {"title": "ls", "kind": "execute", "shell": {"stdout": "x"}, "input": {"raw_input": {"command": "ls"}},
            "content": [{"type": "content", "content": {"type": "text", "text": "List it"}},
                        {"type": "content", "content": {"type": "text", "text": "```console\nx\n```"}}]}
    assert parts_text(call_parts(bash, False)[1]).count("x") == 1 and "List it" in parts_text(call_parts(bash, False)[1])


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
    assert parts_text([Group(header)], width).splitlines()[0].rstrip() == line


def test_the_outline_of_a_presentation_asked_for_says_its_blocks_and_leaves_out_what_is_not_one():
    from kandev_tui.presentation.names import outline

    csv = {"type": "chart", "chart_type": "line", "title": "p50", "csv": {"path": "d.csv"}}
    assert outline({"blocks": [csv, {"type": "file", "path": "src/app.py"}, {"type": "metrics", "items": [{}]}]}) \
        == "line chart from a CSV file: p50 · file src/app.py · 1 metric"
    assert outline({"blocks": ["junk", 3, None, {"type": "chart"}, {"type": "x"}, {}]}) == "chart · 2 more"
    assert outline({"title": "no blocks"}) == "" and outline("not an object") == ""


def test_recorded_real_sessions_carry_their_diffs_and_output_as_data():

    claude = items_from_frames(read_recording(CLAUDE))
    edit = next(i for i in claude if i.kind == "tool_call" and i.payload.get("title") == "Edit probe/notes.txt")
    assert [d["added"] for d in edit.payload["diffs"]] == [1, 1]
    codex = items_from_frames(read_recording(CODEX))
    shells = [i.payload["shell"] for i in codex if i.kind == "tool_call" and i.payload.get("shell")]
    assert any(s.get("exit_code") == 2 for s in shells) and any("\x1b[31m" in (s.get("stdout") or "") for s in shells)
    json.dumps([i.to_json() for i in claude + codex])  # JSON lines can carry them


def test_side_by_side_pairs_removed_lines_with_the_lines_that_replace_them():
    old = "".join(f"line {n}\n" for n in range(1, 12))
    new = old.replace("line 3\n", "line three\n").replace("line 8\n", "")
    view, parts = call_parts({"content": [{"type": "diff", "path": "a.py", "oldText": old, "newText": new}]}, False,
                             side=True)
    rows = [line for line in parts_text(parts, 100).splitlines() if line.strip()]
    three = next(r for r in rows if "line three" in r)
    assert "3 - line 3" in three and "3 + line three" in three  # one row: the old beside its replacement
    eight = next(r for r in rows if "line 8" in r)
    assert "8 - line 8" in eight and "+" not in eight  # removed, nothing beside it


def test_a_read_shows_an_excerpt_and_a_search_its_matches():
    read = {"kind": "read", "title": "Read a.py", "input": {"kind": "read", "raw_input": {"path": "a.py"}},
            "output": "".join(f"line {n}\n" for n in range(40))}
    view, parts = call_parts(read, True)
    text = parts_text(parts)
    assert view == "read" and "line 11" in text and "line 12" not in text and "m: 28 more lines" in text
    search = {"kind": "search", "title": "Search TODO", "input": {"kind": "search", "raw_input": {"query": "TODO"}},
              "output": [{"type": "text", "text": "a.py:3: # TODO one\nb.py:9: # todo two\n"}]}
    view, parts = call_parts(search, False)
    assert view == "search" and "2 matches for TODO" in parts_text(parts) and "b.py:9" in parts_text(parts)
    structured = {**read, "output": {"lines": 3}}  # not text: the generic view (arguments and output as sent)
    assert call_parts(structured, True)[0] is None


def test_a_read_or_a_search_whose_result_is_also_sent_as_content_shows_it_once():
    """The demo, Claude and others send a read's or a search's result both as the result and as a content block:
    the excerpt shows it, the content block saying it again is left out (other content stays)."""
    found = "src/auth.py:5: TOKEN_TTL = 3600  # HACK: make configurable\nsrc/billing.py:9: # HACK: support JPY"
    search = {"kind": "search", "title": "Search for HACK", "input": {"kind": "search", "raw_input": {"query": "HACK"}},
              "output": found, "content": [{"type": "content", "content": {"type": "text", "text": found + "\n"}},
                                           {"type": "content", "content": {"type": "text", "text": "2 files"}}]}
    text = parts_text(call_parts(search, False)[1])
    assert text.count("TOKEN_TTL") == 1 and "2 files" in text
    report = '{"suite": "kandev-demo", "tests": {"passed": 412}}'
    read = {"kind": "read", "title": "Read build.json", "input": {"kind": "read", "raw_input": {"path": "build.json"}},
            "output": report, "content": [{"type": "content", "content": {"type": "text", "text": report}}]}
    for compact in (True, False):
        assert parts_text(call_parts(read, compact)[1]).count("kandev-demo") == 1


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
