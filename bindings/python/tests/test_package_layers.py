"""The package stands in layers (objectgraph/_layers.py): a module imports only
modules of lower layers, wherever the import stands (at the top or inside a
function), so the imports make no cycle; and no module imports with ``*``.

Imports are read with ``ast``, not run. Those under ``if TYPE_CHECKING:`` only
name types for annotations and never run: they are not counted. The store tool
(objectgraph/tool/) counts as one module, ``tool``.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

from conftest import BINDING

PACKAGE = BINDING / "objectgraph"
NAME = "objectgraph"


def layers() -> Tuple[Tuple[str, ...], ...]:
    """LAYERS as _layers.py writes it (read, not imported)."""
    tree = ast.parse((PACKAGE / "_layers.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "LAYERS" for t in node.targets):
            value: Tuple[Tuple[str, ...], ...] = ast.literal_eval(node.value)
            return value
    raise AssertionError("_layers.py defines no LAYERS")


def sources() -> Dict[Path, str]:
    """Every source file of the package, the tool's included, by path."""
    return {path: path.read_text() for path in sorted(PACKAGE.rglob("*.py"))}


def node_of(dotted: str) -> Optional[str]:
    """The layer name of a module of the package ("objectgraph.errors" -> "errors",
    "objectgraph" -> "__init__", anything in objectgraph.tool -> "tool"); None outside it."""
    parts = dotted.split(".")
    if parts[0] != NAME:
        return None
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def module_of(path: Path) -> str:
    """The dotted name of the package's file ``path``."""
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _statements(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            yield from (n for s in child.orelse for n in [s, *_statements(s)])
            continue
        yield child
        yield from _statements(child)


def imports(source: str, module: str, is_package: bool, known: Set[str]) -> List[Tuple[str, int]]:
    """(imported module's dotted name, line) for each import in ``source`` that runs,
    ``module`` being the importing module's dotted name. ``known`` holds the dotted
    names of the package's modules: ``from . import x`` imports module ``x`` when
    there is one, else a name of the package itself."""
    package = module if is_package else module.rpartition(".")[0]
    found: List[Tuple[str, int]] = []
    for node in _statements(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            for alias in node.names:
                submodule = f"{origin}.{alias.name}"
                found.append((submodule if submodule in known else origin, node.lineno))
    return found


def graph(files: Dict[Path, str]) -> Dict[str, Set[Tuple[str, str]]]:
    """Layer name -> {(imported layer name, "file:line")}, imports of the package only."""
    known = {module_of(path) for path in files}
    edges: Dict[str, Set[Tuple[str, str]]] = {}
    for path, source in files.items():
        module = module_of(path)
        here = node_of(module)
        assert here is not None
        for target, line in imports(source, module, path.name == "__init__.py", known):
            there = node_of(target)
            if there is not None and there != here:
                edges.setdefault(here, set()).add((there, f"{path.relative_to(PACKAGE)}:{line}"))
        edges.setdefault(here, set())
    return edges


def upward(edges: Dict[str, Set[Tuple[str, str]]], order: Tuple[Tuple[str, ...], ...]) -> List[str]:
    """The imports of a module of the same or a higher layer, as messages."""
    rank = {name: index for index, layer in enumerate(order) for name in layer}
    problems = []
    for module, targets in sorted(edges.items()):
        for target, where in sorted(targets):
            if rank.get(target, len(order)) >= rank.get(module, -1):
                problems.append(f"{where}: {module} (layer {rank.get(module)}) imports {target} "
                                f"(layer {rank.get(target)})")
    return problems


def cycle(edges: Dict[str, Set[Tuple[str, str]]]) -> Optional[List[str]]:
    """A cycle of imports, as the modules along it, or None."""
    state: Dict[str, int] = {}  # 1: on the current path, 2: done
    path: List[str] = []

    def visit(module: str) -> Optional[List[str]]:
        state[module] = 1
        path.append(module)
        for target, _ in sorted(edges.get(module, ())):
            if state.get(target) == 1:
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(edges):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_every_module_has_one_layer() -> None:
    named = [name for layer in layers() for name in layer]
    assert len(named) == len(set(named)), "a module is named in two layers"
    modules = {node_of(module_of(path)) for path in sources()}
    assert set(named) == modules, (f"not in a layer: {sorted(modules - set(named))}; "
                                   f"no such module: {sorted(set(named) - modules)}")


def test_no_module_imports_its_own_or_a_higher_layer() -> None:
    assert upward(graph(sources()), layers()) == []


def test_the_imports_make_no_cycle() -> None:
    assert cycle(graph(sources())) is None


def test_no_module_imports_with_a_star() -> None:
    starred = [f"{path.relative_to(PACKAGE)}:{node.lineno}"
               for path, source in sources().items()
               for node in ast.walk(ast.parse(source))
               if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)]
    assert starred == []


def test_the_checks_find_what_they_look_for() -> None:
    """An import of a higher layer (also inside a function), a cycle and a starred
    import are found; a TYPE_CHECKING import is not counted."""
    known = {"objectgraph", "objectgraph.errors", "objectgraph.values", "objectgraph.graph"}
    low = ("from typing import TYPE_CHECKING\n"
           "if TYPE_CHECKING:\n    from .graph import Notification\n"
           "def f():\n    from . import values\n")
    found = imports(low, "objectgraph.errors", False, known)
    assert found == [("typing", 1), ("objectgraph.values", 5)]
    edges = {"errors": {("values", "errors.py:5")}, "values": {("errors", "values.py:1")}}
    order = (("errors",), ("values",))
    assert upward(edges, order) == ["errors.py:5: errors (layer 0) imports values (layer 1)"]
    assert cycle(edges) in (["errors", "values", "errors"], ["values", "errors", "values"])
    assert cycle({"errors": set(), "values": {("errors", "values.py:1")}}) is None
    assert imports("from .. import errors\nfrom ..model import Model\n", "objectgraph.tool.dump", False,
                   known | {"objectgraph.tool", "objectgraph.tool.dump"}) == [
        ("objectgraph.errors", 1), ("objectgraph.model", 2)]
