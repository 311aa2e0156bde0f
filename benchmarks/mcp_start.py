"""``kandev-tui mcp`` start-up: from starting the process to the answer to ``tools/list``, as an agent sees it.

Codex, among others, starts its MCP servers in the background and does not wait for them: a tool listed later than
the agent's first model request is missing from that turn. Each run starts ``python -m kandev_tui mcp`` (the
command kandev-tui offers agents), sends ``initialize``, ``notifications/initialized`` and ``tools/list`` at once,
as a client does, and times the two answers. Prints the median and worst of ``--runs`` (default 10) runs, from
bytecode as an installed kandev-tui runs (one run uncounted), and, with ``--load``, the same while both cores are
kept busy. Target: tools/list answered within 0.2 s (median).

Run: python benchmarks/mcp_start.py [--runs 10] [--load]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode, as installed
REQUESTS = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def once(workspace: str) -> tuple[float, float]:
    """(initialize answered, tools/list answered), seconds from the start of the process."""
    start = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "kandev_tui", "mcp", "--workspace", workspace], env=ENV,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(b"".join(json.dumps(r).encode() + b"\n" for r in REQUESTS))
    server.stdin.flush()
    answered: dict[int, float] = {}
    while len(answered) < 2:
        line = server.stdout.readline()
        if not line:
            raise SystemExit("the server ended before it answered")
        reply = json.loads(line)
        answered[reply["id"]] = time.perf_counter() - start
        if reply["id"] == 2:
            assert reply["result"]["tools"][0]["name"] == "show_rich_output_kandev", reply
    server.stdin.close()
    server.wait(timeout=30)
    return answered[1], answered[2]


def measure(runs: int, workspace: str) -> list[tuple[float, float]]:
    once(workspace)  # writes the bytecode; uncounted
    return [once(workspace) for _ in range(runs)]


def report(label: str, results: list[tuple[float, float]]) -> None:
    init = [r[0] for r in results]
    listed = [r[1] for r in results]
    print(f"{label}: initialize answered median {statistics.median(init) * 1000:.0f} ms; tools/list answered "
          f"median {statistics.median(listed) * 1000:.0f} ms, worst {max(listed) * 1000:.0f} ms "
          f"({len(results)} runs; target <= 200 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--load", action="store_true", help="also measure with both cores kept busy")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workspace:
        report("idle machine", measure(args.runs, workspace))
        if args.load:
            burners = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(os.cpu_count() or 2)]
            try:
                report(f"{len(burners)} cores kept busy", measure(args.runs, workspace))
            finally:
                for burner in burners:
                    burner.kill()
                    burner.wait()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    main()
