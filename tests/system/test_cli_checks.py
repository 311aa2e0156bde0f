"""Every option value kandev-tui checks is checked as argparse reads it (``cli/options.py``'s ``Checked``): before
any work starts, and said in one line, ``kandev-tui CMD: --option VALUE: why``, with exit status 2."""

from __future__ import annotations

from kandev_tui.cli import main


def bad_values(tmp_path) -> list[tuple[list[str], str]]:
    (tmp_path / "old.jsonl").write_text("{}\n")
    recording = str(tmp_path / "no-such.jsonl")  # never read: the value before it is refused first
    return [
        (["run", "--init-timeout", "-1", "--", "agent"], "kandev-tui run: --init-timeout -1: must be a number of "
                                                          "seconds greater than 0"),
        (["run", "--init-timeout", "soon", "--", "agent"], "kandev-tui run: --init-timeout soon: is not a number of "
                                                            "seconds"),
        (["run", "--option", "plan", "--", "agent"], "kandev-tui run: --option plan: is not ID=VALUE"),
        (["run", "--record", str(tmp_path / "old.jsonl"), "--", "agent"],
         f"kandev-tui run: --record {tmp_path / 'old.jsonl'}: already exists"),
        (["serve", "--port", "70000"], "kandev-tui serve: --port 70000: must be between 1 and 65535"),
        (["attach", "http://127.0.0.1:9", "s", "--page-size", "0"],
         "kandev-tui attach: --page-size 0: must be between 1 and 1000"),
        (["replay", recording, "--speed", "inf"], "kandev-tui replay: --speed inf: must be a number greater than 0"),
        (["snapshot", recording, "-o", str(tmp_path / "x.jpg")],
         f"kandev-tui snapshot: --output {tmp_path / 'x.jpg'}: write .svg, .png or .txt"),
        (["snapshot", recording, "-o", str(tmp_path / "x.svg"), "--size", "big"],
         "kandev-tui snapshot: --size big: takes WIDTHxHEIGHT"),
        (["snapshot", recording, "-o", str(tmp_path / "x.svg"), "--size", "20x5"],
         "kandev-tui snapshot: --size 20x5: is too small"),
        (["snapshot", recording, "-o", str(tmp_path / "x.svg"), "--at", "middle"],
         "kandev-tui snapshot: --at middle: takes top, end or a row number"),
        (["snapshot", recording, "-o", str(tmp_path / "x.svg"), "--theme", "neon"],
         "kandev-tui snapshot: --theme neon: is not one of ansi-dark, ansi-light, atom-one-dark"),
        (["export", "abc", "-o", str(tmp_path / "no-dir" / "x.md")],
         f"kandev-tui export: --output {tmp_path / 'no-dir' / 'x.md'}: no such directory"),
        (["open", "abc", "--stats", str(tmp_path)], f"kandev-tui open: --stats {tmp_path}: is a directory"),
        (["run", "--workspace", str(tmp_path / "gone"), "--", "agent"],
         f"kandev-tui run: --workspace {tmp_path / 'gone'}: no such directory"),
        (["validate", "x.json", "--workspace", str(tmp_path / "old.jsonl")],
         f"kandev-tui validate: --workspace {tmp_path / 'old.jsonl'}: not a directory"),
        (["mcp", "--repo", "docs"], "kandev-tui mcp: --repo docs: is not NAME=DIR"),
        (["run", "--repo", f"docs={tmp_path / 'gone'}", "--", "agent"],
         f"kandev-tui run: --repo docs={tmp_path / 'gone'}: no such directory"),
    ]


def test_a_refused_value_is_one_line_and_nothing_is_done(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("KANDEV_TUI_DB", str(tmp_path / "s.db"))
    for argv, said in bad_values(tmp_path):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith(said) and err.count("\n") == 1, (argv, err)
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "x.svg").exists()
    assert (tmp_path / "old.jsonl").read_text() == "{}\n"  # a recording is never replaced
