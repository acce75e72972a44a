"""Facts the backend computes itself after a state's facts are in place: head aggregates and recursive
components, in dependency order, asserted into pyDatalog as plain facts.

Aggregates (``sum``, ``count``, ``min``, ``max`` in a head) are computed over the distinct bindings of the
body. A recursive component (judgelog.recursion) is evaluated bottom-up by a *semi-naive fixpoint*: every
rule once over the facts known, then, round after round, each rule with one recursive atom read from the
facts new in the last round (a ``@delta`` predicate) until a round finds nothing new. Each body is a
non-recursive question by then: an aggregate's body and a component's first round are asked set-at-a-time
where the backend can plan them (judgelog.setwise: one pass per body, where pyDatalog would make a subgoal
and a table for every value a derived atom under it is called with), a delta round is asked of pyDatalog,
which holds the last round's facts. The result is the same whatever the literal order, and evaluation
ends on finite facts unless arithmetic makes new values for ever, which
:class:`~judgelog.recursion.Limits` bound. Each derived fact keeps the rule and the body binding that first
derived it: proofs follow these *first derivations*, which never go round a cycle, so explaining a long
chain costs one step per link.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping, Sequence, Set
from typing import TYPE_CHECKING, Any, Protocol

import pyDatalog.pyEngine as _E

from .analysis import bound_after
from .ast import Aggregate, Atom, BinOp, Const, Literal, Rule, Term, Var
from .clauses import fact_clause, new_pred
from .codes import L001, L002, L003
from .errors import QueryError
from .incremental import WILD, Affected
from .planning import Contributions, aggregate_value, group_by_head, row_sort_key, why_vars
from .recursion import Component, LimitError, Limits
from .restrict import binding_literals

if TYPE_CHECKING:  # pragma: no cover
    from .program import Program
    from .threadview import ThreadView

__all__ = ["materialise", "retract_computed", "retract_affected", "DELTA", "Store"]

DELTA = "@delta"  # suffix of the predicate holding a recursive predicate's facts new in the last round


class Store(Protocol):
    """What materialisation needs of the backend it computes for (judgelog.backend.Backend, which imports
    this module): the program and the order of its computed predicates, where a predicate's facts are
    asserted, how a body is asked, and the aggregates' contributions it keeps per view."""

    program: Program
    aggregates: dict[int, dict[tuple, Contributions]]

    @property
    def materialise_order(self) -> tuple[Rule | Component, ...]: ...

    @property
    def count_positions(self) -> Mapping[str, Collection[int]]: ...  # pred -> positions whose values are counted

    def pname(self, pred: str) -> str: ...

    def fact_pred(self, view: ThreadView, pred: str) -> Any: ...

    def ask_body(self, view: ThreadView, body: Sequence, names: Sequence[str]) -> list[tuple]: ...

    def ask_computing(self, view: ThreadView, body: Sequence, names: Sequence[str]) -> list[tuple]: ...


def materialise(
    backend: Store, view: ThreadView, facts: frozenset, limits: Limits, only: Affected | None = None
) -> None:
    """Compute (and assert) the aggregate facts and the recursive components for ``facts``, in order.
    ``only``: recompute just the facts matching these affected patterns (judgelog.incremental), the
    others being still in place from the previous facts (see :func:`retract_affected`)."""
    view.computed_count = 0
    deadline = None if limits.seconds is None else time.monotonic() + limits.seconds
    if only is None:
        contributions: dict[tuple, Contributions] = {}
        backend.aggregates[id(view)] = contributions
    else:
        contributions = backend.aggregates.setdefault(id(view), {})
    # an aggregate rule that cannot fire in the state's namespace (judgelog.liveness) derives nothing: it is
    # not asked (most of a board's aggregate rules are another keyword's)
    dead = view.ns.dead_rules if view.ns is not None else frozenset()
    for task in backend.materialise_order:
        heads = task.preds if isinstance(task, Component) else (task.head.pred,)
        if only is not None and not any(only.touches(p) for p in heads):
            continue
        if isinstance(task, Component):
            _fixpoint(backend, view, facts, task, limits, deadline, only)
        elif id(task) not in dead:
            _aggregate_rule(backend, view, facts, task, contributions, limits, only)


def retract_computed(backend: Store, view: ThreadView) -> None:
    preds = view.fact_preds
    for fact in view.computed:
        _E.retract(fact_clause(preds[fact[0]], fact))
    view.computed = set()
    view.computed_by = {}
    view.computed_counts = {}
    view.derivations = {}
    backend.aggregates.pop(id(view), None)


