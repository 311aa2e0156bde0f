"""Text travels as deltas: the normaliser keeps an open message as parts and makes a version when the pipeline
flushes (never one per chunk); a version says the text only grew since the message's first (``grown_from``); the
message widget sanitises and appends only what came after the version it holds; a long addition is split into
blocks a slice at a time and drawn near the viewport first; a streamed message's pieces draw what the whole text
draws, so a final message keeps them; and a long open message is stored at most once a second, all of it at the end."""

from __future__ import annotations

from kandev_tui.transcript import Store
from kandev_tui.transcript.items import Item
from kandev_tui.transcript.pipeline import Pipeline

from ..support.frames import PROMPT, chunk


def test_the_pipeline_stores_and_shows_the_whole_text_once_per_batch(tmp_path):
    store = Store(tmp_path / "s.db")
    session = store.create_session(agent_command=["x"], workspace=str(tmp_path))
    shown: list[list[Item]] = []
    pipeline = Pipeline(store, session, listener=shown.append)
    pipeline.feed(PROMPT)
    words = [f"w{index} " for index in range(3000)]
    pipeline.feed_many([chunk(word) for word in words])  # one batch, as a flood's
    message = [item for batch in shown for item in batch if item.kind == "agent_message"]
    assert len(message) == 2 and message[-1].payload["text"] == "".join(words)  # the first, then the whole
    assert store.items(session)[-1].payload["text"] == "".join(words)
    pipeline.close()
    store.close()


def test_a_long_open_message_is_stored_at_most_once_a_second_and_whole_at_the_end(tmp_path, monkeypatch):
    from kandev_tui.transcript import pipeline as pipeline_module

    monkeypatch.setattr(pipeline_module, "STORE_LONG_TEXT_EVERY", 3600.0)
    store = Store(tmp_path / "s.db")
    session = store.create_session(agent_command=["x"], workspace=str(tmp_path))
    shown: list[Item] = []
    pipeline = Pipeline(store, session, listener=lambda items: shown.extend(items))
    pipeline.feed(PROMPT)
    block = "x" * 1000 + "\n\n"
    for _ in range(200):  # no event loop: each frame is a batch of its own
        pipeline.feed(chunk(block))
    assert len(shown[-1].payload["text"]) == 200 * len(block)  # every batch is shown
    stored = store.items(session)[-1].payload["text"]
    assert len(stored) < pipeline_module.LONG_TEXT + 2 * len(block)  # stored when it crossed the length, not since
    pipeline.close()  # the source stops: all of it is stored
    assert store.items(session)[-1].payload["text"] == block * 200
    store.close()
