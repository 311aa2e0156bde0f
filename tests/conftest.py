from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from .support.documents import BUILD_TIMES_CSV, SPEC_DOCUMENT
from .support.leftovers import Leftovers


def _import_kandev_tui_here() -> None:
    """Every kandev_tui module imported now, on the main thread, before any test runs.

    kandev-tui provides a pytest plugin (kandev_tui.testing), so pytest rewrites the asserts of every kandev_tui
    module, parsing each with ``ast`` when it is first imported. The app imports modules lazily on its own threads
    (the agent's loop, the preload after the first frame), and CPython 3.11 before 3.11.8 (gh-106905) fails when
    two threads parse at once: "SystemError: AST constructor recursion depth mismatch" in the agent's thread, and the
    session never started (a suite-only fault: without pytest no module is parsed on import). Loaded here, the lazy
    imports find them loaded."""
    import importlib
    import pkgutil

    import kandev_tui

    for module in pkgutil.walk_packages(kandev_tui.__path__, "kandev_tui."):
        if module.name != "kandev_tui.__main__":  # it runs the command line
            importlib.import_module(module.name)


_import_kandev_tui_here()

# fixtures that the tests of one area share across kinds (a unit and a system file of one area), where they are made
pytest_plugins = ("tests.support.mentions",)

_LEFTOVERS = Leftovers()  # what runs and exists when the suite starts is not the suite's (checked when it ends)



@pytest.fixture(autouse=True)
def still_cursors(monkeypatch):
    """No cursor blinks in a test (the prompt, the search box): what a frame shows never depends on when it was
    drawn. The widgets are made with ``cursor_blink`` off, as an app that asked for it would make them."""
    from textual.widgets import Input, TextArea

    for widget in (Input, TextArea):
        made = widget.__init__

        def __init__(self, *args, _made=made, **kwargs):
            _made(self, *args, **kwargs)
            self.cursor_blink = False

        monkeypatch.setattr(widget, "__init__", __init__)


def pytest_collection_modifyitems(config, items):
    """Each test marked with the kind its folder says: unit, app or system (tests/support/kinds.py)."""
    from .support import kinds

    kinds.mark(items)


_WATCH = pytest.StashKey["object"]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    """A test does what its kind allows, from its setup (module fixtures it is first to ask for count) to its
    teardown: a unit test starts no app and no process, an app test no process (tests/support/kinds.py)."""
    from .support import kinds

    watch = item.stash[_WATCH] = kinds.Watch(kinds.kind_of(item))
    watch.start()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield
    watch = item.stash.get(_WATCH, None)
    if watch is not None:
        watch.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test that started what its kind does not allow fails (above); a reliability test's row is kept (below)."""
    outcome = yield
    report = outcome.get_result()
    marker = item.get_closest_marker("reliability")
    if marker is not None:
        area, attack = marker.args[:2]
        report._reliability = (area, attack, int(marker.kwargs.get("cases", 1)), marker.kwargs.get("held", ""))
    watch = item.stash.get(_WATCH, None)
    if watch is not None and watch.complaint() and report.when == "call" and report.passed:
        report.outcome = "failed"
        report.longrepr = watch.complaint()


@pytest.fixture(autouse=True)
def frozen_versions(monkeypatch):
    """Every item version the normaliser hands out is deep-frozen (tests/support/frozen.py): what changes one fails the
    test, and so does the normaliser changing one it handed out (seen when the test ends)."""
    from kandev_tui.transcript.normalize import Normalizer

    from .support import frozen

    versions = frozen.current = frozen.Versions()
    failed: list[str] = []
    feed, settle = Normalizer.feed, Normalizer.settle

    def frozen_feed(self, frame):
        items = feed(self, frame)
        failed.extend(i.payload["message"] for i in items if i.kind == "error" and "FrozenError" in
                      str(i.payload.get("message")))
        return versions.hand_out(items)

    monkeypatch.setattr(Normalizer, "feed", frozen_feed)
    monkeypatch.setattr(Normalizer, "settle", lambda self: versions.hand_out(settle(self)))
    yield versions
    frozen.current = None
    changed = versions.changed()
    assert not failed, f"the normaliser changed a frozen version: {failed[:3]}"
    assert not changed, f"item versions changed after they were handed out: {changed[:5]} ({len(changed)} in all)"


@pytest.fixture(scope="session", autouse=True)
def _session_root(tmp_path_factory):
    """The session's temporary root: the processes left to init that name it are the suite's (tests/support/leftovers.py)."""
    _LEFTOVERS.basetemp = tmp_path_factory.getbasetemp()


