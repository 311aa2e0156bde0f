"""The long fuzz run: 10,000 hypothesis examples per target (CI runs a few hundred).

Targets: the contract parser on any JSON and on near-valid documents, the stored-call reader, the
CSV reader (tests/unit/test_properties.py), and the render path through the real app for rich output,
generic tool calls and fleet cards (tests/app/test_fuzz_render.py). Prints examples, time and the
pytest outcome per file; exits non-zero if anything failed.

    .venv/bin/python benchmarks/fuzz.py [EXAMPLES]      # or: make fuzz
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(test_file: str, env_var: str, examples: int) -> tuple[int, float, str]:
    env = {**os.environ, env_var: str(examples), "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}
    started = time.perf_counter()
    # --timeout=0: the suite's 5-minute limit per test is for CI; 10,000 examples take longer
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout=0", test_file],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    if done.returncode:
        print(done.stdout[-4000:], file=sys.stderr)
    return done.returncode, elapsed, last


def main(examples: int) -> int:
    failures = 0
    for test_file, env_var, targets in (
        ("tests/unit/test_properties.py", "KANDEV_FUZZ_EXAMPLES", "parse any JSON, near-valid documents, stored calls, CSV text"),
        ("tests/app/test_fuzz_render.py", "KANDEV_FUZZ_RENDER", "rich output, generic tool calls, fleet cards in the app"),
    ):
        code, elapsed, last = run(test_file, env_var, examples)
        failures += code != 0
        print(f"{test_file}: {examples:,} examples per target ({targets}): {elapsed:,.0f} s, {last}")
    return 1 if failures else 0


if __name__ == "__main__":
    from benchargs import arguments

    sys.exit(main(arguments(__doc__, ("examples", int, 10_000, "hypothesis examples per target")).examples))
