"""What the agent tells the user beside its messages (ACP notices and context compaction): items of their own, drawn
by severity and status, stored, exported, searchable; with the dialect kit's agent (a real process) in the app."""

from __future__ import annotations

from kandev_tui.transcript.frames import IN, Frame
from kandev_tui.transcript.normalize import Normalizer
from kandev_tui.ui.textual_hooks import screen_text


async def test_a_run_of_lines_that_are_not_json_rpc_shows_its_first_five_and_how_many_more(tmp_path):
    """``yes`` as the agent: thousands of lines, one error on screen with the first lines and the count of the rest."""
    from ..support.app_helpers import settle, stored_app

    normalizer = Normalizer()
    items = [normalizer.feed(Frame.now(IN, raw=f"line {n}", size=7))[0] for n in range(60)]
    app = stored_app(tmp_path, [items[-1].but(final=True)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "The agent wrote 60 lines that are not JSON-RPC (420 bytes; the first" in text
        assert [f"line {n}" in text for n in range(6)] == [True] * 5 + [False]
        assert "… and 55 more lines" in text
