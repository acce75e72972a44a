"""Facts the backend computes itself after a state's facts are in place: head aggregates and recursive
components, in dependency order, asserted into pyDatalog as plain facts.

Aggregates (``sum``, ``count``, ``min``, ``max`` in a head) are computed over the distinct bindings of the
body. A recursive component (judgelog.recursion) is evaluated bottom-up by a *semi-naive fixpoint*: every
rule once over the facts known, then, round after round, each rule with one recursive atom read from the
facts new in the last round (a ``@delta`` predicate) until a round finds nothing new. pyDatalog does the
joins (each body is a non-recursive query by then), so the result is the same whatever the literal order,
and evaluation ends on finite facts unless arithmetic makes new values for ever, which
:class:`~judgelog.recursion.Limits` bound. Each derived fact keeps the rule and the body binding that first
derived it: proofs follow these *first derivations*, which never go round a cycle, so explaining a long
chain costs one step per link.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pyDatalog.pyEngine as _E

from .analysis import bound_after
from .ast import Aggregate, Atom, BinOp, Const, Literal, Rule, Term, Var
from .clauses import new_pred
from .errors import QueryError
from .planning import aggregate_value, group_by_head, row_sort_key, why_vars
from .recursion import Component, LimitError, Limits

if TYPE_CHECKING:  # pragma: no cover
    from .backend import Backend
    from .threadview import ThreadView

__all__ = ["materialise", "DELTA"]

DELTA = "@delta"  # suffix of the predicate holding a recursive predicate's facts new in the last round


def materialise(backend: Backend, view: ThreadView, facts: frozenset, limits: Limits) -> None:
    """Compute (and assert) the aggregate facts and the recursive components for ``facts``, in order."""
    view.computed_count = 0
    deadline = None if limits.seconds is None else time.monotonic() + limits.seconds
    contributions: dict[tuple, list[dict]] = {}
    backend.aggregates[id(view)] = contributions
    for task in backend.materialise_order:
        if isinstance(task, Component):
            _fixpoint(backend, view, facts, task, limits, deadline)
        else:
            _aggregate_rule(backend, view, facts, task, contributions, limits)


def retract_computed(backend: Backend, view: ThreadView) -> None:
    preds = view.fact_preds
    for fact in view.computed:
        _E.retract(_E.Clause(_E.Literal(preds[fact[0]], [_E.Const(a) for a in fact[1:]]), []))
    view.computed = set()
    view.derivations = {}
    backend.aggregates.pop(id(view), None)


def _assert(backend: Backend, view: ThreadView, fact: tuple) -> None:
    target = backend.fact_pred(view, fact[0])
    _E.assert_(_E.Clause(_E.Literal(target, [_E.Const(a) for a in fact[1:]]), []))
    view.computed.add(fact)


def _aggregate_rule(
    backend: Backend,
    view: ThreadView,
    facts: frozenset,
    rule: Rule,
    contributions: dict[tuple, list[dict]],
    limits: Limits,
) -> None:
    agg = rule.aggregate
    assert agg is not None  # materialise_order holds components and aggregate rules
    body = backend.program.body(rule)
    names = sorted(bound_after(body, set()))
    rows = sorted(set(backend.ask_body(view, body, names)), key=row_sort_key)  # proofs list them in order
    for key, bindings in group_by_head(rule, names, rows).items():
        value = aggregate_value(agg, bindings)
        _check_value(value, rule, limits)
        it = iter(key)
        args = tuple(value if isinstance(a, Aggregate) else next(it) for a in rule.head.args)
        fact = (rule.head.pred,) + args
        if fact in view.computed or fact in facts:
            contributions.setdefault(fact, []).extend(bindings)
            continue
        _assert(backend, view, fact)
        contributions[fact] = [dict(b, __rule__=rule) for b in bindings]


def _fixpoint(
    backend: Backend, view: ThreadView, facts: frozenset, comp: Component, limits: Limits, deadline: float | None
) -> None:
    program = backend.program
    known: set[tuple] = set()
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
    plans = []  # (rule, body with one recursive atom read from the delta, variable names)
    for rule in comp.rules:
        body = program.body(rule)
        names = why_vars(rule, program)
        for i, lit in enumerate(body):
            if isinstance(lit, Atom) and lit.pred in comp.preds:
                delta = Atom(lit.pred + DELTA, lit.args, lit.span)
                plans.append((rule, (delta,) + body[:i] + body[i + 1 :], names))
    new: list[tuple] = []

    def fire(rule: Rule, body: Sequence[Literal], names: Sequence[str]) -> None:
        for row in backend.ask_body(view, body, names):
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
                    "L001",
                    f"more than {limits.derived_facts} facts derived by recursive rules "
                    f"({', '.join(sorted(comp.preds))})",
                    hint="a recursive rule may make new values for ever (X = Y + 1); bound it "
                    "with a comparison, or raise the limit (--max-derived)",
                )
        if deadline is not None and time.monotonic() > deadline:
            raise LimitError(
                "L002",
                f"deriving {', '.join(sorted(comp.preds))} took more than {limits.seconds} s",
                hint="raise the limit (--time-limit) or bound the recursion",
            )

    for rule in comp.rules:
        fire(rule, program.body(rule), why_vars(rule, program))
    delta_facts: list[tuple] = []
    try:
        while new:
            for fact in delta_facts:
                _E.retract(_E.Clause(_E.Literal(deltas[fact[0]], [_E.Const(a) for a in fact[1:]]), []))
            delta_facts, new = new, []
            for fact in delta_facts:
                _E.assert_(_E.Clause(_E.Literal(deltas[fact[0]], [_E.Const(a) for a in fact[1:]]), []))
            for rule, body, names in plans:
                fire(rule, body, names)
    finally:
        for fact in delta_facts:
            _E.retract(_E.Clause(_E.Literal(deltas[fact[0]], [_E.Const(a) for a in fact[1:]]), []))


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
                hint=f"+ and - take numbers; see rule {rule.name or rule.span.short()}",
            )
        value = left + right if term.op == "+" else left - right
        _check_value(value, rule, limits)
        return value
    raise QueryError(f"cannot evaluate {term} in a rule head")


def _check_value(value: object, rule: Rule, limits: Limits) -> None:
    if limits.int_digits is not None and type(value) is int and abs(value) >= 10**limits.int_digits:
        raise LimitError(
            "L003",
            f"rule {rule.name or rule.span.short()} computed an integer of more than {limits.int_digits} digits",
            hint="a recursive rule may make new values for ever; bound it with a comparison",
        )
