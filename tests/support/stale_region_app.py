"""A plain Textual app for a real terminal (tests/*/test_textual_hooks.py): what leaves the screen while the compositor's
full map is out of date must not stay on the terminal.

It scrolls a long list (a scroll lays out only what shows), then in one step hides a box that stands over the list
and looks up where a line scrolled off the screen is (which rebuilds the full map), and finally says ``DONE``. The box
must be gone from the terminal by then. ``--hook`` runs it with kandev-tui's repair
(``textual_hooks.repaint_what_a_rebuilt_map_moved``); without it, Textual 8.2 leaves the box drawn.
"""

from __future__ import annotations

import sys

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Label, Static


class StaleRegion(App[None]):
    CSS = """
    Screen { layers: base over; }
    #box { layer: over; dock: bottom; width: 24; height: 3; margin-bottom: 2; background: red; }
    #status { dock: top; height: 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static("scrolling", id="status")
        with VerticalScroll(id="lines"):
            for number in range(200):
                yield Label(f"line {number}")
        yield Static("THE BOX", id="box")

    def on_mount(self) -> None:
        self.call_after_refresh(self.scroll_down)

    def scroll_down(self) -> None:
        self.query_one("#lines", VerticalScroll).scroll_to(y=150, animate=False, immediate=True)
        self.call_after_refresh(self.hide_the_box)

    def hide_the_box(self) -> None:
        self.query_one("#box").display = False
        self.screen.find_widget(self.query(Label).first())  # a line scrolled off the screen: the full map rebuilt
        self.call_after_refresh(self.done)

    def done(self) -> None:
        self.query_one("#status", Static).update("DONE")


if __name__ == "__main__":
    if "--hook" in sys.argv:
        from kandev_tui.ui.textual_hooks import repaint_what_a_rebuilt_map_moved

        repaint_what_a_rebuilt_map_moved()
    StaleRegion().run()
