"""The one place for Textual's private names (see docs/architecture.md, "Layers").

Each hook says what public behaviour it works around, and the two that mend a bug link its upstream issue (the
others stand in for public API Textual does not have); ``tests/*/test_textual_hooks.py`` fails when an upgrade breaks
one, and ``pyproject.toml`` pins Textual to the minor version those tests passed on. Nothing else in kandev_tui
names a private attribute of Textual (the import contract's neighbour, ``tests/*/test_textual_hooks.py``, checks
that too).

- :func:`screen_text`: the screen as text (Textual only exports SVG); :func:`screen_svg`: as SVG in the colours a
  terminal of fewer colours shows (Textual exports truecolor only);
- :func:`note_input_at_driver`: an input noted when the terminal's driver hands it over, not when the app's queue
  reaches it;
- :func:`mount_screen_ahead`: an installed screen composed and mounted before it is first shown;
- :class:`DrawsInputAtOnce`: a screen drawn at its first idle moment after an input, instead of at the next tick of
  its 60 Hz timer; and a screen that can hold a frame (``frame_hold``); :func:`draw_after_batch`: a screen's update
  lost while a batch of updates was open, drawn when it closes;
- :func:`layout_changes`: the widgets a screen's next layout will measure again;
- :class:`FocusRestylesItself`: a container whose focus changes restyle only itself, not everything inside it;
- :func:`set_terminal_title`: the terminal's window title (OSC 2); :func:`notify_desktop`: a desktop notification
  (OSC 777 and OSC 9, through tmux's passthrough);
- :func:`read_alt_enter`: ``ESC CR`` read as alt+enter (as terminals send it), not as enter;
- :func:`repaint_what_a_rebuilt_map_moved`: what left the screen while the compositor's full map was out of date
  (a toast gone after a scroll) painted over, not left on the terminal; :func:`mend_textual` installs both;
- for tests and benchmarks: :func:`watch_frames` (each frame written to the terminal) and :func:`send_as_terminal`
  (input delivered as the terminal's driver delivers it).

(Upstream, these are Textual behaviours worth a public API: a pre-dispatch input hook, a public "prepare screen",
an "update now" for a screen, a screen's update lost when it goes idle during an open batch, a focus change that
restyles a container's whole subtree when no rule depends on it, and a full map rebuilt lazily that forgets what
moved.)
"""

from __future__ import annotations

import io
import os
import time
from typing import Any, Callable

from rich.console import Console
from textual import events
from textual.app import ScreenStackError

from kandev_tui.base.pacing import INPUT_DRAWN_WITHIN
from kandev_tui.ui.user_input import user_input


def screen_text(app: Any) -> str:
    """The text of the screen as it is drawn now, one line per row (what ``App.export_screenshot`` draws as SVG).

    Textual has no public way to read the screen as text; ``export_screenshot`` renders the screen's compositor
    into a recording console and exports SVG. This renders the same update and exports text instead.
    """
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, color_system="truecolor",
                      record=True, legacy_windows=False, safe_box=False)
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    console.print(update)
    return console.export_text(styles=False)


def screen_svg(app: Any, color_system: str = "truecolor", title: str = "kandev-tui", palette: Any = None) -> str:
    """The screen as SVG in ``color_system`` (``standard``: the 16 colours of ``TERM=xterm``; ``256``), as a terminal
    with so many colours shows it: each colour is the one Rich writes for it there, drawn in ``palette`` (a Rich
    ``TerminalTheme``; Rich's default one without).

    ``App.export_screenshot`` renders the screen's compositor in truecolor; this renders the same update, rounds each
    colour as the app's console does in such a terminal, and exports that (Rich's SVG export keeps colours as given).
    """
    from rich.color import ColorSystem
    from rich.segment import Segment, Segments
    from rich.style import Style

    system = {"truecolor": ColorSystem.TRUECOLOR, "256": ColorSystem.EIGHT_BIT,
              "standard": ColorSystem.STANDARD}[color_system]
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, color_system="truecolor",
                      record=True, legacy_windows=False, safe_box=False)
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    rounded = []
    for segment in console.render(update):
        style = segment.style
        if style is not None and (style.color is not None or style.bgcolor is not None):
            style = style + Style(color=style.color.downgrade(system) if style.color else None,
                                  bgcolor=style.bgcolor.downgrade(system) if style.bgcolor else None)
        rounded.append(Segment(segment.text, style, segment.control))
    console.export_svg()  # what rendering the update recorded is dropped: the rounded segments are recorded instead
    console.print(Segments(rounded), end="")
    return console.export_svg(title=title, **({"theme": palette} if palette is not None else {}))