def retract_affected(backend: Store, view: ThreadView, only: Affected, *, given: Collection[str] = ()) -> None:
    """Retract the computed facts that match an affected pattern (they are computed again by
    ``materialise(..., only=only)``), with their derivations and aggregate contributions. ``given``: the
    predicates that had given facts before the change (the counts may be the new ones already)."""
    preds = view.fact_preds
    contributions = backend.aggregates.get(id(view), {})
    for pred in only.preds():
        gone: set[tuple] = set()
        by_first = view.computed_by.get(pred, {})
        if only.whole(pred):
            for fs in by_first.values():
                gone |= fs
        else:
            for pattern in only.patterns(pred):
                if pattern and pattern[0] is not WILD:
                    candidates = by_first.get(pattern[0], ())
                else:
                    candidates = {f for fs in by_first.values() for f in fs}
                gone.update(f for f in candidates if only.matches(f))
        # facts of the predicate given as input may have contributions too
        if view.counts.get(pred, 0) or pred in given:
            gone_too = [f for f in contributions if f[0] == pred and only.matches(f)]
        else:
            gone_too = [f for f in gone if f in contributions]
        for fact in gone_too:
            del contributions[fact]
        for fact in gone:
            _E.retract(fact_clause(preds[fact[0]], fact))
            view.computed.discard(fact)
            _count(backend, view, fact, -1)
            by_first[fact[1] if len(fact) > 1 else None].discard(fact)
            view.derivations.pop(fact, None)


def _count(backend: Store, view: ThreadView, fact: tuple, delta: int) -> None:
    """Keep the computed facts counted by predicate, and by value at the positions the backend counts
    (judgelog.widejoins sizes an atom with constants by them)."""
    counts = view.computed_counts
    counts[fact[0]] = counts.get(fact[0], 0) + delta
    for i in backend.count_positions.get(fact[0], ()):
        if i + 1 < len(fact):
            key = (fact[0], i, fact[i + 1])
            counts[key] = counts.get(key, 0) + delta


def _assert(backend: Store, view: ThreadView, fact: tuple) -> None:
    target = backend.fact_pred(view, fact[0])
    _E.assert_(fact_clause(target, fact))
    if fact not in view.computed:
        view.computed.add(fact)
        _count(backend, view, fact, 1)
        if view.setwise is not None:  # the set-at-a-time indexes made so far hold it too
            view.setwise.computed(fact)
    view.computed_by.setdefault(fact[0], {}).setdefault(fact[1] if len(fact) > 1 else None, set()).add(fact)


def _aggregate_rule(
    backend: Store,
    view: ThreadView,
    facts: frozenset,
    rule: Rule,
    contributions: dict[tuple, Contributions],
    limits: Limits,
    only: Affected | None = None,
) -> None:
    agg = rule.aggregate
    assert agg is not None  # materialise_order holds components and aggregate rules
    body = backend.program.body(rule)
    names = sorted(bound_after(body, set()))
    if only is None or only.whole(rule.head.pred):
        found = set(backend.ask_computing(view, body, names))
    else:  # only the groups an affected pattern names (the others are in place)
        found = set()
        for pattern in only.patterns(rule.head.pred):
            fixed = binding_literals(rule.head, pattern)
            if fixed is not None:
                found.update(backend.ask_computing(view, tuple(fixed) + tuple(body), names))
    rows = sorted(found, key=row_sort_key)  # proofs list them in order
    for key, bindings in group_by_head(rule, names, rows).items():
        value = aggregate_value(agg, bindings)
        _check_value(value, rule, limits)
        it = iter(key)
        args = tuple(value if isinstance(a, Aggregate) else next(it) for a in rule.head.args)
        fact = (rule.head.pred,) + args
        if fact in view.computed or fact in facts:
            contributions.setdefault(fact, Contributions(None, [])).bindings.extend(bindings)
            continue
        _assert(backend, view, fact)
        contributions[fact] = Contributions(rule, list(bindings))


