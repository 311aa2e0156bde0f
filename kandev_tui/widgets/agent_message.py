from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult

from kandev_tui.transcript.items import Item

from .base import EntryWidget, safe_text

if TYPE_CHECKING:
    from textual.await_complete import AwaitComplete
    from textual.widgets import Markdown

SAFE_SCHEMES = ("http://", "https://")


class AgentMessage(EntryWidget):
    """The agent's Markdown, streamed: new text is appended, never re-parsed whole per chunk.

    Links never run app actions: only http(s) links are offered (shown, not opened
    behind the user's back); anything else is refused with a notice.
    """

    DEFAULT_CSS = """
    AgentMessage { height: auto; margin: 1 0 0 0; }
    AgentMessage Markdown { margin: 0; padding: 0 1; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry")
        self._shown = ""
        self._streamed = False
        from textual.widgets import Markdown  # markdown-it loads with the first message, not with the app

        self._markdown = Markdown(open_links=False)
        self._pending = safe_text(item.payload.get("text", ""))
        self._work: AwaitComplete | None = None  # the Markdown's last update or append (parsed in a thread)

    def compose(self) -> ComposeResult:
        yield self._markdown

    def on_mount(self) -> None:
        self._apply(self._pending)

    def update_item(self, item: Item) -> None:
        text = safe_text(item.payload.get("text", ""))
        if self.is_mounted:
            self._apply(text, final=item.final)
        else:
            self._pending = text

    def _apply(self, text: str, final: bool = False) -> None:
        if text == self._shown and not (final and self._streamed):
            return
        if final and self._streamed:
            self._streamed = False
            self._work = self._markdown.update(text)  # once per message: settle the streamed blocks at the real width
        elif text.startswith(self._shown) and self._shown:
            self._streamed = True
            self._work = self._markdown.append(text[len(self._shown):])
        else:
            self._work = self._markdown.update(text)
        self._shown = text

    @property
    def settling(self) -> bool:
        return not self.is_mounted or (self._work is not None and not self._work.is_done)

    def on_markdown_table_of_contents_updated(self, event: Markdown.TableOfContentsUpdated) -> None:
        event.stop()  # no table of contents here: the message would climb to the app once per streamed heading

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        href = event.href
        if href.lower().startswith(SAFE_SCHEMES):
            self.notify(safe_text(href, keep_newlines=False), title="Link", markup=False)
        else:
            self.notify("Only http(s) links are shown; this one was refused.", title="Link blocked", severity="warning")

    @property
    def searchable_text(self) -> str:
        return self._shown
