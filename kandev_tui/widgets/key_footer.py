"""The footer of keys: the keys that fit the width, redrawn only when the keys it shows change."""

from __future__ import annotations

from rich.cells import cell_len
from textual.screen import Screen
from textual.widgets import Footer

from kandev_tui.textual_hooks import covered

# when the keys do not fit, these go first, in this order (each still works, and the help lists it): quit and
# what the screen's state offers (cancel, close, back) stay
DROP_FIRST = ("settings", "search", "help")


class KeyFooter(Footer):
    """Textual's footer rebuilds all its keys (removes and mounts a widget per key) whenever the screen's
    bindings may have changed: each focus move and each return to the screen (closing the help, say). Here it
    rebuilds only when what it shows differs, so coming back to a busy transcript costs no footer rebuild, and never
    while another screen covers it (under the help escape cancels nothing, so its keys differ there).

    It shows only keys that fit: compact below :attr:`ROOMY_FROM` columns, the command palette's key only from
    :attr:`PALETTE_FROM` (docked on the right, it covered the last keys), and below that the keys of
    :data:`DROP_FIRST` give way until the rest fit (Textual's footer cut them off at the edge)."""

    _shown: tuple | None = None
    PALETTE_FROM = 70
    ROOMY_FROM = 100

    def on_resize(self, event) -> None:
        width = event.size.width
        self.compact = width < self.ROOMY_FROM
        self.show_command_palette = width >= self.PALETTE_FROM
        if self._shown is not None and self._shown[0] != width:
            self._shown = None
            self.bindings_changed(self.screen)

    def compose(self):
        keys = list(super().compose())
        width = self.size.width
        for action in DROP_FIRST:
            if not width or _needed(keys, self.compact) <= width:
                break
            keys = [key for key in keys if getattr(key, "action", None) != action]
        yield from keys

    def bindings_changed(self, screen: Screen) -> None:
        if self.is_attached and screen is self.screen and covered(screen):
            return  # covered by another screen: nothing of it shows, and its keys are looked at again on its return
        if self.is_attached and screen is self.screen and screen.app.app_focus:
            shown = (self.size.width, self._signature(screen))
            if shown == self._shown:  # (set only on the way to Footer.bindings_changed: its keys were built)
                return
            self._shown = shown
        super().bindings_changed(screen)

    @staticmethod
    def _signature(screen: Screen) -> tuple:
        return tuple((key, binding.key, binding.description, binding.action, binding.show, enabled, tooltip,
                      binding.group)
                     for key, (_node, binding, enabled, tooltip) in screen.active_bindings.items())


def _needed(keys: list, compact: bool) -> int:
    """Columns the keys take side by side (a key, a space, its description; a cell apart, or padded)."""
    keys = [key for key in keys if hasattr(key, "key_display")]  # Textual's FooterKey (not public)
    padding = 1 if compact else 3
    return sum(cell_len(key.key_display) + 1 + cell_len(key.description) + padding for key in keys)
