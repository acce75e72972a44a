"""Unfolding a predicate into the one rule that reads it, for a backend that grounds bottom-up (clingo).

clingo makes an atom for every fact of every predicate of a question's slice. Where a predicate is read at one
place only, by a plain rule, its facts are needed by nobody else: the reading rule can take each of the
predicate's rules' bodies in place of the atom (one rule per rule of the predicate), and the predicate is never
ground at all. ``power(O, N) :- creature(O), layered_power(O, B), ...`` with ``layered_power(O, N) :-
base_power(O, N), not has_set_power(O)`` becomes ``power(O, N) :- creature(O), base_power(O, B), not
has_set_power(O), ...``. The answers are the same: the rule's instances are those it had, each with the
instances of the body that derived the atom. The caller decides which predicates are unfolded (only plain,
not recursive ones, not given facts, with few rules) and never unfolds into an aggregate's body (its value
counts distinct bindings of the body, which the unfolded body's own variables would change).

>>> from judgelog.ast import Atom, Const, Negation, Rule, Var
>>> O, N, B, K = Var("O"), Var("N"), Var("B"), Var("K")
>>> reader = Rule(Atom("big", (O,)), (Atom("size", (O, N)), Atom("level", (O, Const(2)))))
>>> size = [Rule(Atom("size", (O, N)), (Atom("base", (O, N)), Negation(Atom("set", (O,))))),
...         Rule(Atom("size", (O, Const(0))), (Atom("token", (O, K)),))]
>>> for rule in unfold(reader, lambda pred: size if pred == "size" else None):
...     print(", ".join(map(str, rule.body)))
base(O, N), not set(O), level(O, 2)
token(O, K__u1), N = 0, level(O, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from .ast import Aggregate, Atom, BinOp, Comparison, Const, Literal, Negation, Rule, Term, Var, literal_vars

__all__ = ["unfold"]


def unfold(rule: Rule, rules_of: Callable[[str], Sequence[Rule] | None], *, most: int = 8) -> list[Rule]:
    """``rule`` with each positive body atom whose predicate ``rules_of`` gives rules for replaced by each of
    those rules' bodies (unified with the atom, their own variables renamed apart): the rules that mean what
    ``rule`` means. At most ``most`` rules are made; atoms past that are left as they are."""
    out = [rule]
    for lit in rule.body:
        if not isinstance(lit, Atom):
            continue
        rules = rules_of(lit.pred)
        if rules is None or len(out) * len(rules) > most:
            continue
        out = [made for r in out for made in _replaced(r, lit, rules)]
    return out


def _replaced(rule: Rule, atom: Atom, rules: Sequence[Rule]) -> list[Rule]:
    """``rule`` with ``atom`` replaced by the body of each of ``rules`` that can derive it."""
    at = rule.body.index(atom)
    taken = {v for lit in rule.body for v in literal_vars(lit)} | {
        v for a in rule.head.args if not isinstance(a, Aggregate) for v in _term_vars(a)
    }
    out = []
    for callee in rules:
        body = _unified(callee, atom, taken)
        if body is None:
            continue
        merged: list[Literal] = []
        for lit in (*rule.body[:at], *body, *rule.body[at + 1 :]):
            if lit not in merged:  # the same literal twice holds as once
                merged.append(lit)
        out.append(replace(rule, body=tuple(merged)))
    return out


def _unified(callee: Rule, atom: Atom, taken: set[str]) -> list[Literal] | None:
    """The body of ``callee`` for the instances of its head that are ``atom`` (its head's variables become the
    atom's terms, its other variables new names, not in ``taken``), with an equality where the atom has a
    variable and the head a constant; None if the head cannot be the atom."""
    subst: dict[str, Term] = {}
    tests: list[Literal] = []
    for head_arg, arg in zip(callee.head.args, atom.args):
        if isinstance(head_arg, Var):
            if head_arg.name in subst:
                tests.append(Comparison("=", subst[head_arg.name], arg))
            else:
                subst[head_arg.name] = arg
        elif isinstance(head_arg, Const):
            if isinstance(arg, Const):
                if arg.value != head_arg.value:
                    return None
            else:
                tests.append(Comparison("=", arg, head_arg))
        else:
            return None
    k = 1
    while any(f"{v}__u{k}" in taken for lit in callee.body for v in literal_vars(lit)):
        k += 1
    for lit in callee.body:
        for v in literal_vars(lit):
            if v not in subst:
                subst[v] = Var(f"{v}__u{k}")
    taken.update(v.name for v in subst.values() if isinstance(v, Var))
    return [_subst_lit(lit, subst) for lit in callee.body] + tests


def _term_vars(term: object) -> set[str]:
    if isinstance(term, Var):
        return {term.name}
    if isinstance(term, BinOp):
        return _term_vars(term.left) | _term_vars(term.right)
    return set()


def _subst(term: Term, subst: dict[str, Term]) -> Term:
    if isinstance(term, Var):
        return subst.get(term.name, term)
    if isinstance(term, BinOp):
        return replace(term, left=_subst(term.left, subst), right=_subst(term.right, subst))
    return term


def _subst_lit(lit: Literal, subst: dict[str, Term]) -> Literal:
    if isinstance(lit, Atom):
        return replace(lit, args=tuple(_subst(a, subst) for a in lit.args))
    if isinstance(lit, Negation):
        return replace(lit, atom=replace(lit.atom, args=tuple(_subst(a, subst) for a in lit.atom.args)))
    if isinstance(lit, Comparison):
        return replace(lit, left=_subst(lit.left, subst), right=_subst(lit.right, subst))
    return lit
