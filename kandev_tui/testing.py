"""A pytest plugin for agent authors: snapshot tests of your own ACP agent's transcript, as kandev-tui draws it.

Installed with kandev-tui (pytest finds it through its ``pytest11`` entry point). The ``kandev_agent`` fixture runs
an agent command headless through kandev-tui against a prompt (the real ACP connection, kandev-tui's MCP server
offered, the turn stored in a scratch database) and returns a :class:`AgentRun`: the transcript's items, and the
screens the app draws of the finished session, which ``assert_screens`` compares with a snapshot stored next to
the test (``__kandev_snapshots__/<test>.txt``). ``pytest --kandev-update`` writes the snapshots afresh; look at
them before you commit them, as you would at any snapshot.

    def test_my_agent_charts_the_build(kandev_agent):
        run = kandev_agent(["python", "-m", "my_agent"], "Chart the build times", workspace="tests/workspace")
        assert run.exit_code == 0, run.reason
        assert any(item.kind == "tool_call" for item in run.items)
        run.assert_screens(size=(100, 30))

The screens are the text of each screen from the top of the transcript to its end (what ``kandev-tui snapshot
--all -o FILE.txt`` writes), drawn deterministically: animations off, a fixed theme, the cursor still. Nothing
here imports Textual, ACP or MCP until a run asks for them, so the plugin costs pytest nothing at start-up.
"""

from __future__ import annotations

import asyncio
import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import pytest

UPDATE_OPTION = "--kandev-update"
SNAPSHOT_DIR = "__kandev_snapshots__"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kandev-tui")
    group.addoption(UPDATE_OPTION, action="store_true", default=False,
                    help="kandev-tui: write the transcript snapshots of kandev_agent runs afresh")


@dataclass
class AgentRun:
    """One turn of an agent, stored: its items, its outcome, and the screens drawn of it."""

    exit_code: int  # 0 on a normal end of turn, 1 otherwise (as ``kandev-tui run --headless``)
    reason: str  # why not, in a line; "" on success
    items: list[Any]  # kandev_tui.transcript.Item, in transcript order
    store_path: Path
    session_id: str
    snapshot_path: Path
    update: bool = False
    _screens: dict[tuple[tuple[int, int], str], list[str]] = field(default_factory=dict, repr=False)

    def kinds(self) -> list[str]:
        return [item.kind for item in self.items]

    def screens(self, size: tuple[int, int] = (100, 30), theme: str = "textual-dark") -> list[str]:
        """The text of every screen of the finished session, top to end, at ``size``."""
        key = (size, theme)
        if key not in self._screens:
            self._screens[key] = _run(_draw(self.store_path, self.session_id, size, theme))
        return self._screens[key]

    def assert_screens(self, size: tuple[int, int] = (100, 30), theme: str = "textual-dark") -> None:
        """The screens equal the stored snapshot (written instead with ``pytest --kandev-update``)."""
        text = render_screens(self.screens(size, theme))
        path = self.snapshot_path
        if self.update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return
        if not path.exists():
            pytest.fail(f"no transcript snapshot {path}: run pytest {UPDATE_OPTION} to write it, then look at it",
                        pytrace=False)
        stored = path.read_text(encoding="utf-8")
        if stored != text:
            diff = "".join(difflib.unified_diff(stored.splitlines(True), text.splitlines(True), str(path), "drawn now"))
            pytest.fail(f"the transcript is drawn differently from {path} ({UPDATE_OPTION} rewrites it):\n{diff}",
                        pytrace=False)


def render_screens(screens: Sequence[str]) -> str:
    parts = []
    for number, screen in enumerate(screens, 1):
        lines = "\n".join(line.rstrip() for line in screen.splitlines()).rstrip("\n")
        parts.append(f"── screen {number} of {len(screens)} ──\n{lines}\n")
    return "".join(parts)


def _run(coroutine: Any) -> Any:
    """Run ``coroutine`` to its end, also from inside a test that has its own event loop (in a thread, then)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def _draw(store_path: Path, session_id: str, size: tuple[int, int], theme: str) -> list[str]:
    import tempfile

    from kandev_tui.app.snapshot import Shot, deterministic_app, shoot
    from kandev_tui.sources import StoredSource
    from kandev_tui.transcript import Store

    store = Store(store_path, create=False)
    try:
        session = store.session(session_id)
        with tempfile.TemporaryDirectory(prefix="kandev-testing-") as scratch:
            app = deterministic_app(StoredSource(store, session),
                                    Path(scratch) / "config.toml", theme=theme)  # the user's settings are not the test's
            return [text for _, text in await shoot(app, Shot(size, "top", True, theme))]
    finally:
        store.close()


def _snapshot_name(node: Any) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", node.name).strip("_")[:150] or "test"


@pytest.fixture
def kandev_agent(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., AgentRun]:
    """Run an ACP agent through kandev-tui for one prompt: ``kandev_agent(command, prompt, workspace=".",
    permission="allow-once", env=None, timeout=300) -> AgentRun``. A second call in the same test is a second
    session, with its own snapshot (``<test>-2.txt``)."""
    update = request.config.getoption(UPDATE_OPTION)
    test_file = Path(str(request.node.fspath))
    calls = {"n": 0}

    def run(command: Sequence[str], prompt: str, *, workspace: str | Path = ".", permission: str = "allow-once",
            env: dict[str, str] | None = None, inject_guidance: bool = True, timeout: float = 300.0) -> AgentRun:
        from kandev_tui.acp import AgentOptions
        from kandev_tui.sources.runner import run_turn
        from kandev_tui.transcript import Store

        if permission not in ("reject", "allow-once"):
            raise ValueError(f"permission is 'reject' or 'allow-once', not {permission!r}")
        calls["n"] += 1
        folder = tmp_path / f"kandev-run-{calls['n']}"
        folder.mkdir()
        store = Store(folder / "sessions.db")
        options = AgentOptions(command=list(command), workspace=Path(workspace).resolve(),
                               inject_guidance=inject_guidance, env=env)

        async def turn() -> tuple[int, str, str]:
            import io

            return await asyncio.wait_for(run_turn(options, prompt, store, record=folder / "frames.jsonl",
                                                   permission=permission, out=io.StringIO()), timeout)

        try:
            code, reason, session_id = _run(turn())
            items = store.items(session_id)
        finally:
            store.close()
        suffix = "" if calls["n"] == 1 else f"-{calls['n']}"
        return AgentRun(code, reason, items, folder / "sessions.db", session_id,
                        test_file.parent / SNAPSHOT_DIR / f"{_snapshot_name(request.node)}{suffix}.txt", update)

    return run
