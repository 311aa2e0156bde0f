"""Agent messages as one widget that keeps its lines: a streamed message draws each finished block once, a final
one draws exactly as its replay does, only http(s) links are links, and a frame reads only the visible lines."""

from __future__ import annotations

from kandev_tui.widgets.markdown_lines import SPLIT_PARAGRAPH_AT, MarkdownLines

from ..support.drawing import console, counting_draws, plain

DOCUMENT = """# Build report

The build of **demo-service** took `26.9 s`; see [the run](https://ci.example/run/1).

- three failing tests
- coverage *steady*

```python
def total(xs):
    return sum(xs)
```

| area | failures |
|------|---------:|
| api  | 2 |

> Quoted from the log.

Last paragraph, still growing"""


def counting_joins(monkeypatch) -> list[int]:
    """The pieces joined into a message's lines, in order (each time one is)."""
    from kandev_tui.widgets.joined_lines import Joined

    joined: list[int] = []
    add = Joined.add
    monkeypatch.setattr(Joined, "add", lambda self, lines, owner, joins: (joined.append(owner),
                                                                           add(self, lines, owner, joins)))
    return joined


def test_a_streamed_message_draws_each_finished_block_once(monkeypatch):
    drawn = counting_draws(monkeypatch)
    document = MarkdownLines()
    shown = ""
    for start in range(0, len(DOCUMENT), 7):  # chunks as an agent streams them
        shown = DOCUMENT[:start + 7]
        document.update(shown)
        plain(document)
    blocks_drawn = [text for text in drawn if "```" in text and text.rstrip().endswith("```")]
    assert len(blocks_drawn) == 1  # the code block, once complete, was drawn once (not again per chunk)
    assert not any(text.startswith("# Build report") and "Last paragraph" in text for text in drawn)
    assert max(len(text) for text in drawn[-5:]) < 60  # the growing end only: the last paragraph
    streamed = plain(document)
    assert "Build report" in streamed[0] and any("Last paragraph, still growing" in line for line in streamed)


def test_a_final_message_draws_as_its_replay_does():
    streamed = MarkdownLines()
    for start in range(0, len(DOCUMENT), 11):
        streamed.update(DOCUMENT[:start + 11])
        plain(streamed)
    streamed.update(DOCUMENT, final=True)
    replayed = MarkdownLines(DOCUMENT)
    for width in (30, 60, 100):
        assert plain(streamed, width) == plain(replayed, width)


def test_a_flood_into_one_paragraph_draws_a_bounded_amount_per_update(monkeypatch):
    drawn = counting_draws(monkeypatch)
    document = MarkdownLines()
    text = ""
    for index in range(20_000):
        text += f"c{index} "
        if index % 50 == 49:
            document.update(text)
            plain(document)
    assert len(text) > 10 * SPLIT_PARAGRAPH_AT
    assert max(len(piece) for piece in drawn) <= SPLIT_PARAGRAPH_AT + 1000  # never the whole paragraph again
    words = " ".join(plain(document)).split()
    assert words == text.split()  # every word shown, in order, none twice
    document.update(text, final=True)
    assert " ".join(plain(document)).split() == text.split()


def test_a_streaming_update_joins_only_the_pieces_split_off_since_the_last(monkeypatch):
    """A frame of a streaming message costs what its tail and its new pieces draw: the lines of the pieces split off
    before are joined once at a width (a 1 MB message has thousands of pieces: joining them all again took a frame
    1.5 ms at 100 KB of message and 4.5 ms at 1 MB)."""
    joined = counting_joins(monkeypatch)
    document = MarkdownLines(final=False)
    text = DOCUMENT.replace("Last paragraph, still growing", "") * 12
    out = console()
    for start in range(0, len(text), 40):  # a frame after each chunk: only the tail is drawn (budget 0)
        document.update(text[:start + 40])
        document.strips(out, out.options, 0.0)
    sealed = len(document._sealed)
    assert sealed > 50 and sorted(joined) == list(range(sealed))  # each piece joined once, none again per frame


