from __future__ import annotations

from pathlib import Path
from typing import Callable

from textual import events, work
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.timer import Timer
from textual.widgets import TextArea

from kandev_tui.base import pacing
from kandev_tui.session.controls import Command, matching_commands
from kandev_tui.workspace.reads import matching_files, workspace_files

from kandev_tui.widgets.chrome.command_menu import CommandMenu

NEWLINE_KEYS = ("ctrl+j", "alt+enter")


SENT_KEPT = 100  # the messages ↑ goes back through, at most


class PromptInput(TextArea):
    """The multi-line prompt: Enter sends; Ctrl+J or Alt+Enter inserts a newline.

    Enter and the newline keys are handled by the prompt itself, in the order the keys came, like the
    characters typed before them. As priority bindings they ran in the app as each key arrived, ahead of the
    characters still queued for the prompt, so a burst ("Say hi" and Enter in one read of the terminal, as
    scripts and some pastes send it) sent "S" and left "ay hi" in the box, or sent nothing and lost the Enter.
    The bindings stay for the footer and the help.
    """

    BINDINGS = [
        Binding("enter", "submit", "Send"),
        Binding(",".join(NEWLINE_KEYS), "newline", "Newline"),
        # the prompt in $VISUAL/$EDITOR, as in Claude Code, Codex, Gemini CLI (F1 says so; the footer keeps its room)
        Binding("ctrl+g", "editor", "Editor", show=False),
    ]

    DEFAULT_CSS = """
    PromptInput { height: auto; min-height: 3; max-height: 10; border: round $accent 50%; }
    PromptInput:focus { border: round $accent; }
    PromptInput:disabled { border: round $panel-lighten-2; }
    """

    class Submitted(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class RecallQueued(Message):
        """↑ in the empty prompt while messages are queued: the last one back in the prompt, to edit or remove."""

    def __init__(self, menu: CommandMenu | None = None, **kwargs) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)
        self.menu = menu  # the agent's slash commands, offered while the text is "/" and the start of a name
        self.commands: list[Command] = []
        self._hint = ""  # what the prompt says under the box of itself: the menu's keys, a command's input
        self._reason = ""  # why it takes no prompt now (the session's state), said there instead while it lasts
        self.queued = 0  # messages queued while a turn runs (↑ in the empty prompt takes the last one back)
        self.sent: list[str] = []  # the messages sent (or queued) from here, oldest first
        # the session's messages, oldest first, when its owner knows them (a first prompt given on the command line,
        # a continued session's): ↑ and ↓ go through them, else through ``sent``
        self.recallable: Callable[[], list[str]] | None = None
        self._history: list[str] = []  # what ↑ and ↓ go through, taken at the first ↑
        self._recalled: int | None = None  # which of them the prompt shows, while it is left as it was recalled
        self.workspace: Path | None = None  # whose files ``@`` offers (the session's, once known)
        self._files: list[str] | None = None  # read once, in a thread, when first asked for
        self._mention: tuple[int, int] | None = None  # where the ``@word`` being completed is: (row, its column)
        self._blink_stopped = False  # the cursor stopped blinking for a while of no key (it blinks again at one)
        self._blink_timer: Timer | None = None

    def keep_blinking(self) -> None:
        """The cursor blinks for :data:`~kandev_tui.base.pacing.CURSOR_BLINKS_FOR` from now, then stays shown, as GTK's
        does: an idle app does not redraw its screen twice a second for a blink. A prompt whose owner turned blinking
        off (a snapshot, a test) is left as it is."""
        if self._blink_stopped:
            self._blink_stopped = False
            self.cursor_blink = True
        if not self.cursor_blink:
            return
        if self._blink_timer is not None:
            self._blink_timer.stop()
        self._blink_timer = self.set_timer(pacing.CURSOR_BLINKS_FOR, self._stop_blinking)

    def _stop_blinking(self) -> None:
        self._blink_timer = None
        if self.cursor_blink:
            self._blink_stopped = True
            self.cursor_blink = False  # Textual shows the cursor, still
            # ... but Textual 8.2's TextArea keys the lines it keeps on the blink's phase, not on whether it draws the
            # cursor: a line kept while the cursor blinked off was drawn again without it, and the prompt showed no
            # cursor until the next key. Its lines are drawn anew (the public way it forgets them). Not reported
            # upstream yet: the report to file is in docs/upstream.md.
            self.notify_style_update()

    def on_focus(self) -> None:
        self.keep_blinking()

    def say(self, hint: str) -> None:
        self._hint = hint
        self._show_under()

    def to_end(self) -> None:
        """The cursor after the last character (text put back in the prompt is there to go on with)."""
        self.move_cursor(self.document.end)

    def set_reason(self, reason: str) -> None:
        """Why the prompt takes nothing now ("" once it does): said under the box, over the prompt's own hint, which
        shows again once the reason is gone (a state arriving while a command is being completed keeps its hint)."""
        self._reason = reason
        self._show_under()

    def _show_under(self) -> None:
        # as plain text: an agent's input hint such as "[issue description]" is not markup (it vanished as a tag)
        self.border_subtitle = Content(self._reason or self._hint)

    async def on_key(self, event: events.Key) -> None:
        # runs before TextArea's own key handler (which would insert a newline for enter): prevent_default skips it
        self.keep_blinking()
        menu = self.menu
        if menu is not None and menu.open and event.key in ("tab", "enter", "up", "down", "escape"):
            event.stop()
            event.prevent_default()
            if event.key in ("up", "down"):
                menu.move(-1 if event.key == "up" else 1)
            elif event.key == "escape":
                menu.close()
                self.say("")
            else:
                self.complete()
            return
        if event.key == "up" and self.queued and not self.text:
            event.stop()
            event.prevent_default()
            self.post_message(self.RecallQueued())
            return
        if event.key in ("up", "down") and self._browse(older=event.key == "up"):
            event.stop()
            event.prevent_default()
            return
        if event.key == "enter":
            action = self.action_submit
        elif event.key in NEWLINE_KEYS:
            action = self.action_newline
        else:
            return
        event.stop()
        event.prevent_default()
        if not self.read_only:
            action()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if not self.offer_files():
            self.offer_commands()

    def _typed_mention(self) -> tuple[int, int, str] | None:
        """(row, column of the ``@``, what follows it) when the word before the cursor is an ``@`` mention."""
        row, column = self.cursor_location
        before = self.document.get_line(row)[:column]
        at = before.rfind("@")
        if at < 0 or (at > 0 and not before[at - 1].isspace()) or any(ch.isspace() for ch in before[at + 1:]):
            return None
        return row, at, before[at + 1:]

    def offer_files(self) -> bool:
        """While the word at the cursor is ``@`` and part of a path: the workspace's files that match (read once,
        off the UI's thread). True while it offers them."""
        mention = self._typed_mention() if self.menu is not None and self.workspace is not None else None
        if mention is None:
            if self._mention is not None:
                self._mention = None
                self.menu.close()  # type: ignore[union-attr]
                self.say("")
            return False
        row, at, typed = mention
        self._mention = (row, at)
        if self._files is None:
            self._files = []
            self._read_files()
            return True
        matches = matching_files(self._files, typed)
        if matches and matches != [typed]:
            self.menu.offer([Command(path) for path in matches], prefix="@")  # type: ignore[union-attr]
            self.say("tab or enter completes · ↑↓ choose · escape hides")
        else:
            self.menu.close()  # type: ignore[union-attr]
        return True

    @work(thread=True, exclusive=True, group="workspace-files")
    def _read_files(self) -> None:
        files = workspace_files(self.workspace) if self.workspace is not None else []
        self.app.call_from_thread(self._files_read, files)

    def _files_read(self, files: list[str]) -> None:
        self._files = files
        self.offer_files()

    def take_commands(self, commands: list[Command]) -> None:
        """The agent's commands, whenever it says them: Claude's and OpenCode's come seconds after the session is
        ready, and a ``/`` typed meanwhile offered nothing until the next key. Offered now when they changed."""
        changed, self.commands = commands != self.commands, commands
        if changed and self.text.startswith("/"):
            self.offer_commands()

    def offer_commands(self) -> None:
        """While the text is ``/`` and the start of a command's name, the agent's commands that match it."""
        if self.menu is None:
            return
        text = self.text
        typed = text[1:] if text.startswith("/") and not any(ch.isspace() for ch in text) else None
        matches = matching_commands(self.commands, typed) if typed is not None else []
        if matches and not (len(matches) == 1 and matches[0].name == typed):
            self.menu.offer(matches)
            self.say("tab or enter completes · ↑↓ choose · escape hides")
        else:
            if self.menu.open or not text:  # the menu's keys, or a sent prompt's hint, say nothing any more
                self.say("")
            self.menu.close()

    def complete(self) -> None:
        """The highlighted command, in the prompt: ``/name `` (its input hint, if any, under the box); or the
        highlighted file in place of the ``@word`` being typed: ``@path `` (a space in it kept with a backslash)."""
        command = self.menu.chosen() if self.menu is not None else None
        if command is None:
            return
        if self._mention is not None:
            row, at = self._mention
            self.replace("@" + command.name.replace(" ", "\\ ") + " ", (row, at), self.cursor_location)
            self._mention = None
            self.menu.close()  # type: ignore[union-attr]  # a command was chosen from it: there is one
            self.say("")
            return
        self.text = f"/{command.name} "
        self.to_end()
        self.menu.close()  # type: ignore[union-attr]  # as above
        self.say(command.hint)

    def _browse(self, *, older: bool) -> bool:
        """↑ in the empty prompt: the last message sent from it, then the ones before; ↓ the next, then the empty
        prompt again (as a shell's history, and the agents' own CLIs). Only while the prompt is empty or shows a
        recalled message as it was: once it is edited (or holds what the user typed), the keys move the cursor. True
        when the key was taken."""
        if self._recalled is not None and self.text != self._history[self._recalled]:
            self._recalled = None  # edited: the user's own text now
        if self._recalled is None:
            if self.text or not older or self.read_only:
                return False
            self._history = self._messages()
            if not self._history:
                return False
        if older:
            index = len(self._history) - 1 if self._recalled is None else max(0, self._recalled - 1)
        else:
            index = (self._recalled or 0) + 1
            if index >= len(self._history):  # past the newest: the empty prompt
                self._recalled = None
                self.clear()
                return True
        self._recalled = index
        self.text = self._history[index]
        self.to_end()
        return True

    def _messages(self) -> list[str]:
        """The messages ↑ goes back through: the session's (the last sent from here too, should the session not
        have it yet), each once where it was sent twice in a row; the last :data:`SENT_KEPT`."""
        history = self.recallable() if self.recallable is not None else list(self.sent)
        if self.sent and self.sent[-1] not in history[-1:]:
            history.append(self.sent[-1])
        kept = [text for index, text in enumerate(history) if text.strip() and (not index or history[index - 1] != text)]
        return kept[-SENT_KEPT:]

    def action_submit(self) -> None:
        text = self.text
        if text.strip():
            self.sent = [*self.sent[-(SENT_KEPT - 1):], text]
            self._recalled = None
            self.post_message(self.Submitted(text))
            self.clear()

    def action_newline(self) -> None:
        self.insert("\n")

    def action_editor(self) -> None:
        """ctrl+g: the prompt's text in the user's editor (:mod:`.external_editor`); what it holds when the editor
        ends well replaces it, the cursor at its end, not sent; else why not, and the text stays."""
        from kandev_tui.widgets.chrome.external_editor import edit, editor_command

        if self.read_only or self.disabled:
            return
        edited = edit(self.text, editor_command(), self.app.suspend)
        if edited.text is None:
            self.app.notify(f"Not edited: {edited.problem}.", severity="warning", timeout=6)
            return
        self.text = edited.text
        self.to_end()
        self.focus()
