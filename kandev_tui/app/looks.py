"""How the app looks, from the settings and the terminal: the theme, a terminal of 16 colours, the charts' series
colours and whether a chart animates in. The transcript's widgets ask through their draw context
(kandev_tui/widgets/context.py), which a session builds from this."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Literal, Protocol

from textual.color import Color
from textual.theme import Theme

if TYPE_CHECKING:
    from kandev_tui.base.settings import SettingsStore

DARK_ANSI = ((0, 0, 170), (170, 0, 0), (170, 0, 170), (0, 130, 0))  # series colours a light 16-colour theme keeps


class LooksHost(Protocol):
    """What the looks need of the app (all of it Textual's but the settings and ``sixteen_colors``)."""

    settings_store: SettingsStore
    sixteen_colors: bool | None
    theme: str
    animation_level: Literal["none", "basic", "full"]
    app_focus: Any

    @property
    def available_themes(self) -> dict[str, Theme]: ...
    @property
    def current_theme(self) -> Theme: ...
    @property
    def is_headless(self) -> bool: ...
    @property
    def console(self) -> Any: ...
    def has_class(self, *class_names: str) -> bool: ...
    def set_class(self, add: bool, *class_names: str, update: bool = True) -> Any: ...
    def refresh_css(self, animate: bool = True) -> None: ...
    def notify(self, message: str, **options: Any) -> None: ...


class Looks:
    """See the module docstring. A chart animates in once per run (``should_animate``)."""

    def __init__(self, app: LooksHost) -> None:
        self.app = app
        self._animated: set[str] = set()

    def apply_settings(self) -> None:
        """As the app mounts: the theme the settings name (a theme it does not have is said), and the 16-colour
        look where the terminal has no more (borders that stay visible once rounded to them: styles/app.tcss)."""
        app = self.app
        theme = app.settings_store.settings.theme
        app.theme = theme if theme in app.available_themes else "textual-dark"
        if theme not in app.available_themes:
            app.notify(f"The theme {theme!r} (settings) is not one kandev-tui has: textual-dark is used. Themes: "
                       f"{', '.join(sorted(app.available_themes))}.", severity="warning", timeout=10)
        sixteen = app.sixteen_colors
        if sixteen is None:
            sixteen = not app.is_headless and app.console.color_system in ("standard", "windows")
        app.set_class(sixteen, "-colors-16")
        if sixteen and not app.current_theme.dark:
            app.refresh_css(animate=False)  # the faint text of a light theme, as css_variables gives it there
        for warning in app.settings_store.warnings:
            app.notify(warning, severity="warning", timeout=8)

    @property
    def light_in_sixteen(self) -> bool:
        return self.app.has_class("-colors-16") and not self.app.current_theme.dark

    def css_variables(self, variables: dict[str, str]) -> dict[str, str]:
        if self.light_in_sixteen:
            # rounded to 16 colours, a light theme's faint text (muted, disabled: a light grey) became the white it
            # is drawn on; a darker grey rounds to grey
            variables.update({"text-muted": "auto 70%", "text-disabled": "auto 60%"})
        return variables

    def animations_enabled(self) -> bool:
        return self.app.animation_level != "none"

    def should_animate(self, chart_key: str) -> bool:
        """A chart animates in once per run, unless the setting or reduced motion says no."""
        if not self.app.settings_store.settings.chart_animation or not self.animations_enabled():
            return False
        if chart_key in self._animated:
            return False
        self._animated.add(chart_key)
        return True

    def series_colors(self) -> tuple[tuple[int, int, int], ...] | None:
        """Series colours from the theme by series index (never from the agent); None under NO_COLOR."""
        if os.environ.get("NO_COLOR"):
            return None
        if self.light_in_sixteen:  # rounded to 16 colours, a light theme's warning and success became yellow on
            return DARK_ANSI  # white: ANSI's dark ones
        theme = self.app.current_theme
        names = [theme.primary, theme.warning or "#e5c07b", theme.success or "#98c379", theme.error or "#e06c75"]
        return tuple(Color.parse(name).rgb for name in names)

    @property
    def visible(self) -> bool:
        """The terminal is in view (Textual's app focus: the terminal reports it)."""
        return bool(self.app.app_focus)
