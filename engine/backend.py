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
"""
from __future__ import annotations

import gc
import itertools
import threading
from contextlib import contextmanager
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

import pyDatalog.pyEngine as _E
from pyDatalog import Logic as _Logic

from .analysis import Program, bound_after, order_body
from .ast import Aggregate, Atom, BinOp, Comparison, Const, Negation, Rule, Var, literal_vars, term_vars
from .errors import QueryError

__all__ = ["Backend", "Fact", "quiet_gc"]

Fact = Tuple  # (pred, arg, ...)

_ENGINE_IDS = itertools.count(1)
_TL = threading.local()  # .logic: judgelog's own pyDatalog database for this thread; .engines: per backend
_OPS = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


@contextmanager
def quiet_gc():
    """Disable Python's cyclic GC around evaluation (most of pyDatalog's time on large boards is GC)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def _our_database():
    """Install judgelog's pyDatalog database for this thread, restoring the caller's afterwards."""
    previous = getattr(_Logic.tl, "logic", None)
    ours = getattr(_TL, "logic", None)
    if ours is None:
        if previous is None:
            # judgelog is first in this thread: give the user an empty database of their own, so that
            # pyDatalog calls made afterwards without Logic() do not land in judgelog's database
            _Logic()
            previous = _Logic.tl.logic
        _Logic()  # a new, empty database for this thread (also sets up the engine's thread state)
        ours = _Logic.tl.logic
        _TL.logic = ours
        _TL.engines = {}
    elif previous is not ours:
        _Logic.tl.logic = ours
    try:
        yield
    finally:
        if previous is not None and previous is not ours:
            _Logic.tl.logic = previous


class _ThreadView:
    """What one backend has put in one thread's database."""

    __slots__ = ("preds", "facts", "agg_facts", "query_ids")

    def __init__(self):
        self.preds: Dict[str, object] = {}
        self.facts: Optional[FrozenSet] = None
        self.agg_facts: Set = set()
        self.query_ids = itertools.count(1)


