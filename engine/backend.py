"""The pyDatalog backend: compiles analysed rules to pyDatalog clauses and evaluates queries in isolation.

pyDatalog keeps one global database per thread. judgelog never hands it rule *text* (``load()`` executes
Python); it builds engine clauses from the syntax tree, with every predicate name mangled to
``j<engine>_<name>`` so that builtins such as ``type`` are never called and several engines share one
database without seeing each other's predicates.

Isolation of states: each state is a Python value (a frozenset of fact tuples). Before any question the
backend *materialises* the asked state in the thread's database by a diff against what is there now, so
consecutive states (an action and the next) cost only their difference, and two states can never see each
other's facts. The database judgelog uses is its own: a user's ``Logic()`` calls in the same thread are
saved and restored around every operation.

Aggregates (``sum``, ``count``, ``min``, ``max`` in a head) are computed by the backend after the facts are
materialised, stratum by stratum, over the distinct bindings of the body, and asserted as facts.

Binding patterns: pyDatalog evaluates a rule body left to right, whatever the call. A rule such as
``blocked_by(A, B) :- band_mate(A, C), blocking(B, C)`` is fast when asked with A known and quadratic when
asked with B known (every band_mate pair is enumerated for each blocker). So every derived predicate is
compiled, on first use and once per thread, in one variant per *binding pattern* it is called with
(``j1_blocked_by@fb@1``: second argument known): the variant's rule bodies are reordered so that checks
(literals whose arguments are all known, negations once their variables are bound) come first, then the
literals with the fewest unknown arguments, otherwise as written. Queries, proofs and aggregates call
these variants. Facts given for a derived predicate live in ``<name>@edb``, bridged into every variant.

Pruning: the last number of a variant's name is its *namespace*. A namespace stands for the states in
which the same fact atoms of the rule bodies (predicate plus constant arguments, e.g.
``name(S, "Trusted Forcemage")``) have no matching fact: the rules such an atom makes impossible, and
the derived predicates left with no possible rule, are omitted, and ``not`` of them is dropped as true.
Counts of the facts per predicate (and per constant at the positions rules test) are kept up to date by
the diff, so finding a state's namespace costs one pass over those atoms; a board pays only for the
rules its facts can trigger. Within a namespace, a call to a derived predicate with one possible rule and
no facts of its own is replaced by that rule's body (unfolding; one subgoal less per call). At most
judgelog.liveness._MAX_NAMESPACES namespaces are kept per thread; the least recently used one's clauses are retracted.
Measurements: docs/performance.md (bench/run.py).
"""

from __future__ import annotations

import itertools
import secrets
from collections import Counter
from collections.abc import Iterable, Sequence
from contextlib import contextmanager

import pyDatalog.pyEngine as _E

from .analysis import Program, bound_after, order_body
from .analysis import ready as _ready
from .ast import Atom, BinOp, Comparison, Const, Negation, Rule, Var, literal_vars
from .bounded import operator_function, take
from .database import _TL, quiet_gc
from .database import our_database as _our_database
from .errors import QueryError, UsageError
from .liveness import Liveness, _Namespace
from .materialise import DELTA, materialise, retract_computed
from .planning import (
    _IMPOSSIBLE,
    _UNFOLD_DEPTH,
    _checked,
    _divisors,
    _fold,
    _literal_terms,
    _pattern,
    _probe,
    _probe_alive,
    _sort_key,
    _unfold,
    _variant_name,
    _why_vars,
)
from .recursion import DEFAULT_LIMITS, Limits, recursive_components
from .widejoins import JoinGuard

__all__ = ["Backend", "Fact", "quiet_gc"]

Fact = tuple  # (pred, arg, ...)

_ENGINE_IDS = itertools.count(1)
_OPS = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_MIRROR = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


