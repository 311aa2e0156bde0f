"""The import contract: kandev_tui's layers, checked on the import graph read statically from the sources, so that an
import inside a function (a lazy one) counts as much as one at the top of a module.

Each module belongs to one layer; it may import kandev_tui modules of its own layer or of a layer below, never of
one above. The headless layers (everything below ``ui``) import neither Textual nor Rich nor plotext, and the ACP
transport knows nothing of the UI (it runs on a loop of its own). ``renderers`` (the registry and the packs' public
API) is headless and below the session model, whose entry layout uses it; the renderer packs (``packs``: rich
output, edits, fleet) are a layer above the widgets and screens, which never import them.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from ..support import CHECKOUT

ROOT = CHECKOUT
PACKAGE = ROOT / "kandev_tui"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
ROOT_MODULES_AT_MOST = 12


def declared_layers() -> list[tuple[str, tuple[str, ...], bool, bool]]:
    """(layer, packages, headless, strictly typed), lowest first, from the one table of docs/architecture.md."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    table = text[text.index("| layer | packages |"):].split("\n\n")[0].splitlines()[2:]
    layers = []
    for row in table:
        name, packages, headless, strict = (cell.strip() for cell in row.strip("|").split("|"))
        layers.append((name, tuple(re.findall(r"`(kandev_tui[\w.]*)`", packages)), headless == "yes", strict == "yes"))
    return layers


LAYERS = [(name, packages) for name, packages, _, _ in declared_layers()]
HEADLESS = {name for name, _, headless, _ in declared_layers() if headless}
UI_LIBRARIES = ("textual", "rich", "plotext")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[int, str]]:
    name = module_name(path)
    return imports_in(path.read_text(encoding="utf-8"), name if path.name == "__init__.py" else name.rpartition(".")[0])


def imports_in(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) of every import in ``source`` (a module of ``package``), wherever it stands: in functions and
    under ``if TYPE_CHECKING:`` too (a type-only import ties two modules as much as one that runs: a circle of them is
    a module that cannot be read alone), relative ones resolved."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names if alias.name != "*"]
    return found


def known_modules() -> set[str]:
    return {module_name(path) for path in PACKAGE.rglob("*.py")}


def layer_of(module: str) -> int:
    best, layer = -1, None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            below = prefix != "kandev_tui" and module.startswith(prefix + ".")  # the face is itself only
            if (module == prefix or below) and len(prefix) > best:
                best, layer = len(prefix), index
    assert layer is not None, f"{module} is in no layer: put it in a layer's package, or add one to docs/architecture.md's table"
    return layer


def graph() -> list[tuple[str, int, str]]:
    """(importer, line, imported) for every import of a kandev_tui module or a UI library."""
    modules = known_modules()
    edges = []
    for path in sorted(PACKAGE.rglob("*.py")):
        importer = module_name(path)
        for line, target in imports(path):
            if target.split(".")[0] in UI_LIBRARIES:
                edges.append((importer, line, target.split(".")[0]))
            elif target.startswith("kandev_tui"):
                while target not in modules:  # `from kandev_tui.x import name`: the module is kandev_tui.x
                    target = target.rpartition(".")[0]
                if target != importer:
                    edges.append((importer, line, target))
    return edges


def test_every_module_has_a_layer():
    for module in known_modules():
        layer_of(module)


def test_the_package_root_holds_at_most_a_dozen_modules():
    """The layers show in the folders: a module belongs in its layer's package, not at the root."""
    root = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(root) <= ROOT_MODULES_AT_MOST, root


