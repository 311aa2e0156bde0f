"""Snapshots of every item kind and card state, at 80x24, 120x40 and 45x30, dark and light, animation off.

Regenerate after a deliberate change with ``pytest snapshots --snapshot-update`` and look at every SVG.
"""

from __future__ import annotations

import pytest

from .scenes import RUN_BEFORE, at_end, make

SIZES = [(80, 24), (120, 40), (45, 30)]
THEMES = ["textual-dark", "textual-light"]


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scene", ["demo_top", "demo_chart", "demo_end", "states", "group_expanded", "blocks"])
def test_scene(snap_compare, tmp_path, scene, size, theme):
    assert snap_compare(make(scene, tmp_path, theme), terminal_size=size, run_before=RUN_BEFORE[scene])


FLEET = ["entity_card", "health_summary", "lxc_list", "entity_table", "knowledge_results", "metric_chart",
         "blast_radius", "change_log", "fleet_snapshot", "fallbacks"]


@pytest.mark.parametrize("size", [(80, 24), (45, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("renderer", FLEET)
def test_fleet_renderer(snap_compare, tmp_path, renderer, size):
    """Each fleet renderer in its four states (skeleton, error, empty, card), and the fallbacks; following the end."""
    assert snap_compare(make(f"fleet_{renderer}", tmp_path, "textual-dark"), terminal_size=size, run_before=at_end)


@pytest.mark.parametrize("size", [(120, 40), (45, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_attached_kandev_session(snap_compare, tmp_path, size):
    """A session attached from Kandev (rows captured from a real 0.95.1 backend), at its CSV-backed chart."""
    assert snap_compare(make("kandev_chart", tmp_path, "textual-dark"), terminal_size=size,
                        run_before=RUN_BEFORE["kandev_chart"])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scene", ["claude_edit", "codex_commands", "gemini_rich", "opencode_rich"])
def test_real_agent_session(snap_compare, tmp_path, scene, size):
    """Sessions recorded from the real Claude Code, Codex, Gemini CLI and OpenCode adapters (tests/system/test_real_agents.py):
    an edit as a card with its diff's two hunks; commands with their colours and exit codes; Gemini's and OpenCode's
    show_rich_output_kandev calls as native cards (metrics and a bar chart)."""
    assert snap_compare(make(scene, tmp_path, "textual-dark"), terminal_size=size, run_before=RUN_BEFORE[scene])


@pytest.mark.parametrize("size", [(80, 24), (45, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("view", ["login", "choices", "commands"])
def test_session_control(snap_compare, tmp_path, view, size):
    """What only a live session shows: the login screen (a terminal, an agent and a variable method), the mode and
    model picker (Claude's modes, models and effort), the slash commands offered as "/c" is typed."""
    from .scenes import control_app, show_control

    assert snap_compare(control_app(tmp_path, view), terminal_size=size, run_before=lambda pilot: show_control(pilot, view))


XTERM = None  # the xterm palette, made when first used (rich.terminal_theme is imported with the tests' apps)


def xterm_palette():
    """xterm's own 16 colours (what TERM=xterm shows): the picture of a terminal with only those."""
    global XTERM
    if XTERM is None:
        from rich.terminal_theme import TerminalTheme

        XTERM = TerminalTheme((0, 0, 0), (229, 229, 229),
                              [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205),
                               (0, 205, 205), (229, 229, 229)],
                              [(127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
                               (255, 0, 255), (0, 255, 255), (255, 255, 255)])
    return XTERM


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("scene", ["claude_edit", "states", "blocks"])
def test_scene_in_16_colours(snap_compare, tmp_path, scene, theme):
    """What a terminal of 16 colours (TERM=xterm) shows: every colour rounded as the app's console rounds it there,
    drawn in xterm's palette. Each card's border, diff line, prompt and text stays readable in either theme (a light
    theme's diff lines were black on black, its card borders bright white on bright white)."""
    from kandev_tui.ui.textual_hooks import screen_svg

    app = make(scene, tmp_path, theme)
    app.sixteen_colors = True
    app.export_screenshot = lambda title=None, simplify=False: screen_svg(app, "standard", title or "kandev-tui",
                                                                           xterm_palette())
    assert snap_compare(app, terminal_size=(100, 34), run_before=RUN_BEFORE[scene])


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_sessions_list(snap_compare, tmp_path, size):
    """The sessions list (ctrl+s) over three sessions (Claude Code's, Codex's and Gemini CLI's, replayed): each with
    its state, agent, title and what arrived since it was last on screen; a full screen at 80 and 45 columns, a
    sidebar beside the transcript (focused) at 120."""
    from .scenes import sessions_app, show_sessions

    assert snap_compare(sessions_app(tmp_path), terminal_size=size, run_before=show_sessions)


@pytest.mark.parametrize("size", [(80, 24), (45, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("step", ["list", "new_session"])
def test_home(snap_compare, tmp_path, size, step):
    """The bare kandev-tui: the sessions list with the stored sessions (one to continue, a hostile title made inert),
    and ctrl+n's dialog over it."""
    from .scenes import home_app, show_home, show_new_session

    assert snap_compare(home_app(tmp_path), terminal_size=size,
                        run_before=show_home if step == "list" else show_new_session)


@pytest.mark.parametrize("size", [(80, 24), (45, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("mode", ["form", "url"])
def test_question(snap_compare, tmp_path, mode, size):
    """An agent's question waiting for the user, focused: a form (text, a bounded integer, a choice, a yes/no), and a
    link to open whose host is shown as what it is (the part before @ named, not taken for the site)."""
    from .scenes import question_app, show_question

    assert snap_compare(question_app(tmp_path, mode), terminal_size=size, run_before=show_question)


@pytest.mark.parametrize("size", [(80, 24), (45, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_notices_and_compactions(snap_compare, tmp_path, size):
    """A Markdown plan (plan operations), notices by severity (info quiet, a warning and an error standing out) and
    compactions (done, failed with its reason)."""
    from tests.support.app_helpers import stored_app

    from .scenes import event_items, scroll_home

    assert snap_compare(stored_app(tmp_path, event_items()), terminal_size=size, run_before=scroll_home)


@pytest.mark.parametrize("size", [(80, 24), (45, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_subagent(snap_compare, tmp_path, size):
    """A subagent inside the call that spawned it, expanded: its calls with their states, the latest it said."""
    from tests.support.app_helpers import stored_app

    from .scenes import expand_subagent, subagent_items

    assert snap_compare(stored_app(tmp_path, subagent_items()), terminal_size=size, run_before=expand_subagent)


@pytest.mark.parametrize("size", [(80, 24), (45, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_subagent_full_screen(snap_compare, tmp_path, size):
    """A subagent entered full screen: what it was told, what it said (as Markdown) and its calls, in order."""
    from tests.support.app_helpers import stored_app

    from .scenes import open_subagent, subagent_items

    assert snap_compare(stored_app(tmp_path, subagent_items()), terminal_size=size, run_before=open_subagent)


@pytest.mark.system
@pytest.mark.parametrize("size", [(80, 24), (120, 40), (45, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("step", ["card", "review"])
def test_changes(snap_compare, tmp_path, step, size):
    """What a turn changed in a real repository: the card after its message (a modified file, a rename, a binary
    file, a new file, the agent's own state summed up apart; another session's turn overlapped), and its review (the
    first file's diff)."""
    from tests.support.app_helpers import stored_app

    from .scenes import changes_items, show_changes, show_review

    assert snap_compare(stored_app(tmp_path, changes_items(tmp_path)), terminal_size=size,
                        run_before=show_changes if step == "card" else show_review)
