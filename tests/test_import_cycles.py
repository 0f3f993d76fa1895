"""No import cycle among citylog's modules, counting imports made inside functions.

Every module under the packages is parsed (``ast``, nothing is imported) and
each ``import`` / ``from … import`` anywhere in it — at the top, in a function,
in a ``try`` — is an edge to the module it loads (``from pkg import sub`` to the
submodule when ``sub`` is one, else to ``pkg``).  Imports under ``if
TYPE_CHECKING:`` never run and are left out; so is the implicit import of a
module's parent package (every ``events.x`` loads ``events/__init__``, which is
structure, not a cycle).  Any strongly connected component of more than one
module is a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "events", "replay", "cli")

def module_files(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Every module's dotted name and file."""
    out = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of import nodes inside ``if TYPE_CHECKING:`` blocks."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that module ``name`` (at ``path``) imports, anywhere in it."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skip = _type_checking_only(tree)
    targets: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            subs = [f"{module}.{alias.name}" for alias in node.names if f"{module}.{alias.name}" in known]
            targets.update(subs)
            if len(subs) < len(node.names):
                targets.add(module)
    edges = set()
    for target in targets:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            edges.add(target)
    return edges


def import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    known = set(files)
    return {name: imported(name, path, known) for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def strongconnect(root: str) -> None:
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            strongconnect(node)
    return found


def test_no_import_cycle() -> None:
    found = cycles(import_graph(module_files()))
    assert not found, f"import cycles: {[sorted(c) for c in found]}"


def test_the_walk_sees_imports_inside_functions(tmp_path: Path) -> None:
    """The walker itself: a cycle made only by a function-level import is found,
    a TYPE_CHECKING import is not an edge, and relative imports resolve."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import x\n")
    (pkg / "b.py").write_text("def x():\n    from . import a\n    return a\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.d import y\n")
    (pkg / "d.py").write_text("import pkg.c\n")
    graph = import_graph(module_files(tmp_path, ("pkg",)))
    assert graph["pkg.b"] == {"pkg.a"} and graph["pkg.c"] == set() and graph["pkg.d"] == {"pkg.c"}
    assert cycles(graph) == [frozenset({"pkg.a", "pkg.b"})]


LAYERS = ("core", "events", "replay", "cli")
"""Lowest first: a module imports only its own layer and the ones below it."""


def test_each_layer_imports_only_the_layers_below() -> None:
    graph = import_graph(module_files())
    upward = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        for target in targets
        if LAYERS.index(target.split(".")[0]) > LAYERS.index(name.split(".")[0])
    )
    assert not upward, f"imports of a higher layer (docs/architecture.md, section 1): {upward}"