@pytest.fixture(autouse=True)
def _working_directory(tmp_path_factory, monkeypatch):
    """Each test runs in a scratch folder of its own, not in the checkout: an agent a test starts with no
    --workspace works there, and its checkpoints (refs/kandev-tui/*) never land in the project's own repository
    (tests/support/leftovers.py looks for them when the run ends)."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


@pytest.fixture(autouse=True)
def _fresh_counters():
    """Work counters and the plot memo start empty in every test."""
    from kandev_tui.base import stats
    from kandev_tui.ui.charts import plot

    stats.reset()
    plot.cache_clear()
    yield


@pytest.fixture(scope="session")
def backend(tmp_path_factory):
    """A real Kandev 0.95.1 backend with the demo agent as its mock agent (tests/support/kandev_backend.py)."""
    import os

    from .support.kandev_backend import Backend, RuntimeMissing

    try:
        server = Backend(tmp_path_factory.mktemp("kandev")).start()
    except RuntimeMissing as exc:
        if os.environ.get("CI"):  # CI must run these: installing the runtime is part of the job
            raise
        pytest.skip(str(exc))
    yield server
    server.stop()


@pytest.fixture
def doc() -> dict[str, Any]:
    """A fresh copy of the spec's example document (one CSV chart at block 1)."""
    return copy.deepcopy(SPEC_DOCUMENT)


@pytest.fixture
def inline_doc() -> dict[str, Any]:
    """The spec example without its CSV chart."""
    d = copy.deepcopy(SPEC_DOCUMENT)
    del d["blocks"][1]
    return d


@pytest.fixture
def workspace_dir(tmp_path: Path) -> Path:
    """A workspace with the spec's CSV source and JSON report."""
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "build-times.csv").write_text(BUILD_TIMES_CSV)
    (tmp_path / "reports" / "build.json").write_text(json.dumps({"passed": 38}))
    return tmp_path




# -- the reliability table ------------------------------------------------------------------------
# Tests of attacks and faults carry @pytest.mark.reliability(area, attack, cases=N, held="..."). With
# KANDEV_RELIABILITY=FILE (``make reliability``) the run writes FILE: one row per attack, with the cases
# tried and the tests' own outcome, so the table says what the tests found, not what someone hoped.

_RELIABILITY: dict[tuple[str, str], dict[str, Any]] = {}


def pytest_runtest_logreport(report):
    if report.when != "call" and not (report.when == "setup" and report.outcome != "passed"):
        return
    marker = getattr(report, "_reliability", None)
    if marker is None:
        return
    area, attack, cases, held = marker
    row = _RELIABILITY.setdefault((area, attack), {"cases": 0, "tests": 0, "passed": 0, "held": held})
    row["tests"] += 1
    row["cases"] += cases
    row["passed"] += report.outcome == "passed"


def _role(config) -> str:
    """``worker`` or ``controller`` when the tests run in workers (``pytest -n N``, pytest-xdist), else ""."""
    if hasattr(config, "workerinput"):
        return "worker"
    return "controller" if config.pluginmanager.hasplugin("dsession") else ""


_WORKERS_LEFTOVERS: list[str] = []  # what each worker of pytest -n found it left behind (the controller's)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """A worker is done (the controller's hook): what it left behind is said with the rest when the run ends."""
    _WORKERS_LEFTOVERS.extend(getattr(node, "workeroutput", {}).get("leftovers", []))


def pytest_sessionfinish(session, exitstatus):
    import os

    role = _role(session.config)
    if role == "worker":  # its own processes; the controller says them, and looks for the files once all are done
        session.config.workeroutput["leftovers"] = _LEFTOVERS.check(files=False)
        return  # the reliability table too is the controller's, which gets every test's report
    if _LEFTOVERS is not None:
        left = _LEFTOVERS.check(processes=role != "controller") + _WORKERS_LEFTOVERS
        if left:  # the suite must clean up what it starts: a leak fails the run, on the machine where it leaks
            reporter = session.config.pluginmanager.get_plugin("terminalreporter")
            lines = ["the suite left these behind (now removed):", *(f"  {line}" for line in left)]
            if reporter is not None:
                reporter.write_sep("=", "leftovers", red=True)
                for line in lines:
                    reporter.write_line(line)
            if session.exitstatus == 0:
                session.exitstatus = 1
    target = os.environ.get("KANDEV_RELIABILITY")
    if not target or not _RELIABILITY:
        return
    lines = ["# Reliability: what was tried and what held", "",
             "Generated by `make reliability` from the tests' own results (tests marked `reliability`);",
             "do not edit by hand. Cases are the inputs or faults each test tried (hypothesis examples,",
             "hostile strings × fields, processes started).", ""]
    for area in sorted({a for a, _ in _RELIABILITY}):
        lines += [f"## {area}", "", "| attack or fault | cases | tests | result | what held |", "|---|---:|---:|---|---|"]
        for (row_area, attack), row in sorted(_RELIABILITY.items()):
            if row_area != area:
                continue
            result = "all passed" if row["passed"] == row["tests"] else f"**{row['tests'] - row['passed']} failed**"
            lines.append(f"| {attack} | {row['cases']:,} | {row['tests']} | {result} | {row['held']} |")
        lines.append("")
    Path(target).write_text("\n".join(lines))
