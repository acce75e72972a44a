r"""Defaults and the exceptions that can displace them, read from the rules (``judgelog audit``).

A default is a rule with ``not P`` in its body; the rules deriving P are its exceptions. The dynamic audit
asks of every such ``not P`` whose P another file derives whether it displaced something in a state; the
static audit lists only the pairs that are written as a default and its exceptions: P is an *exception hook*
(no rule reads P but under ``not``: it exists to make defaults step aside, like ``blocks_fliers`` or
``untap_replaced``; or P is declared an ``extension_point``), or the default's head is functional and a file
deriving P derives that head too (the exception gives another value: banding's
``attacker_division_overridden`` beside its ``damage_assigner``, 702.22j). A ``not P`` that only tests a
condition another file derives (``not creature(X)``, ``not lost_all_abilities(O)``) is no such pair.

>>> from judgelog.analysis import analyze
>>> from judgelog.parser import parse_text
>>> decls = '.decl q(x: atom) "{x}" input\n.decl h(x: atom) "{x}"\n.decl p(x: atom) "{x}"\n.decl g(x: atom) "{x}"\n'
>>> default = parse_text(decls + "h(X) :- q(X), not p(X).\n", "default.dl")
>>> exception = parse_text("p(X) :- q(X).\n", "exception.dl")
>>> program, _ = analyze([default, exception])
>>> [str(lit) for _, lit, _ in default_exceptions(program, hooks_only=True)]
['not p(X)']
>>> program, _ = analyze([default, exception, parse_text("g(X) :- p(X).\n", "reader.dl")])  # p: a condition
>>> len(default_exceptions(program, hooks_only=True)), len(default_exceptions(program))
(0, 1)
"""

from __future__ import annotations

from .ast import Atom, Const, Negation, Rule
from .program import Program

__all__ = ["default_exceptions", "derivers", "exception_hooks", "internal_predicates"]


def derivers(program: Program) -> dict[str, list[Rule]]:
    """Each derived predicate -> the rules (not facts) deriving it."""
    return {p: [r for r in rs if r.body] for p, rs in program.rules_by_head.items() if any(r.body for r in rs)}


def internal_predicates(program: Program, kind: str = "internal") -> set[str]:
    """Predicates a rule file declares as its internal helpers (``internal/1``): a rule deriving one that uses
    ``not`` checks a condition; it is not a default that another file's exception overrides. ``kind``: another
    such declaration (``extension_point/1``: predicates card, keyword or property files derive)."""
    return {
        str(arg.value)
        for r in program.rules_by_head.get(kind, ())
        if not r.body and r.head.args
        for arg in r.head.args[:1]
        if isinstance(arg, Const)
    }


def exception_hooks(program: Program) -> set[str]:
    """The derived predicates no rule body reads but under ``not``, and the declared extension points."""
    negated, positive = set(), set()
    for rule in program.rules:
        for lit in rule.body:
            if isinstance(lit, Negation):
                negated.add(lit.atom.pred)
            elif isinstance(lit, Atom):
                positive.add(lit.pred)
    return (negated - positive) | internal_predicates(program, "extension_point")


def default_exceptions(program: Program, *, hooks_only: bool = False) -> list[tuple[Rule, Negation, list[Rule]]]:
    """(default rule, its ``not P``, rules deriving P) where P is derived in another file, or where the
    head is functional and P is derived at all. ``hooks_only``: only the pairs written as a default and its
    exceptions (P an exception hook, or a file deriving P derives the functional head too; module doc)."""
    by_pred = derivers(program)
    hooks = exception_hooks(program) if hooks_only else set()
    heads: dict[str, set[str]] = {}  # file -> the predicates its rules derive
    for rule in program.rules:
        if rule.body:
            heads.setdefault(rule.span.file, set()).add(rule.head.pred)
    out = []
    for rule in program.rules:
        functional = bool(getattr(program.decl(rule.head.pred), "functional", ()))
        for lit in rule.body:
            if not isinstance(lit, Negation) or lit.atom.pred not in by_pred:
                continue
            by = by_pred[lit.atom.pred]
            if not (functional or any(r.span.file != rule.span.file for r in by)):
                continue
            chooses = functional and any(rule.head.pred in heads.get(r.span.file, ()) for r in by)
            if not hooks_only or lit.atom.pred in hooks or chooses:
                out.append((rule, lit, by))
    return out
