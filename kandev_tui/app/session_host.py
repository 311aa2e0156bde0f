"""What an app session needs of the app that holds it: the app as a protocol (Textual's app and the members a session
uses), and the message a session posts when a batch of items is in its transcript."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Sequence

from textual.message import Message

from kandev_tui.app.host import TextualApp

if TYPE_CHECKING:
    from kandev_tui.app.looks import Looks
    from kandev_tui.base.gcpolicy import GcPolicy
    from kandev_tui.base.settings import SettingsStore
    from kandev_tui.renderers import Registry
    from kandev_tui.ui.user_input import UserInput


class ItemsApplied(Message):
    """A batch of items is in the transcript (their widgets placed; a test's or a tool's signal to look)."""

    def __init__(self, keys: list[str]) -> None:
        super().__init__()
        self.keys = keys


class Lists(Protocol):
    """What shows the sessions to each other (kandev_tui/app/lists.py), as a session tells it of a change."""

    def changed(self) -> None: ...


class SessionHost(TextualApp, Protocol):
    """What a session needs of the app that holds it, beside Textual's app."""

    registry: Registry
    settings_store: SettingsStore
    user_input: UserInput
    gc_policy: GcPolicy

    @property
    def sessions(self) -> Sequence[object]: ...
    @property
    def lists(self) -> Lists: ...
    @property
    def looks(self) -> Looks: ...
    def keep_looking(self) -> None: ...