class _ThreadView:
    """What one backend has put in one thread's database."""

    __slots__ = (
        "preds",
        "facts",
        "computed",
        "query_ids",
        "fact_preds",
        "variants",
        "pending",
        "edb",
        "counts",
        "ns",
        "ns_dirty",
        "namespaces",
        "namespaces_by_id",
        "materialised",
        "ns_ids",
        "derivations",
        "delta_preds",
        "computed_count",
        "joins",
    )

    def __init__(self) -> None:
        self.preds: dict[str, object] = {}
        self.fact_preds: dict[str, object] = {}  # where a predicate's facts are asserted (see Backend._fact_pred)
        self.facts: frozenset | None = None
        self.computed: set = set()  # facts asserted by judgelog.materialise (aggregates, recursive predicates)
        self.derivations: dict[tuple, tuple] = {}  # recursive fact -> (rule, binding) that first derived it
        self.delta_preds: dict[str, object] = {}
        self.computed_count = 0
        self.joins: tuple | None = None  # (facts, materialised, judgelog.widejoins.StateCheck) of the state now
        self.query_ids = itertools.count(1)
        self.variants: set[tuple] = set()  # (pred or id(rule), pattern, namespace id) compiled in this thread
        self.pending: list[tuple] = []  # variants named but not compiled yet
        self.edb: dict[str, object] = {}  # derived predicate -> its @edb fact predicate
        self.counts: dict = {}  # facts now: pred -> n, and (pred, position, value) -> n for probed positions
        self.ns: _Namespace | None = None  # the namespace of the facts now
        self.namespaces: dict[tuple, _Namespace] = {}
        self.namespaces_by_id: dict[int, _Namespace] = {}
        self.ns_dirty = False  # a fact count reached or left 0 since the namespace was found
        self.ns_ids = itertools.count(1)
        self.materialised = False  # the computed facts match self.facts


