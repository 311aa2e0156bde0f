"""What the parts of :class:`~kandev_tui.app.kandev_app.KandevApp` share, declared for the type checker: the app's state
(set in ``KandevApp.__init__``) and the methods one part calls on another.

Each part (the lifecycle, switching between sessions, the user's actions) is a mixin of the one app class; it
names this class as its base only while type checking, so at run time the parts stay plain mixins. A part that
starts using another's state or method declares it here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App

from kandev_tui.base.gcpolicy import GcPolicy
from kandev_tui.ui.user_input import UserInput
from kandev_tui.renderers import Registry
from kandev_tui.session.controls import Controls
from kandev_tui.session.model import SessionModel
from kandev_tui.base.settings import SettingsStore
from kandev_tui.base.shutdown import EndingSignals
from kandev_tui.widgets.transcript_view import TranscriptView

if TYPE_CHECKING:
    from kandev_tui.app.attention import Attention
    from kandev_tui.app.lists import SessionLists
    from kandev_tui.app.session import AppSession
    from kandev_tui.app.starting import SessionStarter
    from kandev_tui.sources.launch import Launcher
    from kandev_tui.screens.session_picker import SessionPickerScreen
    from kandev_tui.workspace.reads import Workspace
    from textual.timer import Timer


class AppParts(App[int]):
    has_home: bool
    sixteen_colors: bool | None
    launcher: Launcher | None
    starter: SessionStarter
    user_input: UserInput
    settings_store: SettingsStore
    registry: Registry
    stats_path: Path | None
    sessions: list[AppSession]
    lists: SessionLists
    attention: Attention
    gc_policy: GcPolicy
    _interrupt_at: float
    _close_at: float
    _preloaded: bool
    _sources_closed: bool
    _signals: EndingSignals | None
    _picker: SessionPickerScreen | None
    _look: Timer | None

    # the app's own (the session on screen)
    @property
    def current(self) -> AppSession: ...
    @property
    def session(self) -> SessionModel: ...
    @property
    def view(self) -> TranscriptView: ...
    @property
    def controls(self) -> Controls: ...
    @property
    def workspace(self) -> Workspace | None: ...
    @property
    def exit_code(self) -> int: ...
    # the lifecycle part's
    def keep_looking(self) -> None: ...
    # the switching part's
    def action_sessions(self) -> None: ...
    def action_new_session(self) -> None: ...
    def action_next_waiting(self) -> None: ...
    def action_log_in(self, reason: str = "") -> None: ...
    def action_choices(self) -> None: ...
    async def close_current(self) -> None: ...
    # the actions part's
    def _prepare_help(self) -> None: ...
