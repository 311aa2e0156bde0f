"""An agent's questions (ACP elicitation) in the app, with the dialect kit's agent (a real process): the form takes
the focus, is answered by keys, checked field by field, reviewed and sent, and the agent receives what was sent;
decline and cancel; a form kandev-tui cannot show is declined for the user; the agent withdraws one; every question
is stored as it ended."""

from __future__ import annotations

import json
import os

import pytest
from textual.widgets import Button, Input, Select, Static

from kandev_tui.acp import AgentOptions
from kandev_tui.app.kandev_app import KandevApp
from kandev_tui.transcript import Store
from kandev_tui.ui.textual_hooks import screen_text
from kandev_tui.widgets.entries.elicitation import ElicitationCard

from ..support.app_helpers import stored_app, until
from ..support.cli import KANDEV
from ..support.kit import KIT, agent_text, kit_app

FORM = {"mode": "form", "message": "Which release should I cut?", "requestedSchema": {
    "type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "title": "Release name", "minLength": 3},
        "count": {"type": "integer", "title": "Builds", "minimum": 1, "maximum": 3, "default": 1},
        "channel": {"type": "string", "title": "Channel",
                    "oneOf": [{"const": "beta", "title": "Beta"}, {"const": "stable", "title": "Stable"}]},
        "notify": {"type": "boolean", "title": "Tell the team"}}}}


def said(app: KandevApp) -> dict:
    """What the kit's agent says it received (its message ``answer: {json}``)."""
    return json.loads(agent_text(app).split("answer: ", 1)[1])


def title_of(widget) -> str:
    """The first line a card draws (its mark and who asks)."""
    return widget.query(Static).first().render_line(0).text.strip()


def card(app: KandevApp) -> ElicitationCard | None:
    return next(iter(app.query(ElicitationCard)), None)
async def test_a_form_is_answered_by_keys_checked_reviewed_and_sent(tmp_path):
    store, app = kit_app(tmp_path, [{"op": "elicit", "params": FORM}])
    async with app.run_test(size=(90, 40)) as pilot:
        await until(pilot, lambda: card(app) is not None and card(app).answerable)
        await until(pilot, lambda: isinstance(app.focused, Input))  # the first field takes the typing
        text = screen_text(app)
        assert "dialect-agent asks" in text and "Which release should I cut?" in text and "Release name *" in text
        await pilot.press("v", "1", "tab")  # too short; the builds keep their default
        await pilot.press("tab", "down", "enter")  # the channel: the second option... (a radio set: arrows, enter)
        focused = app.focused
        while not (isinstance(focused, Button) and focused.id == "review"):
            await pilot.press("tab")
            focused = app.focused
        await pilot.press("enter")
        await until(pilot, lambda: "at least 3 characters" in screen_text(app))
        assert isinstance(app.focused, Input) and app.focused.id == "field-0"  # back to the field at fault
        await pilot.press("end", ".", "0")
        while not (isinstance(app.focused, Button) and app.focused.id == "review"):
            await pilot.press("tab")
        await pilot.press("enter")
        await until(pilot, lambda: "Send this answer?" in screen_text(app))
        text = screen_text(app)
        assert "Release name: v1.0" in text and "Builds: 1" in text and "Tell the team: no" in text
        await pilot.press("enter")  # Send has the focus
        await until(pilot, lambda: app.current.last_state == "idle" and "answer: " in agent_text(app))
        got = said(app)
        assert got["action"] == "accept"
        assert got["content"]["name"] == "v1.0" and got["content"]["count"] == 1 and got["content"]["notify"] is False
        assert got["content"]["channel"] in ("beta", "stable")
        assert "sent" in screen_text(app) and not card(app).answerable
        await app.action_quit()
    (session,) = store.sessions()
    items = store.items(session["id"])
    (stored,) = [i for i in items if i.kind == "elicitation"]
    assert stored.status == "accepted" and stored.payload["answer"]["content"]["name"] == "v1.0"
    # stored, it reads as it ended: the question, what was sent; in the export and the search too
    from kandev_tui.session.search import item_mentions
    from kandev_tui.transcript.export import session_markdown

    markdown = session_markdown(session, items)
    assert "Question from dialect-agent: **Which release should I cut?**: accepted" in markdown
    assert "  - Release name: v1.0" in markdown and "  - Tell the team: no" in markdown
    assert item_mentions(stored, "v1.0")
    later = stored_app(tmp_path / "later", items)
    async with later.run_test(size=(90, 40)) as pilot:
        await until(pilot, lambda: "Release name: v1.0" in screen_text(later))
        assert "↳ sent" in screen_text(later) and not card(later).query(Input)  # answered: no form any more
        assert title_of(card(later)).startswith("✔ dialect-agent asks")  # not "?": it no longer asks
