"""What the tests share: the app and its stand-ins (``app_helpers``), a real terminal (``tmux``), processes and
ports (``procs``), git, the scripted agents (``agents/``) and model servers, the real adapters, the browser, the
Kandev backend, and the helpers the unit, app and system tests of one area have in common (one module an area).

The tests themselves stand in folders by kind: ``tests/unit`` (no app, no process), ``tests/app`` (the real app under
Textual's pilot) and ``tests/system`` (real processes); ``tests/support/kinds.py`` holds each to its kind."""

from __future__ import annotations

from pathlib import Path

SUPPORT = Path(__file__).resolve().parent
TESTS = SUPPORT.parent
CHECKOUT = TESTS.parent  # the project's own checkout
FIXTURES = TESTS / "fixtures"
AGENTS = SUPPORT / "agents"  # the scripted ACP agents the tests start
