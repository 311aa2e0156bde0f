"""``kandev-tui snapshot``: the app's screen without a terminal, as SVG, PNG or text, the same bytes every time."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ..support.app_helpers import DEMO_RECORDING, FIXTURES

CLAUDE = FIXTURES / "recordings" / "claude-real.jsonl"


def snap(*args: str, cwd: Path | None = None, **environ: str) -> subprocess.CompletedProcess:
    env = {**{k: v for k, v in os.environ.items() if k != "KANDEV_TUI_DB"}, **environ}
    return subprocess.run([sys.executable, "-m", "kandev_tui", "snapshot", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=cwd, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("size", ["80x24", "120x40"])
def test_the_demo_recordings_text_and_svg_are_what_the_app_draws(tmp_path, size, snapshot):
    """Stored: the text of the screen, and the SVG, of the demo recording at its end (as a finished session is
    left); compared with the snapshots in tests/__snapshots__."""
    text, svg = tmp_path / "end.txt", tmp_path / "end.svg"
    assert snap(str(DEMO_RECORDING), "--size", size, "-o", str(text)).returncode == 0
    assert snap(str(DEMO_RECORDING), "--size", size, "-o", str(svg)).returncode == 0
    shown = text.read_text()
    assert len(shown.splitlines()) == int(size.split("x")[1])
    assert "end of turn" in shown and "Read-only" in shown
    assert shown == snapshot(name="text")
    assert svg.read_text() == snapshot(name="svg")


@pytest.mark.parametrize("width", [100, 120, 200])
def test_a_snapshots_charts_fill_their_cards_at_any_width(tmp_path, width):
    """A snapshot is what the app shows at that size: each chart's frame spans its card (less its y labels and a
    bar chart's rounding to whole cells per category), whatever the terminal the command runs in says
    ($COLUMNS=80: plotext drew every chart 77 wide)."""
    out = tmp_path / "screen.txt"
    result = snap(str(DEMO_RECORDING), "--all", "--size", f"{width}x60", "-o", str(out), COLUMNS="80", LINES="24")
    assert result.returncode == 0, result.stderr
    lines = [line for path in sorted(tmp_path.glob("screen-*.txt")) for line in path.read_text().splitlines()]
    bottoms = [line for line in lines if "└" in line and "┘" in line]  # each chart's frame, at its foot
    assert len(bottoms) >= 2, "\n".join(lines)
    for line in bottoms:
        card_inner = line.rindex("│") - line.index("│") - 1  # between the card's borders
        chart = line.index("┘") - line.index("└") + 1
        assert chart >= card_inner - 12, f"a chart {chart} wide in a card {card_inner} wide:\n{line}"


def test_the_same_input_gives_the_same_bytes_and_at_chooses_the_place(tmp_path):
    first, second, top = tmp_path / "a.svg", tmp_path / "b.svg", tmp_path / "top.txt"
    assert snap(str(CLAUDE), "-o", str(first)).returncode == 0
    assert snap(str(CLAUDE), "-o", str(second)).returncode == 0
    assert first.read_bytes() == second.read_bytes()
    assert snap(str(CLAUDE), "--at", "top", "--size", "80x24", "-o", str(top)).returncode == 0
    assert "Write notes, edit them, count them, chart it" in top.read_text()  # the first prompt, at the top
    refused = snap(str(CLAUDE), "--at", "99999", "--size", "80x24", "-o", str(top))
    last = int(refused.stderr.rsplit("to row ", 1)[1])  # the last row there is, as the refusal says it
    assert snap(str(CLAUDE), "--at", str(last), "--size", "80x24", "-o", str(top)).returncode == 0


def test_all_writes_one_file_per_screen_with_charts_plotted(tmp_path):
    result = snap(str(CLAUDE), "--all", "--size", "80x24", "-o", str(tmp_path / "screen.txt"))
    assert result.returncode == 0, result.stderr
    files = sorted(tmp_path.glob("screen-*.txt"))
    assert [p.name for p in files][:2] == ["screen-01.txt", "screen-02.txt"] and len(files) >= 3
    assert result.stdout.split() == [str(p) for p in files]
    texts = [p.read_text() for p in files]
    assert len(set(texts)) == len(texts)  # each screen its own
    whole = "".join(texts)
    assert "Write probe/notes.txt" in whole and "Tests by module" in whole and "┤" in whole  # the chart, plotted


def test_a_png_is_the_size_of_the_screen_and_not_blank(tmp_path):
    from PIL import Image

    out = tmp_path / "end.png"
    result = snap(str(CLAUDE), "--size", "80x24", "-o", str(out))
    assert result.returncode == 0, result.stderr
    image = Image.open(out)
    assert image.width > 600 and image.height > 300
    darkest, brightest = image.convert("L").getextrema()
    assert brightest - darkest > 100  # drawn, not one colour


def test_a_stored_session_by_its_id(tmp_path):
    db = tmp_path / "s.db"
    run = subprocess.run([sys.executable, "-m", "kandev_tui", "run", "--headless", "--prompt", "hi", "--permission",
                          "allow-once", "--db", str(db), "--", sys.executable, "-m", "kandev_tui.demo.agent"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    listed = subprocess.run([sys.executable, "-m", "kandev_tui", "sessions", "--json", "--db", str(db)],
                            capture_output=True, text=True, timeout=60).stdout
    session = __import__("json").loads(listed.splitlines()[0])["id"]
    out = tmp_path / "s.txt"
    assert snap(session[:6], "--db", str(db), "-o", str(out)).returncode == 0
    assert "end of turn" in out.read_text()


@pytest.mark.parametrize("args,code,words", [
    (["nothing-like-this"], 1, "nor is 'nothing-like-this' a recording file"),
    (["typo.jsonl", "--db", "missing.db"], 2, "does not exist; nor is 'typo.jsonl' a recording file (no such file)"),
    (["--size", "10x5"], 2, "too small"),
    (["--size", "big"], 2, "WIDTHxHEIGHT"),
    (["--at", "middle"], 2, "top, end or a row number"),
    (["--theme", "neon"], 2, "is not one of"),
    (["--at", "99999"], 2, "--at 99999: no such row: at 120x40 the transcript scrolls from row 0 to row"),
], ids=["no-source", "no-database", "tiny", "size-words", "at-words", "theme", "at-past-the-end"])
def test_bad_input_is_one_line(tmp_path, args, code, words):
    named = args[0] in ("nothing-like-this", "typo.jsonl")  # a source that is neither a file nor a stored session
    result = snap(*args, "-o", str(tmp_path / "x.svg"), cwd=tmp_path) if named else \
        snap(str(CLAUDE), *args, "-o", str(tmp_path / "x.svg"), "--db", str(tmp_path / "none.db"))
    assert result.returncode == code and words in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "x.svg").exists()


def test_not_a_recording_and_a_wrong_format(tmp_path):
    junk = tmp_path / "junk.txt"
    junk.write_text("junk\n")
    result = snap(str(junk), "-o", str(tmp_path / "x.svg"))
    assert result.returncode == 1 and "line 1 is not JSON" in result.stderr
    result = snap(str(CLAUDE), "-o", str(tmp_path / "x.jpg"))
    assert result.returncode == 2 and ".svg, .png or .txt" in result.stderr


def test_a_hostile_recording_is_as_inert_in_the_picture_as_on_screen(tmp_path):
    from ..support.hostile_corpus import NEVER_SHOWN
    from ..support.tmux import hostile_recording

    recording = hostile_recording(tmp_path / "hostile.jsonl")
    for name in ("h.txt", "h.svg"):
        assert snap(str(recording), "--all", "--size", "100x30", "-o", str(tmp_path / name)).returncode == 0
    for path in tmp_path.glob("h-*"):
        drawn = path.read_text()
        assert not any(char in drawn for char in NEVER_SHOWN), path.name
    assert all("<script" not in p.read_text().lower() for p in tmp_path.glob("h-*.svg"))


async def test_a_png_is_drawn_a_character_per_cell_in_a_monospaced_font(tmp_path):
    """cairosvg drew the screenshot in a proportional font (the SVG's Fira Code is not installed, and it honours
    neither the family list nor textLength): labels under the wrong bars, columns run together. Measured on the
    PNG: lines of narrow and of wide letters, each one span of the SVG, end in the same column, where their SVG
    puts it; braille (which the monospace font lacks) is drawn, at its cells."""
    from io import BytesIO

    from PIL import Image
    from textual.app import App
    from textual.widgets import Static

    from kandev_tui.app.snapshot import render
    from kandev_tui.ui.svg_pictures import offline

    rows = ["i" * 30 + "█", "M" * 30 + "█", "." * 30 + "█", "⣿" * 30 + "█"]

    class Lines(App):
        CSS = "Screen { background: black; } Static { color: white; background: black; }"

        def compose(self):
            yield Static("\n".join(rows))

    async with Lines().run_test(size=(40, 6)) as pilot:
        await pilot.pause()
        svg = offline(pilot.app.export_screenshot())
    assert 'url("http' not in svg and "@font-face" not in svg  # nothing fetched when it is viewed
    image = Image.open(BytesIO(render(".png", svg, ""))).convert("L")
    pixels = image.load()
    left, down = (float(n) for n in re.findall(r"translate\(([0-9.]+), ?([0-9.]+)\)", svg)[-1])  # the terminal's
    cell = float(re.search(r'textLength="([0-9.]+)"', svg.split("line-1)", 1)[0].rsplit("<text", 1)[1]).group(1)) / 31
    right = int(left + 35 * cell)  # the terminal's cells, short of the window's frame
    ends = []
    for number, row in enumerate(rows):  # each row's band of pixels, from its baseline in the SVG
        baseline = down + float(re.search(rf'y="([0-9.]+)"[^>]*line-{number}\)', svg).group(1))
        band = range(int(baseline) - 16, int(baseline) + 3)
        inked = [x for x in range(int(left), right) if any(pixels[x, y] > 128 for y in band)]
        assert len(inked) > 60, row  # drawn, not left blank (braille in a font that lacks it)
        ends.append(max(inked))
    assert max(ends) - min(ends) <= 2, ends  # the "█" of each row in the same column
