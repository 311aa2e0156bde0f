"""The footer of keys, redrawn only when the keys it shows change."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """Textual's footer rebuilds all its keys (removes and mounts a widget per key) whenever the screen's
    bindings may have changed: each focus move and each return to the screen (closing the help, say). Here it
    rebuilds only when what it shows differs, so coming back to a busy transcript costs no footer rebuild."""

    _shown: tuple | None = None

    def bindings_changed(self, screen: Screen) -> None:
        if self.is_attached and screen is self.screen and screen.app.app_focus:
            shown = self._signature(screen)
            if shown == self._shown and self._bindings_ready:
                return
            self._shown = shown
        super().bindings_changed(screen)

    @staticmethod
    def _signature(screen: Screen) -> tuple:
        return tuple((key, binding.key, binding.description, binding.action, binding.show, enabled, tooltip,
                      binding.group)
                     for key, (_node, binding, enabled, tooltip) in screen.active_bindings.items())