async def test_escape_cancels_a_question_and_decline_declines(tmp_path):
    store, app = kit_app(tmp_path, [{"op": "elicit", "params": FORM}, {"op": "elicit", "params": FORM}])
    async with app.run_test(size=(90, 40)) as pilot:
        await until(pilot, lambda: card(app) is not None and card(app).answerable)
        await pilot.press("escape")  # in the card: the question, not the turn
        def second_can_decline() -> bool:  # answerable as it is made, its buttons once mounted: wait for the button
            cards = app.query(ElicitationCard)
            buttons = cards[1].query("#decline") if len(cards) == 2 and cards[1].answerable else None
            return bool(buttons) and not buttons.first(Button).disabled

        await until(pilot, second_can_decline)
        second = app.query(ElicitationCard)[1]
        second.query_one("#decline", Button).press()
        # the items the state's change follows may be applied a moment later: wait for the words, not the state
        await until(pilot, lambda: app.current.last_state == "idle" and agent_text(app).count("answer: ") == 2)
        assert '{"action": "cancel"}' in agent_text(app) and '{"action": "decline"}' in agent_text(app)
        # answered, neither asks any more: each is marked by how it ended, not with the waiting "?"
        await until(pilot, lambda: [title_of(c)[:2] for c in app.query(ElicitationCard)] == ["⊘ ", "✖ "])
        await app.action_quit()
    (session,) = store.sessions()
    assert [i.status for i in store.items(session["id"]) if i.kind == "elicitation"] == ["cancelled", "declined"]
async def test_a_form_outside_the_subset_is_declined_for_the_user_with_the_reason(tmp_path):
    nested = {"mode": "form", "message": "Deep", "requestedSchema": {"type": "object", "properties": {
        "inner": {"type": "object", "properties": {"x": {"type": "string"}}}}}}
    store, app = kit_app(tmp_path, [{"op": "elicit", "params": nested}])
    async with app.run_test(size=(90, 30)) as pilot:
        # the items the state's change follows may be applied a moment later: wait for the words, not the state (a
        # loaded machine's CI run read the agent's answer before it was placed)
        await until(pilot, lambda: app.current.last_state == "idle" and "answer: " in agent_text(app)
                    and "declined: field 'inner' is a nested object" in screen_text(app))
        assert 'answer: {"action": "decline"}' in agent_text(app)
        await app.action_quit()
async def test_the_app_offers_questions_to_the_agent_and_a_headless_run_does_not(tmp_path):
    _, app = kit_app(tmp_path, [{"op": "caps"}])
    async with app.run_test(size=(90, 30)) as pilot:
        await until(pilot, lambda: app.current.last_state == "idle" and "caps: " in agent_text(app))
        caps = json.loads(agent_text(app).split("caps: ", 1)[1])
        assert caps["elicitation"] == {"form": {}, "url": {}}
        await app.action_quit()
    from kandev_tui.sources.runner import run_turn

    out = (tmp_path / "out.jsonl").open("w")
    env = {**os.environ, "DIALECT": json.dumps({"steps": [{"op": "caps"}]})}
    options = AgentOptions(command=KIT, workspace=tmp_path / "w", env=env)
    code, _, _ = await run_turn(options, "go", Store(tmp_path / "h.db"), out=out)
    assert code == 0
    out.close()
    lines = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    text = "".join(line.get("payload", {}).get("text", "") for line in lines if line.get("kind") == "agent_message")
    assert "elicitation" not in json.loads(text.split("caps: ", 1)[1])  # nobody to answer: not offered
