"""The app as all its collaborators see it (kandev_tui/app/*.py): Textual's app, the settings, the sessions and the
one on screen; each collaborator's protocol adds what it alone needs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Sequence

from kandev_tui.app.host import TextualApp
from kandev_tui.app.session import AppSession

if TYPE_CHECKING:
    from kandev_tui.base.settings import SettingsStore
    from kandev_tui.widgets.transcript_view import TranscriptView


class HoldsSessions(TextualApp, Protocol):
    """The app as its collaborators (kandev_tui/app/*.py) all see it: Textual's app, the settings, its sessions and
    the one on screen (its transcript, ``view``); each adds what it alone needs."""

    settings_store: SettingsStore

    @property
    def sessions(self) -> Sequence[AppSession]: ...
    @property
    def current(self) -> AppSession: ...
    @property
    def view(self) -> TranscriptView: ...
