"""What an agent's dialect says of its logins, read without running it (the dialect kit runs the rest:
tests/system/test_dialects.py)."""

from __future__ import annotations


def test_a_login_whose_type_is_only_in_meta_is_a_terminal_login():
    from kandev_tui.acp.client import login_method

    qwen = {"id": "openai", "name": "Use OpenAI API key", "_meta": {"type": "terminal", "args": ["--auth-type=openai"]}}
    assert login_method(qwen) == {**qwen, "type": "terminal", "args": ["--auth-type=openai"]}
    assert login_method({"id": "x", "type": "env_var", "_meta": {"type": "terminal"}})["type"] == "env_var"
