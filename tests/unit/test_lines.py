"""Items as JSON lines (kandev_tui/transcript/lines.py), the one printer of run --headless, attach --headless,
transcript and export --format jsonl."""

from __future__ import annotations

import io
import json
import os

from kandev_tui.transcript import Item
from kandev_tui.transcript.lines import ItemLines, item_line


def message(key: str, text: str, final: bool = True) -> Item:
    return Item(key, "agent_message", 1, {"text": text}, final=final)


def test_a_version_is_printed_once_and_again_only_when_it_changed():
    out = io.StringIO()
    lines = ItemLines(out)
    lines.print([message("m1", "Hel", final=False), message("m2", "Other")])
    lines.print([message("m1", "Hel", final=False), message("m2", "Other")])  # nothing new
    lines.print([message("m1", "Hello")])
    printed = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(p["key"], p["payload"]["text"]) for p in printed] == [("m1", "Hel"), ("m2", "Other"), ("m1", "Hello")]


def test_a_line_is_compact_json_of_the_items_fields():
    line = item_line(message("m1", "a \"quoted\" ünïcode\nline"))
    assert "\n" not in line and ", " not in line and json.loads(line)["payload"]["text"] == "a \"quoted\" ünïcode\nline"


class GoneReader(io.StringIO):
    """``out`` whose reader went away (``| head``): every write fails as a closed pipe fails."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd, self.writes = fd, 0

    def write(self, text: str) -> int:
        self.writes += 1
        raise BrokenPipeError

    def fileno(self) -> int:
        return self.fd


def test_once_the_reader_has_gone_nothing_more_is_written_and_nothing_fails():
    read_end, write_end = os.pipe()
    try:
        out = GoneReader(write_end)
        lines = ItemLines(out)
        lines.print([message("m1", "one")])
        lines.print([message("m2", "two")])
        assert lines.reader_gone and out.writes == 1
        os.write(write_end, b"x")  # the descriptor now writes to /dev/null: the interpreter's last flush fails not
    finally:
        os.close(read_end)
        os.close(write_end)
