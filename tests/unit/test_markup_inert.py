"""Text from an agent, a file name, git or the user is drawn as text, never parsed as markup: a toast, a dialog's
border title, a dialog's error line. Markup there made an action link of a file name (one click ran an app action
with arguments) or, unbalanced, raised MarkupError and ended the whole app with every session in it."""

from __future__ import annotations

import ast

from ..support import CHECKOUT

PACKAGE = CHECKOUT / "kandev_tui"
STR_MAKERS = ("visible", "safe_text", "str", "format", "join", "sub", "replace")
# what Textual parses as markup when given a str (Static and its update, Label, Button, Checkbox, RadioButton, an
# OptionList's Option: checked in Textual 8.2, an unbalanced closing tag raises MarkupError)
WIDGETS_OF_MARKUP = ("Static", "Label", "update", "Button", "Checkbox", "RadioButton", "Option")


def _makes_a_str(node: ast.expr) -> bool:
    """Whether an expression builds a ``str`` from values (an f-string with fields, ``%``, a call that makes text)."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(part, ast.FormattedValue) for part in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return True
    if isinstance(node, ast.IfExp):
        return _makes_a_str(node.body) or _makes_a_str(node.orelse)
    if isinstance(node, ast.Call):
        return getattr(node.func, "id", getattr(node.func, "attr", "")) in STR_MAKERS
    return False
def test_no_title_static_or_update_is_given_a_str_built_from_data():
    """The rule, read from the source: a border title is a constant or ``Content``/``Text``; a widget that parses a
    ``str`` as markup (:data:`WIDGETS_OF_MARKUP`) given one built from values says ``markup=False`` or is given
    ``Content``/``Text``.
    (Toasts are text whoever asks: ``KandevApp.notify``, tested below.)"""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Assign) and any(isinstance(target, ast.Attribute) and target.attr in
                                                    ("border_title", "border_subtitle") for target in node.targets):
                if _makes_a_str(node.value) or isinstance(node.value, (ast.Name, ast.Attribute, ast.Subscript)):
                    found.append(f"{where} a title given a str")
            if isinstance(node, ast.Call) and node.args:
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                plain = any(k.arg == "markup" for k in node.keywords)
                receiver = ast.unparse(node.func.value) if isinstance(node.func, ast.Attribute) else ""
                if "document" in receiver:  # a Markdown document's own update, not a widget's
                    continue
                if name in WIDGETS_OF_MARKUP and _makes_a_str(node.args[0]) and not plain:
                    found.append(f"{where} {name}() given a str built from values")
    assert found == [], found

