"""A Kandev session's rows as the backend serves them (a fixture of a real build session) and an attachment
that collects what it hands the transcript, with no backend."""

from __future__ import annotations

import json

from kandev_tui.kandev.attach import Attachment

from . import FIXTURES

ROWS = json.loads((FIXTURES / "kandev" / "build-session.rows.json").read_text())["messages"]


class Collect:
    def __init__(self):
        self.batches: list[list] = []
        self.resets: list[list] = []

    def items(self, items):
        self.batches.append([i.key for i in items])

    def reset(self, items):
        self.resets.append([i.key for i in items])


def attachment(store=None, page_size=100) -> tuple[Attachment, Collect]:
    seen = Collect()
    return Attachment("ws://127.0.0.1:1/ws", ROWS[0]["session_id"], store=store, page_size=page_size,
                      on_items=seen.items, on_reset=seen.reset), seen
