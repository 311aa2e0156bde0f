"""The scrolling transcript.

Items arrive (live, from a replay or from the store) and are placed by the
headless :class:`~kandev_tui.renderers.layout.Layout`: a new entry mounts a widget
in order, a changed item updates its widget in place. The view follows the newest
output while the user is at the bottom and stops following when they scroll up.
Charts plot only when they come within one screen of the viewport.
"""

from __future__ import annotations

from typing import Iterable

from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget

from kandev_tui.renderers import Registry
from kandev_tui.renderers.layout import Entry, Layout
from kandev_tui.transcript import items as K
from kandev_tui.transcript.items import Item

from .agent_message import AgentMessage
from .chart_block import ChartBlock
from .notice import Notice
from .permission import PermissionRequest
from .plan import Plan
from .thought import Thought
from .tool_card import ToolCard
from .tool_group import ToolGroup
from .user_message import UserMessage

ITEM_WIDGETS = {K.USER: UserMessage, K.AGENT: AgentMessage, K.THOUGHT: Thought, K.PLAN: Plan,
                K.PERMISSION: PermissionRequest, K.ERROR: Notice, K.TURN_END: Notice}


class TranscriptView(VerticalScroll):
    """See the module docstring."""

    DEFAULT_CSS = """
    TranscriptView { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; overflow-x: hidden; }
    """

    class FollowChanged(Message):
        def __init__(self, following: bool) -> None:
            super().__init__()
            self.following = following

    class SessionState(Message):
        """Items that are not in the flow (session info, usage) for the status line."""

        def __init__(self, item: Item) -> None:
            super().__init__()
            self.item = item

    def __init__(self, registry: Registry, card_limit: int = 8, **kwargs) -> None:
        super().__init__(**kwargs)
        self.layout_model = Layout(registry, card_limit)
        self.widgets: dict[str, Widget] = {}  # entry key → widget
        self.following = True
        self.permissions_answerable = False
        self._recheck_pending = False

    # -- items in ------------------------------------------------------------

    def apply(self, items: Iterable[Item]) -> None:
        """Place or update each item (the last state of each wins)."""
        mounted = False
        touched_groups: set[str] = set()
        for item in items:
            entry, is_new = self.layout_model.place(item)
            if entry is None:
                if item.kind in (K.SESSION_INFO, K.USAGE):
                    self.post_message(self.SessionState(item))
                continue
            if entry.kind == "group":
                touched_groups.add(entry.key)
            if is_new:
                self._mount_entry(entry, item)
                mounted = True
            else:
                self.widgets[entry.key].update_item(item)
        for key in self._groups_to_refresh(touched_groups):
            group = self.widgets.get(key)
            if isinstance(group, ToolGroup):
                group.set_summary(self.layout_model.summary(self.layout_model_entry(key)))
        if self.following:
            self.call_after_refresh(self._follow)
        if mounted:
            self.call_after_refresh(self.check_charts)

    def layout_model_entry(self, key: str) -> Entry:
        return next(e for e in self.layout_model.entries if e.key == key)

    def _groups_to_refresh(self, touched: set[str]) -> set[str]:
        """Groups whose summary may have changed: touched ones, and those of runs that got a card."""
        runs = {e.run for e in self.layout_model.entries[-8:] if e.kind == "card"}
        return touched | {e.key for e in self.layout_model.entries[-16:] if e.kind == "group" and e.run in runs}

    def _mount_entry(self, entry: Entry, item: Item) -> None:
        if entry.kind == "group":
            widget: Widget = ToolGroup(entry.key)
            widget.update_item(item)
        elif entry.kind == "card":
            widget = ToolCard(item, entry.renderer)
        else:
            widget = ITEM_WIDGETS.get(item.kind, Notice)(item)
            if isinstance(widget, PermissionRequest):
                widget.answerable = self.permissions_answerable and item.status == "pending"
                if widget.answerable:
                    self.call_after_refresh(widget.focus)
        self.widgets[entry.key] = widget
        index = self.layout_model.entries.index(entry)
        before = next((self.widgets[e.key] for e in self.layout_model.entries[index + 1:] if e.key in self.widgets
                       and self.widgets[e.key].is_mounted), None)
        if before is not None:
            self.mount(widget, before=before)
        else:
            self.mount(widget)

    # -- following -------------------------------------------------------------

    def _follow(self) -> None:
        if self.following:
            self.scroll_end(animate=False, immediate=True)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        at_bottom = new >= self.max_scroll_y - 1
        if new < old and not at_bottom:
            self._set_following(False)
        elif at_bottom:
            self._set_following(True)
        self.check_charts()

    def _set_following(self, following: bool) -> None:
        if following != self.following:
            self.following = following
            self.post_message(self.FollowChanged(following))

    def jump_to_latest(self) -> None:
        self._set_following(True)
        self.scroll_end(animate=False, immediate=True)

    def on_resize(self) -> None:
        self.call_after_refresh(self.check_charts)

    # -- deferred plotting -------------------------------------------------------

    def check_charts(self) -> None:
        """Plot the charts of entries within one screen height of the visible region."""
        if not getattr(self.app, "app_visible", True):
            return
        height = self.size.height
        if not height:
            return
        top, bottom = self.scroll_y - height, self.scroll_y + 2 * height
        unplaced = False
        for widget in self.children:
            if not isinstance(widget, ToolCard):
                continue
            region = widget.virtual_region
            if region.height == 0:
                unplaced = True  # not laid out yet: look again after the next refresh
                continue
            if region.bottom < top or region.y > bottom:
                continue
            for chart in widget.query(ChartBlock):
                if not chart.plotted:
                    chart.ensure_plotted()
        if unplaced and not self._recheck_pending:
            self._recheck_pending = True
            self.set_timer(0.05, self._recheck)

    def _recheck(self) -> None:
        self._recheck_pending = False
        self.check_charts()

    # -- permissions -----------------------------------------------------------

    def set_permissions_answerable(self, answerable: bool) -> None:
        """Let pending requests take answers (and give the newest one focus), or make them read-only."""
        self.permissions_answerable = answerable
        pending = []
        for widget in self.query(PermissionRequest):
            widget.set_answerable(answerable and widget.pending)
            if widget.answerable:
                pending.append(widget)
        if pending and not any(w.has_focus_within for w in pending):
            pending[-1].focus()

    def refresh_theme(self) -> None:
        for chart in self.query(ChartBlock):
            chart.refresh_theme()
