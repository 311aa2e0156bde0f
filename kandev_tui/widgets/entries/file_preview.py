"""A workspace file preview: never read until the user expands it; read once, in a worker."""

from __future__ import annotations

import json
import mimetypes
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

if TYPE_CHECKING:  # the contract's models (pydantic) load with the first card, not with the app
    from kandev_tui.presentation.models import FileBlock

from kandev_tui.widgets.entries.base import safe_text
from kandev_tui.widgets.context import context_of

PREVIEW_CHARS = 2000
CLIPPED = "Preview clipped."
BINARY = "Preview unavailable for this file type."
UNAVAILABLE = "Preview unavailable."


def lexer_for(path: str, mime_type: str | None) -> str:
    if mime_type:
        if "json" in mime_type:
            return "json"
        guessed = mimetypes.guess_extension(mime_type.split(";")[0].strip())
        if guessed:
            return Syntax.guess_lexer("x" + guessed)
    return Syntax.guess_lexer(PurePosixPath(path).name or "x.txt")


NO_WORKSPACE = ("this session has no workspace here to read it from (a replay, or a session of another machine or "
                "one whose folder is gone)")


def load_preview(workspace, path: str, repo: str | None) -> tuple[str, str | None, bool]:
    """(state, text, clipped): state is "ok", "binary" or "unavailable" (then the text is why). Runs in a worker
    thread."""
    from kandev_tui.workspace.reads import WorkspaceError

    if workspace is None:
        return "unavailable", NO_WORKSPACE, False
    try:
        read = workspace.read_text(path, PREVIEW_CHARS * 4 + 4, repo)
    except WorkspaceError as exc:
        return "unavailable", str(exc), False
    if read.text is None:
        return "binary", None, False
    text = read.text
    clipped = read.truncated or len(text) > PREVIEW_CHARS
    return "ok", text[:PREVIEW_CHARS], clipped


class FilePreview(Widget):
    """Header (title or path, ``repo:`` prefix, caption, type); Enter/click expands, ``o`` opens the viewer."""

    can_focus = True
    BINDINGS = [Binding("enter,space", "toggle", "Preview"), Binding("o", "open", "Open file")]

    DEFAULT_CSS = """
    FilePreview { height: auto; padding: 0 0 1 0; }
    FilePreview:focus > .header { background: $boost; }
    FilePreview > .body { display: none; height: auto; padding: 0 1; border-left: solid $panel-lighten-2; }
    FilePreview.expanded > .body { display: block; }
    """

    class OpenFile(Message):
        """Open ``path`` in the full-screen viewer (at ``line``, 1-based, when given)."""

        def __init__(self, path: str, repo: str | None, title: str, line: int | None = None) -> None:
            super().__init__()
            self.path = path
            self.repo = repo
            self.title = title
            self.line = line

    def __init__(self, block: FileBlock) -> None:
        super().__init__()
        self.block = block
        self.state = "collapsed"  # collapsed → loading → ok | binary | unavailable
        self.reads = 0
        self._loaded: tuple[str, str | None, bool] | None = None
        self._header = Static(classes="header")
        self._body = Static(classes="body")

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._body

    def on_mount(self) -> None:
        self._draw_header()

    @property
    def display_path(self) -> str:
        prefix = f"{self.block.repo}:" if self.block.repo else ""
        return safe_text(prefix + self.block.path, keep_newlines=False)

    def _draw_header(self) -> None:
        expanded = self.has_class("expanded")
        text = Text.assemble(("▾ " if expanded else "▸ ", "bold"), ("file ", "dim"))
        text.append(safe_text(self.block.title, keep_newlines=False) if self.block.title else self.display_path, style="bold")
        if self.block.title:
            text.append(f"  {self.display_path}", style="dim")
        if self.block.mime_type:
            text.append(f"  [{safe_text(self.block.mime_type, keep_newlines=False)}]", style="dim")
        if self.block.caption:
            text.append("\n  " + safe_text(self.block.caption), style="italic dim")
        if not expanded:
            text.append("\n  Enter to preview · o to open", style="dim")
        self._header.update(text)

    def action_toggle(self) -> None:  # type: ignore[override]  # the preview open or shut (DOMNode's takes an attribute)
        expanded = not self.has_class("expanded")
        self.set_class(expanded, "expanded")
        self._draw_header()
        if expanded:
            if self._loaded is None or self._loaded[0] != "ok":  # reuse a loaded preview; retry an error
                self.state = "loading"
                self._body.update(Text("Loading…", style="dim"))
                self._load()
            else:
                self._show(self._loaded)

    def on_click(self) -> None:
        self.action_toggle()

    def action_open(self) -> None:
        self.post_message(self.OpenFile(self.block.path, self.block.repo, self.block.title or self.block.path))

    @work(thread=True, exclusive=True, group="preview")
    def _load(self) -> None:
        workspace = context_of(self).workspace()
        self.reads += 1
        result = load_preview(workspace, self.block.path, self.block.repo)
        self.app.call_from_thread(self._loaded_result, result)

    def _loaded_result(self, result: tuple[str, str | None, bool]) -> None:
        self._loaded = result
        self._show(result)

    def _show(self, result: tuple[str, str | None, bool]) -> None:
        state, text, clipped = result
        self.state = state
        if state == "binary":
            self._body.update(Text(BINARY, style="dim italic"))
            return
        if state != "ok" or text is None:
            self._body.update(Text(f"{UNAVAILABLE[:-1]}: {safe_text(text or 'no reason given')}.", style="dim italic"))
            return
        lexer = lexer_for(self.block.path, self.block.mime_type)
        shown = safe_text(text)
        if lexer == "json" and not clipped:
            try:
                shown = safe_text(json.dumps(json.loads(text), indent=2, ensure_ascii=False))[:PREVIEW_CHARS]
            except ValueError:
                pass
        body = Syntax(shown, lexer, theme="ansi_dark" if self.app.current_theme.dark else "ansi_light", word_wrap=True,
                      line_numbers=False)  # the theme's ANSI colours, on the card's own background
        if clipped:
            from rich.console import Group

            self._body.update(Group(body, Text(CLIPPED, style="dim italic")))
        else:
            self._body.update(body)
