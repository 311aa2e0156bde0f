"""The scrolling transcript: what the session model's change sets say, drawn.

Every entry of the session is in the headless :class:`~kandev_tui.session.changes.TranscriptModel`; this widget
mounts a *window* of them (``kandev_tui/session/window.py`` says where it goes; :mod:`.window` mounts it) and
two sentinels at the top and the bottom say how many more there are. Scrolling into a sentinel mounts the next screens on that side (the viewport
stays where it was) and unmounts as many from the far side, so opening or following a session of 10,000 items costs
about what one of 100 does and memory does not grow with the session. A change set is applied mechanically: entries
reshaped are built anew, newer item versions update mounted widgets in place, new entries are mounted when the
window is at the end. The view follows the newest output while the user is at the bottom and stops when they scroll
up. Charts plot only when they come within one screen of the viewport.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.containers import VerticalScroll
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from kandev_tui.session import window as W
from kandev_tui.session.changes import ChangeSet, TranscriptModel
from kandev_tui.session.layout import Entry
from kandev_tui.session.window import Window
from kandev_tui.ui.textual_hooks import FocusRestylesItself, layout_changes
from kandev_tui.widgets.context import GivesDrawContext

from .charts import ChartsInView
from .following import Following
from .lazy import entry_widgets, made_entries
from .predraw import Predraw
from .requests import Requests
from .search import Finding
from .window import MountedWindow, Sentinel

if TYPE_CHECKING:
    from ..agent_message import AgentMessage
    from ..base import EntryWidget
    from ..tool_group import ToolGroup

__all__ = ["Sentinel", "TranscriptView", "entry_widgets", "made_entries"]


class TranscriptView(MountedWindow, Predraw, Following, Finding, ChartsInView, Requests, FocusRestylesItself,
                     GivesDrawContext, VerticalScroll):
    """See the module docstring; each concern is a part of its own in this package (window, predraw, following,
    search, charts, requests)."""

    BLANK = True  # a container without content or border of its own: its lines are blanks, not rendered
    # focused itself (a stored session opens so; tab from the prompt lands here), the footer says how to move; with
    # an entry focused these give way (the entry's own keys show) to VerticalScroll's down and the app's tab
    BINDINGS = [Binding("down", "moved('scroll_down')", "Scroll", key_display="↑↓"),
                Binding("down", "scroll_down", show=False),
                Binding("tab", "moved('app.focus_next')", "Items")]
    # the scrollbar's column is kept while there is no scrollbar: when it appears, nothing reflows (text, tables)
    # and no chart is plotted again one column narrower
    DEFAULT_CSS = """
    TranscriptView { layout: stream; height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; overflow-x: hidden;
                     scrollbar-gutter: stable; }
    """

    class Below(Message):
        """What lies below the view changed: ``None`` (it follows the end, or stands at the transcript's very end),
        ``"more"`` (the user scrolled up) or ``"new"`` (output came below since it stopped following)."""

        def __init__(self, below: str | None) -> None:
            super().__init__()
            self.below = below

    class OlderWanted(Message):
        """The view is at the very top and the source has older items (a Kandev session's earlier pages)."""

        def __init__(self, view: TranscriptView) -> None:
            super().__init__()
            self.view = view

        @property
        def control(self) -> TranscriptView:
            return self.view

    def __init__(self, model: TranscriptModel, **kwargs) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.widgets: dict[str, EntryWidget] = {}  # entry key → widget
        self.following = True
        self.new_below = False  # output came since the view stopped following
        self.permissions_answerable = False
        self.permissions_elsewhere = ""
        self.requests_take_focus = True  # a request mounted answerable takes the keys (not while the user types)
        self._recheck_pending = False
        self.window = Window()  # the mounted entries: [lo, hi) of the model's
        self._loading = False
        self.top = Sentinel(id="earlier")
        self.bottom = Sentinel(id="later")
        self.more_at_source = False  # the source holds older items than the model (Kandev history pages)
        self._predraws: dict[AgentMessage, None] = {}  # messages to draw ahead of their frame, in order
        self._predraws_since = 0.0
        self._mounting: list[Widget] = []  # the entries the window's last move mounted (until they are)
        self._mounting_since = 0.0
        self._asked_older = False
        self._hit_widget: Widget | None = None  # the search's current hit, marked

    def compose(self):
        yield self.top
        yield self.bottom

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.has_focus if action == "moved" else True

    async def action_moved(self, action: str) -> None:
        await self.run_action(action)

    @property
    def entries(self) -> list[Entry]:
        return self.model.entries

    @property
    def lo(self) -> int:
        return self.window.lo

    @property
    def hi(self) -> int:
        return self.window.hi

    # -- change sets in -------------------------------------------------------

    def apply(self, changes: ChangeSet) -> None:
        """Put a change set on screen: reshaped entries built anew, newer versions into mounted widgets, new entries
        mounted when the window is at the end, group summaries, then following and charts."""
        at_end = self.hi == len(self.entries) - changes.new_entries  # the window reached the end before the batch
        for old_key, entry in changes.rebuilt:
            self._rebuild(old_key, entry)
        entry_of = self.model.entry_of
        for key, item in changes.updated.items():
            widget = self.widgets.get(entry_of[key].key)
            if widget is not None:
                widget.update_item(item)
                self._predraw([widget])
        if at_end and changes.new_entries:
            self._move(W.at_end(self.window, self.entries, self.following, *self._viewport_height()))
        self._show_sentinels()
        for key, summary in changes.summaries.items():
            group = self.widgets.get(key)
            if group is not None and isinstance(group, entry_widgets().ToolGroup):
                cast("ToolGroup", group).set_summary(summary)
        if self.following:
            self.call_after_refresh(self._follow)
        elif not self.new_below and (changes.new_entries or changes.updated or changes.rebuilt):
            self.new_below = True
            self._say_below()
        self.call_after_refresh(self.check_charts)

    def pre_layout(self, layout) -> None:
        """Make the stream layout measure again every entry whose content changed size, however deep the change.

        The stream layout reuses the placement of each entry up to the first one the screen lists as changed.
        Textual 8.2's screen lists an entry only when the change is in the entry itself or one level down: a
        tool group's calls mount two levels down, so an expanded group kept its one-line height (and a streamed
        Markdown block is two levels down too). Each changed widget's entry is added here.
        """
        pending = layout_changes(self.screen)
        if not pending:
            return
        mine = pending.setdefault(self, set())
        for widget in [*pending, *(w for changed in pending.values() for w in changed)]:
            node = widget
            while node is not None and node.parent is not self:  # up to the entry (None: not in the transcript)
                node = node.parent
            if node is not None:
                mine.add(node)

    @property
    def settling(self) -> bool:
        """Whether an entry of the window is still being put on screen (mounted, its Markdown parsed)."""
        return any(getattr(widget, "settling", False) for widget in self.widgets.values())

    def reset(self, changes: ChangeSet, more_at_source: bool = False) -> None:
        """Show the transcript anew once its model has placed every item again (older history came; ``changes``
        is the model's reset, with the entries before it): the entry at the top of the screen stays in place
        unless the view follows the end. The model is reset first and told nothing by the view (one way)."""
        anchor: str | None = None
        offset = 0
        if not self.following and changes.reset_from is not None:
            for entry in changes.reset_from[self.lo:self.hi]:
                widget = self.widgets.get(entry.key)
                if widget is not None and widget.is_mounted and widget.virtual_region.bottom > self.scroll_y:
                    anchor, offset = entry.item_keys[0], widget.virtual_region.y - int(self.scroll_y)
                    break
        doomed = list(self.widgets.values())  # the window's, all of them
        self.widgets.clear()
        if doomed:
            self.remove_children(doomed)
        self.window = Window()
        self.more_at_source = more_at_source
        self._asked_older = False
        target = self.model.entry_of.get(anchor) if anchor is not None else None
        if target is None:
            self._extend_to_end()
            self._show_sentinels()
            self.call_after_refresh(self._follow)
        else:
            widget = self.show_entry(target.index)
            self._show_sentinels()

            def keep_place() -> None:
                if widget is not None and widget.is_mounted:
                    self.scroll_to(y=max(0, widget.virtual_region.y - offset), animate=False, immediate=True)
                self.check_charts()
                self._more_above()  # older history placed with the view still at its top: ask on

            self.call_after_refresh(keep_place)
        self.call_after_refresh(self.check_charts)


