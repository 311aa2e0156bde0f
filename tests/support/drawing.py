"""What a renderable or a streamed Markdown document draws, as plain text (no terminal, no app)."""

from __future__ import annotations

import io

from rich.console import Console

from kandev_tui.widgets.markdown_lines import MarkdownLines


def parts_text(parts, width: int = 100) -> str:
    console = Console(width=width, color_system=None, record=True, force_terminal=False)
    for part in parts:
        console.print(part)
    return console.export_text()


def text_of(renderable, width: int = 70) -> str:
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None, legacy_windows=False)
    console.print(renderable)
    return console.export_text()


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


def lines(document: MarkdownLines, width: int = 60) -> list[str]:
    out = Console(width=width, file=io.StringIO(), color_system="truecolor", legacy_windows=False)
    return [strip.text for strip in document.strips(out, out.options)]


def streamed(text: str, step: int, final: bool = False) -> MarkdownLines:
    document = MarkdownLines("", final=False)
    for start in range(0, len(text), step):
        document.append(text[start:start + step])
        if start % (step * 13) == 0:
            lines(document)  # drawn now and then, as frames do
    if final:
        document.update(text, final=True)
    return document
