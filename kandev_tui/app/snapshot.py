"""``kandev-tui snapshot``: what the app shows of a recording or a stored session, drawn without a terminal.

The real app runs headless at the given size (animations off, the cursor still), the transcript scrolled to the
top, the end or a row, every chart in view plotted; then the screen is written as SVG (Textual's screenshot),
PNG (that SVG rasterised by cairosvg: no browser) or text. The same input gives the same bytes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from kandev_tui.ui.svg_pictures import monospaced, offline

FORMATS = (".svg", ".png", ".txt")
MIN_SIZE = (40, 12)  # the smallest screen the transcript can be drawn on


class SnapshotError(Exception):
    """The snapshot cannot be made; ``str()`` is one line saying why, ``code`` the exit status (2: the session
    database cannot be read)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Shot:
    size: tuple[int, int]
    at: str  # "top", "end" or a row number
    every: bool  # one file per screen, top to end
    theme: str


def deterministic_app(source: Any, config: Path, *, theme: str = "textual-dark", animation: bool = False,
                      registry: Any = None, stats_path: Path | None = None, **settings: Any) -> Any:
    """The app as a picture or a test wants it: its settings from ``config`` (a file of the caller's, never the
    user's), the ``theme`` and ``settings`` given over them, charts and other animations off unless ``animation``.
    ``kandev-tui snapshot``, the pytest plugin (:mod:`kandev_tui.testing`) and the suite all make their apps here,
    so the same input draws the same picture in each."""
    from dataclasses import replace

    from kandev_tui.app.kandev_app import KandevApp
    from kandev_tui.base.settings import SettingsStore

    store = SettingsStore(config)
    store.settings = replace(store.settings, theme=theme, chart_animation=animation, **settings)
    app = KandevApp(source, settings_store=store, registry=registry, stats_path=stats_path)
    if not animation:
        app.animation_level = "none"
    return app


def render(format_: str, svg: str, text: str) -> bytes:
    if format_ == ".svg":
        return svg.encode()
    if format_ == ".txt":
        return "\n".join(line.rstrip() for line in text.splitlines()).rstrip("\n").encode() + b"\n"
    try:
        import cairosvg
    except (ImportError, OSError) as exc:  # OSError: the cairo library itself is missing
        raise SnapshotError(f"PNG needs cairosvg and the cairo library ({exc}); install kandev-tui[png], "
                            "or write .svg or .txt") from None
    return cairosvg.svg2png(bytestring=monospaced(svg).encode())


def outputs(output: Path, count: int) -> list[Path]:
    """The files of ``--all``: ``out-01.svg``, ``out-02.svg``…"""
    digits = max(2, len(str(count)))
    return [output.with_name(f"{output.stem}-{n:0{digits}}{output.suffix}") for n in range(1, count + 1)]


async def shoot(app: Any, shot: Shot) -> list[tuple[str, str]]:
    """Run the app headless; (svg, text) of each screen asked for."""
    from kandev_tui.ui.textual_hooks import screen_text

    screens: list[tuple[str, str]] = []
    async with app.run_test(size=shot.size) as pilot:
        for _ in range(500):  # everything delivered and on screen
            await pilot.pause(0.02)
            if app.return_code is not None:  # it ended by itself: the session could not be read
                raise SnapshotError(app.session.failure or "the app ended before it drew", app.return_code or 1)
            if app.session.status.state in ("stored", "replayed", "error") and app.session.settled:
                break
        app.transcript_screen.prompt.cursor_blink = False
        view = app.view

        async def still() -> None:
            for _ in range(3):
                view.check_charts(at_once=True)
                await pilot.pause(0.05)

        async def take() -> None:
            await still()
            screens.append((offline(app.export_screenshot(title="kandev-tui")), screen_text(app)))

        if shot.every:
            view.jump_to_first()
            await still()
            view.scroll_home(animate=False, immediate=True)
            while True:
                await take()
                if view.scroll_y >= view.max_scroll_y or len(screens) >= 1000:
                    break
                view.scroll_relative(y=view.size.height, animate=False, immediate=True)
        else:
            if shot.at == "top":
                view.jump_to_first()
                await still()
                view.scroll_home(animate=False, immediate=True)
            elif shot.at == "end":
                view.jump_to_latest()
                await still()
                view.scroll_end(animate=False, immediate=True)
            else:
                view.jump_to_first()
                await still()
                if int(shot.at) > view.max_scroll_y:  # drawn anyway, the end would stand for a row that is not there
                    raise SnapshotError(f"--at {shot.at}: no such row: at {app.size.width}x{app.size.height} the "
                                        f"transcript scrolls from row 0 to row {view.max_scroll_y}", 2)
                view.scroll_to(y=int(shot.at), animate=False, immediate=True)
            await take()
    return screens


def snapshot(make_app: Callable[[], Any], shot: Shot, output: Path) -> list[Path]:
    """Draw and write the snapshot(s); the files written."""
    format_ = output.suffix.lower()
    if format_ not in FORMATS:
        raise SnapshotError(f"-o {output}: write .svg, .png or .txt")
    app = make_app()
    app.animation_level = "none"
    screens = asyncio.run(shoot(app, shot))
    paths = outputs(output, len(screens)) if shot.every else [output]
    for path, (svg, text) in zip(paths, screens):
        path.write_bytes(render(format_, svg, text))
    return paths
