"""One streaming message's lines, without the app: the 1 MB Markdown document of ``benchmarks/stream.py long``
(the fault agent's), fed to ``MarkdownLines`` in 100,000 chunks, a frame's lines asked for every 300 chunks (the
frame's budget: the tail only). Prints the time a frame took, and an append per chunk, in each tenth of the message
(target: flat, a frame costs what the message's tail draws, not what the message holds).

    .venv/bin/python benchmarks/markdown.py [BYTES] [CHUNKS]
"""

from __future__ import annotations

import ast
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

from kandev_tui.widgets.markdown_lines import MarkdownLines  # noqa: E402

FRAME_EVERY = 300  # chunks between two frames (a flood's batch)


def document(size: int) -> str:
    """The fault agent's long Markdown report: its ``markdown`` function (tests/support/agents/fault_agent.py, which runs as
    an agent when imported, so the function is read from its source)."""
    source = (ROOT / "tests" / "support" / "agents" / "fault_agent.py").read_text()
    (function,) = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)
                   and node.name == "markdown"]
    scope: dict = {}
    exec(compile(ast.Module([function], []), "fault_agent.py", "exec"), scope)
    return scope["markdown"](size)


def main() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from benchargs import arguments

    args = arguments(__doc__, ("size", int, 1_000_000, "characters of the message"),
                     ("chunks", int, 100_000, "chunks it comes in"))
    size, chunks = args.size, args.chunks
    text = document(size)
    console = Console(width=120, file=io.StringIO(), force_terminal=True)
    options = console.options.update(width=114, highlight=False)
    lines = MarkdownLines("", final=False)
    step, tenth = max(1, len(text) // chunks), chunks // 10
    frames: list[float] = []
    appends: list[float] = []
    print(f"one message of {len(text):,} characters in {chunks:,} chunks, a frame every {FRAME_EVERY} chunks")
    for index in range(chunks):
        started = time.perf_counter()
        lines.append(text[index * step:(index + 1) * step if index < chunks - 1 else len(text)])
        appends.append(time.perf_counter() - started)
        if index % FRAME_EVERY == FRAME_EVERY - 1:
            started = time.perf_counter()
            lines.strips(console, options, 0.0)
            frames.append(time.perf_counter() - started)
        if index % tenth == tenth - 1:
            print(f"  {(index + 1) // tenth * 10:>3}%: a frame {sum(frames) / max(1, len(frames)) * 1000:.2f} ms "
                  f"(median of {len(frames)}: {sorted(frames)[len(frames) // 2] * 1000:.2f} ms), an append "
                  f"{sum(appends) / len(appends) * 1e6:.0f} µs; {len(lines._sealed):,} pieces")
            frames, appends = [], []


if __name__ == "__main__":
    main()
