"""What the parts of :class:`~kandev_tui.widgets.transcript_view.TranscriptView` share, declared for the type
checker: the view's state (set in ``TranscriptView.__init__``) and the methods one part calls on another.

Each part (window, predraw, following, search, charts, requests) is a mixin of the one view class; it names this
class as its base only while type checking (``if TYPE_CHECKING``), so at run time the parts stay plain mixins
and the view's MRO is what it was. A part that starts using another's state or method declares it here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Iterable

from textual.containers import VerticalScroll
from textual.widget import Widget

from kandev_tui.session import window as W
from kandev_tui.session.changes import TranscriptModel
from kandev_tui.session.layout import Entry
from kandev_tui.session.window import Window
from kandev_tui.widgets.base import EntryWidget
from kandev_tui.widgets.context import DrawContext

if TYPE_CHECKING:
    from ..agent_message import AgentMessage
    from . import TranscriptView
    from .window import Sentinel


class ViewParts(VerticalScroll):
    model: TranscriptModel
    widgets: dict[str, EntryWidget]  # entry key → its mounted widget
    following: bool
    new_below: bool
    permissions_answerable: bool
    permissions_elsewhere: str
    requests_take_focus: bool
    window: Window
    more_at_source: bool
    top: Sentinel
    bottom: Sentinel
    draw_context: DrawContext
    _recheck_pending: bool
    _loading: bool
    _predraws: dict[AgentMessage, None]
    _predraws_since: float
    _mounting: list[Widget]
    _mounting_since: float
    _asked_older: bool
    _hit_widget: Widget | None

    Below: ClassVar[type[TranscriptView.Below]]
    OlderWanted: ClassVar[type[TranscriptView.OlderWanted]]

    @property
    def entries(self) -> list[Entry]: ...
    @property
    def lo(self) -> int: ...
    @property
    def hi(self) -> int: ...

    # the window's
    def _viewport_height(self) -> tuple[int, W.Height]: ...
    def _move(self, new: Window) -> None: ...
    def _show_sentinels(self) -> None: ...
    def load_earlier(self) -> None: ...
    def load_later(self) -> None: ...
    def ask_for_older(self) -> None: ...
    def show_entry(self, index: int) -> EntryWidget | None: ...
    # predraw's
    def _predraw(self, widgets: Iterable[Widget]) -> None: ...
    # following's
    def _follow(self) -> None: ...
    def _more_above(self) -> None: ...
    def set_following(self, following: bool) -> None: ...
    def _say_below(self) -> None: ...
    # the charts'
    def check_charts(self, at_once: bool = False) -> None: ...
    # the requests'
    def give_keys_to(self, request: Widget) -> None: ...
