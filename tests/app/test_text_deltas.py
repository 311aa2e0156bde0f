"""Text travels as deltas: the normaliser keeps an open message as parts and makes a version when the pipeline
flushes (never one per chunk); a version says the text only grew since the message's first (``grown_from``); the
message widget sanitises and appends only what came after the version it holds; a long addition is split into
blocks a slice at a time and drawn near the viewport first; a streamed message's pieces draw what the whole text
draws, so a final message keeps them; and a long open message is stored at most once a second, all of it at the end."""

from __future__ import annotations

import pytest

from kandev_tui.transcript import Normalizer
from kandev_tui.widgets.markdown_lines import MarkdownLines

from ..support.app_helpers import apply_now, settle, stored_app
from ..support.frames import END, PROMPT, chunk
from ..support.drawing import lines

# -- the widget ------------------------------------------------------------------------------------------------


def counted_sanitising(monkeypatch, module):
    """The lengths of the texts ``module``'s entry makes safe (as they are made safe), and the real ``safe_text``."""
    sanitised: list[int] = []
    safe_text = module.safe_text
    monkeypatch.setattr(module, "safe_text", lambda text: sanitised.append(len(text)) or safe_text(text))
    return sanitised, safe_text


def streamed_versions(parts: list[str], kind: str) -> list:
    """The versions the normaliser makes of one text streamed in ``parts`` (``kind``: the chunks' sessionUpdate), a
    batch per part, then the turn's end."""
    normalizer = Normalizer()
    normalizer.feed(PROMPT)
    versions = list(normalizer.feed(chunk(parts[0], kind)))
    for part in parts[1:]:
        normalizer.feed(chunk(part, kind))
        versions += normalizer.settle()
    return versions + [item for item in normalizer.feed(END) if item.key == versions[0].key]


@pytest.mark.parametrize("kind, module", [("agent_thought_chunk", "thought"), ("user_message_chunk", "user_message")])
async def test_thoughts_and_the_users_messages_take_deltas_as_the_agents_do(tmp_path, monkeypatch, kind, module):
    """A streaming thought (and a user message an agent streams back, loading a session) sanitises only what came
    since the version it holds, as the agent's message does; a collapsed thought draws its body when expanded."""
    import importlib

    entry_module = importlib.import_module(f"kandev_tui.widgets.entries.{module}")
    sanitised, safe_text = counted_sanitising(monkeypatch, entry_module)
    hostile = ["Start \x1b", "[31mred\u202e", " and [b]on[/b].\n\n"] * 40
    versions = streamed_versions(hostile, kind)
    assert len(versions) > 50 and all(v.key == versions[0].key for v in versions)
    app = stored_app(tmp_path, [])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for version in versions:
            apply_now(app, [version])  # (each version in turn, as batches bring them)
        await settle(pilot)
        entry = app.view.widgets[versions[0].key]
        text = "".join(hostile)
        assert sum(sanitised) <= len(text) * 2  # each character once as it came (not the whole text per version)
        assert entry.searchable_text == safe_text(text) and "\x1b" not in entry.searchable_text
        if module == "thought":
            await pilot.click(entry)  # expanded: the body shows all of it
            await settle(pilot)
            assert entry.query_one(".body").render().plain.count("[b]on[/b]") == 40


async def test_the_message_widget_sanitises_and_appends_only_what_came(tmp_path, monkeypatch):
    from kandev_tui.widgets.entries import agent_message

    sanitised, safe_text = counted_sanitising(monkeypatch, agent_message)
    hostile = ["Start \x1b", "[31mred\u202e", " and on.\n\n"] * 40
    versions = streamed_versions(hostile, "agent_message_chunk")
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
