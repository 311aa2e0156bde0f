"""``kandev-tui attach --headless``: a Kandev session as JSON lines (history, then live with --follow)."""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import Any, TextIO

from kandev_tui.base.jsonutil import dumps
from kandev_tui.transcript.items import Item
from kandev_tui.transcript.lines import ItemLines

from .attach import Attachment
from .catalog import newest_session_of_task, sessions
from .connection import KandevConnection, KandevError


class _Printer:
    """Prints items as JSON lines (:class:`~kandev_tui.transcript.lines.ItemLines`) once the history is all in."""

    def __init__(self, out: TextIO) -> None:
        self.lines = ItemLines(out)
        self.live = False

    def items(self, items: list[Item]) -> None:
        if self.live:  # history is printed in order once it is all in
            self.lines.print(items)


async def list_sessions(url: str, token: str | None, out: TextIO) -> int:
    conn = KandevConnection(url, token)
    try:
        await conn.connect()
        for entry in await sessions(conn, url, token):
            out.write(dumps(entry.to_json()) + "\n")
    except KandevError as exc:
        print(f"kandev-tui attach: {exc}", file=sys.stderr)
        return 1
    finally:
        await conn.close()
    return 0


async def resolve_session(url: str, token: str | None, task_id: str) -> str:
    conn = KandevConnection(url, token)
    try:
        await conn.connect()
        return await newest_session_of_task(conn, task_id)
    finally:
        await conn.close()


async def run_headless(url: str, session_id: str, *, token: str | None, store: Any, follow: bool,
                       page_size: int, out: TextIO = sys.stdout) -> int:
    printer = _Printer(out)

    def status(state: str, detail: str) -> None:
        if state in ("reconnecting", "error") and detail:
            print(f"kandev-tui attach: {detail}", file=sys.stderr, flush=True)

    attachment = Attachment(url, session_id, token=token, store=store, page_size=page_size,
                            on_items=printer.items, on_reset=printer.items, on_status=status)
    attachment.history.load_cache()
    try:
        conn = await attachment.connect_once()
        await attachment.history.load_all()
    except KandevError as exc:
        print(f"kandev-tui attach: {exc}", file=sys.stderr)
        await attachment.stop()
        return 1
    printer.live = True
    printer.items(attachment.items())
    if not follow:
        await attachment.stop()
        return 0
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, stop.set)
        except (NotImplementedError, RuntimeError):  # a loop without signal support: ctrl+c still ends the run
            continue
    runner = asyncio.ensure_future(attachment.run(conn))
    stopper = asyncio.ensure_future(stop.wait())
    await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
    await attachment.stop()
    stopper.cancel()
    try:
        await asyncio.wait_for(runner, 5)
    except (asyncio.TimeoutError, asyncio.CancelledError):
        runner.cancel()
    return 1 if attachment.status == "error" else 0
