"""The modules of judgelog import each other without a cycle: every import that runs (at the top of a
module or inside a function) goes one way, from the module that uses a name to the one that owns it.
Imports made only for type checking (``if TYPE_CHECKING:``) run never and are not counted."""

import ast
from pathlib import Path

import networkx as nx

import judgelog

PACKAGE = Path(judgelog.__file__).resolve().parent


def _runtime_imports(tree: ast.AST) -> set[str]:
    """The package's modules a module imports relatively (``from .x import y``, ``from . import x``),
    outside ``if TYPE_CHECKING:`` blocks."""
    out: set[str] = set()
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out |= {m for child in node.orelse for m in _runtime_imports(child)}
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out |= {node.module.split(".")[0]} if node.module else {alias.name for alias in node.names}
        out |= _runtime_imports(node)
    return out


def import_graph() -> nx.DiGraph:
    modules = {p.stem: p for p in PACKAGE.glob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        imported = _runtime_imports(ast.parse(path.read_text(encoding="utf-8")))
        graph.add_edges_from((name, other) for other in imported if other in modules and other != name)
    return graph


def test_the_graph_sees_top_level_and_function_imports():
    graph = import_graph()
    assert graph.has_edge("engine", "backend")  # at the top of engine.py
    assert graph.has_edge("state", "runtime")  # inside State.apply
    assert not graph.has_edge("materialise", "backend")  # for type checking only


def test_a_cycle_is_found():
    graph = import_graph()
    graph.add_edge("backend", "engine")
    assert list(nx.simple_cycles(graph))


def test_no_import_cycle_among_the_modules():
    cycles = sorted(sorted(c) for c in nx.simple_cycles(import_graph()))
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles[:10])