class Backend(Liveness):
    """One compiled program. Thread-safe: every thread gets its own materialisation."""

    def __init__(self, program: Program, *, limits: Limits = DEFAULT_LIMITS) -> None:
        self.program = program
        self.limits = limits
        self.id = next(_ENGINE_IDS)
        # unguessable per engine: pyDatalog's resolvers (@pyDatalog.predicate) are process-wide and keyed by
        # name, so a predictable name would let a user's function answer for judgelog's predicates
        self.prefix = f"j{self.id}{secrets.token_hex(6)}_"
        self.why_rules: dict[int, tuple[str, tuple[str, ...]]] = {}  # id(rule) -> (why pred, var names)
        self.aggregates: dict[int, dict[tuple, list[dict]]] = {}  # per view (its id): fact -> contributions
        for index, rule in enumerate(program.rules):
            if rule.body and rule.aggregate is None:
                self.why_rules[id(rule)] = (f"{self.prefix}_why{index}", _why_vars(rule, program))
        # predicates with rules that have a body: called through binding-pattern variants
        # (recursive predicates are computed bottom-up by judgelog.materialise and hold plain facts)
        self._components = recursive_components(program)
        self._recursive = frozenset(p for c in self._components for p in c.preds)
        self._idb = frozenset(r.head.pred for r in program.rules if r.body and r.aggregate is None) - self._recursive
        self._rules_for: dict[str, list[Rule]] = {}
        for rule in program.rules:
            if rule.aggregate is None:
                self._rules_for.setdefault(rule.head.pred, []).append(rule)
        self._rule_by_id = {id(r): r for r in program.rules}
        # constants written in rules name categories (banding, creature, p1p1); others (a query's) objects
        self._rule_consts = frozenset(
            a.value
            for r in program.rules
            for lit in (r.head,) + tuple(r.body)
            for a in _literal_terms(lit)
            if isinstance(a, Const)
        )
        self._unfolds = itertools.count(1)
        # predicates holding facts that come with the rules (bodiless rules) or from aggregates: always alive
        self._static_facts = (
            frozenset(r.head.pred for r in program.rules if not r.body or r.aggregate is not None) | self._recursive
        )
        # probes: the fact atoms of rule bodies (predicate + constant arguments) whose emptiness is checked
        probes: list[tuple] = []
        self._probe_pos: dict[str, set[int]] = {}
        self._rule_info: list[tuple[Rule, tuple, tuple[str, ...]]] = []  # (rule, positive probes, derived preds)
        for rule in program.rules:
            if not rule.body or rule.aggregate is not None:
                continue
            positive, needs = [], []
            for lit in program.body(rule):
                atom = lit.atom if isinstance(lit, Negation) else lit
                if not isinstance(atom, Atom):
                    continue
                if atom.pred in self._idb:
                    if atom is lit and atom.pred not in needs:
                        needs.append(atom.pred)
                    continue
                if atom.pred in self._static_facts:
                    continue
                probe = _probe(atom)
                probes.append(probe)
                for i, _ in probe[1]:
                    self._probe_pos.setdefault(atom.pred, set()).add(i)
                if atom is lit:
                    positive.append(probe)
            self._rule_info.append((rule, tuple(positive), tuple(needs)))
        self._probes = tuple(dict.fromkeys(probes))
        self._probe_set = frozenset(self._probes)
        # aggregates and recursive components, computed in dependency order (judgelog.materialise), again
        # only when a fact of a predicate they (transitively) read changes
        self._agg_rules = program.aggregate_rules()
        order = [((program.strata.get(r.head.pred, 0), 0, 0), r) for r in self._agg_rules]
        order += [((max(program.strata.get(p, 0) for p in c.preds), 1, c.order), c) for c in self._components]
        self.materialise_order = tuple(task for _, task in sorted(order, key=lambda item: item[0]))
        computed_rules = self._agg_rules + [r for c in self._components for r in c.rules]
        deps: set[str] = {r.head.pred for r in computed_rules}
        stack = [
            lit.atom.pred if isinstance(lit, Negation) else lit.pred
            for r in computed_rules
            for lit in r.body
            if isinstance(lit, (Atom, Negation))
        ]
        while stack:
            pred = stack.pop()
            if pred not in deps:
                deps.add(pred)
                stack.extend(
                    lit.atom.pred if isinstance(lit, Negation) else lit.pred
                    for r in program.rules_by_head.get(pred, ())
                    for lit in r.body
                    if isinstance(lit, (Atom, Negation))
                )
        self._agg_deps = frozenset(deps)
        # bodies of unconnected parts that pyDatalog would enumerate: estimated per state (judgelog.widejoins)
        self._joins = JoinGuard(
            (r for r in program.rules if r.aggregate is None and r.head.pred in self._idb), program.body
        )
        self._computed_preds = self._recursive | frozenset(r.head.pred for r in self._agg_rules)
        self._rule_fact_counts: dict[str, int] = {}
        for rule in program.rules:
            if not rule.body and rule.aggregate is None:
                self._rule_fact_counts[rule.head.pred] = self._rule_fact_counts.get(rule.head.pred, 0) + 1
        # derived predicates that may also be given facts (scenario input, aggregates): bridged up front
        self._edb_up_front = frozenset(
            p
            for p in self._idb
            if program.is_input(p) or any(r.aggregate is not None for r in program.rules_by_head.get(p, ()))
        )

    # -- naming --------------------------------------------------------
    def pname(self, pred: str) -> str:
        return self.prefix + pred

    # -- per-thread setup ------------------------------------------------
    def _view(self) -> _ThreadView:
        view = _TL.engines.get(self.id)
        if view is None:
            view = _ThreadView()
            _TL.engines[self.id] = view
            self._install(view)
            view.ns = self._namespace(view)
        return view

    def _install(self, view: _ThreadView) -> None:
        prog = self.program
        for pred, decl in prog.decls.items():
            view.preds[pred] = self._pred(self.pname(pred), decl.arity)
            view.fact_preds[pred] = view.preds[pred]
        for pred in sorted(self._edb_up_front):
            self._fact_pred(view, pred)
        for rule in prog.rules:  # facts written in rule files; rules are compiled as variants, on demand
            if not rule.body and rule.aggregate is None and rule.head.pred not in self._idb:
                _E.assert_(_E.Clause(self._literal(rule.head), []))

    @staticmethod
    def _pred(name: str, arity: int):
        pred = _E.Pred(name, arity)
        pred.prearity = arity
        _E.insert(pred)
        return pred

    def _term(self, term):
        if isinstance(term, Var):
            return _E.Var(term.name)
        if isinstance(term, Const):
            return _E.Const(term.value)
        if isinstance(term, BinOp):
            left, right = self._term(term.left), self._term(term.right)
            if self.limits.int_digits is not None:  # judgelog.bounded: stops at the integer limit (L003)
                function = operator_function(term.op, self.limits.int_digits)
                return _E.Operation(_E.Const(function), "(", _E.VarTuple([left, right]))
            if term.op in ("min", "max"):  # a function of both values: pyDatalog calls it once both are known
                return _E.Operation(_E.Const(min if term.op == "min" else max), "(", _E.VarTuple([left, right]))
            return _E.Operation(left, "//" if term.op == "/" else term.op, right)
        raise TypeError(f"cannot compile term {term!r}")

    def _literal(self, atom: Atom, negated: bool = False):
        name = ("~" if negated else "") + self.pname(atom.pred)
        return _E.Literal(name, [self._term(a) for a in atom.args])

    def _body_literal(self, lit):
        if isinstance(lit, Atom):
            return self._literal(lit)
        if isinstance(lit, Negation):
            return self._literal(lit.atom, negated=True)
        # pyDatalog needs a variable or a constant on the left of a comparison: fold constant sums, put a
        # lone sum on the right, and compare two sums as 0 op (right - left) (integers; both are bound)
        left, right, op = _fold(lit.left), _fold(lit.right), lit.op
        if isinstance(left, BinOp):
            if isinstance(right, BinOp):
                left, right = Const(0), BinOp("-", right, left)
            else:
                left, right, op = right, left, _MIRROR[op]
        return _E.Literal(_OPS[op], [self._term(left), self._term(right)])

    # -- binding-pattern variants and pruning --------------------------------
    def _variant(self, view: _ThreadView, pred: str, pattern: tuple[bool, ...]) -> str:
        """The engine name to call ``pred`` with ``pattern`` known arguments in the current state's
        namespace (compiled before the next ask)."""
        if pred not in self._idb:
            return self.pname(pred)
        key = (pred, pattern, view.ns.id)
        if key not in view.variants:
            view.variants.add(key)
            view.pending.append(key)
        return _variant_name(self.pname(pred), pattern, view.ns.id)

    def _dead(self, view: _ThreadView, atom: Atom, now: bool) -> bool:
        """Can ``atom`` have no instance at all in the current namespace (see _Namespace), or, with ``now``
        (a query, compiled for this state only), in the facts now?"""
        pred = atom.pred
        if pred in self._idb:
            return pred not in view.ns.alive
        if pred in self._static_facts or pred.endswith(DELTA):
            return False
        probe = _probe(atom)
        if probe in self._probe_set:
            return probe in view.ns.dead_probes
        return now and not _probe_alive(view.counts, probe, self._probe_pos)

    def _plan(self, view: _ThreadView, body: Sequence, bound: Iterable[str], now: bool = False) -> list | None:
        """Compile ``body`` for evaluation with ``bound`` variables known: unfolding, order and variants.
        None when a positive literal can have no instance (the body cannot hold). ``now``: a query's body,
        compiled for the facts now rather than for the namespace."""
        bound = set(bound)
        expanded = self._expand(view, body)
        if expanded is None:
            return None
        waiting = list(expanded)
        out = []
        for lit in waiting:
            if isinstance(lit, Atom) and self._dead(view, lit, now):
                return None

        def emit(lit) -> None:
            if isinstance(lit, Comparison):
                for divisor in _divisors(lit.left) + _divisors(lit.right):  # no value when dividing by 0
                    out.append(self._body_literal(Comparison("!=", divisor, Const(0))))
                out.append(self._body_literal(lit))
            elif not (isinstance(lit, Negation) and self._dead(view, lit.atom, now)):  # "not" is true: drop it
                atom = lit.atom if isinstance(lit, Negation) else lit
                name = self._variant(view, atom.pred, _pattern(atom, bound))
                out.append(
                    _E.Literal(("~" if isinstance(lit, Negation) else "") + name, [self._term(a) for a in atom.args])
                )
            bound.update(bound_after([lit], bound))

        while waiting:
            progress = True
            while progress:  # comparisons as soon as their variables are bound
                progress = False
                for lit in list(waiting):
                    if isinstance(lit, Comparison) and _ready(lit, bound):
                        waiting.remove(lit)
                        emit(lit)
                        progress = True
            if not waiting:
                break
            index, best = min(enumerate(waiting), key=lambda item: self._rank(item[1], bound, item[0]))
            if self._rank(best, bound, index)[0] == 9:
                break
            waiting.remove(best)
            emit(best)
        for lit in waiting:  # never ready (an unsafe query): keep pyDatalog's own behaviour, last
            emit(lit)
        return out

    def _rank(self, lit, bound: set[str], index: int) -> tuple:
        """Smallest first: checks (every named argument known) before atoms that bind new variables;
        among those, atoms joined on a known variable, then atoms with only constants known (a constant
        such as ``banding`` selects a category, a known variable one object), then the rest as written;
        within a class, fewest unknown arguments, facts before derived, then as written."""
        if isinstance(lit, Comparison):
            return (9, 0, 0, index)
        if isinstance(lit, Negation):
            return (1, 0, 0, index) if _ready(lit, bound) else (9, 0, 0, index)
        named = {v for v in literal_vars(lit) if not v.startswith("_")}
        unknown = named - bound
        derived = 1 if lit.pred in self._idb else 0
        if not unknown:
            return (derived, 0, 0, index)
        if len(unknown) < len(named) or any(
            isinstance(a, Const) and a.value not in self._rule_consts for a in lit.args
        ):
            return (2, len(unknown), derived, index)  # joined on a known object (a variable or an id)
        if any(isinstance(a, Const) for a in lit.args):
            return (3, len(unknown), derived, index)  # only a constant of the rules known (a category)
        return (4, 0, 0, index)  # nothing known: as written

    def _compile_pending(self, view: _ThreadView) -> None:
        current = view.ns
        try:
            while view.pending:
                key, pattern, ns_id = view.pending.pop()
                view.ns = view.namespaces_by_id[ns_id]
                if isinstance(key, str):
                    self._compile_variant(view, key, pattern)
                else:
                    self._compile_why_variant(view, key, pattern)
        finally:
            view.ns = current

    def _compile_variant(self, view: _ThreadView, pred: str, pattern: tuple[bool, ...]) -> None:
        name = _variant_name(self.pname(pred), pattern, view.ns.id)
        self._pred(name, len(pattern))
        ns = view.ns
        ns.preds.append((name, len(pattern)))
        if pred in view.edb:
            ns.clauses.append(self._bridge(view.edb[pred], name, len(pattern)))
        for rule in self._rules_for.get(pred, ()):
            if rule.body and id(rule) in view.ns.dead_rules:
                continue
            bound = {a.name for a, known in zip(rule.head.args, pattern) if known and isinstance(a, Var)}
            body = self._plan(view, self.program.body(rule), bound) if rule.body else []
            if body is not None:
                ns.clauses.append(
                    _E.assert_(_E.Clause(_E.Literal(name, [self._term(a) for a in rule.head.args]), body))
                )

    def _why_variant(self, view: _ThreadView, rule: Rule, pattern: tuple[bool, ...]) -> str:
        name, _ = self.why_rules[id(rule)]
        key = (id(rule), pattern, view.ns.id)
        if key not in view.variants:
            view.variants.add(key)
            view.pending.append(key)
        return _variant_name(name, pattern, view.ns.id)

    def _compile_why_variant(self, view: _ThreadView, rule_id: int, pattern: tuple[bool, ...]) -> None:
        rule = self._rule_by_id[rule_id]
        name, names = self.why_rules[rule_id]
        vname = _variant_name(name, pattern, view.ns.id)
        self._pred(vname, len(names))
        view.ns.preds.append((vname, len(names)))
        if rule_id in view.ns.dead_rules:
            return
        bound = {n for n, known in zip(names, pattern) if known}
        body = self._plan(view, self.program.body(rule), bound)
        if body is not None:
            view.ns.clauses.append(_E.assert_(_E.Clause(_E.Literal(vname, [_E.Var(n) for n in names]), body)))

    def _fact_pred(self, view: _ThreadView, pred: str):
        """The engine predicate that holds ``pred``'s facts: the predicate itself, or for a derived predicate
        its ``@edb`` predicate, bridged into the plain predicate and into every variant."""
        if pred not in self._idb:
            return view.fact_preds[pred]
        edb = view.edb.get(pred)
        if edb is None:
            arity = self.program.decls[pred].arity
            edb = self._pred(f"{self.pname(pred)}@edb", arity)
            view.edb[pred] = edb
            view.fact_preds[pred] = edb
            self._bridge(edb, self.pname(pred), arity)
            for key in view.variants:
                if key[0] == pred and key not in view.pending:
                    clause = self._bridge(edb, _variant_name(self.pname(pred), key[1], key[2]), arity)
                    view.namespaces_by_id[key[2]].clauses.append(clause)
        return edb

    # -- unfolding -----------------------------------------------------------
    def _single_rule(self, view: _ThreadView, pred: str) -> Rule | None:
        """The one rule that can derive ``pred`` in the current namespace, if ``pred`` has no facts of its
        own there; calls to such a predicate are replaced by the rule's body (one subgoal less per call)."""
        cache = view.ns.single
        if pred in cache:
            return cache[pred]
        rule = None
        if pred in self._idb and pred not in self._static_facts and pred not in view.ns.with_facts:
            live = [r for r in self._rules_for.get(pred, ()) if r.body and id(r) not in view.ns.dead_rules]
            if len(live) == 1 and all(isinstance(a, (Var, Const)) for a in live[0].head.args):
                rule = live[0]
        cache[pred] = rule
        return rule

    def _expand(
        self, view: _ThreadView, body: Sequence, depth: int = 0, chain: frozenset[str] = frozenset()
    ) -> list | None:
        """``body`` with the atoms of single-rule predicates unfolded (positive atoms; negated atoms when the
        rule's body is one positive atom); None when an unfolded atom cannot hold."""
        out: list = []
        for lit in body:
            atom = lit.atom if isinstance(lit, Negation) else lit
            rule = None
            if isinstance(atom, Atom) and depth < _UNFOLD_DEPTH and atom.pred not in chain:
                rule = self._single_rule(view, atom.pred)
            if rule is None:
                out.append(lit)
                continue
            negated = isinstance(lit, Negation)
            inner = _unfold(atom, rule, self.program.body(rule), next(self._unfolds), negated)
            if inner is None:  # not unfoldable here: keep the call
                out.append(lit)
            elif inner is _IMPOSSIBLE:
                if not negated:
                    return None
                # not (an atom that cannot hold): true, dropped
            else:
                inner = [Negation(inner[0])] if negated else inner
                expanded = self._expand(view, inner, depth + 1, chain | {atom.pred})
                if expanded is None:
                    if not negated:
                        return None
                else:
                    out.extend(expanded)
        return out

    @staticmethod
    def _bridge(edb, name: str, arity: int):
        xs = [_E.Var(f"X{i}") for i in range(arity)]
        return _E.assert_(_E.Clause(_E.Literal(name, xs), [_E.Literal(edb, xs)]))

    # -- materialisation -------------------------------------------------
    @contextmanager
    def session(self, facts: frozenset):
        """Make ``facts`` the contents of this backend's predicates for the duration of the block."""
        if _E.Python_resolvers and any(key.startswith(self.prefix) for key in _E.Python_resolvers):
            raise UsageError(
                "a pyDatalog resolver (@pyDatalog.predicate) is registered under one of this "
                "engine's predicate names; judgelog will not let it answer for its rules",
                hint="register resolvers under names of your own",
            )
        with _our_database(), quiet_gc():
            view = self._view()
            if view.facts is not facts or not view.materialised:
                self._sync(view, facts)
            yield view

    def _sync(self, view: _ThreadView, facts: frozenset) -> None:
        old = view.facts if view.facts is not None else frozenset()
        removed = old - facts
        # an equal set (a new frozenset of the same facts) costs one pass: old <= facts and same size
        added = facts - old if len(facts) != len(old) - len(removed) else ()
        view.facts = facts
        if not removed and not added and view.materialised:
            return
        changed = {f[0] for f in removed} | {f[0] for f in added}
        redo = not view.materialised or not changed.isdisjoint(self._agg_deps)
        preds = view.fact_preds
        for pred in {p for p in changed if p in self._idb and p not in view.edb}:
            self._fact_pred(view, pred)
        if redo:
            retract_computed(self, view)
            view.materialised = False
        for fact in removed:
            _E.retract(_E.Clause(_E.Literal(preds[fact[0]], [_E.Const(a) for a in fact[1:]]), []))
            self._count(view, fact, -1)
        for fact in added:
            _E.assert_(_E.Clause(_E.Literal(preds[fact[0]], [_E.Const(a) for a in fact[1:]]), []))
            self._count(view, fact, 1)
        if view.ns_dirty:
            view.ns = self._namespace(view)
            view.ns_dirty = False
        if redo:  # only when a fact they may depend on changed (their results stay otherwise)
            materialise(self, view, facts, self.limits)  # on an error, view.materialised stays False: the
            view.materialised = True  # next question retracts the partial results and computes them again

    def aggregate_contributions(self, view: _ThreadView, fact: Fact) -> list[dict]:
        return self.aggregates.get(id(view), {}).get(fact, [])

    def aggregate_facts(self, view: _ThreadView, rule: Rule) -> set[Fact]:
        """The facts an aggregate rule derives in the materialised state."""
        return {
            f
            for f, contributions in self.aggregates.get(id(view), {}).items()
            if any(c.get("__rule__") is rule for c in contributions)
        }

    @staticmethod
    def derivation(view: _ThreadView, fact: Fact) -> tuple[Rule, dict] | None:
        """The rule and body binding that first derived a fact of a recursive predicate."""
        return view.derivations.get(fact)

    # -- asking ----------------------------------------------------------
    def _check_joins(self, view: _ThreadView, body: Sequence = (), preds: Sequence[str] = ()) -> None:
        """Refuse (L004) a question whose body, or a rule it may reach, would enumerate more combinations
        of unconnected parts than the limit (judgelog.widejoins)."""
        limit = self.limits.join_combinations
        if limit is None:
            return
        # once per state, and once more when its computed facts are complete (during judgelog's fixpoints,
        # the sizes of what they compute stay those of the round the check was made in: never larger)
        key = (view.facts, view.materialised)
        if view.joins is None or view.joins[0] is not key[0] or view.joins[1] != key[1]:
            counts = Counter(f[0] for f in view.computed)
            rule_facts = self._rule_fact_counts

            def facts(atom: Atom) -> int:
                pred, known = atom.pred, view.counts
                given = known.get(pred, 0)
                for i in self._probe_pos.get(pred, ()):  # the facts with the atom's constant, where counted
                    if i < len(atom.args) and isinstance(atom.args[i], Const):
                        given = min(given, known.get((pred, i, atom.args[i].value), 0))
                return given + counts.get(pred, 0) + rule_facts.get(pred, 0)

            dead = view.ns.dead_rules if view.ns is not None else ()
            view.joins = (key[0], key[1], self._joins.for_state(facts, self._computed_preds, limit, dead))
        atoms = [lit.atom if isinstance(lit, Negation) else lit for lit in body]
        view.joins[2].check(
            list(preds) + [a.pred for a in atoms if isinstance(a, Atom)],
            body=body,
        )

    def _ask_body(self, view: _ThreadView, body: Sequence, names: Sequence[str]) -> list[tuple]:
        """All distinct bindings of ``names`` satisfying ``body`` (already in evaluation order)."""
        self._check_joins(view, body)
        qname = f"{self.prefix}_q{next(view.query_ids)}"
        self._pred(qname, len(names))
        head = _E.Literal(qname, [_E.Var(n) for n in names])
        planned = self._plan(view, body, (), now=True)
        if planned is None:  # a positive literal cannot hold in this state
            return []
        clause = _E.Clause(head, planned)
        self._compile_pending(view)
        _E.assert_(clause)
        try:
            result = _ask(head)
        finally:
            _E.retract(clause)
            _E.remove(_E.Pred(qname, len(names)))
        if result is True or result is None:
            return []
        return _checked([tuple(row) for row in result])

    def ask(self, view: _ThreadView, body: Sequence, names: Sequence[str]) -> list[tuple]:
        ordered, _ = order_body(body)
        return sorted(set(self._ask_body(view, ordered, names)), key=_sort_key)

    def holds(self, view: _ThreadView, atom: Atom) -> bool:
        """Is an atom (constants, possibly anonymous variables) true?"""
        return bool(self.ask_atom(view, atom))

    def ask_atom(self, view: _ThreadView, atom: Atom) -> list[tuple]:
        """Rows of full argument tuples matching ``atom`` (constants and variables)."""
        if self._dead(view, atom, True):
            return []
        self._check_joins(view, preds=[atom.pred])
        name = self._variant(view, atom.pred, _pattern(atom, set()))
        self._compile_pending(view)
        result = _ask(_E.Literal(name, [self._term(a) for a in atom.args]))
        if not result or result is True:
            return []
        return sorted(set(tuple(r) for r in result), key=_sort_key)

    def why_rows(self, view: _ThreadView, rule: Rule, fixed: dict[str, object], limit: int = 64) -> list[dict]:
        """Bindings of all of ``rule``'s body variables given some of them (for proofs)."""
        _, names = self.why_rules[id(rule)]
        self._check_joins(view, self.program.body(rule))
        name = self._why_variant(view, rule, tuple(n in fixed for n in names))
        self._compile_pending(view)
        terms = [_E.Const(fixed[n]) if n in fixed else _E.Var(n) for n in names]
        result = _ask(_E.Literal(name, terms))
        if not result or result is True:
            return []
        rows = sorted(set(tuple(r) for r in result), key=_sort_key)[:limit]
        return [dict(zip(names, row)) for row in rows]


def _ask(literal):
    """pyDatalog's answer to a literal; a comparison of a word with a number is the user's error, an integer
    beyond the limit stops the question (judgelog.bounded)."""
    take()
    try:
        result = literal.ask()
    except TypeError as exc:  # pyDatalog compares a word with a number
        limit = take()
        if limit is not None:
            raise limit from None
        raise QueryError(
            f"a comparison mixes numbers and words ({exc})",
            hint="compare numbers with numbers; check the arguments given",
        ) from None
    limit = take()
    if limit is not None:
        raise limit
    return result
