"""The sessions list (ctrl+s, and the bare ``kandev-tui``'s first screen): every session of the app, with its agent,
workspace and branch, title and state, the ones waiting for the user marked, what arrived since the user last looked,
and its cost when the agent reports one. The stored sessions follow (read off the UI's thread), newest first.

Enter shows a live session, or opens a stored one read-only; ``c`` continues a stored one with its agent where the
agent can (it offered ``session/resume`` or ``session/load``, and no other kandev-tui runs it); ctrl+n starts a new
one; ``/`` searches every stored session's words (the database's full-text index), and enter on a hit opens its
session there, the match marked. Escape closes the search, else goes back (as ctrl+s does); the home list has
nothing to go back to. Its live rows are the app's snapshots
(:class:`~kandev_tui.session.row.SessionRow`), shown again whenever a session's state changes.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option, OptionDoesNotExist

from kandev_tui.base.sanitize import visible
from kandev_tui.session.row import SessionRow
from kandev_tui.transcript.continuing import can_continue, folder_gone, why_not  # a stored session its agent can continue now
from kandev_tui.screens.session_rows import heading_text, hit_text, items_said, remote_text, stored_text
from kandev_tui.widgets.chrome.key_footer import KeyFooter
from kandev_tui.widgets.chrome.sessions_sidebar import child_text, row_text

# ("live", number) · ("subagent", (number, item key)) · ("open", stored row) · ("continue", stored row) ·
# ("kandev", entry) · ("open at", (stored row, item key, the word to mark))
Choice = tuple[str, Any]
# what searches the stored sessions (in a thread): the hits for the words, and the stored row of each hit's session
Searcher = Callable[[str], "tuple[list[Any], dict[str, dict[str, Any]]]"]
STORED_SHOWN = 200  # the newest stored sessions listed (`kandev-tui sessions` lists them all)


class SessionsOptions(OptionList):
    """The list's rows, whose enter the footer offers (an option list's is hidden)."""

    BINDINGS = [Binding("enter", "select", "Open")]


class ListHost(Protocol):
    """What the sessions list asks of the app that shows it: whether it can start sessions (and to start one), the
    choice taken when the list is the home (elsewhere the list is dismissed with it), a stored session deleted, and
    from the home, the session ctrl+s was pressed in shown again."""

    @property
    def can_start(self) -> bool: ...
    @property
    def can_go_back(self) -> bool: ...
    def new_session(self) -> None: ...
    def chosen(self, choice: Choice) -> None: ...
    def delete_stored(self, row: dict[str, Any], listing: SessionsScreen) -> None: ...
    def go_back(self) -> None: ...


class SessionsScreen(Screen["Choice | None"]):
    """Lists the app's sessions, then the stored ones (see the module docstring)."""

    DEFAULT_CSS = """
    SessionsScreen { layout: vertical; }
    SessionsScreen #sessions-title { height: auto; padding: 0 1; background: $panel; text-style: bold; }
    SessionsScreen OptionList { height: 1fr; border: none; padding: 0 1; scrollbar-gutter: stable; }
    SessionsScreen #sessions-search { display: none; margin: 0 1; }
    SessionsScreen #sessions-search.-shown { display: block; }
    """
    BINDINGS = [Binding("escape", "back", "Back"), Binding("c", "continue_stored", "Continue"),
                Binding("d", "delete_stored", "Delete"), Binding("slash", "search", "Search"),
                Binding("ctrl+n", "new_session", "New session")]  # the app's, offered here (hidden elsewhere)

    def __init__(self, host: ListHost, rows: list[SessionRow], stored: Callable[[], list[dict[str, Any]]] | None = None,
                 *, home: bool = False, remote: Callable[[], list[Any]] | None = None, remote_title: str = "",
                 search: Searcher | None = None) -> None:
        super().__init__()
        self.host = host
        self.rows = rows
        self.stored_reader = stored  # reads the stored sessions (in a thread): None when there is no store
        self.stored: list[dict[str, Any]] = []
        self.stored_total = 0  # how many there are (the newest STORED_SHOWN are listed)
        self.remote_reader = remote  # reads an attached Kandev backend's task sessions (in a thread)
        self.remote_title = remote_title
        self.remote: list[Any] | None = None  # None until read
        self.home = home  # the bare kandev-tui's first screen: nothing to go back to
        self.options = SessionsOptions(id="sessions-list")
        self._drawn_width = 0  # the width the rows were last drawn at
        self.heading = Static(id="sessions-title")
        self.searcher = search  # searches the stored sessions' words (in a thread): None when there is no store
        self.search_box = Input(placeholder="words to find in every stored session · enter searches · escape closes",
                                id="sessions-search")
        self.found_for = ""  # the words the hits shown were found for ("": no search shown)
        self.hits: list[Any] = []  # kandev_tui.transcript.searching.Hit
        self.hit_rows: dict[str, dict[str, Any]] = {}  # session id → its stored row

    def compose(self) -> ComposeResult:
        yield self.heading
        yield self.search_box
        yield self.options
        yield KeyFooter()

    def on_mount(self) -> None:
        self.show_rows(self.rows)
        current = next((i for i, row in enumerate(self.rows) if row.current), 0)
        self.options.highlighted = current
        self.options.focus()
        self.read_stored()

    @work(thread=True, exclusive=True, group="stored-sessions")
    def read_stored(self) -> None:
        """The stored sessions (and an attached backend's), off the UI's thread (a large database, a backend over
        the network take a moment), then shown."""
        if self.stored_reader is not None:
            try:
                every = self.stored_reader()
            except Exception as exc:  # noqa: BLE001 - a damaged store: said in the list, the live sessions stay
                self.app.call_from_thread(self.app.notify, f"The stored sessions cannot be read: {exc}",
                                          severity="warning", markup=False)
            else:
                self.app.call_from_thread(self._show_stored, every[:STORED_SHOWN], len(every))
        if self.remote_reader is not None:
            try:
                entries = self.remote_reader()[:STORED_SHOWN]
            except Exception as exc:  # noqa: BLE001 - the backend is away: said, the rest of the list stays
                self.app.call_from_thread(self.app.notify, f"Kandev's sessions cannot be listed: {exc}",
                                          severity="warning", markup=False)
            else:
                self.app.call_from_thread(self._show_remote, entries)

    def _show_stored(self, rows: list[dict[str, Any]], total: int) -> None:
        self.stored, self.stored_total = rows, total
        self.show_rows(self.rows)

    def _show_remote(self, entries: list[Any]) -> None:
        self.remote = entries
        self.show_rows(self.rows)

    def show_rows(self, rows: list[SessionRow]) -> None:
        """The rows again (a session's state changed), the highlight kept on the session it was on (rows may have come
        before it: a session opened, a subagent's row), else at its place."""
        self.rows = rows
        highlighted = self.options.highlighted
        was = self.options.get_option_at_index(highlighted).id if highlighted is not None else None
        width = self._drawn_width = self.row_width()
        self.options.clear_options()
        options: list[Option | None] = []
        if self.found_for:  # a search's hits first: what the user asked for last
            said = " ".join(repr(word) for word in self.found_for.split())
            heading = f"Found in stored sessions: {len(self.hits)} item{'s' if len(self.hits) != 1 else ''} with " \
                      f"{said}" + (": enter opens the session there" if self.hits else "")
            options.append(Option(Text(visible(heading, keep_newlines=False), style="bold"), disabled=True))
            options += [Option(hit_text(hit, width), id=f"hit:{index}") for index, hit in enumerate(self.hits)]
            options.append(None)
        for row in rows:  # each session, its subagents under it (enter shows one full screen)
            options.append(Option(row_text(row, width), id=f"live:{row.number}"))
            options += [Option(child_text(title, state, width), id=f"subagent:{row.number}:{key}")
                        for key, title, state in row.children]
        if not rows:
            options.append(Option(Text("No live session: ctrl+n starts one.", style="dim"), disabled=True))
        if self.stored:
            listed = f"the newest {len(self.stored)} of {self.stored_total}; kandev-tui sessions lists them all" \
                if self.stored_total > len(self.stored) else str(len(self.stored))
            options += [None, Option(Text(f"Stored sessions ({listed}): enter opens read-only", style="bold"),
                                     disabled=True)]
            options += [Option(stored_text(row, width), id=f"stored:{index}") for index, row in enumerate(self.stored)]
        if self.remote:
            options += [None, Option(Text(f"Kandev task sessions ({len(self.remote)}) at "
                                          f"{visible(self.remote_title, keep_newlines=False)}: enter attaches",
                                          style="bold"), disabled=True)]
            options += [Option(remote_text(entry, width), id=f"kandev:{index}")
                        for index, entry in enumerate(self.remote)]
        self.options.add_options(options)
        count = self.options.option_count
        at = self._index_of(was)
        if at is not None:
            self.options.highlighted = at
        elif highlighted is not None and count and not self.options.get_option_at_index(min(highlighted, count - 1)).disabled:
            self.options.highlighted = min(highlighted, count - 1)
        else:  # the first session that can be picked (none live: the newest stored one)
            self.options.highlighted = next((i for i in range(count)
                                             if not self.options.get_option_at_index(i).disabled), None)
        waiting = sum(1 for row in rows if row.activity == "waiting for you")
        live = sum(1 for row in rows if row.activity not in ("ended", "failed", "stored", "replayed"))
        self.heading.update(heading_text(len(rows), live, waiting, self.stored_reader is not None,
                                         (self.size.width or self.app.size.width) - 2))
        self.refresh_bindings()

    def row_width(self) -> int:
        """The columns a row has: the list's, less its border, padding and scrollbar gutter (kept: a row drawn as
        wide as the screen less its padding wrapped onto a third line holding only "…" once the list had a border
        and scrolled); before the list is laid out, the screen's less those."""
        laid_out = self.options.scrollable_content_region.width
        return max(10, laid_out if laid_out > 0 else (self.size.width or self.app.size.width) - 6)

    def on_resize(self, event) -> None:
        if self.is_mounted:  # laid out again at the new width, once the list has it (only if it changed)
            self.call_after_refresh(self._fit_rows)

    def _fit_rows(self) -> None:
        if self.row_width() != self._drawn_width:
            self.show_rows(self.rows)

    def _index_of(self, option_id: str | None) -> int | None:
        if option_id is None:
            return None
        try:
            return self.options.get_option_index(option_id)
        except OptionDoesNotExist:
            return None

    def _highlighted_stored(self) -> dict[str, Any] | None:
        index = self.options.highlighted
        if index is None:
            return None
        option_id = self.options.get_option_at_index(index).id or ""
        return self.stored[int(option_id[7:])] if option_id.startswith("stored:") else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.refresh_bindings()  # c is offered on a stored session that can be continued

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "continue_stored":
            row = self._highlighted_stored()
            return row is not None and can_continue(row) and not row.get("folder_gone")
        if action == "delete_stored":  # a stored session no other kandev-tui runs
            row = self._highlighted_stored()
            return row is not None and not row.get("running_elsewhere")
        if action == "back":  # the search closed; the bare kandev-tui's list: back to the session ctrl+s was pressed
            # in, if any
            return self.search_box.has_class("-shown") or bool(self.found_for) or not self.home or self.host.can_go_back
        if action == "new_session":  # where agents can be started
            return self.host.can_start
        if action == "search":  # where sessions are stored
            return self.searcher is not None
        return True

    def action_new_session(self) -> None:
        self.host.new_session()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        kind, _, value = (event.option.id or "").partition(":")
        if kind == "live":
            self._choose(("live", int(value)))
        elif kind == "subagent":
            number, _, key = value.partition(":")
            self._choose(("subagent", (int(number), key)))
        elif kind == "stored":
            self._choose(("open", self.stored[int(value)]))
        elif kind == "kandev":
            self._choose(("kandev", (self.remote or [])[int(value)]))
        elif kind == "hit":
            hit = self.hits[int(value)]
            row = self.hit_rows.get(hit.session_id)
            if row is not None:
                self._choose(("open at", (row, hit.key, self.found_for.split()[0])))

    # -- searching every stored session ------------------------------------------------

    def action_search(self) -> None:
        """``/``: the search box, its words kept from the last search."""
        if self.searcher is None:
            return
        self.search_box.add_class("-shown")
        self.search_box.focus()
        self.refresh_bindings()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input is not self.search_box:
            return
        event.stop()
        words = event.value.strip()
        if not words:
            self.close_search()
            return
        self.run_search(words)

    @work(thread=True, exclusive=True, group="search-stored")
    def run_search(self, words: str) -> None:
        """The hits for ``words``, off the UI's thread (the first search indexes what was stored since the last)."""
        assert self.searcher is not None
        try:
            hits, rows = self.searcher(words)
        except Exception as exc:  # noqa: BLE001 - a damaged store, a word of nothing: said, the list stays
            self.app.call_from_thread(self.app.notify, f"Not searched: {exc}", severity="warning", markup=False)
            return
        self.app.call_from_thread(self._show_hits, words, hits, rows)

    def _show_hits(self, words: str, hits: list[Any], rows: dict[str, dict[str, Any]]) -> None:
        self.found_for, self.hits, self.hit_rows = words, hits, rows
        self.show_rows(self.rows)
        self.refresh_bindings()  # escape closes the search
        first = self._index_of("hit:0")
        if first is not None:
            self.options.highlighted = first
        self.options.focus()

    def close_search(self) -> None:
        """The search box closed and its hits gone (escape)."""
        self.search_box.remove_class("-shown")
        self.found_for, self.hits, self.hit_rows = "", [], {}
        self.show_rows(self.rows)
        self.options.focus()
        self.refresh_bindings()

    def on_key(self, event) -> None:
        """``c`` on a stored session that cannot be continued (the key is not offered then): why not, rather than
        nothing."""
        row = self._highlighted_stored() if event.key == "c" else None
        if row is not None and (not can_continue(row) or row.get("folder_gone")):
            event.stop()
            why = why_not(row) or f"{folder_gone(row)}: it can only be opened read-only"
            self.app.notify(f"Not continued: {visible(why, keep_newlines=False)}.", severity="warning",
                            timeout=6, markup=False)

    def action_continue_stored(self) -> None:
        row = self._highlighted_stored()
        if row is not None and can_continue(row):
            self._choose(("continue", row))

    def action_delete_stored(self) -> None:
        """``d``: the highlighted stored session deleted, once confirmed: here, and by its agent where it offers
        ``session/delete`` (kandev_tui/app/starting.py)."""
        from kandev_tui.screens.confirm import ConfirmScreen

        row = self._highlighted_stored()
        if row is None or row.get("running_elsewhere"):
            return
        title = visible(str(row.get("title") or "untitled"), keep_newlines=False)[:80]
        question = (f"Delete the stored session “{title}” ({items_said(row)})? Its transcript is gone for "
                    "good; its agent is asked to delete its own copy where it can.")

        def answered(yes: bool | str | None) -> None:
            if yes is True:
                self.host.delete_stored(row, self)

        self.app.push_screen(ConfirmScreen(question, "Delete"), answered)

    def _choose(self, choice: Choice) -> None:
        if self.home:  # the home stays under the sessions (ctrl+s comes back to it)
            self.host.chosen(choice)
        else:
            self.dismiss(choice)

    def action_back(self) -> None:
        if self.search_box.has_class("-shown") or self.found_for:  # escape closes the search first
            self.close_search()
            return
        if not self.home:
            self.dismiss(None)
        elif self.host.can_go_back:
            self.host.go_back()