async def test_a_question_the_agent_withdraws_is_shown_withdrawn_and_answered_as_the_spec_says(tmp_path):
    gate = tmp_path / "withdraw"
    store, app = kit_app(tmp_path, [{"op": "elicit", "params": FORM, "withdraw_when": str(gate)}])
    async with app.run_test(size=(90, 40)) as pilot:
        await until(pilot, lambda: card(app) is not None and card(app).answerable)
        gate.write_text("")
        await until(pilot, lambda: app.current.last_state == "idle" and "answer: " in agent_text(app))
        assert said(app)["code"] == -32800  # the request's error: cancelled
        await until(pilot, lambda: "withdrawn by the agent" in screen_text(app))
        assert not card(app).answerable and app.current.waiting_since is None
        await app.action_quit()
    (session,) = store.sessions()
    assert [i.status for i in store.items(session["id"]) if i.kind == "elicitation"] == ["withdrawn"]


def test_a_link_is_opened_only_with_consent_in_a_real_terminal_and_its_completion_is_shown(tmp_path):
    """In tmux: the question names the link's host; enter on "Open" runs the user's browser ($BROWSER, here a script
    that notes the URL), the agent hears "accept", and its elicitation/complete closes the card as done."""
    import shlex
    import shutil

    from ..support.tmux import Tmux

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > {shlex.quote(str(opened))}\n')
    browser.chmod(0o755)
    (tmp_path / "w").mkdir()
    url = "https://login.example.com/device?code=42"
    dialect = {"steps": [{"op": "elicit", "complete": True, "params": {
        "mode": "url", "message": "Sign in to continue", "url": url, "elicitationId": "e-7"}}]}
    env = {"KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "TERM": "xterm-256color", "BROWSER": str(browser), "DIALECT": shlex.quote(json.dumps(dialect))}
    command = f"{KANDEV} run --workspace {tmp_path / 'w'} --prompt go -- {' '.join(map(shlex.quote, KIT))}"
    tmux = Tmux(100, 30, command, env)
    try:
        tmux.wait_for("Opens login.example.com", 60)
        tmux.wait_for("Sign in to continue", 30)
        assert not opened.exists()  # nothing opens before the user says so
        tmux.keys("Enter")  # "Open login.example.com" has the focus
        tmux.wait_for('answer: {"action": "accept"}', 60)
        assert opened.read_text() == url
        tmux.wait_for("↳ done", 30)
        tmux.keys("C-q")
    finally:
        tmux.close()


def test_a_headless_run_declines_a_question_and_prints_it(tmp_path):
    """Nobody to ask (``run --headless``): the question is not offered; an agent that asks anyway is declined, and
    the question is printed as a JSON line, as it ended."""
    import subprocess

    (tmp_path / "w").mkdir()
    env = {**os.environ, "KANDEV_TUI_DB": str(tmp_path / "s.db"), "KANDEV_TUI_CONFIG": str(tmp_path / "c.toml"),
           "DIALECT": json.dumps({"steps": [{"op": "elicit", "params": FORM}]})}
    done = subprocess.run([KANDEV, "run", "--headless", "--workspace", str(tmp_path / "w"), "--prompt", "go", "--", *KIT],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    (asked,) = [line for line in lines if line.get("kind") == "elicitation"]
    assert asked["status"] == "declined" and asked["payload"]["message"] == "Which release should I cut?"
    assert any('answer: {"action": "decline"}' in line.get("payload", {}).get("text", "") for line in lines)
@pytest.mark.reliability("Agent requests: questions", "a question of 13 and of 500 choices, with no default, a default "
                         "among them and a default that is none of them", cases=4,
                         held="a drop-down that answers; no crash")
async def test_a_question_with_many_choices_is_a_drop_down_whatever_its_default(tmp_path):
    def question(count: int, default: str | None) -> dict:
        field = {"type": "string", "title": "Region", "enum": [f"r{n}" for n in range(count)]}
        return {"mode": "form", "message": f"Which of {count}?", "requestedSchema": {
            "type": "object", "properties": {"region": field if default is None else {**field, "default": default}}}}

    cases = [(13, None), (13, "r12"), (500, "r499"), (500, "nowhere")]
    steps = [{"op": "elicit", "params": question(count, default)} for count, default in cases]
    store, app = kit_app(tmp_path, steps)

    def newest() -> ElicitationCard | None:
        cards = list(app.query(ElicitationCard))
        return cards[-1] if cards else None

    async with app.run_test(size=(90, 40)) as pilot:
        for count, default in cases:
            await until(pilot, lambda count=count: newest() is not None and newest().answerable
                        and f"Which of {count}?" in newest().searchable_text)
            shown = str(newest().query_one(Select).value)
            assert shown == (default if default not in (None, "nowhere") else str(Select.NULL)), (count, default)
            assert ("Choose…" in screen_text(app)) == (default in (None, "nowhere"))
            asked = newest()
            await until(pilot, lambda asked=asked: not asked.query_one("#decline", Button).disabled)
            asked.query_one("#decline", Button).press()  # declined: the next question comes (the newest card then)
            await until(pilot, lambda asked=asked: not asked.answerable)
        assert app.is_running
        await app.action_quit()
    answers = [i.status for i in store.items(store.sessions()[0]["id"]) if i.kind == "elicitation"]
    assert answers == ["declined"] * len(cases)


ONE_QUESTION = {"mode": "form", "message": "Which database should the service use?", "requestedSchema": {
    "type": "object", "properties": {
        "question_0": {"type": "string", "title": "Database",
                       "oneOf": [{"const": "Postgres", "title": "Postgres — the team knows it"},
                                 {"const": "SQLite", "title": "SQLite — one file, no server"}]},
        "question_0_custom": {"type": "string", "title": "Other", "description": "Your own answer instead"}}}}
@pytest.mark.parametrize("keys", [("2",), ("down", "enter")], ids=["digit", "arrow-enter"])
async def test_a_question_with_one_list_of_options_is_answered_in_two_keys_at_most(tmp_path, keys):
    """One single-choice field beside an optional free-text one (Claude's AskUserQuestion with one question, as its
    adapter sends it): a digit, or an arrow and enter, chooses and sends; no review step."""
    _, app = kit_app(tmp_path, [{"op": "elicit", "params": ONE_QUESTION}])
    async with app.run_test(size=(90, 40)) as pilot:
        await until(pilot, lambda: card(app) is not None and card(app).answerable)
        await until(pilot, lambda: app.focused is not None and card(app) in app.focused.ancestors_with_self)
        assert "1-9 or enter on an option answers" in screen_text(app)
        await pilot.press(*keys)
        await until(pilot, lambda: app.current.last_state == "idle" and "answer: " in agent_text(app))
        assert said(app) == {"action": "accept", "content": {"question_0": "SQLite"}}
        assert "Send this answer?" not in screen_text(app) and not card(app).answerable
        await app.action_quit()
async def test_an_answer_typed_beside_the_options_goes_through_the_review(tmp_path):
    """Typed in the free-text field, a digit is text and enter goes on: the answer is reviewed and sent as typed."""
    _, app = kit_app(tmp_path, [{"op": "elicit", "params": ONE_QUESTION}])
    async with app.run_test(size=(90, 40)) as pilot:
        await until(pilot, lambda: card(app) is not None and card(app).answerable)
        await until(pilot, lambda: app.focused is not None and card(app) in app.focused.ancestors_with_self)
        await pilot.press("tab")
        await until(pilot, lambda: isinstance(app.focused, Input))
        await pilot.press(*"MySQL 8", "enter")  # "8" typed, not an answer; enter: on to the buttons
        while not (isinstance(app.focused, Button) and app.focused.id == "review"):
            await pilot.press("tab")
        await pilot.press("enter")
        await until(pilot, lambda: "Send this answer?" in screen_text(app))
        await pilot.press("enter")
        await until(pilot, lambda: app.current.last_state == "idle" and "answer: " in agent_text(app))
        assert said(app) == {"action": "accept", "content": {"question_0_custom": "MySQL 8"}}
        await app.action_quit()
