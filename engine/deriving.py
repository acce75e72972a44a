"""Which rule derives a fact (for an event's cause, without a full proof: judgelog.provenance.Prover).

The candidate rules of a fact are those whose head's constants it has (:func:`_head_candidates`), in file order;
the first whose body holds for the fact's values derives it. Many facts of one predicate (an effect over hundreds
of objects) are judged together: each candidate rule's body is asked once, with the values the facts share fixed,
for the values of its head.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from .ast import Const, Rule, Var
from .bindings import Binding, head_vars, partial_lit, unify_head, unify_vars, var_names
from .errors import WordForNumber

if TYPE_CHECKING:
    from .program import Program
    from .protocols import Evaluator


class DerivingRules:
    """The rules that derive facts in one materialised state (inside a backend session)."""

    backend: Evaluator
    program: Program
    view: Any
    _rule_facts: dict[tuple, Rule]

    def deriving_rule(self, fact: tuple) -> Rule | None:
        """The first rule (in file order) that derives ``fact`` in this state, without a full proof."""
        if fact in self._rule_facts:
            return self._rule_facts[fact]
        candidates = [
            (r, fixed)
            for r in self.program.rules_by_head.get(fact[0], ())
            if r.body and r.aggregate is None and (fixed := unify_head(r.head, fact[1:])) is not None
        ]
        if len(candidates) == 1:
            return candidates[0][0]
        for rule, fixed in candidates:
            if self.backend.why_rows(self.view, rule, fixed, limit=1):
                return rule
        return None

    def deriving_rules(self, facts: Sequence[tuple]) -> list[Rule | None]:
        """:meth:`deriving_rule` of each fact. Where many facts of one predicate may come from the same rule,
        that rule is asked once with the values they share fixed (its head's other variables open), instead
        of once per fact: an effect or a choice over hundreds of objects costs a question per rule."""
        out: list[Rule | None] = [None] * len(facts)
        # each fact's candidate rules with their head's plan (judgelog.bindings.head_vars): a binding is made
        # only for a rule that is asked about the fact (the first rule often derives them all)
        candidates: dict[int, list[tuple[Rule, tuple]]] = {}
        planned: dict[int, tuple[list[Rule], list[tuple[Rule, tuple]], bool]] = {}  # a candidate list's plans
        for i, fact in enumerate(facts):
            if fact in self._rule_facts:
                out[i] = self._rule_facts[fact]
                continue
            heads = _head_candidates(self.program, fact)  # their constants match the fact's
            plans = planned.get(id(heads))
            if plans is None or plans[0] is not heads:
                plans = planned[id(heads)] = (heads, *_plans(heads))
            if plans[2]:  # every head unifies with any values
                found = plans[1]
            else:
                values = fact[1:]
                found = [(r, plan) for r, plan in plans[1] if unify_vars(plan, values) is not None]
            if len(found) == 1:
                out[i] = found[0][0]
            elif found:
                candidates[i] = found
        if len(candidates) < _BULK:
            for i, found in candidates.items():
                values = facts[i][1:]
                out[i] = next(
                    (r for r, plan in found if self.backend.why_rows(self.view, r, _bound(plan, values), limit=1)),
                    None,
                )
            return out
        # the facts by their candidate list (those whose heads are free share one), then each candidate rule
        # with the facts it may give, by head plan
        groups: dict[int, tuple[list[tuple[Rule, tuple]], list[int]]] = {}
        for i, found in candidates.items():
            groups.setdefault(id(found), (found, []))[1].append(i)
        rules: dict[int, tuple[Rule, list[tuple[tuple, list[int]]]]] = {}
        for found, indices in groups.values():
            for rule, plan in found:
                rules.setdefault(id(rule), (rule, []))[1].append((plan, indices))
        order = {id(r): k for k, r in enumerate(self.program.rules)}
        for rule, parts in sorted(rules.values(), key=lambda r: order.get(id(r[0]), 0)):  # first in file order
            asked = {i: _bound(plan, facts[i][1:]) for plan, indices in parts for i in indices if i in candidates}
            if not asked:
                continue
            for i in self._derived_by(rule, asked):
                out[i] = rule
                del candidates[i]
        return out

    def _derived_by(self, rule: Rule, asked: dict[int, Binding]) -> list[int]:
        """Which of the head bindings ``asked`` the rule derives in this state."""
        heads = sorted({a.name for a in rule.head.args if isinstance(a, Var)})
        if len(asked) >= _BULK:
            first = next(iter(asked.values()))
            common = {k: v for k, v in first.items() if all(k in b and _same(b[k], v) for b in asked.values())}
            made = self._heads_made(rule, heads, common)
            if made is not None:
                return [i for i, fixed in asked.items() if tuple(fixed.get(h) for h in heads) in made]
        return [i for i, fixed in asked.items() if self.backend.why_rows(self.view, rule, fixed, limit=1)]

    def _heads_made(self, rule: Rule, heads: list[str], common: Binding) -> set[tuple] | None:
        """The values of the head variables ``heads`` for which the rule's body holds with ``common`` fixed,
        asked as a question of the body (set-at-a-time where the backend can: only the head's values, not
        every body variable's); None when a head variable is not bound by the body (then judged fact by fact)."""
        body = self.program.body(rule)
        bound = {n for lit in body for n in var_names(lit)}
        open_vars = [h for h in heads if h not in common]
        if any(h not in bound for h in open_vars):
            return None
        lits = [partial_lit(lit, common) for lit in body]
        try:
            rows = self.backend.ask(self.view, lits, open_vars)
        except WordForNumber:  # a word fixed where the rule compares numbers: judged fact by fact (why_rows)
            return None
        at = {h: k for k, h in enumerate(open_vars)}
        return {tuple(row[at[h]] if h in at else common[h] for h in heads) for row in rows}


def _plans(heads: list[Rule]) -> tuple[list[tuple[Rule, tuple]], bool]:
    """Each head's plan (:func:`judgelog.bindings.head_vars`), and whether every head is :func:`_free`."""
    plans = [(r, head_vars(r.head)) for r in heads]
    return plans, all(_free(plan) for _r, plan in plans)


def _free(plan: tuple) -> bool:
    """Whether a head (its plan) unifies with any values once its constants match: each of its other positions
    a variable of its own.

    >>> _free(((0, "X"), (2, "Y")))
    True
    >>> _free(((0, "X"), (1, "X")))  # p(X, X, ...): the two values must be equal
    False
    >>> _free(((0, None),))  # neither a constant nor a variable (arithmetic): unifies with no value given
    False
    """
    return all(name is not None for _i, name in plan) and len({name for _i, name in plan}) == len(plan)


def _bound(plan: tuple, values: Sequence[Any]) -> Binding:
    """The binding of a candidate head (its plan) to a fact's values, which unify with it."""
    return cast(Binding, unify_vars(plan, values))


_BULK = 8  # facts of one predicate asked about together from this many


def _same(a: Any, b: Any) -> bool:
    return a == b and type(a) is type(b)


def _head_candidates(program: Program, fact: tuple) -> list[Rule]:
    """The rules with a body (no aggregate) whose head's constants ``fact`` has, in file order: the only
    rules :func:`unify_head` can unify it with. Kept per predicate and the values at those constants'
    positions, a value no rule's head has at a position standing for every such value (an effect or a
    choice over hundreds of objects has a few such keys, whatever the objects)."""
    kept: dict[object, Any] = program.kept("provenance.head_candidates", dict)
    where = kept.get(fact[0])
    if where is None:
        rules = [r for r in program.rules_by_head.get(fact[0], ()) if r.body and r.aggregate is None]
        positions = sorted({i for r in rules for i, a in enumerate(r.head.args) if isinstance(a, Const)})
        written = tuple(
            frozenset((a.value, type(a.value)) for r in rules if isinstance(a := r.head.args[i], Const))
            for i in positions
        )
        where = kept[fact[0]] = (tuple(positions), written, rules)
    at, written, rules = where
    values = fact[1:]
    key = (fact[0],) + tuple(
        None
        if i >= len(values) or values[i] is None
        else (values[i], type(values[i]))
        if (values[i], type(values[i])) in consts
        else _OTHER
        for i, consts in zip(at, written)
    )
    found = kept.get(key)
    if found is None:
        if len(kept) > _MAX_HEAD_KEYS:
            kept.clear()
            kept[fact[0]] = where
        found = kept[key] = [
            r
            for r in rules
            if all(
                not isinstance(a, Const)
                or i >= len(values)
                or values[i] is None
                or (a.value == values[i] and type(a.value) is type(values[i]))
                for i, a in enumerate(r.head.args)
            )
        ]
    return cast(list, found)


_OTHER = object()  # in a key of _head_candidates: a value no rule's head has at that position
_MAX_HEAD_KEYS = 4096
