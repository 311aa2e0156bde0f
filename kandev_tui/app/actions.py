"""What the user does in a session: prompts sent and queued, a turn cancelled, requests answered, cards opened,
the help, screenshots, settings and the command palette's commands."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from textual.app import SystemCommand
from textual.screen import Screen

from kandev_tui.screens.transcript import TranscriptScreen
from kandev_tui.ui.textual_hooks import mount_screen_ahead
from kandev_tui.session import SessionState
from kandev_tui.transcript.items import AGENT
from kandev_tui.widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from kandev_tui.app.parts import AppParts
else:
    AppParts = object  # a plain mixin at run time: see app_parts

if TYPE_CHECKING:  # the screens not shown at start are imported when first shown (the first frame comes sooner)
    from kandev_tui.screens.settings import SettingsScreen
    from kandev_tui.widgets.tool_call import ToolCallView
    from kandev_tui.widgets.file_preview import FilePreview
    from kandev_tui.widgets.elicitation import ElicitationCard
    from kandev_tui.widgets.changes_card import ChangesCard
    from kandev_tui.widgets.subagent import SubagentCard
    from kandev_tui.widgets.permission import PermissionRequest

log = logging.getLogger("kandev_tui.app.kandev_app")


class UserActions(AppParts):
    """The user's actions (a part of :class:`~kandev_tui.app.kandev_app.KandevApp`)."""

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        self.current.submit(event.text)

    def on_prompt_input_recall_queued(self, event: PromptInput.RecallQueued) -> None:
        self.current.recall_queued()

    def action_send_queued_now(self) -> None:
        self.current.send_queued_now()

    def action_remove_queued(self) -> None:
        text = self.current.remove_queued()
        if text is not None:
            self.notify(f"Taken out of the queue: {' '.join(text.split())[:60]}", timeout=3, markup=False)

    @property
    def turn_running(self) -> bool:
        return self.session.turn_running

    def cancel_turn(self) -> None:
        if self.turn_running:
            self.run_worker(self.session.cancel(), name="cancel", group="cancel")

    def answer_permission(self, key: str, answer: Any) -> None:
        """A permission request's option, or a question's response, for the session on screen."""
        if not self.session.answer(key, answer):
            self.notify("That request is no longer waiting for an answer.", severity="warning")

    def on_file_preview_open_file(self, event: FilePreview.OpenFile) -> None:
        from kandev_tui.screens.file_viewer import FileViewerScreen

        self.push_screen(FileViewerScreen(event.path, event.repo, event.title, line=event.line,
                                          workspace=self.workspace))

    def on_tool_call_view_output_wanted(self, event: ToolCallView.OutputWanted) -> None:
        self.run_worker(self.session.fetch_output(event.key), name="fetch-output", group="fetch-output")

    def on_transcript_screen_cancel_turn(self, event: TranscriptScreen.CancelTurn) -> None:
        self.cancel_turn()

    def on_permission_request_answered(self, event: PermissionRequest.Answered) -> None:
        self.answer_permission(event.key, event.option_id)

    def on_changes_card_review_wanted(self, event: ChangesCard.ReviewWanted) -> None:
        from kandev_tui.screens.review import ReviewScreen

        item = self.view.model.items.get(event.key)
        if item is not None:
            self.push_screen(ReviewScreen(item.payload, owner=self.current))

    def on_subagent_card_open_wanted(self, event: SubagentCard.OpenWanted) -> None:
        self.current.open_subagent(event.key)

    def on_subagent_card_cancel_wanted(self, event: SubagentCard.CancelWanted) -> None:
        self.run_worker(self.session.cancel_subagent(event.session_id), name="cancel-subagent", group="cancel-subagent")

    def on_elicitation_card_answered(self, event: ElicitationCard.Answered) -> None:
        self.answer_permission(event.key, event.response)

    def action_help(self) -> None:
        """F1 shows the keys, and hides them again. The screen is made once and kept: showing it again only draws it."""
        from kandev_tui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
            return
        self._prepare_help()
        self.push_screen("help")

    def _prepare_help(self) -> None:
        """Install the help screen and have it composed and mounted, not shown: the first F1 of a session (often
        while an agent is streaming) then only draws it, 40 ms sooner. Textual mounts an installed screen that is
        not running when it is first fetched for showing; this has it mounted ahead of time."""
        from kandev_tui.screens.help import HelpScreen

        if not self.is_screen_installed("help"):
            self.install_screen(HelpScreen(), "help")
        mount_screen_ahead(self, "help")

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """The palette's Screenshot: saved where it can be (the Downloads folder where there is one, else beside the
        sessions, else the temporary folder), as an SVG that fetches nothing when viewed (no web font), and the
        notice says where, or why not (Textual only tried a Downloads folder, and said "Failed to save screenshot"
        without a reason where there is none). In a browser (``serve``) the browser is handed it."""
        if self.is_web:
            self.deliver_screenshot(filename, path)
            return
        from datetime import datetime

        from kandev_tui.ui.svg_pictures import offline
        from kandev_tui.base.userpaths import open_private

        folder = Path(path) if path is not None else screenshot_directory()
        target = folder / (filename or f"kandev-tui {datetime.now():%Y-%m-%d %H-%M-%S}.svg")
        try:
            with open_private(target, "w", encoding="utf-8") as file:
                file.write(offline(self.export_screenshot(title="kandev-tui")))
        except OSError as exc:
            self.notify(f"The screenshot was not saved: {target}: {exc.strerror or exc}", title="Screenshot",
                        severity="error")
            return
        self.notify(f"Saved screenshot to {target}", title="Screenshot")

    def action_settings(self) -> None:
        from kandev_tui.screens.settings import SettingsScreen

        if not self.is_screen_installed("settings"):  # made once and kept: showing it again only draws it
            self.install_screen(SettingsScreen(self.settings_store), "settings")
        self.push_screen("settings")

    def action_focus_next(self) -> None:
        super().action_focus_next()
        self._keys_moved_focus()

    def action_focus_previous(self) -> None:
        super().action_focus_previous()
        self._keys_moved_focus()

    def _keys_moved_focus(self) -> None:
        """tab or shift+tab gave the focus to an entry of the transcript on screen: the view is told (it stops
        following when the entry is above its last screen)."""
        focused = self.focused
        if focused is not None and self.sessions and self.current_mode != "home" and self.view in focused.ancestors:
            self.view.keys_moved_to(focused)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title == "Keys":  # Textual's panel of the focused widget's bindings: F1 lists every key
                continue
            if command.title == "Screenshot":  # saved as kandev-tui saves it (where it can be, or why not)
                command = SystemCommand(command.title, "Save an SVG picture of the screen (it says where)",
                                        lambda: self.set_timer(0.1, self.action_screenshot))
            yield command
        # the sessions' keys have commands too: a browser (serve) keeps ctrl+n and ctrl+w for itself
        if self.launcher is not None:
            yield SystemCommand("New session", "An agent from a preset, in a folder or a new git worktree (ctrl+n)",
                                self.action_new_session)
        if self.check_action("sessions", ()):
            yield SystemCommand("Sessions", "Every session, and the stored ones (ctrl+s)", self.action_sessions)
        if self.check_action("next_waiting", ()):
            yield SystemCommand("Session waiting for you", "The one that has waited longest (f4)",
                                self.action_next_waiting)
        if not self.sessions or self.current_mode == "home":
            yield SystemCommand("Settings", "Theme, chart animation, card limit, guidance (F2)", self.action_settings)
            return
        if self.check_action("close_session", ()):
            yield SystemCommand("Close this session", "Its turn cancelled, its agent ended, everything kept stored "
                                "(ctrl+w twice)", self.close_current)
        if self.turn_running:
            yield SystemCommand("Cancel the running turn", "Send session/cancel to the agent (escape)", self.cancel_turn)
        if self.controls and self.current.status.can_prompt:
            yield SystemCommand("Mode and model", f"Choose the agent's mode, model and options ({self.controls.summary()})",
                                self.action_choices)
        if self.current.last_state == SessionState.LOGIN:
            yield SystemCommand("Log in to the agent", "The ways the agent offers (ctrl+l)", self.action_log_in)
        yield SystemCommand("Jump to the latest output", "Follow the transcript again (ctrl+end)", self.view.jump_to_latest)
        if self._last_message() is not None:
            yield SystemCommand("Copy the agent's last answer", "Its messages of the last turn, as Markdown, to the "
                                "clipboard (a part of any text: select it with the mouse, then ctrl+c)",
                                self.copy_last_message)
        yield SystemCommand("Settings", "Theme, chart animation, card limit, guidance (F2)", self.action_settings)
        yield SystemCommand("Help: keys", "Every key kandev-tui knows (F1)", self.action_help)

    def _last_message(self) -> str | None:
        """The Markdown of the agent's latest answer in the session on screen: every message it said in its latest
        turn, in order (an agent that works between its words answers in several, the last often "Anything
        else?"); None when it has said nothing."""
        said = [item for item in self.view.model.items.values()
                if item.kind == AGENT and isinstance(item.payload.get("text"), str) and item.payload["text"].strip()]
        if not said:
            return None
        return "\n\n".join(item.payload["text"].strip() for item in said if item.turn == said[-1].turn)

    def copy_last_message(self) -> None:
        text = self._last_message()
        if text is not None:
            self.copy_to_clipboard(text)
            self.notify(f"Copied the agent's last answer ({text.count(chr(10)) + 1:,} lines of Markdown).", timeout=3)

    def on_settings_screen_changed(self, event: SettingsScreen.Changed) -> None:
        self.change_setting(**{event.name: event.value})

    def change_setting(self, **changes: Any) -> None:
        settings = self.settings_store.update(**changes)
        if "theme" in changes and settings.theme in self.available_themes:
            self.theme = settings.theme
        if "card_limit" in changes:
            for session in self.sessions:
                session.model.set_card_limit(settings.card_limit)


def screenshot_directory() -> Path:
    """Where a screenshot can be saved: the user's Downloads folder when it exists, else ``screenshots`` beside the
    sessions (made), else the temporary folder."""
    import tempfile

    from platformdirs import user_downloads_path

    from kandev_tui.transcript.store import default_db_path
    from kandev_tui.base.userpaths import directory_problem

    for folder in (user_downloads_path(), default_db_path().parent / "screenshots"):
        if folder.is_dir() or folder.name == "screenshots":
            if directory_problem(folder) is None:
                try:
                    folder.mkdir(parents=True, exist_ok=True)
                    return folder
                except OSError:
                    continue
    return Path(tempfile.gettempdir())
