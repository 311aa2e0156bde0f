"""The one place for Textual's private names (see ../shared/ARCHITECTURE.md): each use says what public behaviour
it stands in for, and ``tests/test_textual_hooks.py`` fails when it stops working on an upgrade.

(Older hooks still live where they were written: the footer's ``_bindings_ready``, the screens' frame loop,
``App._get_screen``, the driver's ``send_message``; moving them here is the structure issue's work.)
"""

from __future__ import annotations

import io

from rich.console import Console


def screen_text(app) -> str:
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