def note_input_at_driver(app: Any, kinds: tuple[type, ...], note: Callable[[], None]) -> bool:
    """Call ``note()`` for each input of ``kinds`` as the terminal driver hands it to the app (in the driver's input
    thread, for a real terminal), not when its turn in the app's queue comes; False when the app has no driver.

    The driver posts input with ``send_message`` through ``asyncio.run_coroutine_threadsafe``: ``App.post_message``
    sees it only when the event loop gets round to it, which during a flood is several frames later. Textual has
    no public hook at the moment input arrives.
    """
    driver = app._driver
    if driver is None:
        return False
    send = driver.send_message

    def send_message(message: Any) -> None:
        if isinstance(message, kinds):
            note()
        send(message)

    driver.send_message = send_message
    return True


def mount_screen_ahead(app: Any, name: str) -> None:
    """Have the installed screen ``name`` composed and mounted now, not shown.

    Textual mounts an installed screen when it is first fetched for showing (``App._get_screen``), so the first
    push of a screen with much to compose (the help) costs its compose and mount on the key that shows it. There is
    no public way to prepare it ahead of time.

    Its widgets are styled with the stylesheet as it is when they mount; Textual still counts a screen that was
    never shown as out of date (``Screen._css_update_count`` starts at -1), and the first ``switch_mode`` to it
    re-parses and re-applies the whole stylesheet, twice (0.1-0.2 s with the app's CSS: a session's first switch
    took 130 ms, benchmarks/sessions.py). Mounted now, it is as current as the app's CSS: said so, so that only a
    later change of theme or CSS restyles it when shown.
    """
    if not app.get_screen(name).is_running:
        screen = app._get_screen(name)[0]
        screen._css_update_count = app._css_update_count


def layout_changes(screen: Any) -> dict[Any, set[Any]]:
    """The widgets the screen's next layout measures again, by parent (changed in place by the caller).

    Textual's stream layout reuses the placement of each child up to the first one the screen lists as changed, and
    the screen lists a widget only when the change is in it or one level down; there is no public way to say that
    a child deeper down changed its parent's size. ``Widget.pre_layout`` (public) is where it is said.
    """
    return screen._layout_widgets


def set_terminal_title(app: Any, title: str) -> bool:
    """Set the terminal's window title (OSC 2) to ``title``, made printable and short; False when there is no
    terminal to write to.

    Textual has no public way to write to the terminal: ``App.bell`` writes its escape through the driver, as this
    does (the headless driver of tests writes nowhere).
    """
    driver = app._driver
    if driver is None:
        return False
    clean = "".join(ch for ch in title if ch.isprintable())[:120]
    driver.write(f"\x1b]2;{clean}\x07")
    return True


def notify_desktop(app: Any, title: str, body: str) -> bool:
    """A desktop notification where the terminal shows one: OSC 777 (``notify``: VTE terminals, WezTerm, Ghostty,
    foot) and OSC 9 (iTerm2, Windows Terminal, kitty); other terminals ignore both. Inside tmux each goes through
    its passthrough (tmux 3.3+ with ``allow-passthrough on``). Printable text only, bounded; False when there is no
    terminal to write to.

    Textual has no public way to write to the terminal: as :func:`set_terminal_title`, through the driver.
    """
    driver = app._driver
    if driver is None:
        return False

    def clean(text: str, limit: int) -> str:  # printable, and no field separator of OSC 777
        return "".join(ch for ch in text if ch.isprintable()).replace(";", ",")[:limit]

    title, body = clean(title, 60), clean(body, 200)
    sequences = [f"\x1b]777;notify;{title};{body}\x07", f"\x1b]9;{title}: {body}\x07"]
    if os.environ.get("TMUX"):
        sequences = ["\x1bPtmux;" + seq.replace("\x1b", "\x1b\x1b") + "\x1b\\" for seq in sequences]
    driver.write("".join(sequences))
    return True


_alt_enter_read = False


def read_alt_enter() -> None:
    """Have Textual's terminal parser read ``ESC CR`` as ``alt+enter``, as xterm, GNOME Terminal, Terminal.app and
    tmux send it (terminals with the kitty keyboard protocol send a sequence of their own, which Textual reads).

    Textual 8.2's parser gives the alt of an ``ESC`` prefix only to characters it names itself
    (``XTermParser._sequence_to_key_events``), not to CR: alt+enter, which the prompt takes as "new line", arrived as
    enter and sent a half-written prompt. Once per process.

    Upstream: https://github.com/Textualize/textual/issues/6663 (open; the fix proposed in
    https://github.com/Textualize/textual/pull/6674). Drop this hook once a released Textual reads ``ESC CR`` so.
    """
    global _alt_enter_read
    if _alt_enter_read:
        return
    from textual._xterm_parser import XTermParser

    keys = XTermParser._sequence_to_key_events

    def with_alt_enter(self: Any, sequence: str, alt: bool = False) -> Any:
        for event in keys(self, sequence, alt):
            yield events.Key("alt+enter", event.character) if alt and event.key == "enter" else event

    XTermParser._sequence_to_key_events = with_alt_enter  # type: ignore[method-assign]
    _alt_enter_read = True


