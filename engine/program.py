"""An analysed rule program, and its one predicate dependency graph.

:class:`Program` holds the declarations, the rules and what analysis derived from them (strata of negation,
bodies in evaluation order). Its :attr:`~Program.graph` is a networkx ``DiGraph`` with an edge
``body_pred -> head_pred`` for every predicate a rule reads; an edge is ``negative`` when some rule reads it
under ``not`` or in an aggregate, and ``positive`` when some rule without an aggregate reads it as a plain
atom. Analysis (strata, negation cycles), recursion (recursive components), the backend (what computed
facts depend on) and the audit read this one graph.

What evaluation needs of the graph (which predicates each one reads, which read it, the components of its
positive edges) is also kept as plain data, filled in by analysis and saved with the program in the library
cache (judgelog.cache): a process that starts from the cache answers questions without importing networkx.

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

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, TypeVar, cast

from .ast import Atom, BinOp, Comparison, Const, Decl, Literal, Negation, Rule, RuleFile, Term
from .words import KEYWORD_TYPE

if TYPE_CHECKING:
    import networkx as nx

_T = TypeVar("_T")

__all__ = ["Program", "GraphIndex", "dependency_graph", "rule_graph", "predicate_graph", "rule_node", "components"]


def rule_node(rule: Rule, index: int) -> str:
    """The node of a rule in :func:`rule_graph`: ``rule:NAME``, or ``rule:#i`` for an unnamed rule (``i``: its
    place among the rules with a body)."""
    return f"rule:{rule.name or f'#{index}'}"


def rule_graph(rules: Iterable[Rule]) -> nx.DiGraph:
    """Predicates and the rules with a body, as one graph: ``pred -> rule`` for every atom the rule reads
    (``kind`` body; ``negative`` when it reads it under ``not``, ``positive`` when it reads it as a plain atom,
    ``aggregate`` when the rule is an aggregate) and ``rule -> head`` (``kind`` head). Every rule node keeps
    its ``rule``; the heads of bodiless facts are nodes too."""
    import networkx as nx  # imported when a graph is built: a start from the library cache needs none

    graph = nx.DiGraph()
    index = 0
    for rule in rules:
        head = rule.head.pred
        graph.add_node(head, kind="predicate")
        if not rule.body:
            continue
        node = rule_node(rule, index)
        if node in graph:  # a duplicate @name (an error analysis reports): a node of its own all the same
            node = f"{node}#{index}"
        index += 1
        graph.add_node(node, kind="rule", rule=rule)
        graph.add_edge(node, head, kind="head")
        for lit in rule.body:
            if not isinstance(lit, (Atom, Negation)):
                continue
            atom = lit.atom if isinstance(lit, Negation) else lit
            graph.add_node(atom.pred, kind="predicate")
            negated = isinstance(lit, Negation)
            edge = graph.get_edge_data(atom.pred, node, {"negative": False, "positive": False})
            graph.add_edge(
                atom.pred,
                node,
                kind="body",
                negative=edge["negative"] or negated,
                positive=edge["positive"] or not negated,
                aggregate=rule.aggregate is not None,
            )
    return graph


def dependency_graph(rules: Iterable[Rule]) -> nx.DiGraph:
    """``body_pred -> head_pred`` for every predicate a rule reads (see the module's text): the projection of
    :func:`rule_graph` on its predicates."""
    return predicate_graph(rule_graph(rules))


def predicate_graph(rules: nx.DiGraph) -> nx.DiGraph:
    """The projection of a :func:`rule_graph` on its predicates."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(n for n, kind in rules.nodes(data="kind") if kind == "predicate")
    for node, kind in rules.nodes(data="kind"):
        if kind != "rule":
            continue
        (head,) = rules.successors(node)
        for pred, _, data in rules.in_edges(node, data=True):
            # an aggregate's inputs must be complete before it is counted: like negation, for stratification
            negative = data["negative"] or data["aggregate"]
            positive = data["positive"] and not data["aggregate"]
            edge = graph.get_edge_data(pred, head, {"negative": False, "positive": False})
            graph.add_edge(pred, head, negative=edge["negative"] or negative, positive=edge["positive"] or positive)
    return graph


def components(graph: nx.DiGraph) -> list[frozenset[str]]:
    """The strongly connected components of ``graph``, dependencies first (ties: by their smallest node, so
    the order never depends on hashing)."""
    import networkx as nx

    condensed = nx.condensation(graph)
    members = nx.get_node_attributes(condensed, "members")
    order = nx.lexicographical_topological_sort(condensed, key=lambda c: min(members[c]))
    return [frozenset(members[c]) for c in order]


@dataclass(frozen=True)
class GraphIndex:
    """What evaluation reads of a program's dependency graph, as plain data (no networkx needed to use it):
    ``reads``: predicate -> the predicates its rules read; ``readers``: predicate -> the predicates whose
    rules read it (sorted); ``positive_components``: the recursive components of the graph's positive
    edges (more than one predicate, or one that reads itself), dependencies first (as :func:`components`)."""

    reads: dict[str, frozenset[str]]
    readers: dict[str, tuple[str, ...]]
    positive_components: tuple[frozenset[str], ...]

    @classmethod
    def of(cls, graph: nx.DiGraph) -> GraphIndex:
        positive = graph.__class__()
        positive.add_nodes_from(graph)
        positive.add_edges_from((u, v) for u, v, on in graph.edges(data="positive") if on)
        loops = {u for u, v in positive.edges if u == v}
        return cls(
            reads={pred: frozenset(graph.predecessors(pred)) for pred in graph},
            readers={pred: tuple(sorted(graph.successors(pred))) for pred in graph},
            positive_components=tuple(c for c in components(positive) if len(c) > 1 or c & loops),
        )


@dataclass(frozen=True)
class _Constants:
    """The constants of a program's rules (:meth:`Program.constants`; kept_in_cache: saved with it)."""

    words: frozenset[str]
    kept_in_cache: ClassVar[bool] = True


def _term_constants(term: Term, out: set[object]) -> None:
    if isinstance(term, Const):
        out.add(term.value)
    elif isinstance(term, BinOp):
        _term_constants(term.left, out)
        _term_constants(term.right, out)


def _literal_constants(lit: Literal, out: set[object]) -> None:
    if isinstance(lit, Negation):
        lit = lit.atom
    if isinstance(lit, Atom):
        for arg in lit.args:
            _term_constants(arg, out)
    elif isinstance(lit, Comparison):
        _term_constants(lit.left, out)
        _term_constants(lit.right, out)


def _rule_constants(rules: Iterable[Rule]) -> frozenset[str]:
    out: set[object] = set()
    for rule in rules:
        out.update(([rule.name] if rule.name else []) + list(rule.cites))
        _literal_constants(rule.head, out)
        for lit in rule.body:
            _literal_constants(lit, out)
    return frozenset(v for v in out if isinstance(v, str))


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
    # what other modules read from the program once and keep with it, by name (the interface its facts
    # declare: judgelog.interface.interface_of); this module knows none of their types
    memo: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    _rule_graph: nx.DiGraph | None = field(default=None, compare=False, repr=False)
    _graph: nx.DiGraph | None = field(default=None, compare=False, repr=False)
    _fact_rules: dict[tuple, Rule] | None = field(default=None, compare=False, repr=False)
    _index: GraphIndex | None = field(default=None, compare=False, repr=False)
    _facts_by_pred: dict[str, list[tuple]] | None = field(default=None, compare=False, repr=False)

    def constants(self) -> frozenset[str]:
        """Every string constant written in the rules and declarations (the rules' names and CR numbers too,
        which event_cause/2 names), kept with the program and in the library's cache entry."""
        return self.kept("constants", lambda: _Constants(_rule_constants(self.rules))).words

    def kept(self, name: str, make: Callable[[], _T]) -> _T:
        """What a module keeps with the program under ``name`` (in :attr:`memo`), made the first time."""
        found = self.memo.get(name)
        if found is None:
            found = self.memo[name] = make()
        return cast(_T, found)

    def decl(self, pred: str) -> Decl | None:
        return self.decls.get(pred)

    def keyword_args(self, literals: Iterable) -> Iterator[Const]:
        """The constants ``literals`` (atoms, negations) write in an argument their predicate declares with the
        type ``keyword`` (``has_keyword(X, flying)``: ``flying``)."""
        for lit in literals:
            atom = lit.atom if isinstance(lit, Negation) else lit
            if not isinstance(atom, Atom):
                continue
            decl = self.decl(atom.pred)
            if decl is None or decl.arity != atom.arity:
                continue
            for param, arg in zip(decl.params, atom.args):
                if param.type == KEYWORD_TYPE and isinstance(arg, Const) and isinstance(arg.value, str):
                    yield arg

    def is_input(self, pred: str) -> bool:
        decl = self.decls.get(pred)
        return bool(decl and decl.is_input)

    def derived(self, pred: str) -> bool:
        return pred in self.rules_by_head

    def body(self, rule: Rule) -> tuple:
        return self.ordered_bodies.get(id(rule), rule.body)

    @property
    def rule_graph(self) -> nx.DiGraph:
        """Predicates and rules (built once; see :func:`rule_graph`): what the audit draws."""
        if self._rule_graph is None:
            self._rule_graph = rule_graph(self.rules)
        return self._rule_graph

    @property
    def graph(self) -> nx.DiGraph:
        """The predicate dependency graph of the rules: :attr:`rule_graph` projected on its predicates (built
        once; see the module's text)."""
        if self._graph is None:
            self._graph = predicate_graph(self.rule_graph)
        return self._graph

    @property
    def fact_rules(self) -> dict[tuple, Rule]:
        """The ground facts the rule files state (bodiless rules), each with the first rule stating it."""
        if self._fact_rules is None:
            facts: dict[tuple, Rule] = {}
            for rule in self.rules:
                values = tuple(a.value for a in rule.head.args if isinstance(a, Const))
                if not rule.body and len(values) == len(rule.head.args):
                    facts.setdefault((rule.head.pred,) + values, rule)
            self._fact_rules = facts
        return self._fact_rules

    def ground_facts(self, pred: str) -> list[tuple]:
        """The values of the ground facts of ``pred`` the rule files state, each once, in the order of
        their ``repr``."""
        if self._facts_by_pred is None:
            by_pred: dict[str, list[tuple]] = {}
            for fact in self.fact_rules:
                by_pred.setdefault(fact[0], []).append(fact[1:])
            self._facts_by_pred = {p: sorted(values, key=repr) for p, values in by_pred.items()}
        return self._facts_by_pred.get(pred, [])

    @property
    def index(self) -> GraphIndex:
        """What evaluation reads of :attr:`graph`, as plain data (built once, kept in the library cache)."""
        if self._index is None:
            self._index = GraphIndex.of(self.graph)
        return self._index

    def components(self) -> list[frozenset[str]]:
        """The strongly connected components of :attr:`graph`, dependencies first."""
        return components(self.graph)

    def dependencies(self, preds: Iterable[str]) -> set[str]:
        """``preds`` and every predicate they depend on, through any rule."""
        reads = self.index.reads
        out = set(preds)
        todo = [p for p in out if p in reads]
        while todo:
            for dep in reads[todo.pop()]:
                if dep not in out:
                    out.add(dep)
                    todo.append(dep)
        return out

    def __getstate__(self) -> dict:
        # ids do not survive pickling (the library cache): keep the ordered bodies by the rule's position,
        # or an unpickled rule could find the body of another rule that once had its id; the graphs are
        # built again when they are needed (loading one would import networkx), their index is kept
        self.index  # noqa: B018 - built now, so that it is saved
        state = dict(self.__dict__)
        state["ordered_bodies"] = {
            i: self.ordered_bodies[id(r)] for i, r in enumerate(self.rules) if id(r) in self.ordered_bodies
        }
        state["_graph"] = state["_rule_graph"] = state["_fact_rules"] = state["_facts_by_pred"] = None
        # what other modules keep with the program may hold rule ids: made again, unless its class says it
        # is saved with the program (kept_in_cache: it pickles what it keys by rule ids by rule)
        state["memo"] = {k: v for k, v in self.memo.items() if getattr(type(v), "kept_in_cache", False)}
        return state

    def __setstate__(self, state: dict) -> None:
        bodies = state.pop("ordered_bodies", {})
        self.__dict__.update(state)
        self.ordered_bodies = {id(self.rules[i]): body for i, body in bodies.items()}

    def aggregate_rules(self) -> list[Rule]:
        """Rules with an aggregate head, in an order where each one's inputs come first."""
        rules = [r for r in self.rules if r.aggregate is not None]
        return sorted(rules, key=lambda r: self.strata.get(r.head.pred, 0))
