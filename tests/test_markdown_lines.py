"""Agent messages as one widget that keeps its lines: a streamed message draws each finished block once, a final
one draws exactly as its replay does, only http(s) links are links, and a frame reads only the visible lines."""

from __future__ import annotations

import io

from rich.console import Console

from kandev_tui.transcript.items import Item
from kandev_tui.widgets.agent_message import AgentMessage
from kandev_tui.widgets.markdown_lines import SPLIT_PARAGRAPH_AT, MarkdownLines

from .app_helpers import apply_now, message_item, settle, stored_app

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


def console(width: int = 60) -> Console:
    return Console(width=width, file=io.StringIO(), color_system="truecolor", legacy_windows=False)


def plain(document: MarkdownLines, width: int = 60) -> list[str]:
    out = console(width)
    return [strip.text.rstrip() for strip in document.strips(out, out.options)]


def counting_draws(monkeypatch) -> list[str]:
    drawn: list[str] = []
    draw = MarkdownLines._draw

    def counted(self, text, console, options):
        drawn.append(text)
        return draw(self, text, console, options)

    monkeypatch.setattr(MarkdownLines, "_draw", counted)
    return drawn


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


def test_only_http_links_are_links():
    document = MarkdownLines("[docs](https://example.com/docs) [secret](file:///etc/passwd) [run](x-app:quit)")
    out = console(100)
    strips = document.strips(out, out.options)
    links = {segment.style.link for strip in strips for segment in strip if segment.style and segment.style.link}
    assert links == {"https://example.com/docs"}  # x-app:quit is refused; markdown-it refuses file: itself
    assert strips[0].text.startswith("docs [secret](file:///etc/passwd) run")  # every link keeps its text


async def test_a_long_message_in_the_app_draws_only_its_visible_lines(tmp_path, monkeypatch):
    lines_read: list[int] = []
    render_line = AgentMessage.render_line

    def counted(self, y):
        lines_read.append(y)
        return render_line(self, y)

    monkeypatch.setattr(AgentMessage, "render_line", counted)
    whole: list[int] = []  # the message drawn whole (every line turned into segments again)
    rich_console = MarkdownLines.__rich_console__
    monkeypatch.setattr(MarkdownLines, "__rich_console__", lambda *args: whole.append(1) or rich_console(*args))
    text = "\n\n".join(f"Paragraph {index} of a long answer." for index in range(1500))
    app = stored_app(tmp_path, [message_item(1, text)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        message = app.view.widgets["message:1"]
        assert message.size.height == 2 * 1500 - 1  # measured from the kept lines: every paragraph
        lines_read.clear()
        message.refresh()
        await settle(pilot)
        assert 0 < len(set(lines_read)) <= 24  # one screen at most, of its 2,999 lines
        assert not whole  # neither to measure it nor to paint it


async def test_a_streaming_message_in_the_app_grows_in_place(tmp_path, monkeypatch):
    drawn = counting_draws(monkeypatch)
    app = stored_app(tmp_path, [message_item(0, "Before.")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = ""
        for index in range(30):
            text += f"Paragraph {index}.\n\n"
            apply_now(app, [Item("message:1", "agent_message", 1, {"text": text}, final=False)])
            await settle(pilot)
        message = app.view.widgets["message:1"]
        assert message.size.height == 2 * 30 - 1
        assert sum(1 for piece in drawn if piece.startswith("Paragraph 0.")) == 1  # drawn once, not per update
        apply_now(app, [Item("message:1", "agent_message", 1, {"text": text}, final=True)])
        await settle(pilot)
        replayed = MarkdownLines(text)
        assert message.size.height == len(plain(replayed, message.content_region.width))


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
    from hypothesis import given, settings, strategies as st
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
