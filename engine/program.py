"""An analysed rule program, and its one predicate dependency graph.

:class:`Program` holds the declarations, the rules and what analysis derived from them (strata of negation,
bodies in evaluation order). Its :attr:`~Program.graph` is a networkx ``DiGraph`` with an edge
``body_pred -> head_pred`` for every predicate a rule reads; an edge is ``negative`` when some rule reads it
under ``not`` or in an aggregate, and ``positive`` when some rule without an aggregate reads it as a plain
atom. Analysis (strata, negation cycles), recursion (recursive components), the backend (what computed
facts depend on) and the audit read this one graph.

>>> from judgelog.analysis import analyze
>>> from judgelog.parser import parse_text
>>> program, _ = analyze([parse_text('''
... .decl edge(a: atom, b: atom) "" input
... .decl reach(a: atom, b: atom) ""
... .decl far(a: atom) ""
... reach(X, Y) :- edge(X, Y).
... reach(X, Z) :- reach(X, Y), edge(Y, Z).
... far(X) :- edge(X, _), not reach(X, X).
... ''', "t.dl")], require_annotations=False)
>>> sorted(program.graph.predecessors("far")), program.graph.edges["reach", "far"]["negative"]
(['edge', 'reach'], True)
>>> [sorted(c) for c in program.components()], sorted(program.dependencies(["far"]))
([['edge'], ['reach'], ['far']], ['edge', 'far', 'reach'])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import networkx as nx

from .ast import Atom, Decl, Negation, Rule, RuleFile

if TYPE_CHECKING:
    from .interface import Interface

__all__ = ["Program", "dependency_graph", "components"]


def dependency_graph(rules: Iterable[Rule]) -> nx.DiGraph:
    """``body_pred -> head_pred`` for every predicate a rule reads (see the module's text); every head is a
    node, bodiless facts' included."""
    graph = nx.DiGraph()
    for rule in rules:
        head = rule.head.pred
        graph.add_node(head)
        for lit in rule.body:
            if not isinstance(lit, (Atom, Negation)):
                continue
            atom = lit.atom if isinstance(lit, Negation) else lit
            negative = isinstance(lit, Negation) or rule.aggregate is not None
            if graph.has_edge(atom.pred, head):
                data = graph.edges[atom.pred, head]
                data["negative"] = data["negative"] or negative
                data["positive"] = data["positive"] or not negative
            else:
                graph.add_edge(atom.pred, head, negative=negative, positive=not negative)
    return graph


def components(graph: nx.DiGraph) -> list[frozenset[str]]:
    """The strongly connected components of ``graph``, dependencies first (ties: by their smallest node, so
    the order never depends on hashing)."""
    condensed = nx.condensation(graph)
    members = nx.get_node_attributes(condensed, "members")
    order = nx.lexicographical_topological_sort(condensed, key=lambda c: min(members[c]))
    return [frozenset(members[c]) for c in order]


@dataclass
class Program:
    """An analysed rule set: declarations, rules, and derived structure."""

    decls: dict[str, Decl] = field(default_factory=dict)
    rules: list[Rule] = field(default_factory=list)
    files: list[RuleFile] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)
    strata: dict[str, int] = field(default_factory=dict)
    rules_by_head: dict[str, list[Rule]] = field(default_factory=dict)
    rule_by_name: dict[str, Rule] = field(default_factory=dict)
    ordered_bodies: dict[int, tuple] = field(default_factory=dict)  # id(rule) -> body in evaluation order
    # the interface the program's facts declare, read once (judgelog.interface.interface_of)
    interface: Interface | None = field(default=None, compare=False, repr=False)
    _graph: nx.DiGraph | None = field(default=None, compare=False, repr=False)

    def decl(self, pred: str) -> Decl | None:
        return self.decls.get(pred)

    def is_input(self, pred: str) -> bool:
        decl = self.decls.get(pred)
        return bool(decl and decl.is_input)

    def derived(self, pred: str) -> bool:
        return pred in self.rules_by_head

    def body(self, rule: Rule) -> tuple:
        return self.ordered_bodies.get(id(rule), rule.body)

    @property
    def graph(self) -> nx.DiGraph:
        """The predicate dependency graph of the rules (built once; see the module's text)."""
        if self._graph is None:
            self._graph = dependency_graph(self.rules)
        return self._graph

    def components(self) -> list[frozenset[str]]:
        """The strongly connected components of :attr:`graph`, dependencies first."""
        return components(self.graph)

    def dependencies(self, preds: Iterable[str]) -> set[str]:
        """``preds`` and every predicate they depend on, through any rule."""
        out = set(preds)
        for pred in list(out):
            if pred in self.graph:
                out |= nx.ancestors(self.graph, pred)
        return out

    def __getstate__(self) -> dict:
        # ids do not survive pickling (the library cache): keep the ordered bodies by the rule's position,
        # or an unpickled rule could find the body of another rule that once had its id; the graph is
        # built again when it is needed
        state = dict(self.__dict__)
        state["ordered_bodies"] = {
            i: self.ordered_bodies[id(r)] for i, r in enumerate(self.rules) if id(r) in self.ordered_bodies
        }
        state["_graph"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        bodies = state.pop("ordered_bodies", {})
        self.__dict__.update(state)
        self.ordered_bodies = {id(self.rules[i]): body for i, body in bodies.items()}

    def aggregate_rules(self) -> list[Rule]:
        """Rules with an aggregate head, in an order where each one's inputs come first."""
        rules = [r for r in self.rules if r.aggregate is not None]
        return sorted(rules, key=lambda r: self.strata.get(r.head.pred, 0))
