"""The built-in demo: a real ACP agent process and its sample workspace."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path


def sample_workspace() -> Path:
    """The bundled sample workspace (read-only: copy it before use). A folder beside this file: the package is
    installed as files (``importlib.resources`` would give the same path, and cost the first frame 2 ms)."""
    return Path(__file__).with_name("workspace")


def prepare_workspace(destination: str | Path | None = None, *, repository: bool = False) -> Path:
    """A fresh copy of the sample workspace, so nothing bundled is ever modified; ``repository``: made a git
    repository with the copy committed (``kandev-tui demo``: each turn's changes card and review can then be tried),
    when git is there to make it."""
    target = Path(destination) if destination is not None else Path(tempfile.mkdtemp(prefix="kandev-demo-")) / "demo-service"
    shutil.copytree(sample_workspace(), target, dirs_exist_ok=True)
    if repository:
        _commit_all(target)
    return target


def _commit_all(folder: Path) -> bool:
    """``git init`` and a first commit of everything in ``folder`` (through kandev-tui's hardened git); whether it
    was made (no git: the demo runs without, and says that changes are not tracked)."""
    from kandev_tui.workspace.gitrun import run_git

    who = ("-c", "user.name=kandev-tui demo", "-c", "user.email=demo@kandev-tui.invalid", "-c", "commit.gpgsign=false")
    for args in (("init", "-q", "-b", "main"), ("add", "-A"), (*who, "commit", "-q", "-m", "The demo's sample workspace")):
        try:
            done = run_git(args, folder, error=OSError, missing="git is not installed", timeout=30)
        except OSError:
            return False
        if done.returncode != 0:
            return False
    return True


SCENARIOS = {
    "build": "Check the build health of demo-service and show me the numbers.",
    "fleet": "The web tier is slow. Check the fleet and tell me why.",
}


def agent_command(scenario: str = "build") -> list[str]:
    """The command line that starts the demo agent with this interpreter."""
    from kandev_tui.base.presets import python_child

    command = list(python_child("-m", "kandev_tui.demo.agent"))
    return command if scenario == "build" else [*command, "--scenario", scenario]
