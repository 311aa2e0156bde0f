from __future__ import annotations

from typing import Any

from rich.syntax import Syntax
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Static

from kandev_tui.widgets.entries.base import safe_text
from kandev_tui.widgets.entries.file_preview import lexer_for
from kandev_tui.widgets.chrome.key_footer import KeyFooter

VIEW_BYTES = 1024 * 1024


class FileViewerScreen(Screen[None]):
    """A workspace file, full screen: scroll, search with /, escape back."""

    BINDINGS = [Binding("escape", "back", "Back"), Binding("slash", "search", "Search"),
                Binding("n", "next_hit", "Next hit"), Binding("w", "download", "Download")]
    DEFAULT_CSS = """
    FileViewerScreen > .title { height: 1; background: $panel; padding: 0 1; }
    FileViewerScreen Input { display: none; }
    FileViewerScreen.searching Input { display: block; }
    """

    def __init__(self, path: str, repo: str | None, title: str, line: int | None = None, workspace: Any = None) -> None:
        super().__init__()
        self.workspace = workspace  # the kandev_tui.workspace.reads.Workspace the file is read from (None: none)
        self.path, self.repo, self.file_title = path, repo, title
        self.line = line  # scrolled to when the file is shown (an edit's first changed line)
        self.text = ""
        self.hits: list[tuple[int, int, int]] = []  # every match of the search: (line, start, end), 0-based
        self._hit = -1
        self._rows: tuple[int, list[list[str]]] | None = None  # (width, each line's display rows) as drawn
        self._body = Static()

    def compose(self) -> ComposeResult:
        yield Static(Text(safe_text(self.file_title, keep_newlines=False), style="bold"), classes="title")
        with VerticalScroll():
            yield self._body
        yield Input(placeholder="search…")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._body.update(Text("Loading…", style="dim"))
        self._load()

    @work(thread=True)
    def _load(self) -> None:
        from kandev_tui.workspace.reads import WorkspaceError

        from kandev_tui.widgets.entries.file_preview import NO_WORKSPACE

        workspace = self.workspace
        message = f"Preview unavailable: {NO_WORKSPACE}."
        text = None
        if workspace is not None:
            try:
                read = workspace.read_text(self.path, VIEW_BYTES, self.repo)
                text = read.text
                if text is None:
                    message = "Preview unavailable for this file type."
                elif read.truncated:
                    text += "\n… (the viewer shows the first MiB)"
            except WorkspaceError as exc:
                message = f"Preview unavailable: {exc}."
        self.app.call_from_thread(self._show, text, message)

    def _show(self, text: str | None, message: str) -> None:
        if text is None:
            self._body.update(Text(message, style="dim italic"))
            return
        self.text = safe_text(text)
        self._draw()
        if self.line:
            self.call_after_refresh(lambda: self.query_one(VerticalScroll).scroll_to(y=max(0, self.line - 3),
                                                                                     animate=False))

    def _syntax(self) -> Syntax:
        """The file, its matches reversed (the current one bold, its line highlighted)."""
        current = self.hits[self._hit] if 0 <= self._hit < len(self.hits) else None
        line = current[0] + 1 if current else self.line
        syntax = Syntax(self.text, lexer_for(self.path, None), line_numbers=True, word_wrap=True,
                        theme="ansi_dark" if self.app.current_theme.dark else "ansi_light",
                        highlight_lines={line} if line else None)
        for match in self.hits:
            syntax.stylize_range("reverse bold" if match == current else "reverse", (match[0] + 1, match[1]),
                                 (match[0] + 1, match[2]))
        return syntax

    def _draw(self) -> None:
        self._body.update(self._syntax())

    def _display_rows(self) -> list[list[str]]:
        """Each line's rows as the viewer draws it (wrapped at its width, the line numbers' column left out): the
        search scrolls by these, not by lines (a wrapped line above a hit took it rows away from where it was)."""
        width = self._body.content_region.width or self.size.width
        if self._rows is None or self._rows[0] != width:
            console = self.app.console
            drawn = ["".join(segment.text for segment in row) for row in
                     console.render_lines(Syntax(self.text, "text", line_numbers=True, word_wrap=True),
                                          console.options.update_width(width), pad=False)]
            gutter = len(drawn[0]) - len(drawn[0].lstrip()) if drawn else 0
            gutter += len(drawn[0].lstrip().split(" ", 1)[0]) + 1 if drawn else 0
            lines: list[list[str]] = []
            for row in drawn:
                if row[:gutter].strip() or not lines:  # a line number: a line of the file starts here
                    lines.append([])
                lines[-1].append(row[gutter:])
            self._rows = (width, lines)
        return self._rows[1]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "download":  # in a browser (kandev-tui serve) the file can be had whole; a terminal has it
            return self.app.is_web and bool(self.text)
        return True

    def action_download(self) -> None:
        """The whole file, as the browser's download (textual-serve delivers it; the viewer shows the first MiB)."""
        from kandev_tui.workspace.reads import WorkspaceError

        workspace = self.workspace
        try:
            path = workspace.resolve(self.path, self.repo) if workspace is not None else None
        except WorkspaceError as exc:
            self.notify(f"Cannot download: {exc}", severity="error", markup=False)
            return
        if path is None or not path.is_file():
            self.notify("Cannot download: the file is not in the workspace any more", severity="error", markup=False)
            return
        self.app.deliver_binary(path, save_filename=path.name)
        self.notify(f"Downloading {safe_text(path.name, keep_newlines=False)}", timeout=3, markup=False)

    def action_back(self) -> None:
        if self.has_class("searching"):
            self.remove_class("searching")
            return
        self.dismiss()

    def action_search(self) -> None:
        self.add_class("searching")
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        from kandev_tui.widgets.entries.base import match_spans

        needle = event.value.strip().casefold()
        self.hits = [(n, start, end) for n, line in enumerate(self.text.splitlines())
                     for start, end in match_spans(line, needle)]
        self._hit = -1
        self.remove_class("searching")
        if not self.hits:
            self._draw()
            self.notify(f"No match for {safe_text(event.value, keep_newlines=False)!r}", severity="warning", markup=False)
            return
        self.action_next_hit()

    def action_next_hit(self) -> None:
        """The next match: marked, and its display row brought into view (two rows of what comes before above)."""
        if not self.hits:
            return
        self._hit = (self._hit + 1) % len(self.hits)
        self._draw()
        line, start, end = self.hits[self._hit]
        rows = self._display_rows()
        before = sum(len(drawn) for drawn in rows[:line])
        within = 0  # the row of the line the match starts on (the rows, joined, are the line as it wraps)
        for text in rows[line] if line < len(rows) else ():
            if start < len(text):
                break
            start -= len(text)
            within += 1
        self.query_one(VerticalScroll).scroll_to(y=max(0, before + within - 2), animate=False)
        self.notify(f"match {self._hit + 1} of {len(self.hits)}", timeout=1.5)
