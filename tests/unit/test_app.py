"""Pilot tests: the real app, real sources, keys pressed, state and posted messages asserted."""

from __future__ import annotations

import pytest

from kandev_tui.base.settings import SettingsStore
from kandev_tui.packs.rich_output import RENDERER as RICH
from kandev_tui.renderers import Registry
from kandev_tui.session.layout import Layout

from ..support import CHECKOUT
from ..support.app_helpers import counting_renderer
from ..support.app_helpers import bar_chart, rich_item, tool_item


def test_registry_matches_by_name_and_by_renderer_id():
    by_name = counting_renderer(tool_names=["get_entity"], rid="by-name")
    by_id = counting_renderer(renderer_ids=["entity_card"], rid="by-id")
    registry = Registry([by_name, by_id, RICH])
    assert registry.match({"name": "ops/get_entity"}) is by_name
    assert registry.match({"name": "other", "title": "mcp__ops__get_entity"}) is by_name
    assert registry.match({"name": "x", "output": {"__renderer": "entity_card"}}) is by_id
    assert registry.match({"name": "x", "output": {"content": [{"type": "text", "text": '{"__renderer":"entity_card"}'}]}}) is by_id
    assert registry.match({"name": "kandev/show_rich_output_kandev"}) is RICH
    assert registry.match({"name": "other/show_rich_output_kandev"}) is None
    assert registry.match({"name": "read"}) is None


def test_builtin_renderer_is_found_through_entry_points():
    registry = Registry.from_entry_points()
    assert any(r.id == "rich_output" and r.source == "kandev_tui.packs.rich_output:RENDERER" for r in registry.renderers)
    assert registry.errors == []


def test_group_summary_with_cards_beside_it():
    layout = Layout(Registry([counting_renderer(tool_names=["deploy"]), RICH]))
    layout.place(tool_item("a", name="read"))
    layout.place(tool_item("b", name="deploy", kind="other", title="deploy"))
    layout.place(rich_item("c", bar_chart("x")))
    group = next(e for e in layout.entries if e.kind == "group")
    assert layout.summary(group) == "1 tool: read · 2 cards"


async def test_broken_settings_file_is_a_warning_not_a_crash(tmp_path):
    (tmp_path / "config.toml").write_text("theme = [unclosed")
    store = SettingsStore(tmp_path / "config.toml")
    assert store.settings.theme == "textual-dark" and store.warnings


def test_the_readme_lists_the_keys_f1_lists():
    """One list of keys: the README's table is F1's, row for row."""

    from kandev_tui.screens.help import keys_markdown

    readme = (CHECKOUT / "README.md").read_text()
    assert keys_markdown() in readme, "the README's keys table is not F1's: paste keys_markdown() into its Keys section"


def test_saving_settings_keeps_what_this_version_does_not_know(tmp_path):
    from kandev_tui.base.settings import SettingsStore

    path = tmp_path / "config.toml"
    path.write_text('# mine\ntheme = "nord"\nfuture_option = 3  # from a newer kandev-tui\n\n[plugins]\nx = "y"\n')
    store = SettingsStore(path)
    assert any("future_option" in w and "kept" in w for w in store.warnings)
    store.update(card_limit=5, theme="textual-light")
    text = path.read_text()
    assert "# mine" in text and "future_option = 3  # from a newer kandev-tui" in text and '[plugins]\nx = "y"' in text
    again = SettingsStore(path)
    assert (again.settings.theme, again.settings.card_limit) == ("textual-light", 5)
    assert text.index("card_limit") < text.index("[plugins]")


@pytest.mark.parametrize("width", [30, 37, 60, 76])
def test_the_help_shows_every_key_whole_at_any_width(width):
    from rich.console import Console

    from kandev_tui.screens.help import KEYS, KeyTable

    console = Console(width=width, color_system=None, record=True)
    console.print(KeyTable())
    text = console.export_text()
    assert "…" not in text
    words = " ".join(text.split())
    for _section, keys in KEYS:
        for key, _what in keys:
            for part in key.split():
                assert part in words, (width, key)
