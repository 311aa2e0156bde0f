"""Every path the user gives is checked before any work starts, and an error is one line naming the path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kandev_tui.base.userpaths import directory_problem, output_problem
from kandev_tui.transcript import Item, Store

from ..support.app_helpers import DEMO_RECORDING

DEMO = [sys.executable, "-m", "kandev_tui.demo.agent"]


def run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "KANDEV_TUI_DB"}
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "kandev_tui", *args], capture_output=True, text=True, timeout=120,
                          env=environment, cwd=cwd)


def one_line_error(result: subprocess.CompletedProcess, code: int, *words: str) -> str:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0]
    return lines[0]


@pytest.fixture
def stored(tmp_path) -> tuple[Path, str]:
    db = tmp_path / "s.db"
    store = Store(db)
    session = store.create_session(title="A session", agent_command=["agent"], state="ended")
    store.upsert_items(session, [Item("user:1", "user_message", 1, {"text": "hello"}, final=True)])
    store.close()
    return db, session


def bad_outputs(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Unusable output paths and the reason each must be given with."""
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-dir").mkdir()
    return {"missing directory": (tmp_path / "nodir" / "out.md", "no such directory"),
            "a directory": (tmp_path / "a-dir", "is a directory"),
            "under a file": (tmp_path / "a-file" / "out.md", "is not a directory")}


def test_output_problem_names_the_real_reason(tmp_path):
    for path, reason in bad_outputs(tmp_path).values():
        assert reason in output_problem(path)
    assert output_problem(tmp_path / "fine.txt") is None and not (tmp_path / "fine.txt").exists()
    (tmp_path / "old.jsonl").write_text("{}\n")
    assert "already exists" in output_problem(tmp_path / "old.jsonl", new=True)
    assert output_problem(tmp_path / "new" / "deeper" / "s.db", make_parents=True) is None
    assert "is not a directory" in output_problem(tmp_path / "a-file" / "x" / "s.db", make_parents=True)
    assert directory_problem(tmp_path) is None
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".kandev-tui")]  # the write probe is removed


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere: permissions do not stop it")
def test_an_unwritable_file_or_directory_is_said(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "old.md").write_text("x")
    (locked / "old.md").chmod(0o444)
    locked.chmod(0o555)
    try:
        assert "not writable" in output_problem(locked / "new.md")
        assert "not writable" in output_problem(locked / "old.md")
    finally:
        locked.chmod(0o755)


def test_export_to_a_bad_path_is_one_line_and_writes_nothing(tmp_path, stored):
    db, session = stored
    for path, reason in bad_outputs(tmp_path).values():
        result = run("export", session, "--db", str(db), "-o", str(path))
        one_line_error(result, 2, str(path), reason, "--output")
    good = tmp_path / "out.md"
    assert run("export", session, "--db", str(db), "-o", str(good)).returncode == 0
    assert "hello" in good.read_text()


def test_record_and_stats_paths_are_checked_before_the_agent_starts(tmp_path):
    db = tmp_path / "s.db"
    for path, reason in bad_outputs(tmp_path).values():
        result = run("run", "--headless", "--prompt", "hi", "--db", str(db), "--record", str(path), "--", *DEMO)
        one_line_error(result, 2, str(path), reason, "--record")
        result = run("open", "abc", "--db", str(db), "--stats", str(path))
        one_line_error(result, 2, str(path), reason, "--stats")
    assert not db.exists()  # checked before any work: no database, no session


def test_an_existing_recording_is_never_replaced(tmp_path):
    recording = tmp_path / "run.jsonl"
    recording.write_text(DEMO_RECORDING.read_text())
    before = recording.read_bytes()
    result = run("run", "--headless", "--prompt", "hi", "--db", str(tmp_path / "s.db"), "--record", str(recording),
                 "--", *DEMO)
    one_line_error(result, 2, str(recording), "already exists")
    assert recording.read_bytes() == before
    help_text = run("run", "--help").stdout
    assert "never replaced" in help_text and "append" not in help_text


