"""git as a subprocess, for the modules that use it (worktrees, checkpoints): one place that says what happens when
git is missing, hangs or cannot start, each caller raising its own error with its own words."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any


def run_git(args: tuple[str, ...] | list[str], cwd: Path, *, error: type[Exception], missing: str,
            timeout: float, env: dict[str, str] | None = None, **options: Any) -> subprocess.CompletedProcess[Any]:
    """``git ARGS`` in ``cwd`` (never prompting, in the C locale); ``error(missing)`` when git is not installed,
    ``error(...)`` when it hangs past ``timeout`` or cannot start. A failure of git itself is the caller's to read.
    ``options`` go to :func:`subprocess.run` (``input``, ``text``…)."""
    if "input" not in options:
        options = {"stdin": subprocess.DEVNULL, **options}
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=timeout,
                              env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **(env or {})}, **options)
    except FileNotFoundError:
        raise error(missing) from None
    except subprocess.TimeoutExpired:
        raise error(f"git {args[0]} took more than {timeout:.0f} s in {cwd}") from None
    except OSError as exc:
        raise error(f"git cannot run in {cwd}: {exc.strerror or exc}") from None