def _fixpoint(
    backend: Store,
    view: ThreadView,
    facts: frozenset,
    comp: Component,
    limits: Limits,
    deadline: float | None,
    only: Affected | None = None,
) -> None:
    """Semi-naive evaluation of one component. With ``only``, the facts matching no affected pattern are
    in place and closed under the rules; the first round derives just the affected ones (each rule with
    its head bound to a pattern), and the delta rounds go on from them as usual."""
    program = backend.program
    known: set[tuple] = set()
    if only is not None and not all(only.whole(p) for p in comp.preds):
        known = _Holding(view.computed, facts, backend.program.fact_rules.keys())
    else:
        only = None
        for pred in sorted(comp.preds):  # what holds before any rule fires: scenario and rule-file facts
            arity = program.decls[pred].arity
            rows = _E.Literal(backend.pname(pred), [_E.Var(f"V{i}") for i in range(arity)]).ask()
            if rows and rows is not True:
                known.update((pred,) + tuple(r) for r in rows)
    deltas = {}
    for pred in sorted(comp.preds):
        name = backend.pname(pred) + DELTA
        if name not in view.delta_preds:
            view.delta_preds[name] = new_pred(name, program.decls[pred].arity)
        deltas[pred] = name
    plans = []  # (rule, body with one recursive atom read from the delta, variable names, that atom's pred)
    for rule in comp.rules:
        body = program.body(rule)
        names = why_vars(rule, program)
        for i, lit in enumerate(body):
            if isinstance(lit, Atom) and lit.pred in comp.preds:
                delta = Atom(lit.pred + DELTA, lit.args, lit.span)
                plans.append((rule, (delta,) + body[:i] + body[i + 1 :], names, lit.pred))
    new: list[tuple] = []

    def fire(rule: Rule, body: Sequence[Literal], names: Sequence[str], *, first: bool = False) -> None:
        # the first round over every fact known, set-at-a-time where the backend can; a delta round reads the
        # last round's new facts, which only pyDatalog holds
        rows = backend.ask_computing(view, body, names) if first else backend.ask_body(view, body, names)
        for row in rows:
            if limits.int_digits is not None:
                for value in row:
                    _check_value(value, rule, limits)
            binding = dict(zip(names, row))
            fact = (rule.head.pred,) + tuple(_value(a, binding, rule, limits) for a in rule.head.args)
            if fact in known:
                continue
            known.add(fact)
            new.append(fact)
            view.derivations[fact] = (rule, binding)
            _assert(backend, view, fact)
            view.computed_count += 1
            if limits.derived_facts is not None and view.computed_count > limits.derived_facts:
                raise LimitError(
                    L001,
                    f"more than {limits.derived_facts} facts derived by recursive rules "
                    f"({', '.join(sorted(comp.preds))})",
                    hint="a recursive rule may make new values for ever (X = Y + 1); bound it "
                    "with a comparison, or raise the limit (--max-derived)",
                )
        if deadline is not None and time.monotonic() > deadline:
            raise LimitError(
                L002,
                f"deriving {', '.join(sorted(comp.preds))} took more than {limits.seconds} s",
                hint="raise the limit (--time-limit) or bound the recursion",
            )

    for rule in comp.rules:
        if only is None:
            fire(rule, program.body(rule), why_vars(rule, program), first=True)
            continue
        for pattern in only.patterns(rule.head.pred):
            fixed = binding_literals(rule.head, pattern)
            if fixed is not None:
                fire(rule, tuple(fixed) + tuple(program.body(rule)), why_vars(rule, program), first=True)
    delta_facts: list[tuple] = []
    try:
        while new:
            for fact in delta_facts:
                _E.retract(fact_clause(deltas[fact[0]], fact))
            delta_facts, new = new, []
            for fact in delta_facts:
                _E.assert_(fact_clause(deltas[fact[0]], fact))
            grew = {fact[0] for fact in delta_facts}
            for rule, body, names, pred in plans:
                if pred in grew:  # a rule read from a delta that is empty this round derives nothing
                    fire(rule, body, names)
    finally:
        for fact in delta_facts:
            _E.retract(fact_clause(deltas[fact[0]], fact))


class _Holding(set):
    """The facts known to hold while a component is recomputed in part: those derived now (the set
    itself), the computed facts in place, the state's facts and the rule files' facts."""

    def __init__(self, computed: set, facts: frozenset, rule_facts: Set[tuple]) -> None:
        super().__init__()
        self._others = (computed, facts, rule_facts)

    def __contains__(self, fact: object) -> bool:
        return set.__contains__(self, fact) or any(fact in s for s in self._others)


def _value(term: Term, binding: dict[str, Any], rule: Rule, limits: Limits) -> Any:
    if isinstance(term, Var):
        return binding[term.name]
    if isinstance(term, Const):
        return term.value
    if isinstance(term, BinOp):
        left, right = _value(term.left, binding, rule, limits), _value(term.right, binding, rule, limits)
        if type(left) is not int or type(right) is not int:
            raise QueryError(
                f"arithmetic on a value that is not a number ({left!r} {term.op} {right!r})",
                hint=f"{term.op} takes numbers; see rule {rule.name or rule.span.short()}",
            )
        value = left + right if term.op == "+" else left - right
        _check_value(value, rule, limits)
        return value
    raise QueryError(f"cannot evaluate {term} in a rule head")


def _check_value(value: object, rule: Rule, limits: Limits) -> None:
    if limits.int_digits is not None and type(value) is int and abs(value) >= 10**limits.int_digits:
        raise LimitError(
            L003,
            f"rule {rule.name or rule.span.short()} computed an integer of more than {limits.int_digits} digits",
            hint="a recursive rule may make new values for ever; bound it with a comparison",
        )
