"""The workspace is untrusted (docs/security.md): the git, Python and npx that kandev-tui runs for itself never run
code or take configuration from it. Each attack is tried first with the plain tool, to show the trap is real, then
through kandev-tui's own entry, which must not spring it."""

from __future__ import annotations

import ast

from ..support import CHECKOUT

PACKAGE = CHECKOUT / "kandev_tui"
def test_every_git_call_goes_through_the_hardened_entry():
    """No module but kandev_tui/workspace/gitrun.py names ``git`` as a program to start: a call that bypassed run_git would run
    with the repository's hooks, fsmonitor and filters on."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "gitrun.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
                first = node.elts[0]
                if isinstance(first, ast.Constant) and first.value in ("git", "/usr/bin/git"):
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
            if isinstance(node, ast.Call) and any(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                                  and a.value.startswith("git ") for a in node.args[:1]):
                if getattr(node.func, "attr", "") in ("run", "Popen", "check_output", "call", "system",
                                                      "create_subprocess_shell"):
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == [], f"git started outside kandev_tui/workspace/gitrun.py: {found}"
def test_settings_saved_through_a_symlinked_config_write_the_file_it_names(tmp_path):
    """A config.toml that is a link into a dotfiles repository stays a link; the file it names gets the setting."""
    from kandev_tui.base.settings import SettingsStore

    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "kandev.toml").write_text("# mine\ntheme = \"textual-dark\"\n")
    link = tmp_path / "config" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(dotfiles / "kandev.toml")
    store = SettingsStore(link)
    store.remember_agent_choice(["some-agent"], "mode", "plan")
    assert link.is_symlink() and link.resolve() == dotfiles / "kandev.toml"
    written = (dotfiles / "kandev.toml").read_text()
    assert written.startswith("# mine\n") and 'mode = "plan"' in written
    assert sorted(p.name for p in dotfiles.iterdir()) == ["kandev.toml"]  # no temporary file left