def test_the_strict_mypy_modules_are_the_tables_strictly_typed_layers():
    """pyproject.toml cannot read the table, so it is held to it: the strict override names each package of a layer
    the table marks strictly typed (the face exactly, a package with all below it), and nothing else."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    strict = [override["module"] for override in config["tool"]["mypy"]["overrides"]
              if override.get("disallow_untyped_defs")]
    assert len(strict) == 1, "one strict override"
    expected = {package if package == "kandev_tui" else f"{package}.*"
                for _, packages, _, typed in declared_layers() if typed for package in packages}
    assert set(strict[0]) == expected


def test_no_module_imports_a_layer_above_its_own():
    wrong = []
    for importer, line, target in graph():
        if target in UI_LIBRARIES:
            continue
        if layer_of(target) > layer_of(importer):
            wrong.append(f"{importer}:{line} imports {target} "
                         f"({LAYERS[layer_of(importer)][0]} -> {LAYERS[layer_of(target)][0]})")
    assert not wrong, "\n".join(wrong)


def test_the_headless_layers_import_no_ui_library():
    wrong = [f"{importer}:{line} imports {target}" for importer, line, target in graph()
             if target in UI_LIBRARIES and LAYERS[layer_of(importer)][0] in HEADLESS]
    assert not wrong, "\n".join(wrong)


def test_no_modules_import_each_other_in_a_circle():
    """However deep: a circle makes a module that cannot be read alone (runner.py and sources.py once were one). A
    module reaching its own package (``from . import x`` runs the package's ``__init__`` first anyway) is not one."""
    edges: dict[str, set[str]] = {}
    for importer, _line, target in graph():
        if target.startswith("kandev_tui") and not importer.startswith(target + "."):
            edges.setdefault(importer, set()).add(target)
    circles, state = [], {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for target in sorted(edges.get(module, ())):
            if state.get(target) == "open":
                circles.append(" -> ".join(path[path.index(target):] + [target]) if target in path else target)
            elif target not in state:
                visit(target, path + [target])
        state[module] = "done"

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    assert not circles, "\n".join(circles)


def test_the_registry_never_reaches_up_to_the_widgets_or_the_packs():
    """The registry is what a third party's pack builds on: headless, with no arrow up (the layer rule says so; this
    says it where a reader of the renderers looks)."""
    wrong = [f"{importer}:{line} imports {target}" for importer, line, target in graph()
             if importer.startswith("kandev_tui.renderers")
             and target.startswith(("kandev_tui.widgets", "kandev_tui.screens", "kandev_tui.packs"))]
    assert not wrong, "\n".join(wrong)


def plain_mixins() -> list[str]:
    """Classes of the package that are bases beside another base of some class, yet have no base of their own (a
    mixin: one object's state and methods spread over classes and files, and Textual's @on handlers and BINDINGS of
    such a class silently dropped). Protocols and enums are no mixins; Textual's hooks may be (ui/textual_hooks.py)."""
    bases_of: dict[str, list[str]] = {}
    where: dict[str, str] = {}
    objects: set[str] = set()  # `Parts = object`: a base named only while type checking, a plain mixin at run time
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases_of[node.name] = [ast.unparse(base).split("[")[0].split(".")[-1] for base in node.bases]
                where.setdefault(node.name, module_name(path))
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == "object":
                objects.update(target.id for target in node.targets if isinstance(target, ast.Name))
    found = set()
    for name, bases in bases_of.items():
        for base in bases:
            plain = base in objects or (len(bases) > 1 and bases_of.get(base) == [])
            if plain and where.get(base) != "kandev_tui.ui.textual_hooks":
                found.add(f"{where.get(base, '?')}.{base} (a base of {where[name]}.{name})")
    return sorted(found)


def test_no_class_is_a_plain_mixin():
    assert plain_mixins() == []


def test_the_mixin_finder_finds_one(tmp_path, monkeypatch):
    package = tmp_path / "kandev_tui"
    package.mkdir()
    (package / "a.py").write_text("class Part:\n    x = 1\n\nclass Whole(Part, dict):\n    pass\n")
    monkeypatch.setitem(globals(), "PACKAGE", package)
    assert plain_mixins() == ["kandev_tui.a.Part (a base of kandev_tui.a.Whole)"]


@pytest.mark.parametrize("source, expected", [
    ("def f():\n    from kandev_tui.app.kandev_app import KandevApp\n",
     {"kandev_tui.app.kandev_app", "kandev_tui.app.kandev_app.KandevApp"}),
    ("class A:\n    def f(self):\n        import textual.widgets\n", {"textual.widgets"}),
    ("from ..widgets import base\n", {"kandev_tui.widgets", "kandev_tui.widgets.base"}),
    ("from . import items\n", {"kandev_tui.transcript", "kandev_tui.transcript.items"}),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kandev_tui.app.kandev_app import App\n", {
        "typing", "typing.TYPE_CHECKING", "kandev_tui.app.kandev_app", "kandev_tui.app.kandev_app.App"}),
])
def test_the_reader_counts_lazy_relative_and_type_only_imports(source, expected):
    assert {target for _, target in imports_in(source, "kandev_tui.transcript")} == expected