def test_drawing_the_pieces_that_stood_blank_joins_no_piece_again(monkeypatch):
    """The pieces a flood split off stand blank until slices draw them (in view first, then from the end back); each
    slice puts the lines it drew in their places, and joins no piece again (joining a 1 MB message's thousands of
    pieces again at every slice cost 1-2 ms each, 0.07-0.15 s of a 1.2 s flood, and more as the message grew)."""
    joined = counting_joins(monkeypatch)
    document = MarkdownLines(final=False)
    text = DOCUMENT.replace("Last paragraph, still growing", "") * 12
    out = console()
    document.update(text)  # one batch of a flood: split into pieces, none drawn yet
    lines = document.strips(out, out.options, 0.0)
    assert lines.pending > 5
    slices = 0
    while lines.pending:  # slices of a thousandth of a second, as the widget draws them between frames
        lines = document.strips(out, out.options, 0.001, range(0, 10))
        slices += 1
    sealed = len(document._sealed)
    assert slices > 3 and sorted(joined) == list(range(sealed))  # each piece joined once
    assert [s.text for s in lines] == [s.text for s in MarkdownLines(text, final=False).strips(out, out.options)]


def test_a_streaming_messages_lines_are_those_of_its_pieces_however_they_were_drawn():
    """Frames of a streaming message draw its tail only (budget 0), slices draw the pieces not drawn yet (in view
    first); whatever the order, the lines read by index, by iteration and by slice agree, and once every piece is
    drawn they are what drawing each update at once gives."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    text = DOCUMENT * 4

    @settings(max_examples=40, deadline=None)
    @given(st.lists(st.tuples(st.integers(1, 120), st.sampled_from(["frame", "slice", "all", "none"])),
                    min_size=1, max_size=60), st.sampled_from([24, 40, 60]))
    def check(steps, width):
        out = console(width)
        streamed, reference = MarkdownLines(final=False), MarkdownLines(final=False)
        at = 0
        for size, how in steps:
            at = min(len(text), at + size)
            streamed.update(text[:at])
            reference.update(text[:at])
            if how != "none":
                lines = streamed.strips(out, out.options, {"frame": 0.0, "slice": 0.0005, "all": None}[how],
                                        range(0, 30))
                assert list(lines) == [lines[i] for i in range(len(lines))] == lines[:]
                assert all(0 <= piece <= len(streamed._sealed) for piece in lines.pieces_at(range(len(lines))))
        drawn = streamed.strips(out, out.options)
        assert not drawn.pending and [s.text for s in drawn] == [s.text for s in reference.strips(out, out.options)]

    check()


def test_only_http_links_are_links():
    document = MarkdownLines("[docs](https://example.com/docs) [secret](file:///etc/passwd) [run](x-app:quit)")
    out = console(100)
    strips = document.strips(out, out.options)
    links = {segment.style.link for strip in strips for segment in strip if segment.style and segment.style.link}
    assert links == {"https://example.com/docs"}  # x-app:quit is refused; markdown-it refuses file: itself
    assert strips[0].text.startswith("docs [secret](file:///etc/passwd) run")  # every link keeps its text


def _unwrap(pieces, hang):

    return [p.plain if i == 0 else p.plain[hang:] for i, p in enumerate(pieces)]


def test_code_is_wrapped_between_tokens_at_narrow_widths():
    from rich.text import Text

    from kandev_tui.widgets.markdown_rich import wrap_code_line

    line = Text("pytest -q --json-report --json-report-file=reports/build.json")
    pieces = wrap_code_line(line, 30)
    assert [p.plain for p in pieces] == ["pytest -q --json-report", "  --json-report-file=reports/", "  build.json"]
    # at the demo's width at 45 columns: a path is broken between its parts, not inside a file's name (build. json)
    assert [p.plain for p in wrap_code_line(line, 36)] == ["pytest -q --json-report", "  --json-report-file=reports/",
                                                         "  build.json"]
    indented = wrap_code_line(Text("    result = run_verification(service_name, timeout=threshold_seconds)"), 28)
    assert all(p.plain.startswith("      ") for p in indented[1:])  # the line's indentation and two more
    assert "service_nam" not in [p.plain.strip() for p in indented]


def test_a_token_wider_than_the_line_is_cut_and_nothing_is_lost():
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from rich.cells import cell_len
    from rich.text import Text

    from kandev_tui.widgets.markdown_rich import wrap_code_line

    @settings(max_examples=300, deadline=None)
    @given(st.text(alphabet=st.sampled_from(list("ab_ ./=(-") + ["字"]), max_size=120), st.integers(4, 40))
    def check(code, width):
        pieces = wrap_code_line(Text(code), width)
        assert all(cell_len(p.plain) <= width for p in pieces)
        indent = len(code) - len(code.lstrip(" "))
        hang = min(indent + 2, width // 2)
        joined = "".join(_unwrap(pieces, hang))
        assert joined.replace(" ", "") == code.replace(" ", "")  # spaces at a break may go; no character else

    check()
