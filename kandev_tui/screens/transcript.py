"""The transcript screen: status line, transcript, a way back to the latest, the prompt, the footer."""

from __future__ import annotations

import asyncio
import time
from typing import Callable

from rich.text import Text
from textual.content import Content
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static

from kandev_tui.base import pacing
from kandev_tui.ui.user_input import user_input
from kandev_tui.ui.textual_hooks import DrawsInputAtOnce, covered
from kandev_tui.widgets.chrome.command_menu import CommandMenu
from kandev_tui.widgets.chrome.key_footer import KeyFooter
from kandev_tui.widgets.chrome.prompt_input import PromptInput
from kandev_tui.widgets.chrome.sessions_sidebar import SessionsSidebar
from kandev_tui.widgets.chrome.status_line import StatusLine
from kandev_tui.session import search
from kandev_tui.widgets.transcript_view import TranscriptView


class TranscriptScreen(DrawsInputAtOnce, Screen[None]):
    BLANK = True  # its children cover it: its own lines are drawn as blanks, not rendered (every frame after help)
    BINDINGS = [
        # escape: closes the search while it is open, else cancels a running turn; shown only when it does one
        Binding("escape", "close_search", "Close search"),
        Binding("escape", "cancel_turn", "Cancel turn"),
        Binding("escape", "back_to_list", "Back to the list"),
        Binding("ctrl+end", "latest", "Latest", show=False),
        Binding("ctrl+home", "first", show=False),
        Binding("pageup", "page(-1)", show=False, priority=True),
        Binding("pagedown", "page(1)", show=False, priority=True),
        Binding("ctrl+f", "search", "Search"),
        Binding("f3", "next_hit", "Next hit", show=False),
    ]

    turn_running = False  # a turn runs that escape can cancel (set by the app: set_turn_running)
    back_to_list = False  # the session was picked from a list it can go back to (set by the app)

    def __init__(self, view: TranscriptView, shown: Callable[[], None] | None = None) -> None:
        """``shown``: called after the first frame each time the screen is shown again (what waited while it was
        covered goes on screen then: the session's model does not poll)."""
        super().__init__()
        self.view = view
        self._shown = shown
        self.status = StatusLine()
        self.badge = Static(id="latest-badge")  # shown while the view does not follow the end
        self.command_menu = CommandMenu()
        self.prompt = PromptInput(self.command_menu, id="prompt")
        self.search_box = Input(placeholder="search the whole session · enter: next hit · escape: close", id="search")
        self.sidebar = SessionsSidebar(id="sessions-sidebar")  # shown by the app (several sessions, 120 columns)
        self.queued = Static(id="queued")  # the messages queued while a turn runs
        self._queue_shown: tuple[list[str], bool] = ([], False)
        self.hits: list[tuple[int, str]] = []  # (entry index, item key) of each hit
        self.hit = -1
        self._why_disabled = ""  # why the prompt takes nothing, said when the user types anyway
        self._said_why_at = -pacing.SAY_WHY_AGAIN_AFTER
        self._searched: tuple[str, int] | None = None  # the needle and entry count the hits are for

    def compose(self) -> ComposeResult:
        yield self.status
        yield self.view
        yield self.badge
        yield self.queued
        yield self.prompt
        yield KeyFooter()

    async def _mount_hidden(self) -> None:
        """What starts hidden (the sidebar, the search box, the command menu) is mounted just after the screen's first
        frame: parsing their CSS (Input's and OptionList's) and styling them cost the first frame 5-8 ms, a tenth of
        kandev-tui's start beyond a bare Textual app's (benchmarks/startup.py). Until then they can be changed (shown,
        given rows) but not queried; a key that focuses one waits for it (:meth:`focus_when_mounted`). Not Textual's
        ``Lazy``: a screen closed before it was first shown (the app quitting) runs its pending callbacks unmounted,
        where ``Lazy`` raised MountError; here nothing is mounted then, nor once the app exits (a session's screen
        mounted ahead, its first refresh still to come: quitting with six sessions open raised MountError)."""
        if not (self.is_mounted and self.is_attached):  # attached: not once the app exits (a screen mounted ahead)
            return
        await self.mount(self.sidebar, before=self.status)
        if not self.is_attached:  # the app began to exit meanwhile
            return
        await self.mount_all([self.search_box, self.command_menu], after=self.badge)

    def frame_hold(self) -> str | None:
        # A frame of a busy transcript can take tens of milliseconds. While an input is on its way to the app, the
        # frame waits (one screen-update period at a time, 50 ms at most): the frame after it shows the input's
        # effect too, instead of the input waiting behind it (pacing.py). It also waits while the transcript draws
        # new messages ahead of it, a few milliseconds per event-loop turn, and while the entries a batch brought are
        # still being mounted (50 ms at most each), so that it does not draw them all at once, nor the window half
        # empty
        if user_input(self.app).waiting() or self.view.waits_for_drawing:
            return "wait"
        if covered(self):  # under the help (opaque): nothing shows, and when it is shown again it is drawn then
            return "pause"
        return None

    def on_mount(self) -> None:
        self.call_after_refresh(self._mount_hidden)
        self.sidebar.display = False
        self.queued.display = bool(self.prompt.queued)  # messages may be queued before it is shown (offered again)
        self.badge.display = False
        self.search_box.display = False
        self.app.call_later(self._first_focus)  # when its widgets are mounted, as Widget.focus() waits for them

    def _first_focus(self) -> None:
        """The prompt has the keys at first, unless something took them before this screen was mounted (a session
        mounted late, shown by f4 while its request waits: the keys are the request's; given to the prompt here
        they typed the answer's digit into it)."""
        if self.focused is None:
            self.set_focus(self.prompt)

    def show_queue(self, texts: list[str], offered: bool = False) -> None:
        """The messages queued while the turn runs, under the transcript: how many, the next one, the keys.
        ``offered``: queued when the session last ran, never sent: they wait for ctrl+r (or the next turn's end)."""
        self.prompt.queued = len(texts)
        self.queued.display = bool(texts)
        self._queue_shown = (list(texts), offered)
        if texts:
            first = " ".join(texts[0].split())
            first = first if len(first) <= 60 else first[:59] + "…"
            when = "left queued when it last ran, not sent" if offered else "sent when the turn ends"
            width = max(10, (self.size.width or self.app.size.width) - 4)  # (its padding)
            line = Text.assemble(("⧗ ", "bold"), (f"{len(texts)} queued", "bold"), ": ", (first, "italic"))
            for hint in (f"  · {when}", " · ctrl+r sends it now", " · ctrl+t takes it back",
                         " · ↑ in the empty prompt takes the last back"):  # whole, while they fit its two lines (at
                longer = line + Text(hint, style="dim")  # 45 columns one was cut off after "ctrl+t")
                if len(longer.wrap(self.app.console, width)) > 2:
                    break
                line = longer
            line.truncate(width * 2, overflow="ellipsis")
            self.queued.update(line)

    def on_resize(self) -> None:
        if self._queue_shown[0]:  # its hints laid out again at the new width
            self.show_queue(*self._queue_shown)

    def set_prompt_enabled(self, enabled: bool, reason: str = "", read_only: bool = False) -> None:
        self.prompt.disabled = not enabled
        self.prompt.set_reason(reason)
        self._why_disabled = f"{'Read-only' if read_only else 'The prompt takes nothing now'}: {reason}" if reason \
            else ""
        self.prompt.border_title = ("Read-only" if read_only else "Message the agent · enter sends · ctrl+j newline")

    def on_key(self, event: events.Key) -> None:
        """A character typed while the focus is in the transcript (an answered request, a card, the sidebar) and bound
        to nothing there goes to the prompt, which takes the focus: nothing typed is lost, and the message after an
        answer needs no tab first. (A key climbs here before the bindings are looked at, so they are asked first.)"""
        prompt = self.prompt
        if not (event.is_printable and event.character and self.focused is not prompt
                and event.key not in self.active_bindings):
            return
        if prompt.focusable and not prompt.read_only:
            event.stop()
            self.set_focus(prompt)  # now: the keys held behind this one go there
            prompt.insert(event.character)
        elif prompt.disabled and self._why_disabled and not isinstance(self.focused, Input) and \
                time.monotonic() - self._said_why_at >= pacing.SAY_WHY_AGAIN_AFTER:
            # typed where nothing takes it: the reason, cut at the prompt's border (at 80 columns and less), said whole
            self._said_why_at = time.monotonic()
            self.notify(self._why_disabled, severity="warning", timeout=5, markup=False)

    def on_transcript_view_below(self, event: TranscriptView.Below) -> None:
        self.badge.display = event.below is not None
        if event.below == "new":
            self.badge.update(Text("↓ new output below · ctrl+end to follow", style="bold"))
        elif event.below == "more":
            self.badge.update(Text("↓ more below · ctrl+end goes to the end", style="bold"))

    def on_click(self, event) -> None:
        if event.widget is self.badge:
            self.action_latest()

    def action_latest(self) -> None:
        self.view.jump_to_latest()

    def action_first(self) -> None:
        self.view.jump_to_first()

    def action_page(self, direction: int) -> None:
        if direction < 0:
            self.view.page_up()
        else:
            self.view.scroll_page_down(animate=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """What the keys do now, and so what the footer offers: escape closes an open search, or cancels a turn
        that runs; neither is offered (nor done) otherwise, or while another screen is over this one."""
        if action == "close_search":
            return self.search_box.display
        if action == "cancel_turn":
            return not self.search_box.display and self.app.screen is self and self.turn_running
        if action == "back_to_list":
            return not self.search_box.display and self.app.screen is self and not self.turn_running and \
                self.back_to_list
        return True

    class CancelTurn(Message):
        """The user asked to cancel the running turn (escape)."""

    class BackToList(Message):
        """The user asked for the list the session was picked from (escape)."""

    def action_back_to_list(self) -> None:
        self.post_message(self.BackToList())

    def set_turn_running(self, running: bool) -> None:
        """Whether a turn runs that can be cancelled: the app says so as the session's state changes."""
        self.turn_running = running
        self.refresh_bindings()  # escape cancels only while a turn runs: the footer says so

    def action_cancel_turn(self) -> None:
        self.post_message(self.CancelTurn())

    def action_close_search(self) -> None:
        self.close_search()

    def action_search(self) -> None:
        self.search_box.display = True
        self.search_box.border_subtitle = ""
        self.focus_when_mounted(self.search_box)
        self.refresh_bindings()

    def focus_when_mounted(self, widget: Widget) -> None:
        """Focus one of the widgets mounted just after the first frame (:meth:`_mount_hidden`): at once when it is
        mounted, else once it is (a key pressed in the very frame that first shows this screen)."""
        if widget.is_mounted:
            widget.focus()
        else:
            self.call_after_refresh(self.focus_when_mounted, widget)

    def close_search(self) -> None:
        self.search_box.display = False
        self.view.mark_hit(None)
        self.prompt.focus()
        self.refresh_bindings()

    def on_screen_suspend(self) -> None:
        self.refresh_bindings()

    def on_screen_resume(self) -> None:
        self.refresh_bindings()
        if self._shown is not None:
            self.call_after_refresh(self._shown)

    def _say_hits(self, text: str) -> None:
        """The search's count, in the search box's own border: it covers nothing (notices piled over the box)."""
        self.search_box.border_subtitle = Content(text)  # it may quote what was searched for: text, not markup

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input is not self.search_box:
            return
        event.stop()
        searched = (event.value, len(self.view.entries))
        if searched == self._searched and self.hits:  # the same search again: the next hit
            self.action_next_hit()
            return
        # a thread reads a snapshot of every item version (50,000 take a few hundred ms): the screen keeps drawing,
        # and the session keeps growing (new versions; the ones in the snapshot never change)
        snapshot = search.snapshot(self.view.model)
        self.run_worker(self._search(snapshot, searched), group="search", exclusive=True)

    async def _search(self, snapshot: search.Snapshot, searched: tuple[str, int]) -> None:
        hits = await asyncio.to_thread(search.find, snapshot, searched[0])
        self._searched = searched
        if hits != self.hits:
            self.hits, self.hit = hits, -1
        if not hits:
            self.view.mark_hit(None)
            self._say_hits("no match in this session")
            return
        self.action_next_hit()

    def action_next_hit(self) -> None:
        if not self.hits:
            return
        self.hit = (self.hit + 1) % len(self.hits)
        index, key = self.hits[self.hit]
        self.view.reveal(index, key, self._searched[0].strip() if self._searched else None)
        self._say_hits(f"match {self.hit + 1} of {len(self.hits)} · enter: next")