@pytest.mark.parametrize("content,reason", [("this is not a recording\n", "line 1 is not JSON"),
                                            ('{"a": 1}\n', "line 1 is not a frame"),
                                            ("", "has no frames")], ids=["text", "json", "empty"])
def test_replay_and_transcript_refuse_what_is_not_a_recording_in_the_same_line(tmp_path, content, reason):
    path = tmp_path / "notarecording.txt"
    path.write_text(content)
    replay = one_line_error(run("replay", str(path), env={"KANDEV_TUI_FORCE_APP": "1"}), 1, reason)
    transcript = one_line_error(run("transcript", str(path)), 1, reason)
    assert replay.startswith("kandev-tui replay: ") and transcript.startswith("kandev-tui transcript: ")
    assert replay.split(": ", 1)[1] == transcript.split(": ", 1)[1]


def test_replay_takes_no_db(tmp_path):
    result = run("replay", str(DEMO_RECORDING), "--db", str(tmp_path / "s.db"))
    assert result.returncode == 2 and "--db" in result.stderr and not (tmp_path / "s.db").exists()


def test_read_only_commands_create_nothing(tmp_path):
    missing = tmp_path / "typo" / "x.db"
    for args in (["sessions"], ["sessions", "--json"], ["export", "abc"], ["open", "abc"]):
        line = one_line_error(run(*args, "--db", str(missing)), 2, str(missing), "does not exist")
        assert "damaged" not in line
    assert not (tmp_path / "typo").exists()
    # the default database, never written yet: nothing stored, nothing made
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
    result = run("sessions", env=env)
    assert result.returncode == 0 and "No stored sessions yet" in result.stdout
    assert not home.exists()


def test_unusable_database_paths_name_the_reason(tmp_path):
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-dir").mkdir()
    cases = {tmp_path / "a-file" / "s.db": "is not a directory", tmp_path / "a-dir": "is a directory"}
    for path, reason in cases.items():
        for args in (["sessions", "--db", str(path)], ["run", "--headless", "--prompt", "hi", "--db", str(path), "--", *DEMO]):
            line = one_line_error(run(*args), 2, str(path), reason)
            assert "damaged" not in line
    not_sqlite = tmp_path / "notes.db"
    not_sqlite.write_text("just text, long enough to be read as a header " * 4)
    one_line_error(run("sessions", "--db", str(not_sqlite)), 2, "is not a kandev-tui database")



def test_a_session_prefix_matches_literally_and_an_ambiguous_one_says_which(tmp_path):
    db = tmp_path / "s.db"
    store = Store(db)
    ids = [store.create_session(title=f"Session {n}", agent_command=["opencode", "acp"], state="ended") for n in range(3)]
    store.close()
    for wildcard in ("%", "_", ids[0][:2] + "%"):
        one_line_error(run("export", wildcard, "--db", str(db)), 1, "no session")
    # a prefix of two or more: each is named
    import sqlite3

    connection = sqlite3.connect(db)
    connection.execute("UPDATE sessions SET id = 'ab' || substr(id, 3)")
    connection.commit()
    connection.close()
    line = one_line_error(run("export", "ab", "--db", str(db)), 1, "matches 3 sessions", "give more of the id")
    assert line.count("Session ") == 3
    listing = run("sessions", "--db", str(db)).stdout
    assert "opencode acp" in listing


def test_sessions_show_the_agent_and_the_recording_in_full(tmp_path):
    from kandev_tui.sources import agent_display_name

    assert agent_display_name(["opencode", "acp"]) == "opencode acp"
    assert agent_display_name(["npx", "-y", "@agentclientprotocol/claude-agent-acp"]) == "claude-agent-acp"
    assert agent_display_name([sys.executable, "-m", "kandev_tui.demo.agent"]) == "kandev_tui.demo.agent"
    assert agent_display_name(["gemini", "--experimental-acp"]) == "gemini"
    assert agent_display_name(["python3", "-c", "import sys; sys.exit(3)"]) == "python3 -c"  # code is no name
    assert agent_display_name(["node", "-e", "require('./agent.js')"]) == "node -e"
    assert agent_display_name(["python3", "agent.py", "-c", "agent.toml"]) == "agent.py"  # the program's own -c
    assert agent_display_name(["npx", "-p", "@scope/pkg", "pkg-acp"]) == "pkg"  # npx -p: a package, not code
    work = tmp_path / "work"
    work.mkdir()
    result = run("run", "--headless", "--prompt", "hi", "--db", str(tmp_path / "s.db"), "--record", "rec.jsonl",
                 "--permission", "allow-once", "--", *DEMO, cwd=work)
    assert result.returncode == 0, result.stderr
    row = json.loads(run("sessions", "--json", "--db", str(tmp_path / "s.db")).stdout.splitlines()[0])
    assert row["recording"] == str(work / "rec.jsonl")


