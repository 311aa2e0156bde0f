"""A command and its output: the command line, the output with its colours (SGR only, :mod:`kandev_tui.ui.ansi`),
a bounded tail of a long one (it says how much is not shown), and the exit code or signal it ended with."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from kandev_tui.ui.ansi import ansi_text
from kandev_tui.base.sanitize import visible
from kandev_tui.transcript.tools import summarize, whole

COMPACT_LINES = 12  # output lines a compact view shows, the last ones
FULL_LINES = 2000  # at most, expanded (the item keeps a bounded tail too: tools.OUTPUT_TAIL)


def has_output(payload: dict[str, Any]) -> bool:
    shell = payload.get("shell")
    return isinstance(shell, dict) and any(shell.get(k) not in (None, "") for k in ("stdout", "stderr", "exit_code",
                                                                                    "signal"))


def _exit_line(shell: dict[str, Any]) -> Text | None:
    code, signal = shell.get("exit_code"), shell.get("signal")
    if signal not in (None, ""):
        return Text(f"ended by signal {visible(str(signal), keep_newlines=False)[:40]}", style="bold red")
    if code is None:
        return None
    text = visible(str(code), keep_newlines=False)[:40]
    return Text(f"exit code {text}", style="dim" if code == 0 else "bold red")


def output_parts(payload: dict[str, Any], compact: bool) -> list[Any]:
    shell = payload["shell"]
    parts: list[Any] = []
    command = summarize(payload).get("command") or shell.get("command")  # a client terminal's: in its shell
    if isinstance(command, str) and command and command.strip() != str(payload.get("title") or "").strip():
        # the command, unless the call's title (shown above it) already is the command
        parts.append(Text.assemble(("$ ", "dim"), (visible(command), "bold")))
    streams = [s for s in (shell.get("stdout"), shell.get("stderr")) if isinstance(s, str) and s]
    output = "\n".join(part.rstrip("\n") for part in streams)
    lines = output.split("\n") if output else []
    limit = COMPACT_LINES if compact else FULL_LINES
    cut = whole(shell.get("cut_lines"))  # lines the normaliser already dropped from the start
    if len(lines) > limit:
        cut += len(lines) - limit
        lines = lines[-limit:]
    if cut:
        parts.append(Text(f"… {cut:,} earlier line{'s' if cut != 1 else ''} not shown" +
                          (" (m: more)" if compact else ""), style="dim italic"))
    if lines:
        parts.append(ansi_text("\n".join(lines)))
    exit_line = _exit_line(shell)
    if exit_line is not None:
        parts.append(exit_line)
    return parts
