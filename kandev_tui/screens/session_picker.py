"""Pick a session: a Kandev backend's (workspaces, their tasks and sessions) or the stored ones, newest first.

The source says what to list (:meth:`kandev_tui.sources.Source.sessions`) and how to title it."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from kandev_tui.base.sanitize import visible
from kandev_tui.widgets.entries.base import safe_text
from kandev_tui.widgets.chrome.key_footer import KeyFooter

if TYPE_CHECKING:
    from kandev_tui.session.model import SessionModel

STATES = {"WAITING_FOR_INPUT": ("○", "waiting for input", "green"), "RUNNING": ("●", "running", "yellow"),
          "STARTING": ("◌", "starting", "yellow"), "FAILED": ("✖", "failed", "red"), "COMPLETED": ("■", "completed", "dim"),
          "CANCELLED": ("■", "cancelled", "dim"),
          # a stored session's last state (kandev_tui.sources), as kandev-tui sessions says it
          "IDLE": ("■", "ended", "dim"), "ENDED": ("■", "ended", "dim"), "ERROR": ("✖", "failed", "red"),
          "INTERRUPTED": ("◌", "interrupted", "yellow")}


def state_words(state: str) -> tuple[str, str, str]:
    """A session's state as the lists say it: (mark, words, style); a state not known here, in words, inert."""
    known = STATES.get(state)
    if known is not None:
        return known
    return "·", visible(state.lower().replace("_", " "), keep_newlines=False) or "unknown", ""


def when(stamp: str) -> str:
    """An ISO 8601 time as the lists say it, in local time to the minute (as the stored sessions'); a time without a
    zone as it is; one that cannot be read, its first 16 characters."""
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return visible(stamp[:16].replace("T", " "), keep_newlines=False)
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return moment.strftime("%Y-%m-%d %H:%M")


class SessionPickerScreen(Screen[str | None]):
    """Lists the sessions the session model's source offers; Enter opens one (dismissed with its id, its name in the
    list kept as ``chosen_title``), Escape quits, r reloads."""

    DEFAULT_CSS = """
    SessionPickerScreen { layout: vertical; }
    SessionPickerScreen #picker-title { height: auto; padding: 0 1; background: $panel; text-style: bold; }
    SessionPickerScreen #picker-status { height: auto; padding: 0 1; color: $text-muted; }
    SessionPickerScreen OptionList { height: 1fr; border: none; padding: 0 1; }
    """
    BINDINGS = [Binding("escape", "quit", "Quit"), Binding("r", "reload", "Reload")]

    def __init__(self, model: SessionModel) -> None:
        super().__init__()
        self.model = model
        (self.heading, self.where), self.loading_text, self.empty_text = model.picker
        self.chosen_title = ""  # the chosen session's task, which names it better than its first prompt
        self.entries: list[Any] = []
        self.failure = ""  # why the list could not be had, while it could not (quitting then is a failure)
        self.options = OptionList(id="picker-list")
        self.status = Static(self.loading_text, id="picker-status")

    def compose(self) -> ComposeResult:
        yield Static(Text.assemble(f"{self.heading}  ", (safe_text(self.where, keep_newlines=False), "dim")),
                     id="picker-title")
        yield self.status
        yield self.options
        yield KeyFooter()

    def on_mount(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        self.status.update(self.loading_text)
        self.run_worker(self._load(), exclusive=True, group="picker")

    async def _load(self) -> None:
        from kandev_tui.acp import AgentError
        from kandev_tui.kandev import KandevError
        from kandev_tui.transcript import StoreError

        try:
            self.entries = await self.model.sessions()
        except KandevError as exc:  # a backend away or starting: trying again can help
            self._failed(str(exc), "Press r to try again, escape to quit.")
            return
        except (AgentError, StoreError) as exc:  # what the agent cannot do, a damaged database: trying again cannot
            self._failed(str(exc), "Press escape to quit.")
            return
        except Exception as exc:  # noqa: BLE001 - never a traceback on screen
            self._failed(f"the session list could not be read: {exc}", "Press r to try again, escape to quit.")
            return
        self.failure = ""
        self.options.clear_options()
        if not self.entries:
            self.status.update(self.empty_text)
            return
        count = len(self.entries)
        self.status.update(Content(f"{count} session{'s' if count != 1 else ''}, newest first · enter opens · r reloads"))
        options = []
        for entry in self.entries:
            mark, words, style = state_words(entry.state)
            label = f"{mark} {words}"
            # two lines, each cut short with an ellipsis where the width ends (they wrapped into four at 80 columns):
            # the state first, then the title
            first = Text.assemble((label, style), "  ", (safe_text(entry.task, keep_newlines=False), "bold"),
                                  no_wrap=True, overflow="ellipsis")
            second = Text(f"  {when(entry.updated_at) if entry.updated_at else ''} · {safe_text(entry.agent, keep_newlines=False) or 'agent'} · "
                          f"{entry.session_id[:8]}" + (f" · {entry.items} item{'s' if entry.items != 1 else ''}"
                                                      if entry.items is not None else "")
                          + f" · {safe_text(entry.workspace, keep_newlines=False)}", style="dim", no_wrap=True,
                          overflow="ellipsis")
            options.append(Option(Group(first, second), id=entry.session_id))
        self.options.add_options(options)
        self.options.highlighted = 0
        self.options.focus()

    def _failed(self, reason: str, then: str) -> None:
        self.failure = reason
        self.status.update(Text(f"✖ {reason}\n{then}", style="red"))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        entry = next((e for e in self.entries if e.session_id == event.option.id), None)
        if entry is not None and entry.task:
            self.chosen_title = entry.task
        self.dismiss(event.option.id)

    def action_quit(self) -> None:
        self.dismiss(None)
