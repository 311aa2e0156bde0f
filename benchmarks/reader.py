"""What kandev-tui's reader costs per frame, apart from everything else: a burst agent's output (tests/support/agents/
fault_agent.py, mode ``burst``: CHUNKS chunks, TOOLS tool calls and RICH rich-output charts), recorded once, then fed
RUNS times through the real ACP transport (a line split from its read, decoded), the agent's client (its look for an
edit) and the pipeline (normalised, stored in a real SQLite store), on one thread with no agent and no screen. Prints
the CPU time per frame (best, median, worst of the runs).

    .venv/bin/python benchmarks/reader.py [CHUNKS] [TOOLS] [RICH] [RUNS]

The eight sessions of benchmarks/sessions.py each read 5,000 / 200 / 50; ``40000 0 0`` is text chunks alone, the
frames of a flood. No target: the figure is what a change to the reading path is measured by.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


# the turn's prompt: asked of the agent, and the pipeline's first frame (a turn opened, as in the app)
PROMPT = {"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
          "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}}


def agent_output(folder: Path, chunks: int, tools: int, rich: int) -> tuple[bytes, int]:
    """The burst agent's session/update lines, as it writes them, and how many."""
    asked = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
             {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": str(folder), "mcpServers": []}},
             PROMPT]
    out = subprocess.run([sys.executable, str(ROOT / "tests" / "support" / "agents" / "fault_agent.py"), "burst", str(chunks),
                          str(tools), str(rich), str(folder / "stamp")], input="".join(json.dumps(m) + "\n" for m in asked),
                         capture_output=True, text=True, timeout=120, check=True).stdout
    lines = [line for line in out.splitlines() if '"session/update"' in line]
    return ("\n".join(lines) + "\n").encode(), len(lines)


async def one_run(folder: Path, data: bytes, frames: int) -> float:
    """CPU microseconds per frame, from the first line read to the last item stored."""
    from kandev_tui.acp import AgentOptions
    from kandev_tui.acp.client import OBSERVED_ONLY, AgentClient
    from kandev_tui.acp.transport import LineTransport
    from kandev_tui.transcript import OUT, Frame, Store
    from kandev_tui.transcript.pipeline import Pipeline

    store = Store(folder / f"run-{time.time_ns()}.db")
    session = store.create_session(title="reader", agent_command=["burst"], workspace=str(folder))
    pipeline = Pipeline(store, session, listener=lambda items: None)
    pipeline.feed(Frame.now(OUT, PROMPT))
    client = AgentClient(AgentOptions(command=["burst"], workspace=folder), pipeline.feed, None, None)
    reader = asyncio.StreamReader(limit=len(data) + 1)
    reader.feed_data(data)
    reader.feed_eof()
    secret = "0123456789abcdef0123456789abcdef"  # the MCP server's secret, looked for in every line as in the app
    # no writer: nothing is sent to an agent here
    transport = LineTransport(reader, None, client._frame, observed_only=OBSERVED_ONLY,
                              scrub=lambda text: text.replace(secret, "[secret]") if secret in text else text)
    began = time.process_time()
    await transport.receive()  # None at the end: every line is a notification it hands to the pipeline only
    pipeline.store_all()
    used = time.process_time() - began
    store.close()
    return used / frames * 1e6


def main(chunks: int, tools: int, rich: int, runs: int) -> None:
    folder = Path(tempfile.mkdtemp())
    data, frames = agent_output(folder, chunks, tools, rich)
    asyncio.run(one_run(folder, data, frames))  # the imports and the first store, not counted
    costs = [asyncio.run(one_run(folder, data, frames)) for _ in range(runs)]
    print(f"{frames:,} frames ({chunks:,} chunks, {tools:,} tools, {rich} rich outputs; {len(data) / 1e6:.1f} MB) "
          f"through the transport, the client and the pipeline, {runs} runs: {min(costs):.2f} / "
          f"{statistics.median(costs):.2f} / {max(costs):.2f} µs of CPU a frame (best / median / worst)")


if __name__ == "__main__":
    from benchargs import arguments

    ARGS = arguments(__doc__, ("chunks", int, 5_000, "text chunks"), ("tools", int, 200, "tool calls"),
                     ("rich", int, 50, "rich-output charts"), ("runs", int, 7, "runs"))
    if ARGS.runs < 1:
        sys.exit("reader.py: RUNS must be at least 1")
    main(ARGS.chunks, ARGS.tools, ARGS.rich, ARGS.runs)
