"""The shape of the package: no import circles among chgen's modules.

What is counted: every module of generator/ (a package as its __init__) is a node; every
`import` and `from ... import` statement anywhere in its file is an edge, at module level, inside
functions and classes, under `if TYPE_CHECKING:` too, and relative imports resolved. `from P
import N` points at the module P.N where that is a module, else at P. Not counted: the package
a module sits in (importing a.b.c also runs a/__init__, which Python has already started), and
imports by name at run time (importlib, `python -m` children), which no statement shows.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set

from tests.conftest import ROOT

PACKAGE = ROOT / "generator"


def modules() -> Dict[str, Path]:
    """Every module of the package by dotted name (the templates are data, not code)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: Dict[str, Path]) -> Set[str]:
    """The modules of `known` that the file of module `name` imports (see the module doc)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            source = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                target = f"{source}.{alias.name}"
                if target in known:
                    found.add(target)
                elif source in known:
                    found.add(source)
    found.discard(name)
    return found


def import_graph() -> Dict[str, Set[str]]:
    known = modules()
    return {name: imported(name, path, known) for name, path in known.items()}


def circles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_function_level_and_relative_imports():
    graph = import_graph()
    # deep_runner imports the deep rules inside its child's main(), not at module level
    assert "generator.checks.deep" in graph["generator.checks.deep_runner"]
    assert "generator.judge.distributed" in graph["generator.judge.judge"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_of_the_package_imports_itself_back():
    found = circles(import_graph())
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)
