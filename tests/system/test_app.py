"""Pilot tests: the real app, real sources, keys pressed, state and posted messages asserted."""

from __future__ import annotations

from textual.geometry import Region

from kandev_tui.base.settings import SettingsStore
from kandev_tui.widgets.entries.chart_block import ChartBlock
from kandev_tui.widgets.entries.tool_group import ToolGroup

from ..support.app_helpers import message_item, replay_app, settle, stored_app, tool_item, until


async def test_a_notice_stands_at_the_top_not_over_the_newest_lines_where_a_request_waits(tmp_path):
    """A toast stands at the top right, under the status line: Textual's place for it, the bottom right, is where the
    newest lines are, and a permission request's answers (a loaded CI run saw two notices hide "2 Reject")."""
    app = replay_app(tmp_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:  # (off in run_test unless asked)
        await settle(pilot)
        app.notify("Session 2 works in /a/long/path/of/a/worktree/made/for/it/kandev-demo-2 on branch kandev/demo-2.")
        app.notify("Session 3 works in /another/folder.")
        await until(pilot, lambda: len(app.screen.query("Toast")) == 2)
        toasts = [toast.region for toast in app.screen.query("Toast")]
        view = app.view.region
        lower_half = Region(view.x, view.y + view.height // 2, view.width, view.height - view.height // 2)
        assert min(region.y for region in toasts) <= 3 and max(region.right for region in toasts) >= app.size.width - 3
        assert not any(region.overlaps(lower_half) for region in toasts)
        assert not any(region.overlaps(app.transcript_screen.prompt.region) for region in toasts)


async def test_an_entry_above_given_the_keys_stays_in_view_as_output_comes(tmp_path):
    """shift+tab to a tool group at the top of a long session scrolled to it, but the view went on following the
    output: the group opened with enter (or the next line that came) pulled the view back to the end, away from it
    (seen with Codex in tmux). An entry above the last screen given the keys by the user stops the following; the
    app's own focus does not (the demo's request, focused as it came with output after it, stopped the following on
    a loaded machine: "end of turn" never showed in tmux)."""
    items = [tool_item("t0", name="bash", kind="execute", title="first call", turn=1)]
    items += [message_item(n, f"message {n} " + "words " * 30, turn=1) for n in range(1, 12)]
    app = stored_app(tmp_path, items)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.view
        group = view.query_one(ToolGroup)
        assert view.following and view.scroll_y == view.max_scroll_y > 0
        while app.focused is not group:
            await pilot.press("shift+tab")
        await until(pilot, lambda: view.scroll_y < view.max_scroll_y)
        assert not view.following
        await pilot.press("enter")  # opened: the view stays where the group is
        app.session.receive_items([message_item(99, "late output", turn=1)])
        await until(pilot, lambda: app.transcript_screen.badge.display)
        await settle(pilot)
        assert group.expanded and not view.following and group.region.overlaps(view.region)
        view.focus()
        await pilot.press("end")
        await until(pilot, lambda: view.following)
        group.focus()  # the app's own focus (a request taking the keys as it arrives, output after it): following
        await settle(pilot)
        assert view.following
        app.session.receive_items([message_item(100, "more output", turn=1)])  # and the output that comes is shown
        await until(pilot, lambda: "message:100" in view.widgets and view.scroll_y == view.max_scroll_y)


def test_the_entry_points_are_read_when_the_registry_is_first_used_not_when_it_is_made():
    """The app's registry is made before its first frame and read after it: making it imports no pack."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from kandev_tui.renderers import Registry\n"
            "registry = Registry.from_entry_points(now=False).without('edit')\n"
            "packs = ('kandev_tui.packs.fleet', 'kandev_tui.packs.rich_output', 'kandev_tui.packs.edits')\n"
            "print(sorted(m for m in packs if m in sys.modules))\n"
            "print(sorted(r.id for r in registry.renderers))\n"
            "print(sorted(m for m in packs if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    before, ids, after = out.stdout.splitlines()
    assert before == "[]" and "'rich_output'" in ids and "'edit'" not in ids and "fleet" in after


async def test_settings_persist_and_environment_overrides(tmp_path, monkeypatch):
    app = replay_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await pilot.pause()
        app.actions.change_setting(theme="textual-light", card_limit=3, chart_animation=False)
        await pilot.pause()
        assert app.theme == "textual-light"
    saved = SettingsStore(tmp_path / "config.toml").settings
    assert (saved.theme, saved.card_limit, saved.chart_animation) == ("textual-light", 3, False)
    monkeypatch.setenv("KANDEV_TUI_CARD_LIMIT", "5")
    monkeypatch.setenv("KANDEV_TUI_CHART_ANIMATION", "nonsense")
    store = SettingsStore(tmp_path / "config.toml")
    assert store.settings.card_limit == 5 and store.settings.chart_animation is False
    assert any("chart_animation" in w for w in store.warnings)


def test_f1_lists_every_key_of_kandev_tuis_own_screens_and_cards():
    """F1 lacked the review's keys, d in the sessions list, @ mentions and a form's keys. Every key a screen or card of
    kandev-tui binds (shown in the footer or not) is in F1's list, under the section for where it works."""
    from kandev_tui.screens.help import KEYS
    from kandev_tui.screens.review import ReviewScreen
    from kandev_tui.screens.sessions import SessionsScreen
    from kandev_tui.widgets.entries.subagent import SubagentCard

    names = {"right_square_bracket": "]", "left_square_bracket": "[", "left": "←", "right": "→", "up": "↑", "down": "↓",
             "slash": "/"}

    def covers(tokens: list[str], key: str) -> bool:  # "1-4" covers 2, "←/→" covers ←
        return any(key == token or key in token.split("/") or
                   (key.isdigit() and "-" in token and token.split("-")[0] <= key <= token.split("-")[1])
                   for token in tokens)
    listed = {section: " ".join(key for key, _what in keys).split() for section, keys in KEYS}
    for where, section in ((ReviewScreen, "Changes card, review"), (SessionsScreen, "Several sessions"),
                           (ChartBlock, "Chart (focused)"), (SubagentCard, "Subagent")):
        for binding in where.BINDINGS:
            for key in binding.key.split(","):
                key = names.get(key, key)
                if key in ("ctrl+n", "escape") and section == "Several sessions":  # the app's, listed above
                    continue
                assert covers(listed[section], key), (where.__name__, key, listed[section])
    prompt = dict(dict(KEYS)["Prompt"])
    assert "@" in prompt and "d (in the list)" in dict(dict(KEYS)["Several sessions"])
    assert "Agent's question (form)" in dict(KEYS)


def test_every_invalid_setting_in_the_file_is_warned_about(tmp_path, monkeypatch):
    """Each value that is not valid is said (the file's path, the line as written, what it takes) and its default
    used; the others are kept."""
    (tmp_path / "config.toml").write_text('theme = 3\nchart_animation = "yes"\ncard_limit = "5"\n'
                                          'attention_bell = false\n')
    monkeypatch.setenv("KANDEV_TUI_EDITS_INLINE", "maybe")
    store = SettingsStore(tmp_path / "config.toml")
    settings = store.settings
    assert (settings.theme, settings.chart_animation, settings.card_limit, settings.attention_bell,
            settings.edits_inline) == ("textual-dark", True, 16, False, True)
    said = "\n".join(store.warnings)
    assert len(store.warnings) == 4, said
    assert f'{tmp_path / "config.toml"}: theme = 3 is not valid (expected a theme' in said
    assert 'chart_animation = "yes" is not valid (expected true or false, without quotes)' in said
    assert 'card_limit = "5" is not valid (expected a whole number, without quotes)' in said
    assert "KANDEV_TUI_EDITS_INLINE='maybe' (the setting edits_inline) is not valid (expected true or false)" in said


async def test_a_screenshot_is_saved_where_it_can_be_and_the_notice_says_where(tmp_path, monkeypatch):
    """No Downloads folder (a server, a container): the screenshot goes beside the sessions, and the notice says so."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DOWNLOAD_DIR", str(tmp_path / "home" / "Downloads"))  # not made: there is none
    monkeypatch.setenv("KANDEV_TUI_DB", str(tmp_path / "data" / "sessions.db"))
    app = replay_app(tmp_path)
    said: list[str] = []
    app.notify = lambda message, **kwargs: said.append(str(message))  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.action_screenshot()
        await until(pilot, lambda: any("Saved screenshot" in message for message in said))
    shots = list((tmp_path / "data" / "screenshots").glob("*.svg"))
    assert len(shots) == 1 and "<svg" in shots[0].read_text()
    assert str(shots[0]) in next(message for message in said if "Saved screenshot" in message)
