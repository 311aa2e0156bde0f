"""kandev-tui's command line as a test runs it: ``run`` in the test's own process (its output, errors and exit
status, as a process would give them), ``KANDEV`` (the installed entry point) and ``headless`` (``run --headless``
as a real process)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path


def run(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``kandev-tui ARGS`` through :func:`kandev_tui.cli.main` in the test's own process: its output, its errors
    and its exit status (argparse's too), as a process would give them. (The tests that need a real process, for
    the import cost, a terminal or a signal, start one.)"""
    from contextlib import redirect_stderr, redirect_stdout

    from kandev_tui.cli import main

    out, err = io.StringIO(), io.StringIO()
    given = io.TextIOWrapper(io.BytesIO((stdin or "").encode("utf-8")), encoding="utf-8")
    saved_stdin, saved_cwd = sys.stdin, os.getcwd()
    try:
        sys.stdin = given
        if cwd is not None:
            os.chdir(cwd)
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse: --help, --version, a usage error
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    finally:
        sys.stdin = saved_stdin
        os.chdir(saved_cwd)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


KANDEV = str(Path(sys.executable).with_name("kandev-tui"))


def headless(tmp_path, *args: str, env=None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([KANDEV, "run", "--headless", "--db", str(tmp_path / "s.db"), "--workspace", str(tmp_path),
                           *args], capture_output=True, text=True, timeout=180, env={**os.environ, **(env or {})})
