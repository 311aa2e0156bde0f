"""Several live sessions in one app (real agent processes: the demo agent twice, the dialect kit's scripted agent):
each streams and stores while another is on screen, the list says who waits, f4 goes there, ctrl+w closes one
and the others go on, quitting leaves no agent behind."""

from __future__ import annotations

from kandev_tui.session import SessionState


def test_a_hostile_title_agent_and_workspace_are_inert_in_a_row():
    from kandev_tui.session.row import SessionRow
    from kandev_tui.widgets.chrome.sessions_sidebar import row_text

    evil = "\x1b]2;pwned\x07\x1b[31mred\x1b[0m\r\nnext\u202e"
    row = SessionRow(1, evil, evil, evil, evil, SessionState.WAITING, "waiting for you", evil, 1.0, 3, "", False)
    text = row_text(row, 60).plain
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text and "\u202e" not in text
    assert text.count("\n") == 1  # its two lines, whatever the title holds


def test_presets_from_the_settings_file_and_what_is_wrong_with_them(tmp_path):
    from kandev_tui.base.settings import SettingsStore

    config = tmp_path / "config.toml"
    config.write_text('theme = "nord"\n\n[presets.mine]\ncommand = ["my-agent", "--acp"]\nenv = { A = "1" }\n'
                      'workspace = "~/src"\n\n[presets.codex]\ncommand = ["codex-acp"]\n\n'
                      '[presets.nocommand]\nenv = { A = "1" }\n\n[presets."bad name!"]\ncommand = ["x"]\n\n'
                      '[presets.typo]\ncommand = ["x"]\nenvs = { A = "1" }\n')
    store = SettingsStore(config)
    presets, warnings = store.presets()
    assert not store.warnings  # the presets table is known
    assert presets["mine"].command == ("my-agent", "--acp") and presets["mine"].env == {"A": "1"}
    assert presets["mine"].workspace == "~/src"
    assert presets["codex"].command == ("codex-acp",) and not presets["codex"].builtin  # the file's wins
    assert presets["demo"].builtin and {"claude", "gemini", "opencode"} <= set(presets)
    assert "nocommand" not in presets and "typo" not in presets and "bad name!" not in presets
    assert len(warnings) == 3 and any("nocommand" in w and "command = " in w for w in warnings)
    assert any("typo" in w and "envs" in w for w in warnings)
    store.update(theme="gruvbox")  # saving keeps the presets
    assert "[presets.mine]" in config.read_text() and SettingsStore(config).presets()[0]["mine"].env == {"A": "1"}


def test_a_call_names_the_sessions_that_need_the_user_in_one_sentence():
    from types import SimpleNamespace

    from kandev_tui.app.attention import Attention, Call

    def call(number: int, state: SessionState, what: str) -> Call:
        session = SimpleNamespace(number=number, status=SimpleNamespace(agent=f"agent \x1b[31m{number}"))
        return Call(session, what, state)  # type: ignore[arg-type]

    login = call(6, SessionState.LOGIN, "needs a login")
    assert Attention._notice([login]) == "Session 6 (agent ␛[31m6) needs a login: f4 goes there."  # inert
    waiting = [call(n, SessionState.WAITING, "waiting for you") for n in (30, 2, 9, 7, 15, 13, 4)]
    assert Attention._notice(waiting[:2] + [login]) == ("Sessions 2 and 30 are waiting for you; session 6 needs a login: "
                                                        "f4 goes to each, the one waiting longest first.")
    assert Attention._notice(waiting).startswith("Sessions 2, 4, 7, 9, 13 and 2 more are waiting for you: ")


def test_in_the_sidebars_columns_a_rows_agent_is_kept_over_its_words_and_in_the_list_all_of_them_show():
    """The sidebar is 33 columns: there, a waiting session's row cut "waiting for you +6 new · on screen" after its
    state and never named its agent, which is what tells one session from the next. The agent is kept: the cost,
    "on screen" and the state's long word give way first. In the list's 80 columns every part shows."""
    from kandev_tui.session.row import SessionRow
    from kandev_tui.widgets.chrome.sessions_sidebar import row_text

    def first(agent: str, activity: str, state: SessionState, unseen: int, cost: str, current: bool, width: int):
        row = SessionRow(1, agent, "t", "/w", "", state, activity, "", None, unseen, cost, current)
        return row_text(row, width).plain.splitlines()[0]

    waiting = ("Codex", "waiting for you", SessionState.WAITING, 6, "$0.12", False)
    assert first(*waiting, 78) == "? 1 waiting for you  +6 new · $0.12  Codex"
    assert first(*waiting, 32) == "? 1 waiting  +6  Codex"
    assert first("kandev-tui demo agent", "waiting for you", SessionState.WAITING, 10, "", False, 32) \
        == "? 1 waiting  +10  kandev-tui de…"
    on_screen = ("Claude Agent", "idle", SessionState.IDLE, 0, "$0.00", True)
    assert first(*on_screen, 78) == "○ 1 idle  $0.00 · on screen  Claude Agent"
    assert first(*on_screen, 32) == "○ 1 idle  Claude Agent"
    assert first(*on_screen, 10) == "○ 1 idle …"  # the narrowest a row is drawn: cut, never wider


def test_a_rows_title_is_cut_between_words_and_the_lists_heading_keeps_whole_keys():
    """At 45 and 80 columns a row cut its title mid-word ("bu…") and the heading wrapped its key onto a line of its
    own. A title is cut between two words, a folder where it ends; the heading says whole parts on one line, who
    waits first."""
    from kandev_tui.screens.session_rows import heading_text
    from kandev_tui.session.row import SessionRow
    from kandev_tui.widgets.chrome.sessions_sidebar import row_text

    row = SessionRow(1, "demo", "Fix the build of billing", "/w/app", "", SessionState.IDLE, "idle", "", None, 0, "",
                     False)
    assert row_text(row, 26).plain.splitlines()[1] == "    Fix the build of…"
    assert row_text(row, 40).plain.splitlines()[1] == "    Fix the build of billing  /w/app"
    assert row_text(row, 34).plain.splitlines()[1] == "    Fix the build of billing  /w/…"  # the folder: its end
    for width in (43, 78, 118):
        heading = heading_text(3, 3, 1, True, width).plain
        assert len(heading) <= width and "(f4)" in heading, heading
        assert heading.startswith("Sessions  1 waiting"), heading
    assert heading_text(3, 3, 1, True, 118).plain == "Sessions  1 waiting for you (f4)  3 in this app · 3 live  " \
                                                     "ctrl+n new"
    assert heading_text(3, 3, 1, True, 43).plain == "Sessions  1 waiting for you (f4)"
