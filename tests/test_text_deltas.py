"""Text travels as deltas: the normaliser keeps an open message as parts and makes a version when the pipeline
flushes (never one per chunk); a version says the text only grew since the message's first (``grown_from``); the
message widget sanitises and appends only what came after the version it holds; a long addition is split into
blocks a slice at a time and drawn near the viewport first; a streamed message's pieces draw what the whole text
draws, so a final message keeps them; and a long open message is stored at most once a second, all of it at the end."""

from __future__ import annotations

import io

from rich.console import Console

from kandev_tui.transcript import IN, OUT, Frame, Normalizer, Store
from kandev_tui.transcript.items import Item
from kandev_tui.transcript.pipeline import Pipeline
from kandev_tui.widgets.markdown_lines import PIECE_CHARS, MarkdownLines

from .app_helpers import apply_now, settle, stored_app

DOCUMENT = "".join(
    f"## Part {n}\n\nThe **build** of `svc-{n}` took {n}.5 s; see [the run](https://ci.example/{n}).\n\n"
    f"- first finding of {n}\n- second, with *emphasis*\n  continued on a line\n\n"
    + (f"```python\ndef f{n}(x):\n\n    return x * {n}\n```\n\n" if n % 3 == 0 else "")
    + (f"> quoted {n}\n> more\n\n| a | b |\n|---|---:|\n| {n} | 2 |\n\n1. one\n2. two\n\n---\n\n" if n % 4 == 0 else "")
    for n in range(1, 25)) + "Last paragraph, still growing"


def chunk(text: str) -> Frame:
    return Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}})


PROMPT = Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                     "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "go"}]}})
END = Frame(IN, {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}})


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


# -- the normaliser and the pipeline ---------------------------------------------------------------------------


def test_chunks_make_no_version_until_the_pipeline_flushes():
    normalizer = Normalizer()
    normalizer.feed(PROMPT)
    first = normalizer.feed(chunk("a"))
    assert [item.payload["text"] for item in first] == ["a"]
    before = Item("probe", "note", 0).version
    for index in range(5000):
        assert normalizer.feed(chunk(f" {index}")) == []  # kept as a part: no copy of the message per chunk
    assert Item("probe", "note", 0).version == before + 1  # no version was made in between
    assert normalizer.growing
    (grown,) = normalizer.settle()
    assert grown.payload["text"] == "a" + "".join(f" {index}" for index in range(5000))
    assert grown.grown_from == first[0].version and not grown.final
    assert normalizer.settle() == [] and not normalizer.growing
    normalizer.feed(chunk(" end"))
    closed = [item for item in normalizer.feed(END) if item.key == grown.key]
    assert closed[-1].final and closed[-1].payload["text"].endswith(" 4999 end")
    assert closed[-1].grown_from == first[0].version  # the final version grew from the first too


def test_a_new_message_id_closes_the_open_text_with_its_parts():
    normalizer = Normalizer()
    normalizer.feed(PROMPT)
    normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "one"}}}}))
    normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": " more"}}}}))
    changed = normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk", "messageId": "m2",
                                     "content": {"type": "text", "text": "two"}}}}))
    assert [(item.payload["text"], item.final) for item in changed] == [("one more", True), ("two", False)]


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


# -- the message's lines ---------------------------------------------------------------------------------------


def test_streamed_pieces_draw_what_the_whole_text_draws():
    whole = MarkdownLines(DOCUMENT)
    for width in (30, 60, 100):
        expected = lines(whole, width)
        for step in (1, 7, 50, 400, len(DOCUMENT)):
            document = streamed(DOCUMENT, step)
            assert lines(document, width) == expected, (width, step)


def test_a_final_message_keeps_its_pieces_and_draws_as_its_replay(monkeypatch):
    document = streamed(DOCUMENT, 9)
    lines(document)
    drawn: list[str] = []
    draw = MarkdownLines._draw
    monkeypatch.setattr(MarkdownLines, "_draw", lambda self, text, *rest: drawn.append(text) or draw(self, text, *rest))
    assert document.update(DOCUMENT, final=True) is False  # nothing to draw again
    assert lines(document) == lines(MarkdownLines(DOCUMENT)) and drawn.count(DOCUMENT) == 1  # (the replay's)


def test_a_reference_definition_makes_the_final_message_drawn_whole():
    text = "See [the run][ci].\n\nMore text.\n\n" + "Filler paragraph.\n\n" * 5 + "[ci]: https://ci.example/run/9\n"
    document = streamed(text, 5)
    assert document.update(text, final=True) is True  # drawn whole: the link in the first piece is named below
    assert lines(document) == lines(MarkdownLines(text))
    links = {s.style.link for strip in MarkdownLines(text).strips(Console(width=60, file=io.StringIO()),
                                                                   Console(width=60).options) for s in strip if s.style}
    assert "https://ci.example/run/9" in links


def test_a_long_addition_is_split_a_slice_at_a_time_and_drawn_near_the_viewport_first(monkeypatch):
    drawn: list[str] = []
    draw = MarkdownLines._draw
    monkeypatch.setattr(MarkdownLines, "_draw", lambda self, text, *rest: drawn.append(text) or draw(self, text, *rest))
    text = DOCUMENT * 20  # about 130 KB arriving in one batch
    document = MarkdownLines("", final=False)
    document.append(text)
    assert 0 < document.backlog < len(text)  # a slice split now, the rest later
    out = Console(width=60, file=io.StringIO())
    first = document.strips(out, out.options, budget=0)
    assert first.pending and len(first) < len(lines(MarkdownLines(text)))
    wanted = range(40, 60)
    drawn.clear()
    document.strips(out, out.options, budget=0.0001, wanted=wanted)
    assert drawn and all(len(piece) < 4 * PIECE_CHARS for piece in drawn)  # no piece is the whole addition
    in_view = [first.pieces_at(wanted)]
    assert in_view[0]  # the rows in view belong to pieces, drawn before any other
    full = document.strips(out, out.options)  # everything, as a search or an export asks
    assert not full.pending and document.backlog == 0
    assert [strip.text for strip in full] == lines(MarkdownLines(text))


# -- the widget ------------------------------------------------------------------------------------------------


async def test_the_message_widget_sanitises_and_appends_only_what_came(tmp_path, monkeypatch):
    from kandev_tui.widgets import agent_message

    sanitised: list[int] = []
    safe_text = agent_message.safe_text
    monkeypatch.setattr(agent_message, "safe_text", lambda text: sanitised.append(len(text)) or safe_text(text))
    normalizer = Normalizer()
    normalizer.feed(PROMPT)
    hostile = ["Start \x1b", "[31mred\u202e", " and on.\n\n"] * 40
    versions = [item for part in hostile[:1] for item in normalizer.feed(chunk(part))]
    for part in hostile[1:]:
        normalizer.feed(chunk(part))
        versions += normalizer.settle()
    versions += [item for item in normalizer.feed(END) if item.kind == "agent_message"]
    app = stored_app(tmp_path, [])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for version in versions:
            apply_now(app, [version])
            await settle(pilot)
        message = app.view.widgets[versions[0].key]
        text = "".join(hostile)
        assert sum(sanitised) <= len(text) * 2  # each character once as it came, once more as the final check
        assert max(sanitised[1:-1]) <= max(len(part) for part in hostile)  # only the deltas
        assert message.searchable_text == safe_text(text) and "\x1b" not in message.searchable_text
        whole = MarkdownLines(safe_text(text))
        assert [s.text for s in message._strips(message.content_region.width, None)] == \
            lines(whole, message.content_region.width)
