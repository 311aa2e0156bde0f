"""Every test is one of three kinds, as a marker: ``unit`` (functions and objects, no app, no process), ``app``
(the real app under Textual's pilot, in this process) or ``system`` (real processes: agents, tmux, git, the
command line, a browser, a Kandev backend). ``pytest -m unit`` is the quick loop; ``.ci/run`` runs them all.

A test's kind is what it says (``@pytest.mark.system``), else what its source shows (:func:`kind_of`). It is
checked as the test runs (:func:`kept`): a ``unit`` test that starts an app or a process, or an ``app`` test that
starts a process, fails and says to mark it.
"""

from __future__ import annotations

import inspect
import subprocess
from typing import Any

import pytest

KINDS = ("unit", "app", "system")
# what the source of a test says of what it runs
SYSTEM_SIGNS = ("subprocess", "Tmux", "tmux", "real_agent", "REAL_", "netns", "backend", "LiveSource", "kandev_agent",
                "create_subprocess", "KANDEV", "AGENT", "_agent(", "agent_command", "git(", "run_git", "Worktree",
                "worktree", "checkpoint", "chromium", "browser", "npm", "serve(", "sys.executable", "Popen")
APP_SIGNS = ("run_test(", "pilot", "snap_compare", "_app(", "App(", "shoot(")


def kind_of(item: pytest.Item) -> str:
    marked = [kind for kind in KINDS if item.get_closest_marker(kind)]
    if marked:
        return marked[-1]
    try:
        source = inspect.getsource(item.function)  # type: ignore[attr-defined]
    except (AttributeError, OSError, TypeError):
        return "unit"
    if any(sign in source for sign in SYSTEM_SIGNS):
        return "system"
    if any(sign in source for sign in APP_SIGNS):
        return "app"
    return "unit"


def mark(items: list[pytest.Item]) -> None:
    for item in items:
        kind = kind_of(item)
        if not item.get_closest_marker(kind):
            item.add_marker(getattr(pytest.mark, kind))


def kept(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the running test started that its kind does not allow (filled as it runs)."""
    kind = kind_of(request.node)
    found: list[str] = []
    if kind == "system":
        return found
    made = subprocess.Popen.__init__

    def started_process(self: Any, *args: Any, **kwargs: Any) -> None:
        command = args[0] if args else kwargs.get("args")
        found.append(f"a process ({str(command)[:80]})")
        made(self, *args, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", started_process)
    if kind == "unit":
        from textual.app import App

        run_test = App.run_test

        def started_app(self: Any, *args: Any, **kwargs: Any) -> Any:
            found.append(f"an app ({type(self).__name__})")
            return run_test(self, *args, **kwargs)

        monkeypatch.setattr(App, "run_test", started_app)
    return found
