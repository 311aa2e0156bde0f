"""The headless core never imports Textual (docs/architecture.md, "Layers")."""

from __future__ import annotations

import subprocess
import sys

CORE = ["kandev_tui.presentation", "kandev_tui.workspace", "kandev_tui.mcp_server", "kandev_tui.mcp_hub",
        "kandev_tui.sanitize",
        "kandev_tui.transcript", "kandev_tui.transcript.pipeline", "kandev_tui.transcript.export",
        "kandev_tui.transcript.replay", "kandev_tui.acp", "kandev_tui.runner", "kandev_tui.kandev",
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
