"""Rules deriving a ``functional(key)`` predicate with no guard against the other rules deriving it: what the
static ``judgelog audit`` reports as a possible CONFLICT (a scenario's audit reports the conflict itself, once
two values for one key hold).

A predicate declared ``functional(key)`` has one value per key, so two of its rules must not both apply to a
key. The library writes them as a default and its exceptions: the default reads ``not H(...)`` and each
exception reads ``H(...)`` (an exception hook, e.g. 510.1c's ``not attacker_division_overridden(A)`` and
702.22j's rule reading it), or a rule keeps to the cases another can't have (it reads ``unblocked(A)``,
derived from ``not blocked(A)``, where the default reads ``blocked(A)``). A rule is *guarded* when, against
at least one other rule deriving the predicate, it reads a predicate that rule negates, or it negates (in its
own body or in the rules of what it reads) a predicate that rule reads. A rule that does neither derives the
predicate beside the others: where both apply, the key has two values.

>>> from judgelog import Engine
>>> unguarded_functional(Engine().program)  # the library's rules are guarded
[]
"""

from __future__ import annotations

from .ast import Atom, Negation, Rule
from .program import Program

__all__ = ["unguarded_functional"]


def _reads(rule: Rule) -> set[str]:
    return {lit.pred for lit in rule.body if isinstance(lit, Atom)}


def _negates(rule: Rule) -> set[str]:
    return {lit.atom.pred for lit in rule.body if isinstance(lit, Negation)}


def _negated_below(program: Program, rule: Rule) -> set[str]:
    """The predicates ``rule`` negates, in its body or in a rule of a predicate it reads (at any depth)."""
    out, seen, todo = _negates(rule), set(), list(_reads(rule))
    while todo:
        pred = todo.pop()
        if pred in seen:
            continue
        seen.add(pred)
        for r in program.rules_by_head.get(pred, ()):
            out |= _negates(r)
            todo.extend(_reads(r))
    return out


def _ref(rule: Rule) -> dict:
    return {"rule": rule.name, "cites": list(rule.cites), "at": rule.span.short()}


def unguarded_functional(program: Program) -> list[dict]:
    """Each rule deriving a functional predicate, beside other rules deriving it, with no guard against any of
    them: the rule, the predicate and its key, the other rules, and the exception hooks they negate (what the
    rule could derive instead, to be an exception)."""
    found = []
    for pred, rules in sorted(program.rules_by_head.items()):
        decl = program.decl(pred)
        derivers = [r for r in rules if r.body]
        if decl is None or not decl.functional or len(derivers) < 2:
            continue
        below = {id(r): _negated_below(program, r) for r in derivers}
        for rule in derivers:
            others = [o for o in derivers if o is not rule]
            if any(below[id(rule)] & _reads(o) or _negates(o) & _reads(rule) for o in others):
                continue
            hooks = sorted({p for o in others for p in _negates(o) if p in program.rules_by_head})
            found.append(
                dict(_ref(rule), predicate=pred, functional=list(decl.functional), others=[_ref(o) for o in others])
                | {"hooks": hooks}
            )
    return found
