"""The quick reading of where a Markdown text surely starts a top-level block (widgets/markdown_cuts.py): every cut
it makes is one markdown-it makes in the same text, over generated documents full of the constructs that could
fool a line-by-line reading (fences in and out of lists, raw HTML, block quotes, lazy lines, tabs, references)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kandev_tui.widgets.markdown_cuts import block_cuts
from kandev_tui.widgets.markdown_rich import _blocks

SNIPPETS = [
    "A paragraph of words.\n", "Another line\n", "## A heading\n", "Setext\n===\n", "---\n", "* * *\n", "\n", "\n\n",
    "- a list item\n", "- item\n  continued\n", "1. first\n", "2) second\n", "1986. A year\n", "+ plus\n",
    "```\n", "```python\n", "````\n", "~~~\n", "  ```\n", "   ~~~\n", "``` a`b\n", "- ```\n", "  code in a list\n",
    "    indented code\n", "\tA tab\n", "> a quote\n", "> ```\n", ">\n", "| a | b |\n", "|---|---|\n",
    "<pre>\n", "</pre>\n", "<!-- a comment\n", "-->\n", "<?php\n", "?>\n", "<!DOCTYPE\n", ">\n", "<![CDATA[\n",
    "]]>\n", "<div>\n", "</div>\n", "  <pre>\n", "<script>x</script>\n", "[ref]: https://example.com\n",
    "A [ref] link.\n", "Lazy\ncontinuation\n", "  Two spaces in\n", "text\r\n", "\r\n", "`code`\n", "**bold**\n",
    "    ```\n", "> - ```\n", "  - nested\n", "\t```\n", "<DIV>\n", "<p>\n", "<custom-tag>\n", "  <!--\n",
    "Title\n---\n", "[a]:\n", '"title"\n', ">lazy\n", "***\n", "___\n", "#\n", "<?x?>\n", "<!-- x -->\n",
    "~~~~ info ```\n", "``` \n", "`````\n", "1. ```\n", "   code under a number\n", "<textarea>\n",
]


def markdown_it_starts(text: str) -> set[int]:
    """The lines at which markdown-it starts a top-level block."""
    return {token.map[0] for token in _blocks().parse(text) if token.level == 0 and token.nesting >= 0
            and token.map is not None}


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=40))
def test_every_quick_cut_is_a_block_markdown_it_starts(parts):
    text = "".join(parts)
    cuts = block_cuts(text)
    assert {line_of(text, cut) for cut in cuts} <= markdown_it_starts(text), (text, cuts)
    assert all(cut == 0 or text[cut - 1] == "\n" for cut in cuts)


def test_a_report_is_cut_at_its_sections_and_paragraphs_not_inside_lists_fences_or_raw_html():
    text = ("## One\n\nA paragraph.\n\n- a\n\n- b\n\nAfter the list.\n\n```\ncode\n\nNot a cut: in the fence.\n```\n\n"
            "<pre>\n\nNot a cut: raw HTML.\n</pre>\n\nLast.\n")
    cut_lines = [text[cut:text.index("\n", cut)] for cut in block_cuts(text)]
    assert cut_lines == ["A paragraph.", "After the list.", "```", "<pre>", "Last."]


def test_what_it_cannot_read_for_sure_stops_it_and_the_last_line_may_still_grow():
    text = "One.\n\nTwo.\n\n  ```\ncode\n\nThree.\n  ```\n\nFour.\n"
    assert [text[cut:cut + 4] for cut in block_cuts(text)] == ["Two."]  # a fence two spaces in: stops there
    assert block_cuts("One.\n\nTwo") == []  # "Two" may yet become "Two" of a longer line: not judged
    assert block_cuts("One.\n\n1") == [] and block_cuts("One.\n\n1. a\n") == []  # a list's marker goes on a list


def _streamed(text: str, steps: list[int], quick: bool):
    from kandev_tui.widgets import markdown_lines

    document = markdown_lines.MarkdownLines(final=False)
    cuts = markdown_lines.block_cuts
    if not quick:
        markdown_lines.block_cuts = lambda *args: []
    try:
        at = 0
        for step in steps * (len(text) // max(1, sum(steps)) + 1):
            at = min(len(text), at + step)
            document.update(text[:at])
            if at == len(text):
                break
        document.update(text, final=True)
    finally:
        markdown_lines.block_cuts = cuts
    return document


# blocks that draw no line (raw HTML, an empty quote) keep blank lines around them in Rich's Markdown, which a piece
# that ends with one cannot know of: where the pieces end then moves a blank line, split either way (a quirk apart)
VISIBLE = [snippet for snippet in SNIPPETS if not snippet.lstrip(" ").startswith("<") and snippet not in (">\n",)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(VISIBLE), min_size=1, max_size=30), st.lists(st.integers(1, 80), min_size=1,
                                                                            max_size=20))
def test_a_message_split_at_quick_cuts_draws_what_it_draws_split_by_markdown_it_alone(parts, steps):
    """Streamed in chunks, a message split at the quick cuts where they are sure (and by markdown-it elsewhere) draws,
    once final, the lines it draws split by markdown-it alone."""
    import io

    from rich.console import Console

    text = "".join(parts)
    out = Console(width=50, file=io.StringIO())
    quick, parsed = _streamed(text, steps, quick=True), _streamed(text, steps, quick=False)
    assert [s.text for s in quick.strips(out, out.options)] == [s.text for s in parsed.strips(out, out.options)]


def test_a_message_that_opens_with_what_draws_nothing_has_no_blank_line_first():
    """Raw HTML alone draws nothing (Rich leaves it out): the piece after it has no blank line before it, as the
    whole text drawn has none."""
    import io

    from rich.console import Console

    from kandev_tui.widgets.markdown_lines import MarkdownLines

    text = "<?x?>\nA paragraph of words.\n"
    out = Console(width=50, file=io.StringIO())
    streamed = _streamed(text, [1], quick=True)
    assert streamed._sealed  # it was split
    assert [s.text.strip() for s in streamed.strips(out, out.options)] == ["A paragraph of words."] == \
        [s.text.strip() for s in MarkdownLines(text).strips(out, out.options)]
