"""What the user does in the session on screen, beside its prompts: a turn cancelled, requests answered, cards and
files opened, the help, screenshots, settings, the focus moved by keys, ctrl+c's copy, and the command palette's
commands. The app's bindings and handlers call these (kandev_tui/app/kandev_app.py)."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol


from kandev_tui.app.holds import HoldsSessions
from kandev_tui.transcript.items import AGENT
from kandev_tui.ui.textual_hooks import mount_screen_ahead

if TYPE_CHECKING:
    pass

log = logging.getLogger("kandev_tui.app.kandev_app")
PRESS_AGAIN = 2.0  # seconds within which ctrl+c pressed again quits


class ActionsHost(HoldsSessions, Protocol):
    """What the user's actions need of the app, beside Textual's app."""

    theme: str

    @property
    def available_themes(self) -> dict[str, Any]: ...
    @property
    def is_web(self) -> bool: ...
    def is_screen_installed(self, screen: Any) -> bool: ...
    def install_screen(self, screen: Any, name: str) -> None: ...
    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None: ...
    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str: ...
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None: ...


class UserActions:
    """See the module docstring. ``quit`` ends the app (ctrl+c pressed twice)."""

    def __init__(self, app: ActionsHost, quit: Callable[[], Awaitable[None]]) -> None:
        self.app = app
        self._quit = quit
        self._interrupt_at = 0.0  # the first press of ctrl+c (pressed twice)

    # -- the session on screen ----------------------------------------------------------

    def remove_queued(self) -> None:
        """ctrl+t: the next queued message back in the prompt."""
        text = self.app.current.prompts.remove_next()
        if text is not None:
            self.app.notify(f"Taken out of the queue: {' '.join(text.split())[:60]}", timeout=3, markup=False)

    def cancel_turn(self) -> None:
        model = self.app.current.model
        if model.turn_running:
            self.app.run_worker(model.cancel(), name="cancel", group="cancel")

    def answer(self, key: str, answer: Any) -> None:
        """A permission request's option, or a question's response, for the session on screen."""
        if not self.app.current.model.answer(key, answer):
            self.app.notify("That request is no longer waiting for an answer.", severity="warning")

    def open_file(self, path: str, repo: str | None, title: str, line: int | None) -> None:
        from kandev_tui.screens.file_viewer import FileViewerScreen

        self.app.push_screen(FileViewerScreen(path, repo, title, line=line, workspace=self.app.current.workspace))

    def fetch_output(self, key: str) -> None:
        self.app.run_worker(self.app.current.model.fetch_output(key), name="fetch-output", group="fetch-output")

    def review(self, key: str) -> None:
        """A turn's changes card's review (enter on it)."""
        from kandev_tui.screens.review import ReviewScreen

        item = self.app.view.model.items.get(key)
        if item is not None:
            self.app.push_screen(ReviewScreen(item.payload, owner=self.app.current))

    def cancel_subagent(self, session_id: str) -> None:
        self.app.run_worker(self.app.current.model.cancel_subagent(session_id), name="cancel-subagent",
                            group="cancel-subagent")

    def keys_moved_focus(self) -> None:
        """tab or shift+tab gave the focus to an entry of the transcript on screen: the view is told (it stops
        following when the entry is above its last screen)."""
        app = self.app
        focused = app.focused
        if focused is not None and app.sessions and app.current_mode != "home" and app.view in focused.ancestors:
            app.view.keys_moved_to(focused)

    # -- the app's screens -------------------------------------------------------------

    def help(self) -> None:
        """F1 shows the keys, and hides them again. The screen is made once and kept: showing it again only draws it."""
        from kandev_tui.screens.help import HelpScreen

        if isinstance(self.app.screen, HelpScreen):
            self.app.screen.dismiss()
            return
        self.prepare_help()
        self.app.push_screen("help")

    def prepare_help(self) -> None:
        """Install the help screen and have it composed and mounted, not shown: the first F1 of a session (often
        while an agent is streaming) then only draws it, 40 ms sooner. Textual mounts an installed screen that is
        not running when it is first fetched for showing; this has it mounted ahead of time."""
        from kandev_tui.screens.help import HelpScreen

        if not self.app.is_screen_installed("help"):
            self.app.install_screen(HelpScreen(), "help")
        mount_screen_ahead(self.app, "help")

    def screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """The palette's Screenshot: saved where it can be (the Downloads folder where there is one, else beside the
        sessions, else the temporary folder), as an SVG that fetches nothing when viewed (no web font), and the
        notice says where, or why not (Textual only tried a Downloads folder, and said "Failed to save screenshot"
        without a reason where there is none). In a browser (``serve``) the browser is handed it."""
        app = self.app
        if app.is_web:
            app.deliver_screenshot(filename, path)
            return
        from datetime import datetime

        from kandev_tui.base.userpaths import open_private
        from kandev_tui.ui.svg_pictures import offline

        folder = Path(path) if path is not None else screenshot_directory()
        target = folder / (filename or f"kandev-tui {datetime.now():%Y-%m-%d %H-%M-%S}.svg")
        try:
            with open_private(target, "w", encoding="utf-8") as file:
                file.write(offline(app.export_screenshot(title="kandev-tui")))
        except OSError as exc:
            app.notify(f"The screenshot was not saved: {target}: {exc.strerror or exc}", title="Screenshot",
                       severity="error")
            return
        app.notify(f"Saved screenshot to {target}", title="Screenshot")

    def settings(self) -> None:
        from kandev_tui.screens.settings import SettingsScreen

        if not self.app.is_screen_installed("settings"):  # made once and kept: showing it again only draws it
            self.app.install_screen(SettingsScreen(self.app.settings_store), "settings")
        self.app.push_screen("settings")

    def change_setting(self, **changes: Any) -> None:
        app = self.app
        settings = app.settings_store.update(**changes)
        if "theme" in changes and settings.theme in app.available_themes:
            app.theme = settings.theme
        if "card_limit" in changes:
            for session in app.sessions:
                session.model.set_card_limit(settings.card_limit)

    # -- copying and quitting ------------------------------------------------------------

    async def interrupt(self) -> None:
        """ctrl+c: with text selected (in the prompt, or in the transcript with the mouse), a copy of it, as in the
        terminal's other programs (this binding, first so that a busy screen never holds back quitting, came before
        Textual's own copy keys); else once more within 2 s quits."""
        if self._copy_selection():
            return
        now = time.monotonic()
        if now - self._interrupt_at < PRESS_AGAIN:
            await self._quit()
            return
        self._interrupt_at = now
        self.app.notify("Press ctrl+c again to quit (ctrl+q quits at once).", timeout=2)

    def _copy_selection(self) -> bool:
        """The text selected copied to the clipboard (OSC 52: the terminal's, through tmux and SSH), if there is any."""
        from textual.widgets import Input, TextArea

        app = self.app
        focused = app.focused
        text = focused.selected_text if isinstance(focused, (Input, TextArea)) else ""
        if not text:
            text = app.screen.get_selected_text() or ""
        if not text:
            return False
        app.copy_to_clipboard(text)
        lines = text.count("\n") + 1
        app.notify(f"Copied {lines:,} lines." if lines > 1 else f"Copied {len(text):,} characters.", timeout=2)
        return True

    def last_message(self) -> str | None:
        """The Markdown of the agent's latest answer in the session on screen: every message it said in its latest
        turn, in order (an agent that works between its words answers in several, the last often "Anything
        else?"); None when it has said nothing."""
        said = [item for item in self.app.view.model.items.values()
                if item.kind == AGENT and isinstance(item.payload.get("text"), str) and item.payload["text"].strip()]
        if not said:
            return None
        return "\n\n".join(item.payload["text"].strip() for item in said if item.turn == said[-1].turn)

    def copy_last_message(self) -> None:
        text = self.last_message()
        if text is not None:
            self.app.copy_to_clipboard(text)
            self.app.notify(f"Copied the agent's last answer ({text.count(chr(10)) + 1:,} lines of Markdown).",
                            timeout=3)


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