class Backend:
    """One compiled program. Thread-safe: every thread gets its own materialisation."""

    def __init__(self, program: Program):
        self.program = program
        self.id = next(_ENGINE_IDS)
        self.prefix = f"j{self.id}_"
        self.why_rules: Dict[int, Tuple[str, Tuple[str, ...]]] = {}  # id(rule) -> (why pred, var names)
        self.aggregates: Dict[Tuple, Dict[Tuple, List[Dict]]] = {}  # per state key: fact -> contributions
        for index, rule in enumerate(program.rules):
            if rule.body and rule.aggregate is None:
                self.why_rules[id(rule)] = (f"{self.prefix}_why{index}", _why_vars(rule, program))

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
        return view

    def _install(self, view: _ThreadView) -> None:
        prog = self.program
        for pred, decl in prog.decls.items():
            view.preds[pred] = self._pred(self.pname(pred), decl.arity)
        for rule in prog.rules:
            if rule.aggregate is not None:
                continue
            head = self._literal(rule.head)
            body = [self._body_literal(lit) for lit in prog.body(rule)]
            _E.assert_(_E.Clause(head, body))
            why = self.why_rules.get(id(rule))
            if why is not None:
                name, names = why
                self._pred(name, len(names))
                _E.assert_(_E.Clause(_E.Literal(name, [_E.Var(n) for n in names]), body))

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
            return _E.Operation(self._term(term.left), term.op, self._term(term.right))
        raise TypeError(f"cannot compile term {term!r}")

    def _literal(self, atom: Atom, negated: bool = False):
        name = ("~" if negated else "") + self.pname(atom.pred)
        return _E.Literal(name, [self._term(a) for a in atom.args])

    def _body_literal(self, lit):
        if isinstance(lit, Atom):
            return self._literal(lit)
        if isinstance(lit, Negation):
            return self._literal(lit.atom, negated=True)
        return _E.Literal(_OPS[lit.op], [self._term(lit.left), self._term(lit.right)])

    # -- materialisation -------------------------------------------------
    @contextmanager
    def session(self, facts: FrozenSet):
        """Make ``facts`` the contents of this backend's predicates for the duration of the block."""
        with _our_database(), quiet_gc():
            view = self._view()
            if view.facts is not facts:
                self._sync(view, facts)
            yield view

    def _sync(self, view: _ThreadView, facts: FrozenSet) -> None:
        old = view.facts if view.facts is not None else frozenset()
        preds = view.preds
        for fact in view.agg_facts:
            _E.retract(_E.Clause(_E.Literal(preds[fact[0]], [_E.Const(a) for a in fact[1:]]), []))
        view.agg_facts = set()
        for fact in old - facts:
            _E.retract(_E.Clause(_E.Literal(preds[fact[0]], [_E.Const(a) for a in fact[1:]]), []))
        for fact in facts - old:
            _E.assert_(_E.Clause(_E.Literal(preds[fact[0]], [_E.Const(a) for a in fact[1:]]), []))
        view.facts = facts
        self._compute_aggregates(view, facts)

    def _compute_aggregates(self, view: _ThreadView, facts: FrozenSet) -> None:
        rules = self.program.aggregate_rules()
        contributions: Dict[Tuple, List[Dict]] = {}
        for rule in rules:
            agg = rule.aggregate
            body = self.program.body(rule)
            names = sorted(bound_after(body, set()))
            rows = self._ask_body(view, body, names)
            groups: Dict[Tuple, List[Dict]] = {}
            for row in rows:
                binding = dict(zip(names, row))
                key = tuple(binding[a.name] if isinstance(a, Var) else a.value
                            for a in rule.head.args if not isinstance(a, Aggregate))
                groups.setdefault(key, []).append(binding)
            for key, bindings in groups.items():
                value = _aggregate(agg, bindings)
                it = iter(key)
                args = tuple(value if isinstance(a, Aggregate) else next(it) for a in rule.head.args)
                fact = (rule.head.pred,) + args
                if fact in view.agg_facts or fact in facts:
                    contributions.setdefault(fact, []).extend(bindings)
                    continue
                _E.assert_(_E.Clause(_E.Literal(view.preds[rule.head.pred], [_E.Const(a) for a in args]), []))
                view.agg_facts.add(fact)
                contributions[fact] = [dict(b, __rule__=rule) for b in bindings]
        self.aggregates[id(view)] = contributions

    def aggregate_contributions(self, view: _ThreadView, fact: Fact) -> List[Dict]:
        return self.aggregates.get(id(view), {}).get(fact, [])

    # -- asking ----------------------------------------------------------
    def _ask_body(self, view: _ThreadView, body: Sequence, names: Sequence[str]) -> List[Tuple]:
        """All distinct bindings of ``names`` satisfying ``body`` (already in evaluation order)."""
        qname = f"{self.prefix}_q{next(view.query_ids)}"
        self._pred(qname, len(names))
        head = _E.Literal(qname, [_E.Var(n) for n in names])
        clause = _E.Clause(head, [self._body_literal(lit) for lit in body])
        _E.assert_(clause)
        try:
            result = head.ask()
        except TypeError as exc:  # pyDatalog compares a word with a number
            raise QueryError(f"a comparison mixes numbers and words ({exc})",
                             hint="compare numbers with numbers; check the arguments given") from None
        finally:
            _E.retract(clause)
            _E.remove(_E.Pred(qname, len(names)))
        if result is True or result is None:
            return []
        return [tuple(row) for row in result]

    def ask(self, view: _ThreadView, body: Sequence, names: Sequence[str]) -> List[Tuple]:
        ordered, _ = order_body(body)
        return sorted(set(self._ask_body(view, ordered, names)), key=_sort_key)

    def holds(self, view: _ThreadView, atom: Atom) -> bool:
        """Is an atom (constants, possibly anonymous variables) true?"""
        return bool(self.ask_atom(view, atom))

    def ask_atom(self, view: _ThreadView, atom: Atom) -> List[Tuple]:
        """Rows of full argument tuples matching ``atom`` (constants and variables)."""
        result = self._literal(atom).ask()
        if not result or result is True:
            return []
        return sorted(set(tuple(r) for r in result), key=_sort_key)

    def why_rows(self, view: _ThreadView, rule: Rule, fixed: Dict[str, object], limit: int = 64) -> List[Dict]:
        """Bindings of all of ``rule``'s body variables given some of them (for proofs)."""
        name, names = self.why_rules[id(rule)]
        terms = [_E.Const(fixed[n]) if n in fixed else _E.Var(n) for n in names]
        result = _E.Literal(name, terms).ask()
        if not result or result is True:
            return []
        rows = sorted(set(tuple(r) for r in result), key=_sort_key)[:limit]
        return [dict(zip(names, row)) for row in rows]


def _why_vars(rule: Rule, program: Program) -> Tuple[str, ...]:
    body = program.body(rule)
    bound = bound_after(body, set())
    ordered = []
    for lit in body:
        for name in sorted(literal_vars(lit)):
            if name in bound and name not in ordered:
                ordered.append(name)
    return tuple(ordered)


def _aggregate(agg: Aggregate, bindings: List[Dict]):
    if agg.func == "count":
        return len(bindings)
    values = [b[agg.var.name] for b in bindings]
    if agg.func == "sum":
        return sum(v for v in values if isinstance(v, int))
    if agg.func == "min":
        return min(values, key=_value_key)
    return max(values, key=_value_key)


def _value_key(value):
    return (0, value, "") if isinstance(value, int) else (1, 0, str(value))


def _sort_key(row):
    return tuple(_value_key(v) for v in row)
