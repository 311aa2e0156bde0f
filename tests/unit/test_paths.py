"""The workspace-relative path table (spec §3), for file blocks and CSV sources alike."""

from __future__ import annotations

import pytest

from kandev_tui.presentation import PresentationError, parse_tool_input
from kandev_tui.presentation.paths import path_problem

REJECTED = {
    "": "must not be blank",
    "   ": "must not be blank",
    "a\x00b": "must not contain NUL",
    "/etc/passwd": "must be relative to the workspace, not absolute",
    "\\\\server\\share\\x": "must be relative to the workspace, not absolute",
    "\\abs": "must be relative to the workspace, not absolute",
    "http://x/y": "must be a workspace path, not a URL",
    "reports/FILE://x": "must be a workspace path, not a URL",
    "data:text/plain,hi": "must be a workspace path, not a URL",
    "DATA:x": "must be a workspace path, not a URL",
    "C:\\x": "must not start with a drive letter",
    "c:foo": "must not start with a drive letter",
    "..": "must not contain a .. segment",
    "../x": "must not contain a .. segment",
    "a/../b": "must not contain a .. segment",
    "a\\..\\b": "must not contain a .. segment",
    "a/..": "must not contain a .. segment",
    ".": "must name a file inside the workspace",
    "./": "must name a file inside the workspace",
    "./.": "must name a file inside the workspace",
    "~": "must not start with ~ (home directories are outside the workspace)",
    "~/x": "must not start with ~ (home directories are outside the workspace)",
    "~root/.ssh/id_rsa": "must not start with ~ (home directories are outside the workspace)",
}

ACCEPTED = ["a", "reports/build.json", "..hidden", "...", "a/...", "./a", "a/./b", "dir\\file.txt",
            "1:x", "a~b", "x/~", "é/ü.json", "a//b"]


@pytest.mark.parametrize(("path", "problem"), sorted(REJECTED.items()))
def test_rejected_paths(path, problem):
    assert path_problem(path) == problem


@pytest.mark.parametrize("path", ACCEPTED)
def test_accepted_paths(path):
    assert path_problem(path) is None


@pytest.mark.parametrize(("path", "problem"), sorted(REJECTED.items()))
def test_rules_apply_to_file_blocks(inline_doc, path, problem):
    inline_doc["blocks"][2]["path"] = path
    with pytest.raises(PresentationError) as info:
        parse_tool_input(inline_doc)
    if path:  # the empty path fails the length rule first
        assert str(info.value) == f"blocks[2].path: {problem}"


@pytest.mark.parametrize("path", ["~/data.csv", "../data.csv", "/data.csv", "C:data.csv", "http://h/x.csv"])
def test_rules_apply_to_csv_sources(doc, path):
    doc["blocks"][1]["csv"]["path"] = path
    with pytest.raises(PresentationError) as info:
        parse_tool_input(doc)
    assert str(info.value).startswith("blocks[1].csv.path: must")
