"""Ingest benchmark: a recorded stream of 100,000 frames through the normaliser and the store.

Prints frames/s and peak memory (tracemalloc) for 25,000, 50,000 and 100,000 frames, so
that memory growth with stream length is visible. Target: >= 20,000 frames/s, memory that
does not grow with the stream beyond the stored rows. Run: python benchmarks/ingest.py
"""

from __future__ import annotations

import gc
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kandev_tui.transcript import IN, OUT, Frame, RecordingWriter, Store, read_recording  # noqa: E402
from kandev_tui.transcript.pipeline import Pipeline  # noqa: E402

BATCH = 256  # frames per store transaction, as the app batches per screen frame


def update(session: str, body: dict) -> dict:
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": body}}


def synthetic_stream(count: int):
    """Turns of streamed chunks interleaved with tool calls (pending → in_progress → completed)."""
    emitted = 0
    turn = 0
    while emitted < count:
        turn += 1
        yield Frame(OUT, {"jsonrpc": "2.0", "id": turn, "method": "session/prompt",
                          "params": {"sessionId": "b", "prompt": [{"type": "text", "text": f"turn {turn}"}]}})
        emitted += 1
        for block in range(20):
            for n in range(40):
                yield Frame(IN, update("b", {"sessionUpdate": "agent_message_chunk",
                                             "content": {"type": "text", "text": f"word{n} and some more text "}}))
            call = f"t{turn}-{block}"
            yield Frame(IN, update("b", {"sessionUpdate": "tool_call", "toolCallId": call, "title": "Read file",
                                         "kind": "read", "status": "pending", "rawInput": {"path": f"src/f{block}.py"}}))
            yield Frame(IN, update("b", {"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "in_progress"}))
            yield Frame(IN, update("b", {"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed",
                                         "rawOutput": "x = 1\n" * 20}))
            emitted += 43
        yield Frame(IN, {"jsonrpc": "2.0", "id": turn, "result": {"stopReason": "end_turn"}})
        emitted += 1


def write_recording(path: Path, count: int) -> int:
    writer = RecordingWriter(path)
    n = 0
    for frame in synthetic_stream(count):
        writer.write(frame)
        n += 1
        if n >= count:
            break
    writer.close()
    return n


def ingest(recording: Path, db: Path, trace: bool) -> tuple[int, float, int, int]:
    """Read the recording line by line, normalise and store in batches.

    Returns (frames, seconds, peak traced bytes, stored rows). Timing runs are
    made without tracemalloc, which slows allocation several times over.
    """
    store = Store(db)
    session = store.create_session(title="bench")
    pipeline = Pipeline(store, session)
    gc.collect()
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    batch: list[Frame] = []
    for frame in read_recording(recording):
        batch.append(frame)
        if len(batch) == BATCH:
            pipeline.feed_many(batch)
            batch = []
    pipeline.feed_many(batch)
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] if trace else 0
    if trace:
        tracemalloc.stop()
    rows = store.item_count(session)
    store.close()
    return pipeline.frames, elapsed, peak, rows


def main() -> None:
    print(f"{'frames':>8}  {'frames/s':>10}  {'peak MiB (read+ingest)':>22}  {'stored rows':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        for count in (25_000, 50_000, 100_000):
            recording = Path(tmp) / f"rec-{count}.jsonl"
            write_recording(recording, count)
            n, elapsed, _, rows = ingest(recording, Path(tmp) / f"s-{count}.db", trace=False)
            _, _, peak, _ = ingest(recording, Path(tmp) / f"m-{count}.db", trace=True)
            print(f"{n:>8,}  {n / elapsed:>10,.0f}  {peak / 2**20:>22.2f}  {rows:>11,}")
    print("target: >= 20,000 frames/s; peak memory flat as the stream grows (traced Python allocations)")


if __name__ == "__main__":
    from benchargs import arguments

    arguments(__doc__)
    main()
