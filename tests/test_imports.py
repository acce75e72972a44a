"""The modules of judgelog import each other without a cycle: every import goes one way, from the module
that uses a name to the one that owns it. That holds for the imports that run (at the top of a module or
inside a function) and also for those made only for type checking (``if TYPE_CHECKING:``): a module under
the façade names what it uses of an engine or a state by a structural type (judgelog.protocols), never by
importing the module above it."""

import ast
from pathlib import Path

import networkx as nx
import pytest

import judgelog

PACKAGE = Path(judgelog.__file__).resolve().parent


def _imports(tree: ast.AST, *, type_checking: bool) -> set[str]:
    """The package's modules a module imports relatively (``from .x import y``, ``from . import x``); those
    inside ``if TYPE_CHECKING:`` blocks only when ``type_checking``."""
    out: set[str] = set()
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            kept = node.orelse + (node.body if type_checking else [])
            out |= _imports(ast.Module(body=kept, type_ignores=[]), type_checking=type_checking)
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            out |= {node.module.split(".")[0]} if node.module else {alias.name for alias in node.names}
        out |= _imports(node, type_checking=type_checking)
    return out


def import_graph(*, type_checking: bool = False) -> nx.DiGraph:
    modules = {p.stem: p for p in PACKAGE.glob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        imported = _imports(ast.parse(path.read_text(encoding="utf-8")), type_checking=type_checking)
        graph.add_edges_from((name, other) for other in imported if other in modules and other != name)
    return graph


def test_the_graph_sees_top_level_function_and_type_checking_imports():
    graph = import_graph()
    assert graph.has_edge("engine", "backend")  # at the top of engine.py
    assert graph.has_edge("state", "runtime")  # inside State.apply
    assert not graph.has_edge("runtime", "protocols")  # for type checking only
    assert import_graph(type_checking=True).has_edge("runtime", "protocols")


def test_a_cycle_is_found():
    graph = import_graph()
    graph.add_edge("backend", "engine")
    assert list(nx.simple_cycles(graph))


@pytest.mark.parametrize("type_checking", [False, True], ids=["run", "type-checking"])
def test_no_import_cycle_among_the_modules(type_checking):
    cycles = sorted(sorted(c) for c in nx.simple_cycles(import_graph(type_checking=type_checking)))
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles[:10])
