"""A command's output from a Kandev backend. Kandev's rows keep only its sizes (``stdout_bytes``, ``stderr_bytes``);
the backend serves the text at ``GET /api/v1/task-sessions/{session}/messages/{message}/shell-output`` (Kandev 0.95.1:
``{message_id, status, updated_at, output: {exit_code, stdout, stderr}}``, 404 for a message it has none of).
kandev-tui asks for it when a command is opened, not for every row of a session."""

from __future__ import annotations

import urllib.parse
from typing import Any

from .connection import KandevError, http_base

FETCHED = "kandev_tui_shell_output"  # where a row keeps what was fetched for it (cached with the row)


def shell_output(url: str, token: str | None, session_id: str, message_id: str) -> dict[str, Any] | str:
    """The command's ``{stdout, stderr, exit_code}`` as the backend has it, or why there is none (one line)."""
    from .catalog import get_json

    def quote(part: str) -> str:
        return urllib.parse.quote(part, safe="")

    address = (f"{http_base(url)}/api/v1/task-sessions/{quote(session_id)}/messages/{quote(message_id)}"
               "/shell-output")
    try:
        answer = get_json(address, token)
    except KandevError as exc:
        if exc.code == "404":
            return "Kandev has no output for this command"
        return f"its output could not be fetched from Kandev ({exc})"
    output = answer.get("output")
    if not isinstance(output, dict):
        return "Kandev has no output for this command"
    kept = {k: output[k] for k in ("stdout", "stderr") if isinstance(output.get(k), str)}
    if isinstance(output.get("exit_code"), int) and not isinstance(output.get("exit_code"), bool):
        kept["exit_code"] = output["exit_code"]
    return kept if kept else "Kandev has no output for this command"
