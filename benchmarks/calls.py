"""Big tool calls on screen: an edit that rewrites a 5 MB file and a command that printed 100,000 lines.

Both calls go through the real normaliser (the command's output streamed as Codex sends it, in
``_meta.terminal_output_delta`` chunks) into a stored session, opened in the app at 120x40. Prints the time from
opening to the first frame showing each call drawn (the edit card with its counted diff, the command's output
tail), then expands the edit (m: its whole diff, laid out in a thread) and presses F1 and escape every 0.1 s for
3 s meanwhile, each as the terminal driver delivers a key, and prints the key-to-screen latency (median and worst;
target worst <= 50 ms, as under the flood) and when the expanded diff was shown.

    .venv/bin/python benchmarks/calls.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def big_items():
    from kandev_tui.transcript import IN, OUT, Frame
    from kandev_tui.transcript.replay import items_from_frames

    old = "".join(f"value_{n} = compute({n}, scale=1.0)  # the original line number {n}\n" for n in range(80_000))
    new = old.replace("scale=1.0", "scale=2.5")  # every line changed: a 5 MB rewrite
    assert len(new) > 5_000_000
    output = [f"test_case_{n} ... \x1b[32mok\x1b[0m" for n in range(100_000)]

    def update(body):
        return Frame(IN, {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": body}})

    frames = [Frame(OUT, {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                          "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "rewrite and test"}]}}),
              update({"sessionUpdate": "tool_call", "toolCallId": "edit", "title": "Edit big.py", "kind": "edit",
                      "status": "completed",
                      "content": [{"type": "diff", "path": "big.py", "oldText": old, "newText": new}]}),
              update({"sessionUpdate": "tool_call", "toolCallId": "run", "title": "pytest -q", "kind": "execute",
                      "status": "in_progress", "rawInput": {"command": "pytest -q"}})]
    for start in range(0, len(output), 2000):
        frames.append(update({"sessionUpdate": "tool_call_update", "toolCallId": "run",
                              "_meta": {"terminal_output_delta": {"data": "\n".join(output[start:start + 2000]) + "\n"}}}))
    frames.append(update({"sessionUpdate": "tool_call_update", "toolCallId": "run", "status": "completed",
                          "_meta": {"terminal_exit": {"exit_code": 0}}}))
    frames.append(Frame(IN, {"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}))
    return items_from_frames(frames)


async def main() -> None:
    from keytimer import KeyTimer

    from kandev_tui.screens.help import HelpScreen
    from kandev_tui.widgets.entries.edit_card import EditCard
    from kandev_tui.widgets.entries.tool_group import ToolGroup
    from tests.support.app_helpers import stored_app

    items = big_items()
    app = stored_app(Path(tempfile.mkdtemp()), items)
    timer = KeyTimer(app, HelpScreen)

    def drawn(widget) -> str:
        return "\n".join(widget.render_line(y).text for y in range(widget.size.height))

    started = time.perf_counter()
    async with app.run_test(size=(120, 40)) as pilot:
        shown = {}
        while len(shown) < 2 and time.perf_counter() - started < 120:
            await asyncio.sleep(0.005)
            edit = next(iter(app.view.query(EditCard)), None)
            if "edit" not in shown and edit is not None and "+80000" in drawn(edit):
                shown["edit"] = time.perf_counter() - started
            group = next(iter(app.view.query(ToolGroup)), None)
            if "output" not in shown and group is not None:
                group.action_toggle()
                shown["output"] = None
            if shown.get("output") is None and group is not None and group.expanded:
                views = list(group.query("ToolCallView"))
                if views and "test_case_99999" in drawn(views[0]):
                    shown["output"] = time.perf_counter() - started
        await pilot.pause(0.2)
        edit = next(iter(app.view.query(EditCard)))
        edit.focus()
        expanded_at = time.perf_counter()
        edit.action_more()  # the whole diff (2,000 lines at most), laid out in a thread while the keys go on
        latencies: list[float] = []
        until = time.perf_counter() + 3
        while time.perf_counter() < until:
            await asyncio.sleep(0.1)
            opened, closed = await timer.help_and_back()
            if opened is None or closed is None:
                print("a key never reached the screen within 30 s", file=sys.stderr)
                break
            latencies += [opened, closed]
            if "expanded" not in shown and "o opens the file" in drawn(edit):
                shown["expanded"] = time.perf_counter() - expanded_at
        await app.action_quit()
    for what, label in (("edit", "the 5 MB edit's card with its counted diff"),
                        ("output", "the 100,000-line output's tail (group expanded)"),
                        ("expanded", "the 5 MB edit's whole diff after m (keys pressed meanwhile)")):
        value = shown.get(what)
        print(f"first shown, {label}: {value:.2f} s" if value else f"{label}: never shown within 120 s")
    if latencies:
        print(f"key latency with both on screen ({len(latencies)} presses): median "
              f"{statistics.median(latencies) * 1000:.0f} ms, worst {max(latencies) * 1000:.0f} ms (target worst <= 50 ms)")


if __name__ == "__main__":
    from benchargs import arguments

    arguments(__doc__)
    asyncio.run(main())
