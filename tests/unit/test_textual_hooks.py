"""Each use of Textual's private names (kandev_tui/ui/textual_hooks.py) fails here when an upgrade breaks it."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Static

from ..support import CHECKOUT

# -- nothing outside kandev_tui/ui/textual_hooks.py names a private attribute of Textual ---------------------------

def textual_private_names(cls: type) -> set[str]:
    """The private names ``cls`` has from Textual: its Textual bases' methods and class attributes, and what their
    instances set (for the bases that can be made bare)."""
    from textual.containers import VerticalScroll
    from textual.screen import Screen
    from textual.widget import Widget
    from textual.widgets import Footer, Input, OptionList

    bases = [base for base in cls.__mro__ if base.__module__.split(".")[0] == "textual"]
    names = {name for base in bases for name in vars(base)}
    for bare in (App, Screen, Widget, Footer, Static, Input, VerticalScroll, OptionList):
        if bare in bases:
            names |= set(vars(_bare(bare)))
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


_BARE: dict[type, object] = {}


def _bare(cls: type) -> object:
    if cls not in _BARE:
        _BARE[cls] = cls()
    return _BARE[cls]


def test_no_module_but_the_hooks_names_textuals_private_attributes():
    """In a class built on Textual's (a widget, a screen, the app), no ``self._name`` or method that its Textual
    bases have (using one, or overriding it by accident: a method named like an attribute Textual sets is replaced
    by it on the instance); and nowhere an ``….app._name``, ``….screen._name`` or ``._driver``."""
    import ast
    import importlib

    from textual.app import App as TextualApp
    from textual.dom import DOMNode
    from textual.screen import Screen

    app_or_screen = textual_private_names(TextualApp) | textual_private_names(Screen)
    package = CHECKOUT / "kandev_tui"
    found = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "textual_hooks.py":
            continue
        source = path.read_text(encoding="utf-8")
        if "textual" not in source:
            continue
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        module = importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
        tree = ast.parse(source)
        for node in ast.walk(tree):  # app._x, screen._x, self.app._x, x._driver anywhere
            if not isinstance(node, ast.Attribute):
                continue
            owner = getattr(node.value, "attr", None) or getattr(node.value, "id", None)
            if (node.attr in app_or_screen and owner in ("app", "screen")) or node.attr == "_driver":
                found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            runtime = getattr(module, cls.name, None)
            if not (isinstance(runtime, type) and issubclass(runtime, DOMNode)):
                continue
            private = textual_private_names(runtime)
            for node in ast.walk(cls):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in private:
                    found.append(f"{path.name}:{node.lineno} {cls.name}.{node.name} (defined)")
                elif (isinstance(node, ast.Attribute) and node.attr in private and isinstance(node.value, ast.Name)
                      and node.value.id == "self"):
                    found.append(f"{path.name}:{node.lineno} {cls.name}: self.{node.attr}")
    assert not found, "\n".join(sorted(set(found)))


def test_esc_cr_from_a_terminal_reads_as_alt_enter():
    """What a terminal sends for alt+enter reaches the app as alt+enter (Textual's parser alone makes it enter)."""
    from textual._xterm_parser import XTermParser

    from kandev_tui.ui.textual_hooks import read_alt_enter

    def keys(data: str) -> list[str]:
        parser = XTermParser()
        return [event.key for event in [*parser.feed(data), *parser.feed("")] if hasattr(event, "key")]

    read_alt_enter()
    assert keys("\x1b\r") == ["alt+enter"]
    assert keys("\r") == ["enter"] and keys("\x1ba") == ["alt+a"] and keys("\x1b[A") == ["up"]
