"""The footer of keys: the keys that fit the width, redrawn only when the keys it shows change, and then only the
keys that changed."""

from __future__ import annotations

from difflib import SequenceMatcher

from rich.cells import cell_len
from textual.compose import compose
from textual.screen import Screen
from textual.widgets import Footer

from kandev_tui.ui.textual_hooks import covered

# when the keys do not fit, these go first, in this order (each still works, and the help lists it): quit and
# what the screen's state offers (cancel, close, back) stay ("moved": the transcript's own scroll and tab hints);
# one dropped that then fits beside the rest is shown again
DROP_FIRST = ("settings", "moved", "search", "help")


class KeyFooter(Footer):
    """Textual's footer rebuilds all its keys (removes and mounts a widget per key) whenever the screen's
    bindings may have changed: each focus move and each return to the screen (closing the help, say). Here it
    rebuilds only when what it shows differs, so coming back to a busy transcript costs no footer rebuild, and never
    while another screen covers it (under the help escape cancels nothing, so its keys differ there).

    It shows only keys that fit: compact below :attr:`ROOMY_FROM` columns, the command palette's key only from
    :attr:`PALETTE_FROM` (docked on the right, it covered the last keys), and below that the keys of
    :data:`DROP_FIRST` give way until the rest fit (Textual's footer cut them off at the edge), then the palette's
    key, then whole keys from the end, quit's kept (at 80 columns a running turn with queued messages has eight
    keys: the last ran under the palette's key, "^g Nex" cut and one letter of the next key left at the edge).

    When the keys it shows do change (escape cancels a turn only while one runs: a key comes at the turn's start and
    goes at its end), only the keys that differ are removed and mounted (:meth:`recompose`): rebuilding them all took
    14-15 ms of the UI's thread at the end of each turn, in the frames that show the turn's last output
    (benchmarks/terminal.py, instrumented)."""

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
        if width:
            every, dropped = keys, []
            for action in DROP_FIRST:
                if _needed(keys, self.compact) <= width:
                    break
                gone = [key for key in keys if getattr(key, "action", "").partition("(")[0] == action]
                keys = [key for key in keys if key not in gone]
                dropped.append(gone)
            for gone in reversed(dropped[:-1]):  # one dropped early that fits beside the rest comes back (a stored
                back = [key for key in every if key in keys or key in gone]  # session at 45 columns: its settings)
                if _needed(back, self.compact) <= width:
                    keys = back
            if _needed(keys, self.compact) > width:  # the palette's key next (ctrl+p still opens it)
                keys = [key for key in keys if not key.has_class("-command-palette")]
            while _needed(keys, self.compact) > width:  # then whole keys from the end, quit's kept: none is cut
                gone = [i for i, key in enumerate(keys) if getattr(key, "action", None) != "quit"]  # off at the edge
                if not gone:  # (a queue's keys, say: the queue's line says them too)
                    break
                keys.pop(gone[-1])
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

    async def recompose(self) -> None:
        """Textual's footer removes every key and mounts them all again; here the keys that stay the same stay
        mounted, and only those removed, added or changed are removed and mounted, in place. Keys in groups (a
        binding group, drawn as a container) are rebuilt all together, as Textual does."""
        if not self.is_attached:
            return
        if covered(self.screen):  # asked for before another screen came over this one: its keys differ under it
            self._shown = None  # (nothing of it shows; when it is shown again, its keys are looked at again)
            return
        old = list(self.children)
        new = compose(self)
        if not all(_is_key(widget) for widget in [*old, *new]):
            await super().recompose()
            return
        matcher = SequenceMatcher(None, [_key_signature(w) for w in old], [_key_signature(w) for w in new],
                                  autojunk=False)
        doomed: list = []
        async with self.batch():
            for op, i1, i2, j1, j2 in reversed(matcher.get_opcodes()):  # from the end: positions stay valid
                if op == "equal":
                    continue
                doomed += old[i1:i2]
                if j1 < j2:
                    if i2 < len(old):
                        await self.mount_all(new[j1:j2], before=old[i2])
                    else:
                        await self.mount_all(new[j1:j2])
            if doomed:
                await self.remove_children(doomed)

    @staticmethod
    def _signature(screen: Screen) -> tuple:
        """What the footer shows of the screen's bindings: those shown, and the command palette's."""
        palette = screen.app.COMMAND_PALETTE_BINDING
        return tuple((key, binding.key, binding.description, binding.action, enabled, tooltip, binding.group)
                     for key, (_node, binding, enabled, tooltip) in screen.active_bindings.items()
                     if binding.show or key == palette)


def _is_key(widget) -> bool:
    return all(hasattr(widget, name) for name in ("key", "key_display", "description", "action"))  # a FooterKey


def _key_signature(key) -> tuple:
    """What a key shows: a mounted key and one just composed compare equal when they look and act the same (the
    compact class comes from the footer once mounted)."""
    return (key.key, key.key_display, key.description, key.action, str(key.tooltip or ""),
            frozenset(key.classes) - {"-compact"})


def _needed(keys: list, compact: bool) -> int:
    """Columns the keys take side by side (a key, a space, its description; a cell apart, or padded)."""
    keys = [key for key in keys if hasattr(key, "key_display")]  # Textual's FooterKey (not public)
    padding = 1 if compact else 3
    return sum(cell_len(key.key_display) + 1 + cell_len(key.description) + padding for key in keys)
