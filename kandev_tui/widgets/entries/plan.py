from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.widgets import Static

from kandev_tui.transcript.items import Item

from kandev_tui.widgets.entries.base import EntryWidget, safe_text
from kandev_tui.widgets.markdown_rich import rich_markdown

MARKS = {"completed": ("✔", "green"), "in_progress": ("◐", "yellow"), "pending": ("○", "")}


class Plan(EntryWidget):
    """The agent's plan as a checklist that updates in place."""

    DEFAULT_CSS = """
    Plan { height: auto; margin: 1 0 0 0; padding: 0 1; border: round $panel-lighten-2; }
    Plan.removed { opacity: 0.6; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry")
        self._body = Static()
        self._text = ""
        self._item = item
        self.update_item(item)

    def compose(self):
        yield self._body

    def on_mount(self) -> None:
        if "markdown" in self._item.payload:  # drawn as Markdown in the theme's colours, now that there is one
            self.update_item(self._item)

    def update_item(self, item: Item) -> None:
        self._item = item
        payload = item.payload
        removed = " (removed)" if payload.get("removed") else ""
        self.set_class(bool(removed), "removed")
        if "markdown" in payload or "file" in payload:
            title = Text.assemble(("Plan", "bold"), (removed, "dim"))
            if "file" in payload:
                kept_in = Text("kept in " + safe_text(str(payload["file"]), keep_newlines=False)[:300], style="dim")
                body: RenderableType = kept_in
                said = title.plain + " " + kept_in.plain
            else:
                markdown = safe_text(str(payload["markdown"]))
                body = rich_markdown(markdown, self.app.current_theme.dark) if self.is_attached else Text(markdown)
                said = title.plain + "\n" + markdown
            self._text = said
            self._body.update(Group(title, body))
            return
        entries = [e for e in payload.get("entries", []) if isinstance(e, dict)]
        done = sum(1 for e in entries if e.get("status") == "completed")
        text = Text()
        text.append(f"Plan {done}/{len(entries)}", style="bold")
        text.append(f"{removed}\n", style="dim")
        for entry in entries:
            mark, style = MARKS.get(str(entry.get("status")), ("○", ""))
            content = safe_text(entry.get("content", ""), keep_newlines=False)
            text.append(f"{mark} ", style=style)
            text.append(content + "\n", style="dim strike" if entry.get("status") == "completed" else "")
        text.rstrip()
        self._text = text.plain
        self._body.update(text)

    @property
    def searchable_text(self) -> str:
        return self._text
