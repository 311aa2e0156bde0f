"""Workspace-relative path rules of the contract (spec §3)."""

from __future__ import annotations

import posixpath
import re

_DRIVE = re.compile(r"^[A-Za-z]:")


def path_problem(path: str) -> str | None:
    """Return why ``path`` is not an acceptable workspace-relative path, or None.

    Rules, checked after every ``\\`` is turned into ``/``: not blank, no NUL,
    not absolute (``/x``, ``\\\\server\\share``), no URL (``://``) or ``data:``,
    no drive letter (``C:``), no ``..`` segment, not ``.`` after normalising,
    and no leading ``~`` (home expansion is never allowed).
    """
    p = path.replace("\\", "/")
    if not p.strip():
        return "must not be blank"
    if "\x00" in p:
        return "must not contain NUL"
    if p.startswith("/"):
        return "must be relative to the workspace, not absolute"
    lowered = p.lower()
    if "://" in lowered or lowered.startswith("data:"):
        return "must be a workspace path, not a URL"
    if _DRIVE.match(p):
        return "must not start with a drive letter"
    if p.startswith("~"):
        return "must not start with ~ (home directories are outside the workspace)"
    if any(segment == ".." for segment in p.split("/")):
        return "must not contain a .. segment"
    if posixpath.normpath(p) == ".":
        return "must name a file inside the workspace"
    return None
