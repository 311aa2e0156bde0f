"""Text travels as deltas: the normaliser keeps an open message as parts and makes a version when the pipeline
flushes (never one per chunk); a version says the text only grew since the message's first (``grown_from``); the
message widget sanitises and appends only what came after the version it holds; a long addition is split into
blocks a slice at a time and drawn near the viewport first; a streamed message's pieces draw what the whole text
draws, so a final message keeps them; and a long open message is stored at most once a second, all of it at the end."""

from __future__ import annotations

import io

from rich.console import Console

from kandev_tui.transcript import IN, Frame, Normalizer
from kandev_tui.transcript.items import Item
from kandev_tui.widgets.markdown_lines import PIECE_CHARS, MarkdownLines

from ..support.frames import END, PROMPT, chunk
from ..support.drawing import lines, streamed

DOCUMENT = "".join(
    f"## Part {n}\n\nThe **build** of `svc-{n}` took {n}.5 s; see [the run](https://ci.example/{n}).\n\n"
    f"- first finding of {n}\n- second, with *emphasis*\n  continued on a line\n\n"
    + (f"```python\ndef f{n}(x):\n\n    return x * {n}\n```\n\n" if n % 3 == 0 else "")
    + (f"> quoted {n}\n> more\n\n| a | b |\n|---|---:|\n| {n} | 2 |\n\n1. one\n2. two\n\n---\n\n" if n % 4 == 0 else "")
    for n in range(1, 25)) + "Last paragraph, still growing"


# -- the normaliser and the pipeline ---------------------------------------------------------------------------


def test_chunks_make_no_version_until_the_pipeline_flushes():
    normalizer = Normalizer()
    normalizer.feed(PROMPT)
    first = normalizer.feed(chunk("a"))
    assert [item.payload["text"] for item in first] == ["a"]
    before = Item("probe", "note", 0).version
    for index in range(5000):
        assert normalizer.feed(chunk(f" {index}")) == []  # kept as a part: no copy of the message per chunk
    assert Item("probe", "note", 0).version == before + 1  # no version was made in between
    assert normalizer.growing
    (grown,) = normalizer.settle()
    assert grown.payload["text"] == "a" + "".join(f" {index}" for index in range(5000))
    assert grown.grown_from == first[0].version and not grown.final
    assert normalizer.settle() == [] and not normalizer.growing
    normalizer.feed(chunk(" end"))
    closed = [item for item in normalizer.feed(END) if item.key == grown.key]
    assert closed[-1].final and closed[-1].payload["text"].endswith(" 4999 end")
    assert closed[-1].grown_from == first[0].version  # the final version grew from the first too


def test_a_new_message_id_closes_the_open_text_with_its_parts():
    normalizer = Normalizer()
    normalizer.feed(PROMPT)
    normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "one"}}}}))
    normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": " more"}}}}))
    changed = normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk", "messageId": "m2",
                                     "content": {"type": "text", "text": "two"}}}}))
    assert [(item.payload["text"], item.final) for item in changed] == [("one more", True), ("two", False)]


# -- the message's lines ---------------------------------------------------------------------------------------


def test_streamed_pieces_draw_what_the_whole_text_draws():
    whole = MarkdownLines(DOCUMENT)
    for width in (30, 60, 100):
        expected = lines(whole, width)
        for step in (1, 7, 50, 400, len(DOCUMENT)):
            document = streamed(DOCUMENT, step)
            assert lines(document, width) == expected, (width, step)


def test_a_final_message_keeps_its_pieces_and_draws_as_its_replay(monkeypatch):
    document = streamed(DOCUMENT, 9)
    lines(document)
    drawn: list[str] = []
    draw = MarkdownLines._draw
    monkeypatch.setattr(MarkdownLines, "_draw", lambda self, text, *rest: drawn.append(text) or draw(self, text, *rest))
    assert document.update(DOCUMENT, final=True) is False  # nothing to draw again
    assert lines(document) == lines(MarkdownLines(DOCUMENT)) and drawn.count(DOCUMENT) == 1  # (the replay's)


def test_a_reference_definition_makes_the_final_message_drawn_whole():
    text = "See [the run][ci].\n\nMore text.\n\n" + "Filler paragraph.\n\n" * 5 + "[ci]: https://ci.example/run/9\n"
    document = streamed(text, 5)
    assert document.update(text, final=True) is True  # drawn whole: the link in the first piece is named below
    assert lines(document) == lines(MarkdownLines(text))
    links = {s.style.link for strip in MarkdownLines(text).strips(Console(width=60, file=io.StringIO()),
                                                                   Console(width=60).options) for s in strip if s.style}
    assert "https://ci.example/run/9" in links


def test_a_long_addition_is_split_a_slice_at_a_time_and_drawn_near_the_viewport_first(monkeypatch):
    drawn: list[str] = []
    draw = MarkdownLines._draw
    monkeypatch.setattr(MarkdownLines, "_draw", lambda self, text, *rest: drawn.append(text) or draw(self, text, *rest))
    text = DOCUMENT * 20  # about 130 KB arriving in one batch
    document = MarkdownLines("", final=False)
    document.append(text)
    assert 0 < document.backlog < len(text)  # a slice split now, the rest later
    out = Console(width=60, file=io.StringIO())
    first = document.strips(out, out.options, budget=0)
    assert first.pending and len(first) < len(lines(MarkdownLines(text)))
    wanted = range(40, 60)
    in_view = first.pieces_at(wanted)
    assert in_view  # the rows in view belong to pieces
    drawn.clear()
    for _ in range(1000):  # slices: the rest of the backlog split first, then pieces drawn while the budget lasts
        document.strips(out, out.options, budget=0.0001, wanted=wanted)
        if any(text != document._tail for text in drawn):
            break
    assert drawn and all(len(piece) < 4 * PIECE_CHARS for piece in drawn)  # no piece is the whole addition
    pieces = [text for text in drawn if text != document._tail]  # (the tail, the newest, is drawn first)
    assert pieces[0] == document._sealed[in_view[0]][0]  # the rows in view drawn before any other piece
    full = document.strips(out, out.options)  # everything, as a search or an export asks
    assert not full.pending and document.backlog == 0
    assert [strip.text for strip in full] == lines(MarkdownLines(text))
