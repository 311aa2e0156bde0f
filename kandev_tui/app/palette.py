"""The command palette's commands (ctrl+p): Textual's own (its "Keys" panel left out, F1 lists every key; its
screenshot saved as kandev-tui saves one), then the sessions' and the session on screen's, each offered only when
its key would be."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Protocol

from textual.app import SystemCommand

from kandev_tui.app.actions import UserActions
from kandev_tui.app.holds import HoldsSessions
from kandev_tui.session import SessionState

if TYPE_CHECKING:
    from kandev_tui.sources.launch import Launcher


class PaletteHost(HoldsSessions, Protocol):
    """What the palette offers of the app: its actions, as its keys run them."""

    @property
    def launcher(self) -> Launcher | None: ...
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None: ...
    def action_new_session(self) -> None: ...
    def action_sessions(self) -> None: ...
    def action_next_waiting(self) -> None: ...
    def action_choices(self) -> None: ...
    def action_log_in(self, reason: str = "") -> None: ...
    def action_settings(self) -> None: ...
    def action_help(self) -> None: ...
    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None: ...
    async def close_current(self) -> None: ...


def commands(app: PaletteHost, textuals: Iterable[SystemCommand], actions: UserActions) -> Iterable[SystemCommand]:
    for command in textuals:
        if command.title == "Keys":  # Textual's panel of the focused widget's bindings: F1 lists every key
            continue
        if command.title == "Screenshot":  # saved as kandev-tui saves it (where it can be, or why not)
            command = SystemCommand(command.title, "Save an SVG picture of the screen (it says where)",
                                    lambda: app.set_timer(0.1, app.action_screenshot))
        yield command
    # the sessions' keys have commands too: a browser (serve) keeps ctrl+n and ctrl+w for itself
    if app.launcher is not None:
        yield SystemCommand("New session", "An agent from a preset, in a folder or a new git worktree (ctrl+n)",
                            app.action_new_session)
    if app.check_action("sessions", ()):
        yield SystemCommand("Sessions", "Every session, and the stored ones (ctrl+s)", app.action_sessions)
    if app.check_action("next_waiting", ()):
        yield SystemCommand("Session waiting for you", "The one that has waited longest (f4)", app.action_next_waiting)
    if not app.sessions or app.current_mode == "home":
        yield SystemCommand("Settings", "Theme, chart animation, card limit, guidance (F2)", app.action_settings)
        return
    session = app.current
    if app.check_action("close_session", ()):
        yield SystemCommand("Close this session", "Its turn cancelled, its agent ended, everything kept stored "
                            "(ctrl+w twice)", app.close_current)
    if session.model.turn_running:
        yield SystemCommand("Cancel the running turn", "Send session/cancel to the agent (escape)", actions.cancel_turn)
    if session.controls and session.status.can_prompt:
        yield SystemCommand("Mode and model", f"Choose the agent's mode, model and options "
                            f"({session.controls.summary()})", app.action_choices)
    if session.last_state == SessionState.LOGIN:
        yield SystemCommand("Log in to the agent", "The ways the agent offers (ctrl+l)", app.action_log_in)
    yield SystemCommand("Jump to the latest output", "Follow the transcript again (ctrl+end)", app.view.jump_to_latest)
    if actions.last_message() is not None:
        yield SystemCommand("Copy the agent's last answer", "Its messages of the last turn, as Markdown, to the "
                            "clipboard (a part of any text: select it with the mouse, then ctrl+c)",
                            actions.copy_last_message)
    yield SystemCommand("Settings", "Theme, chart animation, card limit, guidance (F2)", app.action_settings)
    yield SystemCommand("Help: keys", "Every key kandev-tui knows (F1)", app.action_help)