def textual_mended() -> bool:
    """Whether this process's Textual was mended (:func:`mend_textual`): only once an app of kandev-tui ran."""
    return _alt_enter_read


_rebuilt_map_repainted = False


def repaint_what_a_rebuilt_map_moved() -> None:
    """Have the compositor paint over what moved on the screen when it rebuilds its full map lazily.

    Textual 8.2's compositor finds what to paint after a layout by comparing the new map with its last full map
    (``Compositor.reflow``). A scroll lays out only what shows (``reflow_visible``) and marks the full map out of
    date; the next look-up of a widget that is not on screen (``Widget.region``, which any refresh of such a widget
    reads) rebuilds the full map from the widgets as they are *now* (the ``full_map`` property), without marking
    anything to paint. Whatever changed in between, a widget removed or moved, is then in neither comparison: the
    next layout finds nothing changed, and the terminal keeps showing it. Seen in a real terminal: the worktree
    notices' toasts, expired while a transcript scrolled, stayed over the permission request below them for as
    long as the screen was not drawn whole (tests/*/test_textual_hooks.py, and a tmux test of a plain Textual app).

    Here the rebuild marks what moved between what showed before it (the map of what shows, or the full map) and
    what shows after it: only the widgets on screen are compared, so a rebuild costs a screenful more. Once per
    process.

    Upstream: no issue found in Textualize/textual's tracker (searched 2026-12-07 and -08); the report to file, with
    the plain Textual app of the tmux test (tests/support/stale_region_app.py) as its reproduction, is in
    docs/upstream.md.
    """
    global _rebuilt_map_repainted
    if _rebuilt_map_repainted:
        return
    from textual._compositor import Compositor

    rebuild = Compositor.__dict__["full_map"].fget  # the property's getter (mypy sees the property as its value)

    def full_map(self: Any) -> Any:
        if self.root is None or not self._full_map_invalidated or self.size.region in self._dirty_regions:
            return rebuild(self)  # (the whole screen is to be painted already: nothing to compare)
        before = dict(self.visible_widgets)  # what shows: from the map of what shows, or the last full map
        rebuilt = rebuild(self)
        moved = {region.intersection(clip) for _widget, (region, clip) in before.items() ^ self.visible_widgets.items()}
        self._dirty_regions.update(region for region in moved if region)
        return rebuilt

    Compositor.full_map = property(full_map)  # type: ignore[method-assign,assignment]
    _rebuilt_map_repainted = True


def mend_textual() -> None:
    """What every app of kandev-tui mends in Textual, once per process: :func:`read_alt_enter` and
    :func:`repaint_what_a_rebuilt_map_moved`."""
    read_alt_enter()
    repaint_what_a_rebuilt_map_moved()


def watch_frames(app: Any, on_frame: Callable[[Any], None]) -> None:
    """Call ``on_frame(screen)`` for each frame the app writes to its terminal (tests and benchmarks: the time to a
    first frame, key-to-screen latency). Textual has no public event for a frame written: ``App._display`` is where
    every update of the screen goes to the driver."""
    display = app._display

    def counting(screen: Any, renderable: Any) -> Any:
        if renderable is not None:
            on_frame(screen)
        return display(screen, renderable)

    app._display = counting


def send_as_terminal(app: Any, message: Any) -> None:
    """Deliver ``message`` (a key, a click) as the terminal's driver does, through its ``send_message`` (tests and
    benchmarks: the pilot's ``press`` also waits for the screen to be drawn, which hides what the app does itself)."""
    message.set_sender(app)
    app._driver.send_message(message)


def covered(screen: Any) -> bool:
    """Whether another screen hides ``screen`` entirely (an opaque one on top): Textual still lays out and draws
    a screen beneath the top one, in case it shows through, but nothing of an opaque screen's does."""
    try:
        top = screen.app.screen
    except ScreenStackError:  # the app is closing
        return False
    return top is not screen and top.styles.background.a >= 1


def pending(screen: Any) -> bool:
    """Whether ``screen`` has something to draw: what Textual's own ``Screen._on_idle`` looks at (Textual 8.2)."""
    return bool(screen._layout_required or screen._scroll_required or screen._repaint_required
                or screen._recompose_required or screen._dirty_widgets)


