"""The headless core never imports Textual (docs/architecture.md, "Layers")."""

from __future__ import annotations

import subprocess
import sys

from ..support import CHECKOUT

CORE = ["kandev_tui.presentation", "kandev_tui.workspace.reads", "kandev_tui.mcp.server", "kandev_tui.mcp.hub",
        "kandev_tui.base.sanitize",
        "kandev_tui.transcript", "kandev_tui.transcript.pipeline", "kandev_tui.transcript.export",
        "kandev_tui.transcript.replay", "kandev_tui.acp", "kandev_tui.sources.runner", "kandev_tui.kandev",
        "kandev_tui.kandev.headless", "kandev_tui.kandev.catalog", "kandev_tui.session", "kandev_tui.sources"]


def test_core_imports_no_textual_in_a_fresh_interpreter():
    code = (
        "import sys\n"
        + "".join(f"import {module}\n" for module in CORE)
        + "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'plotext', 'mcp', 'acp')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # mcp and acp are imported lazily too: only when the server actually runs
    assert out.stdout.strip() == "[]"


def test_no_module_is_over_400_lines_but_the_demo_agent():
    """A smell detector (a module a maintainer reads in one sitting): a module that grows past it is split by
    concern into objects, as the app's collaborators were, never into mixins over files."""

    package = CHECKOUT / "kandev_tui"
    lines = {path.relative_to(package).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in package.rglob("*.py")}
    assert len(lines) > 150  # every module was read
    assert {name: n for name, n in lines.items() if n > 400 and name != "demo/agent.py"} == {}
