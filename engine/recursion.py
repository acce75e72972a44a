"""Recursive components of a rule program, and the limits that bound their evaluation.

A predicate is *recursive* when it depends on itself through positive body atoms (stratification already
refuses recursion through ``not`` and aggregates). Top-down evaluation of such predicates does not
terminate for every literal order (a left-recursive rule over cyclic facts loops in pyDatalog), so the
backend evaluates each recursive component bottom-up (a semi-naive fixpoint, see judgelog.materialise)
and gives pyDatalog only its facts. This module finds the components, in an order where everything a
component reads comes first; it depends on the syntax tree only, so any backend can use it.

>>> from judgelog.parser import parse_text
>>> from judgelog.analysis import analyze
>>> f = parse_text('''
... .decl edge(a: atom, b: atom) "" input
... .decl reach(a: atom, b: atom) ""
... reach(X, Y) :- edge(X, Y).
... reach(X, Z) :- reach(X, Y), edge(Y, Z).
... ''', "t.dl")
>>> program, _ = analyze([f], require_annotations=False)
>>> [(sorted(c.preds), len(c.rules)) for c in recursive_components(program)]
[(['reach'], 2)]
"""

from __future__ import annotations

from dataclasses import dataclass

from .ast import Atom, BinOp, Comparison, Rule, Var, term_vars
from .codes import E016, I012
from .errors import Diagnostic, LimitError
from .program import Program
from .words import EFFECT_PREDICATES

__all__ = [
    "Component",
    "Limits",
    "LimitError",
    "recursive_components",
    "growing_values",
    "unbounded_arithmetic",
    "effect_recursion_problems",
    "DEFAULT_LIMITS",
]


@dataclass(frozen=True)
class Component:
    """Predicates that depend on each other positively, with the rules (bodies) that derive them."""

    preds: frozenset[str]
    rules: tuple[Rule, ...]
    order: int  # position in dependency order (components read come first)


@dataclass(frozen=True)
class Limits:
    """Bounds on what evaluation may compute; reaching one ends the question with a :class:`LimitError`.

    ``derived_facts``: facts derived bottom-up for one state (recursive predicates); ``seconds``: time spent
    deriving them; ``int_digits``: decimal digits of an integer a rule or a query computes;
    ``join_combinations``: the combinations of a body's unconnected parts, estimated before pyDatalog
    enumerates them (judgelog.widejoins). ``None`` means no bound.
    """

    derived_facts: int | None = 200_000
    seconds: float | None = 60.0
    int_digits: int | None = 18
    join_combinations: int | None = 10_000_000

    def __post_init__(self) -> None:
        for name in ("derived_facts", "seconds", "int_digits", "join_combinations"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0):
                raise ValueError(f"limit {name} must be a positive number or None, got {value!r}")


DEFAULT_LIMITS = Limits()


def recursive_components(program: Program) -> list[Component]:
    """The recursive components of ``program`` (rules with a body and no aggregate), dependencies first:
    the components of the program's graph cut to the atoms such rules read positively (its index)."""
    out = []
    for number, preds in enumerate(program.index.positive_components):
        rules = tuple(r for r in program.rules if r.head.pred in preds and r.body and r.aggregate is None)
        out.append(Component(preds, rules, number))
    return out


def growing_values(program: Program) -> dict[int, tuple[str, ...]]:
    """For each recursive rule (by id) that computes a new integer from a recursive atom's value and passes it
    on in its head (``N = M + 1``, N in the head), those head variables, compared or not: a backend that
    grounds a recursion whole (clingo) bounds them (judgelog.clingo_backend), as the default backend's
    :class:`Limits` stop the facts they make."""
    out: dict[int, tuple[str, ...]] = {}
    for comp in recursive_components(program):
        for rule in comp.rules:
            found = tuple(sorted({var for var, _other, _lit, _compared in _new_numbers(comp, rule)}))
            if found:
                out[id(rule)] = found
    return out


def _new_numbers(comp: Component, rule: Rule) -> list[tuple[str, BinOp, Comparison, bool]]:
    """``(V, expression, literal, compared)`` for each ``V = expression`` of a recursive rule whose expression
    reads a recursive atom's value and whose V is passed on in the head; ``compared``: a comparison of the
    body reads V or the expression's variables."""
    recursive_vars = {
        a.name
        for lit in rule.body
        if isinstance(lit, Atom) and lit.pred in comp.preds
        for a in lit.args
        if isinstance(a, Var)
    }
    passed_on = {a.name for a in rule.head.args if isinstance(a, Var)}
    compared: set[str] = set()
    for lit in rule.body:
        if isinstance(lit, Comparison) and lit.op not in ("=", "!="):
            compared |= term_vars(lit.left) | term_vars(lit.right)
    out = []
    for lit in rule.body:
        if not (isinstance(lit, Comparison) and lit.op == "="):
            continue
        for side, other in ((lit.left, lit.right), (lit.right, lit.left)):
            if (
                isinstance(side, Var)
                and isinstance(other, BinOp)
                and side.name in passed_on
                and term_vars(other) & recursive_vars
            ):
                out.append((side.name, other, lit, side.name in compared or bool(term_vars(other) & compared)))
    return out


def unbounded_arithmetic(program: Program) -> list[Diagnostic]:
    """E016 for each recursive rule that computes a new integer from a recursive atom's value (``X = Y + 1``
    with ``Y`` from the recursion) and passes it on (head or recursive atom) without comparing it with
    anything: such a rule makes new values for ever. A compared value is accepted (the comparison may
    bound it; :class:`Limits` stop evaluation when it does not)."""
    out: list[Diagnostic] = []
    for comp in recursive_components(program):
        for rule in comp.rules:
            for var, other, lit, compared in _new_numbers(comp, rule):
                if not compared:
                    out.append(
                        Diagnostic(
                            E016,
                            f"recursive rule makes a new number for ever: {var} = {other} feeds {rule.head.pred} again",
                            lit.span,
                            hint=f"bound it with a comparison (e.g. {var} < 100) or compute it outside the recursion",
                        )
                    )
    return out


def effect_recursion_problems(program: Program) -> list[Diagnostic]:
    """A warning (I012) for each rule that reads an effect predicate (``effect``, ``state_based``,
    ``event_result``, ``standing``) and derives, positively, what that predicate is made from: the effects
    become one recursive computation with every predicate between them, evaluated whole each time the
    runtime asks for effects (every step of every action), which slows every scenario (a keyword file
    reading ``effect(_, return_to_battlefield, ...)`` to derive its own sacrifices made the bundled
    scenarios 2.4 times slower)."""
    out: list[Diagnostic] = []
    for comp in recursive_components(program):
        made = comp.preds & set(EFFECT_PREDICATES)
        if not made:
            continue
        for rule in comp.rules:
            for lit in rule.body:
                if isinstance(lit, Atom) and lit.pred in made and rule.head.pred not in EFFECT_PREDICATES:
                    out.append(
                        Diagnostic(
                            I012,
                            f"rule {rule.name or '(unnamed)'} reads {lit.pred}(...) to derive {rule.head.pred}, from "
                            f"which {lit.pred} is derived again: {len(comp.preds)} predicates "
                            f"({', '.join(sorted(comp.preds)[:4])}{', ...' if len(comp.preds) > 4 else ''}) "
                            "become one recursive computation, made whole each time the runtime asks for effects",
                            lit.span or rule.span,
                            severity="warning",
                            hint="derive it from what the effect is made from (the action, pending_object, the "
                            "keyword, an event) instead of the effect itself; or make it a violation or a choice, "
                            "which no effect is derived from",
                        )
                    )
    return out
