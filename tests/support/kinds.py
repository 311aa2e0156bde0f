"""Every test is one of three kinds, and its folder says which: ``tests/unit`` (functions and objects, no app, no
process), ``tests/app`` (the real app under Textual's pilot, in this process) or ``tests/system`` (real processes:
agents, tmux, git, the command line, a browser, a Kandev backend). The snapshot tests (``snapshots/``, where
pytest-textual-snapshot keeps each picture beside its test) are app tests, but for those marked ``system`` (a
scene drawn from a real git repository).
``make test-fast`` (``pytest tests/unit``) is the quick loop; ``.ci/run`` runs them all.

Each test carries its kind as a marker too (``pytest -m unit`` works from anywhere), and is held to it as it runs
(:class:`Watch`): a unit test that starts an app or a process, or an app test that starts a process, fails and says
to move it. A test file anywhere else fails the collection.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from . import CHECKOUT

KINDS = ("unit", "app", "system")
FOLDERS = {CHECKOUT / "tests" / kind: kind for kind in KINDS} | {CHECKOUT / "snapshots": "app"}


def kind_of(item: pytest.Item) -> str:
    """The kind a test's folder gives it; a test outside the folders is refused (:func:`mark`)."""
    path = Path(str(item.path)).resolve()
    for folder, kind in FOLDERS.items():
        if path.is_relative_to(folder):
            return "system" if folder.name == "snapshots" and item.get_closest_marker("system") else kind
    return ""


def mark(items: list[pytest.Item]) -> None:
    flat = sorted({str(item.path) for item in items if not kind_of(item)})
    if flat:
        raise pytest.UsageError(f"{flat[0]}: a test stands in tests/unit, tests/app or tests/system (by kind; "
                                f"tests/support/kinds.py), not here ({len(flat)} file(s) in all)")
    for item in items:
        if not item.get_closest_marker(kind_of(item)):
            item.add_marker(getattr(pytest.mark, kind_of(item)))


class Watch:
    """What a test starts that its kind does not allow, watched from its setup to its teardown, so that a module's
    fixture a unit test is first to ask for (an agent run, a server) counts as the test's own."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.found: list[str] = []
        self._undo: list[tuple[Any, str, Any]] = []

    def start(self) -> None:
        if self.kind == "system":
            return
        found = self.found
        made = subprocess.Popen.__init__

        def started_process(process: Any, *args: Any, **kwargs: Any) -> None:
            command = args[0] if args else kwargs.get("args")
            found.append(f"a process ({str(command)[:80]})")
            made(process, *args, **kwargs)

        self._swap(subprocess.Popen, "__init__", started_process)
        if self.kind == "unit":
            from textual.app import App

            run_test = App.run_test

            def started_app(app: Any, *args: Any, **kwargs: Any) -> Any:
                found.append(f"an app ({type(app).__name__})")
                return run_test(app, *args, **kwargs)

            self._swap(App, "run_test", started_app)

    def _swap(self, owner: Any, name: str, new: Any) -> None:
        self._undo.append((owner, name, owner.__dict__[name]))
        setattr(owner, name, new)

    def stop(self) -> None:
        while self._undo:
            owner, name, old = self._undo.pop()
            setattr(owner, name, old)

    def complaint(self) -> str:
        return (f"this {self.kind} test started {self.found[0]} ({len(self.found)} in all): move it to the folder "
                "of the kind it is (tests/app or tests/system)") if self.found else ""
