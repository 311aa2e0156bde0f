"""Files named with ``@`` in a prompt: sent as the agent takes them (embedded, linked, as an image), refused outside
the workspace as the agent's own reads are, shown in the user's message; with the dialect kit's agent in the app."""

from __future__ import annotations

import json

from kandev_tui.ui.textual_hooks import screen_text

from ..support.app_helpers import until
from ..support.kit import agent_text, kit_app


async def test_the_app_sends_mentions_and_the_users_message_shows_them(tmp_path, workspace):
    store, app = kit_app(tmp_path, [{"op": "blocks"}], prompt="review @src/app.py and @shot.png and @../secret.txt",
                         prompt_caps={"embeddedContext": True})
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.current.last_state == "idle" and "blocks: " in agent_text(app))
        got = json.loads(agent_text(app).split("blocks: ", 1)[1])
        assert got == [{"type": "resource", "name": None, "uri": "app.py", "text": "print('hi')\n", "data": False},
                       {"type": "resource_link", "name": "shot.png", "uri": "shot.png", "text": None, "data": False}]
        await until(pilot, lambda: "+ app.py, shot.png" in screen_text(app))
        text = screen_text(app)
        assert "The agent takes no images: @shot.png was sent as a link" in text
        assert "@../secret.txt was not sent" in text
        await app.action_quit()


def test_the_files_offered_honour_gitignore_in_a_repository_and_skip_build_folders_elsewhere(tmp_path):
    import subprocess

    from kandev_tui.workspace.reads import matching_files, workspace_files

    plain = tmp_path / "plain"
    (plain / "node_modules" / "x").mkdir(parents=True)
    (plain / "node_modules" / "x" / "index.js").write_text("")
    (plain / "src").mkdir()
    (plain / "src" / "app.py").write_text("")
    (plain / ".hidden").mkdir()
    (plain / ".hidden" / "h.txt").write_text("")
    assert workspace_files(plain) == ["src/app.py"]
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text("secret.env\n")
    (repo / "secret.env").write_text("")
    (repo / "src" / "app.py").write_text("")
    (repo / "src" / "application_test.py").write_text("")
    assert workspace_files(repo) == [".gitignore", "src/app.py", "src/application_test.py"]  # untracked too, not ignored
    assert matching_files(workspace_files(repo), "app") == ["src/app.py", "src/application_test.py"]
    assert matching_files(workspace_files(repo), "sapt") == ["src/application_test.py"]  # in order, not together
async def test_at_in_the_prompt_offers_the_workspaces_files_and_tab_completes_one(tmp_path, workspace):
    store, app = kit_app(tmp_path, [{"op": "blocks"}], prompt="hello")
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.current.last_state == "idle" and not app.transcript_screen.prompt.disabled)
        prompt = app.transcript_screen.prompt
        prompt.focus()
        await pilot.press(*"look at @ap")
        menu = app.transcript_screen.command_menu
        await until(pilot, lambda: menu.open and "@src/app.py" in screen_text(app))
        await pilot.press("tab")
        await until(pilot, lambda: prompt.text == "look at @src/app.py ")
        assert not menu.open
        await pilot.press(*"and @my", "tab")
        await until(pilot, lambda: prompt.text == "look at @src/app.py and @my\\ notes.md ")
        await app.action_quit()