def test_every_file_option_says_what_is_wrong_in_one_shape(tmp_path):
    """kandev-tui CMD: --option PATH: reason, for every file or directory option."""
    (tmp_path / "a-file").write_text("x")
    under_file = tmp_path / "a-file" / "s.db"
    missing = tmp_path / "nowhere"
    cases = [
        (("sessions", "--db", str(under_file)), f"kandev-tui sessions: --db {under_file}: "),
        (("run", "--headless", "--prompt", "x", "--db", str(under_file), "--", *DEMO), f"kandev-tui run: --db {under_file}: "),
        (("run", "--headless", "--prompt", "x", "--workspace", str(missing), "--", *DEMO),
         f"kandev-tui run: --workspace {missing}: no such directory"),
        (("run", "--headless", "--prompt", "x", "--repo", f"docs={missing}", "--", *DEMO),
         f"kandev-tui run: --repo docs={missing}: no such directory"),
        (("run", "--headless", "--prompt", "x", "--mcp-config", str(missing / "m.json"), "--", *DEMO),
         f"kandev-tui run: --mcp-config {missing / 'm.json'}: no such file"),
        (("mcp", "--workspace", str(missing)), f"kandev-tui mcp: --workspace {missing}: no such directory"),
    ]
    for args, start in cases:
        line = one_line_error(run(*args), 2)
        assert line.startswith(start), line


def test_sessions_shortens_a_long_agent_name_with_an_ellipsis(tmp_path):
    db = tmp_path / "s.db"
    store = Store(db)
    store.create_session(title="long", agent_command=["npx", "-y", "@agentclientprotocol/a-very-long-agent-name-acp"],
                         state="interrupted")
    store.close()
    listed = run("sessions", "--db", str(db)).stdout.splitlines()
    row = listed[1]
    assert "…ery-long-agent-name-acp " in row and "interrupted" in row
    assert row.index("…") == listed[0].index("AGENT")  # the columns line up, the state's word included


def test_a_recording_cut_mid_line_is_said_and_what_came_before_is_used(tmp_path):
    text = DEMO_RECORDING.read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text[: text.rindex("\n", 0, len(text) - 1) + 40])  # the last line, cut short
    lines = cut.read_text().count("\n") + 1
    for args in (("transcript", str(cut)), ("snapshot", str(cut), "-o", str(tmp_path / "shot.txt"))):
        result = run(*args)
        assert result.returncode == 0, result.stderr
        assert result.stderr.strip() == (f"kandev-tui {args[0]}: {cut}: warning: it ends mid-line (line {lines} was "
                                         "cut short: the recording stopped mid-write); what came before is shown")
    assert result.stdout.strip() == str(tmp_path / "shot.txt")


async def test_a_replay_of_a_recording_cut_mid_line_says_so_in_the_app(tmp_path):
    from ..support.app_helpers import replay_app, settle

    text = DEMO_RECORDING.read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text[: text.rindex("\n", 0, len(text) - 1) + 40])
    app = replay_app(tmp_path, cut)
    said: list[str] = []
    app.notify = lambda message, **kwargs: said.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
    assert any("cut.jsonl: it ends mid-line" in message for message in said)


