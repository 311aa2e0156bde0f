"""Session control: logging in, modes and models, slash commands, continuing a session, the guidance out of titles,
and calling the user's attention; with the real demo agent process (modes, a model option, commands, a login) and
headless runs of the real command line. The real adapters' side is in tests/system/test_real_agents.py."""

from __future__ import annotations

import pytest

from kandev_tui.session.controls import Controls
from kandev_tui.transcript import IN, OUT, Frame, Normalizer

CLAUDE_SETUP = {"sessionId": "s1", "modes": {"currentModeId": "default", "availableModes": [
    {"id": "default", "name": "Default"}, {"id": "plan", "name": "Plan Mode"}]}, "configOptions": [
    {"id": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": "default",
     "options": [{"value": "default", "name": "Default"}, {"value": "plan", "name": "Plan Mode"}]},
    {"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": "default",
     "options": [{"value": "default", "name": "Default (recommended)"}, {"value": "sonnet", "name": "Sonnet"}]}]}
CODEX_SETUP = {"sessionId": "s2", "models": {"currentModelId": "gpt-5.5[medium]", "availableModels": [
    {"modelId": "gpt-5.5[medium]", "name": "5.5 (medium)"}, {"modelId": "gpt-5.5[xhigh]", "name": "5.5 (xhigh)"}]},
    "modes": {"currentModeId": "agent", "availableModes": [{"id": "read-only", "name": "Read-only"},
                                                           {"id": "agent", "name": "Auto review"}]},
    "configOptions": [{"id": "mode", "category": "mode", "type": "select", "currentValue": "agent", "name": "Mode",
                       "options": [{"value": "read-only", "name": "Read-only"}, {"value": "agent", "name": "Auto review"}]},
                      {"id": "model", "category": "model", "type": "select", "currentValue": "gpt-5.5", "name": "Model",
                       "options": [{"value": "gpt-5.5", "name": "gpt-5.5"}, {"value": "gpt-6", "name": "gpt-6"}]}]}


def setup_items(setup: dict, *updates: dict) -> list:
    """What the normaliser makes of a session/new answer and then session/update notifications."""
    normalizer = Normalizer()
    items = normalizer.feed(Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/w"}}))
    items += normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "id": 1, "result": setup}))
    for update in updates:
        items += normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "method": "session/update",
                                            "params": {"sessionId": "s", "update": update}}))
    return items


# -- what the agent offers, read from the session's setup and updates ----------------------------------------------

def test_the_setup_of_a_session_gives_its_modes_and_models_by_name():
    controls = Controls(setup_items(CLAUDE_SETUP)[-1].payload)
    assert [c.name for c in controls.controls] == ["Mode", "Model"] and controls.summary() == "Default · Default (recommended)"
    method, params = controls.by_category("mode").request("plan")
    assert (method, params) == ("session/set_config_option", {"configId": "mode", "value": "plan"})


def test_a_mode_changed_by_the_agent_shows_in_the_mode_option_too():
    items = setup_items(CLAUDE_SETUP, {"sessionUpdate": "current_mode_update", "currentModeId": "plan"})
    assert Controls(items[-1].payload).summary().startswith("Plan Mode")


def test_a_choice_the_agent_accepted_is_the_current_one():
    normalizer = Normalizer()
    normalizer.feed(Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {}}))
    normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "id": 1, "result": CLAUDE_SETUP}))
    normalizer.feed(Frame(OUT, {"jsonrpc": "2.0", "id": 2, "method": "session/set_config_option",
                                "params": {"sessionId": "s1", "configId": "model", "value": "sonnet"}}))
    assert normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "no"}})) == []
    normalizer.feed(Frame(OUT, {"jsonrpc": "2.0", "id": 3, "method": "session/set_config_option",
                                "params": {"sessionId": "s1", "configId": "model", "value": "sonnet"}}))
    accepted = normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "id": 3, "result": {}}))
    assert Controls(accepted[-1].payload).summary() == "Default · Sonnet"