def draw_after_batch(app: Any) -> None:
    """Have the app's screen draw what it holds once no batch of updates is open: call it from the app's idle
    handler (``on_idle``), which Textual runs when a batch closes.

    Textual's screen starts its update timer when it goes idle with something to draw, except while a batch of
    updates is open (a footer rebuilding its keys, any recompose); when the batch closes, ``App._end_batch`` prompts
    only the app, not the screen. A screen that went idle meanwhile and gets no further message (the help, just
    shown during a flood) was never drawn. Here the screen is prompted to go idle again, so that Textual's own idle
    handler starts its timer.
    """
    if app._batch_count:
        return
    try:
        screen = app.screen
    except ScreenStackError:  # the app is closing
        return
    if pending(screen):
        screen.check_idle()


class DrawsInputAtOnce:
    """A mixin for a :class:`textual.screen.Screen` (put it first among the bases): what the user just did is drawn
    at once, not at the next tick of a 60 Hz timer; and the screen can hold a frame.

    Textual draws a screen when its update timer ticks, every 1/60 s on a fixed grid; a screen shown for the first
    time waits a whole period before its first frame. Between a key and the frame that shows its effect that is up
    to 17 ms more. A screen with this mixin draws on its first idle moment after an input has been dispatched
    (the app's :func:`kandev_tui.ui.user_input.user_input`), when the input's work is done and something is waiting to
    be drawn; other frames still come from the timer. The transcript's screen has it, and the help, whose F1 is
    pressed while agents stream (benchmarks/sessions.py, 8 flooding sessions: F1's worst 24-76 ms without it, over
    50 ms in 5 runs of 8; 27-43 ms with it); the other screens answer on the timer's tick (benchmarks/screens.py).

    A screen may hold a frame: :meth:`frame_hold` says, at each tick, ``"wait"`` (the timer calls again after one
    period), ``"pause"`` (the timer stops until the screen is shown again) or None (draw). A frame held with
    ``"wait"`` is drawn at the screen's first idle moment once nothing holds it, not at the tick after: what it
    waited for (the entries a batch brought being mounted, messages drawn ahead) ends between two ticks, and the
    frame waited for the grid, up to a period more (benchmarks/terminal.py 20000/1000/200, 50 runs alternately:
    median 88 ms with it, 99 ms without). Whatever ends a hold prompts the screen (a mounted widget's layout does;
    the transcript's drawing ahead calls ``check_idle`` when it is done).
    """

    _input_drawn_at = float("-inf")  # the input (its served_at) last drawn at once
    _frame_held = False  # a tick's frame waited (frame_hold said "wait"): drawn once the hold is over

    def frame_hold(self) -> str | None:
        """Whether this tick's frame waits ("wait"), stops until the screen is shown again ("pause"), or is drawn."""
        return None

    async def _on_idle(self, event: events.Idle) -> None:
        if self.app._batch_count or not self.is_current:  # type: ignore[attr-defined]
            return  # (a batch: drawn when it ends, draw_after_batch)
        clock = user_input(self.app)  # type: ignore[attr-defined]
        served = clock.served_at
        if self._frame_held and pending(self) and not covered(self) and self.frame_hold() is None:
            self._on_timer_update()  # the held frame, now that nothing holds it
            if served >= clock.at > clock.drawn_at:  # it shows the last input's effect too
                clock.drawn()
            return
        if not pending(self):
            if served >= clock.at > clock.drawn_at:  # the last input was served and left nothing to draw
                clock.drawn()
            return
        if served <= self._input_drawn_at or time.monotonic() - served > INPUT_DRAWN_WITHIN or covered(self):
            return
        self._input_drawn_at = served
        self._on_timer_update()  # what the timer's tick does, now
        clock.drawn()

    def _on_timer_update(self) -> None:
        hold = self.frame_hold()
        self._frame_held = hold == "wait"
        if hold == "wait":
            return  # the update timer is still running: it calls again after one period
        if hold == "pause":
            self._update_timer.pause()  # type: ignore[attr-defined]  # resumed when the screen is shown again
            return
        super()._on_timer_update()  # type: ignore[misc]


class FocusRestylesItself:
    """A mixin for a container (put it first among the bases) whose gaining or losing focus restyles only itself.

    Textual restyles a widget and every widget inside it when its focus changes (its ``has_focus`` watcher calls
    ``update_node_styles``), for rules such as ``Container:focus Child``. The transcript has no such rule but holds
    a screenful of entries: each move of the focus into or out of it (the prompt disabled for a turn and enabled at
    its end, a Tab) restyled 60-100 widgets, 20-30 ms on the UI's thread, in the frame that shows the turn's end.
    A rule that styles an entry by the transcript's focus would need the whole subtree again.
    """

    def watch_has_focus(self, _has_focus: bool) -> None:
        self.app.stylesheet.update_nodes([self], animate=True)  # type: ignore[attr-defined]
