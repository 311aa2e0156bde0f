"""``/`` in the sessions list searches every stored session (issue 62, item 7): the hits listed with their session,
turn and the words around the match; enter opens that session read-only at the hit, the word marked."""

from __future__ import annotations

from kandev_tui.screens.sessions import SessionsScreen
from kandev_tui.transcript.items import Item

from ..support.app_helpers import home_app, settle, until


def stored(store, title: str, texts: list[str]) -> str:
    session = store.create_session(title=title, agent_command=["agent"], workspace="/w", state="ended")
    store.upsert_items(session, [Item(f"message:{n}", "agent_message", n + 1, {"text": text})
                                 for n, text in enumerate(texts)])
    return session


async def test_slash_finds_the_words_in_every_stored_session_and_enter_opens_one_at_the_hit(tmp_path):
    app, store = home_app(tmp_path)
    filler = [f"Paragraph {n} of an earlier answer about nothing in particular." for n in range(80)]
    wanted = stored(store, "Birds", [*filler, "The pelican \x1b[31mlanded\x1b[0m on the pier.", "After it."])
    stored(store, "Other", ["Nothing about birds here."])
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.stored)
        listing = app.screen
        await pilot.press("slash")
        assert listing.search_box.has_focus
        await pilot.press(*"PELICAN", "enter")
        await until(pilot, lambda: listing.hits)
        assert [(hit.session_id, hit.key, hit.turn) for hit in listing.hits] == [(wanted, "message:80", 81)]
        shown = listing.options.get_option_at_index(listing.options.highlighted).prompt
        assert "Birds" in shown.plain and "pelican" in shown.plain and "\x1b" not in shown.plain
        await pilot.press("enter")
        await until(pilot, lambda: app.sessions and app.current.status.session_id == wanted)
        view = app.view
        await until(pilot, lambda: "message:80" in view.widgets
                    and view.widgets["message:80"].hit_needle == "pelican")  # shown, the word marked
        assert not view.following  # left at the hit, not at the end
        await settle(pilot)


async def test_escape_closes_the_search_first_and_a_search_of_nothing_found_says_so(tmp_path):
    app, store = home_app(tmp_path)
    stored(store, "Birds", ["The pelican landed."])
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.stored)
        listing = app.screen
        await pilot.press("slash", *"albatross", "enter")
        await until(pilot, lambda: listing.found_for == "albatross")
        texts = [listing.options.get_option_at_index(i).prompt for i in range(listing.options.option_count)]
        assert any("Found in stored sessions: 0 items with 'albatross'" in str(text) for text in texts)
        await pilot.press("escape")
        assert not listing.found_for and not listing.search_box.has_class("-shown")
        assert app.screen is listing  # the home list stays
