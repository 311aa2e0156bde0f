"""Contract benchmark: validate a ~64 KiB payload and resolve a 256 KiB CSV.

Prints the median of 20 runs of each (targets on the reference machine:
validate ≤ 5 ms, resolve ≤ 25 ms). Run: ``python benchmarks/contract.py``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kandev_tui.presentation import encoded_size, parse_tool_input, resolve_csv  # noqa: E402
from kandev_tui.workspace.reads import Workspace  # noqa: E402

RUNS = 20


def big_payload() -> dict:
    """Four charts of 100 labels x 4 series, labels padded to just under 65,536 bytes."""
    blocks = [
        {"type": "chart", "chart_type": "line" if b % 2 else "bar", "title": f"Chart {b}", "summary": "s" * 200,
         "labels": [f"label-{i:03d}" for i in range(100)],
         "series": [{"label": f"series {s}", "values": [i * 1.5 + s for i in range(100)]} for s in range(4)]}
        for b in range(4)
    ]
    doc = {"version": 1, "title": "Benchmark", "description": "d" * 500, "blocks": blocks}
    for i in range(400):  # pad labels with 3-byte characters until just under the limit
        chart, index = blocks[i % 4], i // 4
        while len(chart["labels"][index]) < 120 and encoded_size(doc) < 65_536 - 100:
            chart["labels"][index] += "€" * min(10, 120 - len(chart["labels"][index]))
        if encoded_size(doc) >= 65_536 - 100:
            break
    assert 65_000 < encoded_size(doc) <= 65_536
    return doc


def big_csv(directory: Path) -> None:
    """100 data rows of 40 columns, padded to exactly 262,144 bytes."""
    header = "at," + ",".join(f"c{j}" for j in range(39)) + ",pad\n"
    rows = [f"2026-08-{(i % 28) + 1:02d}T{i % 24:02d}:00:00Z," + ",".join(f"{(i * j) % 997}.{j}" for j in range(39)) + ","
            for i in range(100)]
    body = header + "\n".join(rows)
    pad = 262_144 - len(body.encode()) - 1
    body = body + "p" * pad + "\n"
    assert len(body.encode()) == 262_144
    (directory / "data.csv").write_text(body)


def median_ms(fn) -> float:
    samples = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    payload = big_payload()
    parse_tool_input(payload)  # warm up
    validate_ms = median_ms(lambda: parse_tool_input(payload))
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        big_csv(directory)
        doc = {"version": 1, "title": "CSV", "blocks": [
            {"type": "chart", "chart_type": "line", "title": f"c{k}", "summary": "s",
             "csv": {"path": "data.csv", "x_column": "at", "series": [{"column": f"c{k * 4 + s}"} for s in range(4)]}}
            for k in range(4)]}
        presentation = parse_tool_input(doc)
        workspace = Workspace(directory)
        resolve_csv(presentation, workspace)
        resolve_ms = median_ms(lambda: resolve_csv(presentation, workspace))
    print(f"validate {encoded_size(payload):,}-byte payload: median {validate_ms:.2f} ms over {RUNS} runs (target <= 5 ms)")
    print(f"resolve 262,144-byte CSV (4 charts x 4 series): median {resolve_ms:.2f} ms over {RUNS} runs (target <= 25 ms)")


if __name__ == "__main__":
    from benchargs import arguments

    arguments(__doc__)
    main()
