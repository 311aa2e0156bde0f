"""Each setting is declared once (kandev_tui/base/settings.py: DECLARED): the settings dataclass has exactly those
fields, the settings screen is made from the declarations (a row each, switches, numbers and the theme as declared,
changes posted as messages and applied by the app), and the README's table says what the declarations say."""

from __future__ import annotations

import re

from kandev_tui.base.settings import DECLARED, Settings

from ..support import CHECKOUT

README = CHECKOUT / "README.md"

ROW = re.compile(r"^\| `(?P<name>[a-z_]+)` \| `(?P<default>[^`]*)` \| (?P<meaning>.*) \|$")


def readme_rows() -> list[tuple[str, str, str]]:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Configuration"):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section[1:] else section
    return [(m["name"], m["default"], m["meaning"]) for line in section.splitlines() if (m := ROW.match(line))]


def toml_default(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def test_the_settings_are_the_declared_ones_in_their_order():
    assert [declared.name for declared in DECLARED] == list(Settings.names())


def test_the_readme_table_says_what_the_declarations_say():
    rows = readme_rows()
    assert len(rows) == len(DECLARED), "the README's settings table has another number of rows"
    defaults = Settings()
    for (name, default, meaning), declared in zip(rows, DECLARED):
        assert name == declared.name
        assert default == toml_default(getattr(defaults, name)), name
        assert meaning == declared.meaning, name


def test_what_the_settings_say_of_agents_reaches_their_options_and_a_given_value_wins(tmp_path):
    from kandev_tui.acp import AgentOptions

    settings = Settings(client_fs_write=False, client_terminals=False, track_changes=False, checkpoint_days=7,
                        inject_guidance=False)
    options = AgentOptions.from_settings(settings, ["agent", "--acp"], tmp_path, init_timeout=5.0)
    assert (options.command, options.workspace, options.init_timeout) == (["agent", "--acp"], tmp_path, 5.0)
    assert (options.fs_read, options.fs_write, options.terminals) == (True, False, False)
    assert (options.track_changes, options.checkpoint_days, options.inject_guidance) == (False, 7, False)
    assert AgentOptions.from_settings(settings, ["agent"], tmp_path, inject_guidance=True).inject_guidance  # --flag


def test_a_setting_is_checked_as_its_one_declaration_says():
    import pytest

    from kandev_tui.base.settings import SettingError

    with pytest.raises(SettingError, match="expected 1 to 100"):
        Settings(card_limit=0)
    with pytest.raises(SettingError, match="expected true or false"):
        Settings(track_changes="maybe")
    assert Settings(checkpoint_days="12").checkpoint_days == 12  # from the environment: text read as its type