def test_a_model_is_a_value_of_the_model_option_or_an_id_of_the_older_list_with_its_effort():
    controls = Controls(setup_items(CODEX_SETUP)[-1].payload)
    control, value = controls.resolve("model", "gpt-5.5")
    assert control.request(value) == ("session/set_config_option", {"configId": "model", "value": "gpt-5.5"})
    control, value = controls.resolve("model", "gpt-5.5[xhigh]")
    assert control.request(value) == ("session/set_model", {"modelId": "gpt-5.5[xhigh]"})
    with pytest.raises(ValueError, match="offers: gpt-5.5, gpt-6, gpt-5.5\\[medium\\], gpt-5.5\\[xhigh\\]"):
        controls.resolve("model", "gpt-4")
    with pytest.raises(ValueError, match="offers: read-only, agent"):
        controls.resolve("mode", "yolo")


def test_slash_commands_keep_their_description_and_input_hint_and_match_as_typed():
    items = setup_items(CLAUDE_SETUP, {"sessionUpdate": "available_commands_update", "availableCommands": [
        {"name": "debug", "description": "Debug logging", "input": {"hint": "[issue]"}},
        {"name": "code-review", "description": "Review the diff", "input": None}, {"bogus": True}]})
    controls = Controls(items[-1].payload)
    assert [(c.name, c.hint) for c in controls.commands] == [("debug", "[issue]"), ("code-review", "")]
    assert [c.name for c in controls.matching_commands("de")] == ["debug", "code-review"]  # starts, then contains
    assert Controls({"commands": ["plan", "status"]}).commands[0].name == "plan"  # as earlier versions stored them


def test_hostile_choices_never_break_the_controls():
    for info in ({"config": "x"}, {"config": [None, {"id": 3}, {"id": "m", "options": "x"}]},
                 {"modes": {"availableModes": [{"id": None}]}, "mode": 7}, {"models": {"availableModels": [1]}},
                 {"commands": [{"name": ""}, {"name": 5}]}):
        controls = Controls(info)
        assert controls.summary() == "" and not controls.commands


def test_the_guidance_never_becomes_the_sessions_title():
    """Codex titles a session with the start of its first prompt; kandev-tui put its guidance there (an agent that
    takes no system prompt): the title is the user's own words."""
    from kandev_tui.presentation import GUIDANCE

    normalizer = Normalizer()
    prefix = GUIDANCE + "\n\n"
    normalizer.feed(Frame(OUT, {"jsonrpc": "2.0", "id": 5, "method": "session/prompt", "params": {
        "sessionId": "s", "prompt": [{"type": "text", "text": prefix + "Fix the flaky test"}],
        "_meta": {"kandevTui": {"guidanceChars": len(prefix)}}}}))
    info = normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": "session_info_update", "title": GUIDANCE[:50] + "…"}}}))[-1]
    assert info.payload["title"] == "Fix the flaky test"
    own = normalizer.feed(Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": {
        "sessionUpdate": "session_info_update", "title": "Flaky test fixed"}}}))[-1]
    assert own.payload["title"] == "Flaky test fixed"  # the agent's own title stays


def test_run_option_resolves_an_agents_option_by_its_id_and_says_what_it_offers():
    from kandev_tui.session.controls import Controls

    controls = Controls(setup_items(CODEX_SETUP)[-1].payload)
    control, value = controls.resolve_option("model", "gpt-6")
    assert control.request(value) == ("session/set_config_option", {"configId": "model", "value": "gpt-6"})
    try:
        controls.resolve_option("collaboration_mode", "plan")
        raise AssertionError("an option the agent does not have was taken")
    except ValueError as exc:
        assert str(exc) == "the agent has no option 'collaboration_mode'; its options: mode, model"
    try:
        controls.resolve_option("model", "gpt-9")
        raise AssertionError("a value the option does not have was taken")
    except ValueError as exc:
        assert str(exc) == "the agent's option 'model' has no value 'gpt-9'; it offers: gpt-5.5, gpt-6"
