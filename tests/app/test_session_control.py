"""Session control: logging in, modes and models, slash commands, continuing a session, the guidance out of titles,
and calling the user's attention; with the real demo agent process (modes, a model option, commands, a login) and
headless runs of the real command line. The real adapters' side is in tests/system/test_real_agents.py."""

from __future__ import annotations

from ..support.app_helpers import until


async def test_the_command_menu_uses_its_width_from_its_first_showing_and_after_a_resize(tmp_path):
    """Claude's commands at 100 columns: each description was cut at 58 columns the first time the menu showed
    (hidden, it had no width yet, and 60 was guessed), with 40 columns empty beside it. Each line is one row, cut to
    the width the menu has, and cut again when the terminal is resized."""
    from kandev_tui.app.snapshot import deterministic_app
    from kandev_tui.transcript import Item

    from ..support.app_helpers import ScriptedSource

    described = "Review the changed code for reuse, quality and efficiency, then fix any issues found in place"
    info = {"commands": [{"name": f"review-{n}", "description": described, "input": {"hint": "[<target>]"}}
                         for n in range(12)]}
    app = deterministic_app(ScriptedSource([Item("session_info", "session_info", 1, info)]), tmp_path / "config.toml")
    async with app.run_test(size=(100, 30)) as pilot:
        menu = app.transcript_screen.command_menu
        await until(pilot, lambda: app.transcript_screen.prompt.commands)
        app.transcript_screen.prompt.focus()
        await pilot.press("/")
        await until(pilot, lambda: menu.open and menu.size.width)

        def rows() -> list[str]:
            return [menu.render_line(y).text.rstrip() for y in range(8)]

        await until(pilot, lambda: rows()[0].endswith("…"))
        width = menu.scrollable_content_region.width
        assert width > 80 and all(len(row) == width and row.endswith("…") for row in rows()), rows()
        assert all(row.startswith(f"/review-{n} [<target>]  Review the changed code") for n, row in enumerate(rows())), rows()
        await pilot.resize_terminal(60, 30)
        await until(pilot, lambda: menu.scrollable_content_region.width < 60 and
                    len(rows()[0]) == menu.scrollable_content_region.width)
        assert all(row.endswith("…") and row.startswith(f"/review-{n} ") for n, row in enumerate(rows())), rows()
        await pilot.press("down", "down")
        await pilot.resize_terminal(100, 30)
        await until(pilot, lambda: len(rows()[0]) == menu.scrollable_content_region.width > 80)
        assert menu.highlighted == 2  # the choice kept through the new lines
        await app.action_quit()
