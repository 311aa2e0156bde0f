"""What every transcript entry widget shares: it is told about item changes."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from kandev_tui.transcript.items import Item
from kandev_tui.widgets.context import context_of

# a subagent's state as its row, its card and its screen colour it (here: the sessions list shows them without the
# subagent widgets, which bring Rich's syntax highlighting, imported before the first frame)
SUBAGENT_STATE_STYLE = {"running": "yellow", "waiting for you": "bold yellow", "done": "green", "failed": "red",
                        "cancelled": "dim"}


class SearchHit(Widget):
    """A widget the transcript's search can mark: the current hit is tinted and its matches shown reversed.

    ``show_hit(needle)`` marks it (None unmarks): the texts its statics draw are marked (:mod:`.search_marks`), and
    widgets that draw text themselves highlight ``self.hit_needle``. ``hit_row(needle)``: the display row where this
    widget draws the first match, or None.
    """

    hit_needle: str | None = None

    def show_hit(self, needle: str | None) -> None:
        from kandev_tui.widgets.search_marks import mark_texts

        self.hit_needle = needle.casefold() if needle else None
        self.set_class(needle is not None, "search-hit")
        mark_texts(self, self.hit_needle)
        self.refresh()

    def hit_row(self, needle: str) -> int | None:
        from kandev_tui.widgets.search_marks import display_row, drawn

        return display_row(self, drawn(self), needle)


def first_match(root: Widget, needle: str) -> tuple[Widget, int] | None:
    """The first widget of ``root`` (itself included, in the order they are drawn) that draws ``needle``
    (casefolded), and the row of the match in it; None when nothing shown draws it (a chart's label cut short)."""
    from kandev_tui.widgets.search_marks import display_row, drawn

    for widget in root.walk_children(Widget, with_self=True):
        if not widget.display:
            continue
        row = widget.hit_row(needle) if isinstance(widget, SearchHit) else display_row(widget, drawn(widget), needle)
        if row is not None:
            return widget, row
    return None


class EntryWidget(SearchHit):
    """A widget for one transcript entry; ``update_item`` is called with each new item state."""

    item: Item | None = None

    def update_item(self, item: Item) -> None:
        """Show a new state of the entry's item (entries override this to redraw)."""
        self.item = item

    @property
    def searchable_text(self) -> str:
        return ""

    @property
    def settling(self) -> bool:
        """Still being put on screen (mounting, or parsing what it shows): the transcript's next batch waits."""
        return not self.is_mounted or self.parsing

    @property
    def parsing(self) -> bool:
        """Mounted, and still parsing what it shows (a message's backlog): each entry that can be says so."""
        return False

    def on_mount(self) -> None:
        """Mounted: the transcript counts it as on screen, unless it is still parsing (it says when it is done)."""
        context_of(self).settling(self, self.parsing)


class TextEntry(EntryWidget):
    """An entry drawn as one text (a notice, a turn's changes): subclasses make it with :meth:`show`."""

    def __init__(self, item: Item, classes: str = "entry") -> None:
        super().__init__(classes=classes)
        self._body = Static()
        self._text = ""
        self.update_item(item)

    def compose(self) -> ComposeResult:
        yield self._body

    def show(self, text: Text) -> None:
        self._body.update(text)
        self._text = text.plain

    @property
    def searchable_text(self) -> str:
        return self._text


class CollapsibleEntry(EntryWidget):
    """An entry that is one row, its title, and expands to a body (a compaction, a subagent). Subclasses draw an
    item with :meth:`show`; the title is plain text, never read as markup."""

    DEFAULT_CSS = """
    CollapsibleEntry { height: auto; margin: 1 0 0 0; }
    CollapsibleEntry Collapsible { border: none; padding: 0; background: transparent; }
    """

    def __init__(self, item: Item) -> None:
        super().__init__(classes="entry")
        self._body = Static(classes="body")
        # a Content title is shown as it is (a str would be read as markup); Textual's hint says str
        self._collapsible = Collapsible(title=Content(""), collapsed=True)  # type: ignore[arg-type]
        self._text = ""
        self.update_item(item)

    def compose(self) -> ComposeResult:
        with self._collapsible:
            yield self._body

    def show(self, title: str, body: Text) -> None:
        """The row's ``title`` and what it expands to (searched as shown)."""
        self._collapsible.title = Content(title)  # type: ignore[assignment]  # as above
        self._body.update(body)
        self._text = f"{title}\n{body.plain}"

    @property
    def searchable_text(self) -> str:
        return self._text


def grown_text(held: Item | None, item: Item) -> str | None:
    """What ``item``'s text adds to ``held``'s, when ``item`` is a later version of the same streaming text that only
    grew since (:attr:`Item.grown_from`: a reader holding an earlier version appends what came after it); None when
    it is not (another text, a text replaced whole)."""
    if not item.grown_from or held is None or held.key != item.key or held.version < item.grown_from:
        return None
    return str(item.payload.get("text", ""))[len(str(held.payload.get("text", ""))):]


def safe_text(value: Any, keep_newlines: bool = True) -> str:
    """Agent text made inert (the one sanitising path, :func:`kandev_tui.base.sanitize.visible`)."""
    from kandev_tui.base.sanitize import visible

    return visible(value if isinstance(value, str) else str(value), keep_newlines)


def code_spans(text: str, style: str = "", code: str = "bold") -> list[tuple[str, str]]:
    """Agent text as (text, style) parts, its `code` spans in ``code`` (over ``style``) without their backticks, as
    Markdown shows them (Codex's option "don't ask again for commands that start with `ls -la`", its notice "Model
    metadata for `gpt-5.1-codex-max` not found"); backticks that pair with nothing are kept as they are."""
    parts = text.split("`")
    if len(parts) < 3 or len(parts) % 2 == 0 or any(not part for part in parts[1::2]):
        return [(text, style)]
    return [(part, f"{style} {code}".strip() if index % 2 else style) for index, part in enumerate(parts) if part]


def mount_into(parent: Widget, *widgets: Widget, **where: Any) -> bool:
    """Mount ``widgets`` into ``parent`` unless it has left the screen meanwhile (the transcript's window moved
    or was rebuilt between a widget's creation and this call); says whether it mounted."""
    if not parent.is_attached:
        return False
    parent.mount(*widgets, **where)
    return True


def match_spans(text: str, needle: str | None) -> list[tuple[int, int]]:
    """Where ``needle`` (casefolded) occurs in ``text``, case-insensitively: (start, end) character offsets."""
    if not needle:
        return []
    folded = text.casefold()
    if len(folded) != len(text):  # casefolding changed lengths (ß → ss): offsets would not line up
        folded = text.lower()
    spans, start = [], folded.find(needle)
    while start >= 0 and needle:
        spans.append((start, start + len(needle)))
        start = folded.find(needle, start + len(needle))
    return spans
