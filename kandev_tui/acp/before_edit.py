"""The files an edit names, read before the agent's edit changes them: the first frame of an edit call (or of a
permission request for one) that names a file makes a ``file_before`` local frame with the file as it is then, so
the transcript's diff is against what was there (:mod:`kandev_tui.transcript.clientside`)."""

from __future__ import annotations

from typing import Any, Callable

from kandev_tui.base.jsonutil import of_type
from kandev_tui.transcript.clientside import edit_paths
from kandev_tui.transcript.frames import LOCAL, Frame

from .files import ClientFiles

READ_AT_MOST = 4096  # (call, path) pairs remembered as read; the oldest calls are long done


class FilesBefore:
    """Reads the files the agent's edits name, once per call and path, through the client's confined ``files``;
    each state goes to ``on_frame``."""

    def __init__(self, files: ClientFiles, on_frame: Callable[[Frame], object]) -> None:
        self._files = files
        self._on_frame = on_frame
        self._edits: set[str] = set()  # the agent's calls of kind edit (a later update may not repeat the kind)
        self._read: dict[tuple[str, str], None] = {}  # (call, path) whose file was read before the edit

    def look(self, msg: dict[str, Any]) -> None:
        """Every frame the agent sends comes here: the text chunks of a flood leave at the third look."""
        method = msg.get("method")
        if method == "session/update":
            params = msg.get("params")
            call = params.get("update") if isinstance(params, dict) else None
            if not isinstance(call, dict) or call.get("sessionUpdate") not in ("tool_call", "tool_call_update"):
                return
        elif method == "session/request_permission":
            call = of_type(of_type(msg, "params", dict, {}), "toolCall", dict, None)
            if call is None:
                return
        else:
            return
        call_id = call.get("toolCallId")
        if not isinstance(call_id, str) or call.get("status") in ("completed", "failed"):
            return
        if call.get("kind") == "edit":
            self._edits.add(call_id)
        for path in edit_paths(call, call_id in self._edits):
            if (call_id, path) in self._read:
                continue
            self._read[(call_id, path)] = None
            if len(self._read) > READ_AT_MOST:
                del self._read[next(iter(self._read))]
            state = self._files.before(path)
            if state is not None:
                self._on_frame(Frame.now(LOCAL, {"event": "file_before", "tool_call_id": call_id, "path": path,
                                                 **state}))