def test_db_before_a_command_is_its_db(tmp_path, stored, capsys, monkeypatch):
    """kandev-tui --db PATH sessions reads PATH (the --db before the command was ignored: the default database was
    read, and said missing); two different ones, or one for a command without a database, are refused."""
    from kandev_tui.cli import main

    db, session = stored
    monkeypatch.setenv("KANDEV_TUI_DB", str(tmp_path / "elsewhere.db"))
    assert main(["--db", str(db), "sessions"]) == 0
    assert session in capsys.readouterr().out
    assert main(["--db", str(db), "sessions", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["--db", str(db), "sessions", "--db", str(tmp_path / "other.db")]) == 2
    assert "two session databases given" in capsys.readouterr().err
    assert main(["--db", str(db), "guidance"]) == 2
    assert capsys.readouterr().err == "kandev-tui guidance: --db: this command uses no session database\n"
    assert not (tmp_path / "elsewhere.db").exists()


def test_a_presets_own_problems_are_said_as_the_presets(tmp_path, capsys, monkeypatch):
    """A preset whose workspace is not there was said as "--workspace DIR: no such directory" (no --workspace was
    given); one whose table cannot be used as "no such preset" (it is in the file); one in a file that is not TOML as
    "no such preset (there are: …; add one as [presets.NAME] …)", as if the file did not name it."""
    from kandev_tui.cli import main

    config = tmp_path / "c.toml"
    config.write_text('[presets.far]\ncommand = ["agent"]\nworkspace = "' + str(tmp_path / "nowhere") + '"\n'
                      '[presets.bad]\ncommand = "agent --acp"\n')
    monkeypatch.setenv("KANDEV_TUI_CONFIG", str(config))
    db = str(tmp_path / "s.db")
    assert main(["run", "--headless", "--prompt", "x", "--db", db, "--preset", "far"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (f"kandev-tui run: --preset far: its workspace "
                                                        f"{tmp_path / 'nowhere'}: no such directory (in {config})")
    assert main(["run", "--headless", "--prompt", "x", "--db", db, "--preset", "bad"]) == 2
    warning, error = capsys.readouterr().err.splitlines()
    assert warning.startswith("kandev-tui: warning: ") and "[presets.'bad'] needs command" in warning
    assert error == f"kandev-tui run: --preset bad: its [presets.bad] table in {config} cannot be used (see the " \
                    "warning above)"
    config.write_text("presets = 3\n")  # not a table of tables: no preset of the file
    assert main(["run", "--headless", "--prompt", "x", "--db", db, "--preset", "bad"]) == 2
    assert "--preset bad: no such preset" in capsys.readouterr().err
    config.write_text('[presets.bad\ncommand = ["agent"]\n')  # not TOML: said, not "add one as [presets.NAME]"
    assert main(["run", "--headless", "--prompt", "x", "--db", db, "--preset", "bad"]) == 2
    assert capsys.readouterr().err == (f"kandev-tui run: --preset bad: no such preset: {config} could not be read "
                                       "(Expected ']' at the end of a table declaration (at line 1, column 13)), and "
                                       "the built-in ones are claude, codex, demo, gemini, opencode\n")


def test_a_failure_is_one_line_and_its_status_in_process(tmp_path, capsys):
    """The commands raise UsageError (status 2) or Failure (status 1); main() says it in one line (run in-process:
    no interpreter started)."""
    from kandev_tui.cli import main

    missing = tmp_path / "nowhere"
    assert main(["mcp", "--workspace", str(missing)]) == 2
    assert capsys.readouterr().err == f"kandev-tui mcp: --workspace {missing}: no such directory\n"
    under_file = tmp_path / "a-file"
    under_file.write_text("x")
    assert main(["sessions", "--db", str(under_file / "s.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kandev-tui sessions: --db {under_file / 's.db'}: ") and err.count("\n") == 1
    db = tmp_path / "s.db"
    Store(db).close()
    code = main(["run", "--headless", "--prompt", "x", "--db", str(db), "--resume", "nope", "--workspace",
                 str(tmp_path), "--", *DEMO])
    assert code == 1
    assert capsys.readouterr().err == "kandev-tui run --resume: no session 'nope' (see 'kandev-tui sessions')\n"
