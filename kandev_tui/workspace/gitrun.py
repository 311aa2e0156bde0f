"""git as a subprocess, for every module that uses it (worktrees, checkpoints, ``@`` completion, the review screen):
the one entry every git call of kandev-tui goes through (a test fails on any ``git`` started elsewhere).

It says what happens when git is missing, hangs or cannot start, each caller raising its own error with its own
words; and it runs git with the repository's own code paths off, since the workspace is untrusted (a repository
cloned from the internet, an agent that can write files): no fsmonitor command, no hooks, no clean, smudge or
process filters, textconv or external diff and merge drivers from the repository's own configuration, no signing
program, and no repository found implicitly as a bare one (a folder whose ``HEAD``, ``config``, ``objects/`` and
``refs/`` an agent wrote would otherwise be taken for one, with its ``config``). The settings go to git through
``GIT_CONFIG_COUNT`` (git ≥ 2.31), which outranks every configuration file and, unlike ``-c``, takes any key.
The user's own global and system configuration (git-lfs's filters, say) keep working: they are not the workspace's.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from kandev_tui.base.presets import trusted_path

# what every git call runs with, whatever the repository's configuration says
HARDENED: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("safe.bareRepository", "explicit"),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("diff.external", ""),
    ("submodule.recurse", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("core.pager", "cat"),
)
# the per-driver settings that name a program: ``filter.NAME.clean``, ``diff.NAME.textconv``…
DRIVERS = r"^(filter|diff|merge)\..+\.(clean|smudge|process|textconv|command|driver)$"
TRUSTED_SCOPES = ("global", "system")  # the user's own files; "local", "worktree" and includes are the repository's
DROPPED_ENV = ("GIT_EXTERNAL_DIFF", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS")


def _config_env(pairs: list[tuple[str, str]]) -> dict[str, str]:
    env = {"GIT_CONFIG_COUNT": str(len(pairs))}
    for index, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


def _base_env(extra: dict[str, str] | None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in DROPPED_ENV and not key.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))}
    return {**env, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "PATH": trusted_path(env.get("PATH")), **(extra or {})}


def repository_drivers(cwd: Path, timeout: float) -> list[tuple[str, str]]:
    """The program-naming driver settings the repository's own configuration makes (its ``.git/config``, a worktree's,
    what they include), each paired with the empty value that turns it off; ``filter.NAME.required`` is turned off
    with them, so that a filter turned off is no error. Read by git itself (``git config --show-scope``), so that
    includes and conditional includes are seen as git sees them."""
    try:
        done = subprocess.run(["git", "config", "-z", "--show-scope", "--get-regexp", DRIVERS], cwd=cwd,
                              capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              env=_base_env(_config_env(list(HARDENED))))
    except (OSError, subprocess.TimeoutExpired):
        return []
    pairs: list[tuple[str, str]] = []
    fields = done.stdout.split(b"\0")
    for scope, entry in zip(fields[0::2], fields[1::2]):  # scope\0key\nvalue\0
        if scope.decode("utf-8", "replace") in TRUSTED_SCOPES:
            continue
        key = entry.split(b"\n", 1)[0].decode("utf-8", "surrogateescape")
        pairs.append((key, ""))
        if key.startswith("filter."):
            pairs.append((key.rsplit(".", 1)[0] + ".required", "false"))
    return pairs


def hardened_env(cwd: Path, timeout: float = 10.0) -> dict[str, str]:
    """The environment a git call in ``cwd`` runs with: the caller's, with the repository's code paths off."""
    return _base_env(_config_env([*HARDENED, *repository_drivers(cwd, timeout)]))


def run_git(args: tuple[str, ...] | list[str], cwd: Path, *, error: type[Exception], missing: str,
            timeout: float, env: dict[str, str] | None = None, **options: Any) -> subprocess.CompletedProcess[Any]:
    """``git ARGS`` in ``cwd`` (never prompting, in the C locale, the repository's code paths off); ``error(missing)``
    when git is not installed, ``error(...)`` when it hangs past ``timeout`` or cannot start. A failure of git itself
    is the caller's to read. ``options`` go to :func:`subprocess.run` (``input``, ``text``…)."""
    if "input" not in options:
        options = {"stdin": subprocess.DEVNULL, **options}
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=timeout,
                              env={**hardened_env(cwd, timeout), **(env or {})}, **options)
    except FileNotFoundError:
        raise error(missing) from None
    except subprocess.TimeoutExpired:
        raise error(f"git {args[0]} took more than {timeout:.0f} s in {cwd}") from None
    except OSError as exc:
        raise error(f"git cannot run in {cwd}: {exc.strerror or exc}") from None
