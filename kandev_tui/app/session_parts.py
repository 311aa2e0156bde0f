"""What the parts of :class:`~kandev_tui.app.session.AppSession` share, declared for the type checker: the
session's state (set in ``AppSession.__init__``) and the methods one part calls on another.

Each part (the prompts and the queue, the login) is a mixin of the one session class; it names this class as its
base only while type checking, so at run time the parts stay plain mixins. A part that starts using another's
state or method declares it here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kandev_tui.screens.transcript import TranscriptScreen
from kandev_tui.session import SessionState
from kandev_tui.session.model import SessionModel, SessionStatus
from kandev_tui.widgets.transcript_view import TranscriptView

if TYPE_CHECKING:
    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.screens.login import LoginScreen


class SessionParts:
    app: KandevApp
    number: int
    model: SessionModel
    view: TranscriptView
    screen: TranscriptScreen
    held: str | None
    queue: list[str]
    queue_offered: bool
    given_back: list[str]
    started_turns: int
    login_screen: LoginScreen | None
    last_state: SessionState
    closed: bool

    async def send(self, text: str) -> None: ...
    @property
    def on_screen(self) -> bool: ...
    @property
    def status(self) -> SessionStatus: ...
