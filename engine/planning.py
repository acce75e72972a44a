"""Query planning helpers for the pyDatalog backend: binding patterns, unfolding of single-rule
predicates, liveness probes, constant folding, and the deterministic order of answers."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .analysis import bound_after
from .ast import (
    Aggregate,
    Atom,
    BinOp,
    Comparison,
    Const,
    Literal,
    Negation,
    Rule,
    Term,
    Var,
    arith,
    literal_vars,
    term_vars,
)
from .errors import QueryError
from .program import Program

__all__ = [
    "Contributions",
    "IMPOSSIBLE",
    "UNFOLD_DEPTH",
    "binding_pattern",
    "pattern_text",
    "unfold",
    "literal_terms",
    "variant_name",
    "probe_of",
    "probe_alive",
    "fold_constants",
    "checked_rows",
    "why_vars",
    "aggregate_value",
    "head_value",
    "value_key",
    "row_sort_key",
    "sorted_rows",
]


def binding_pattern(atom: Atom, bound: set[str]) -> tuple[bool, ...]:
    """Which arguments of ``atom`` are known when it is called with ``bound`` variables known."""
    return tuple(isinstance(a, Const) or (not isinstance(a, Aggregate) and term_vars(a) <= bound) for a in atom.args)


def pattern_text(pattern: tuple[bool, ...]) -> str:
    return "".join("b" if known else "f" for known in pattern)


UNFOLD_DEPTH = 6


class Impossible:
    """What unfold gives for a call no fact can match (a constant of the head differs from the call's)."""


IMPOSSIBLE = Impossible()


def unfold(
    call: Atom, rule: Rule, body: Sequence[Literal], serial: int, negated: bool
) -> list[Literal] | Impossible | None:
    """The literals that replace ``call`` by the body of ``rule`` (its only possible rule): head arguments
    matched against the call's, the rule's other variables renamed apart (``X#n``: no rule variable can be
    spelt so). ``IMPOSSIBLE`` when a constant of the head differs from the call's; None when the call
    cannot be unfolded (an arithmetic argument; under ``not``, a body other than one positive atom)."""
    if negated and (len(body) != 1 or not isinstance(body[0], Atom)):
        return None
    if not negated:
        # a variable of the body's atoms the head does not keep ("attacking(_, T)") is a projection: the call
        # answers each head once, the unfolded body once per witness, which multiplies the rows of the body
        # it joins (every attacker of T, for every other literal's row): such a rule stays a call
        head_vars = {a.name for a in rule.head.args if isinstance(a, Var)}
        if any(literal_vars(lit) - head_vars for lit in body if isinstance(lit, Atom)):
            return None
    mapping: dict[str, Term] = {}
    extra: list[Literal] = []
    filtered = set()  # variables the body tests (negations, comparisons): they must stay named
    for lit in body:
        if not isinstance(lit, Atom):
            filtered |= literal_vars(lit)
    for head_arg, arg in zip(rule.head.args, call.args):
        if isinstance(arg, BinOp) or isinstance(arg, Aggregate):
            return None
        if (
            isinstance(arg, Var)
            and arg.name.startswith("_")
            and isinstance(head_arg, Var)
            and head_arg.name in filtered
            and not negated
        ):
            return None  # "any value" would reach a test that needs the value
        if isinstance(head_arg, Var):
            if head_arg.name in mapping:
                extra.append(Comparison("=", mapping[head_arg.name], arg))
            else:
                mapping[head_arg.name] = arg
        elif isinstance(arg, Const) and isinstance(head_arg, Const):
            if arg.value != head_arg.value:
                return IMPOSSIBLE
        else:
            extra.append(Comparison("=", arg, head_arg))
    if negated and extra:
        return None

    def rename(term: Term) -> Term:
        if isinstance(term, Var):
            if term.name in mapping:
                return mapping[term.name]
            anonymous = negated or term.name.startswith("_")
            renamed = Var(f"_{term.name.lstrip('_')}#{serial}" if anonymous else f"{term.name}#{serial}")
            mapping[term.name] = renamed
            return renamed
        if isinstance(term, BinOp):
            return BinOp(term.op, rename(term.left), rename(term.right))
        return term

    out = list(extra)
    for lit in body:
        if isinstance(lit, Atom):
            out.append(Atom(lit.pred, tuple(rename(a) for a in lit.args)))
        elif isinstance(lit, Negation):
            out.append(Negation(Atom(lit.atom.pred, tuple(rename(a) for a in lit.atom.args))))
        else:
            out.append(Comparison(lit.op, rename(lit.left), rename(lit.right)))
    return out


def literal_terms(lit: Literal) -> tuple[Term, ...]:
    if isinstance(lit, Negation):
        lit = lit.atom
    if isinstance(lit, Atom):
        return lit.args
    return (lit.left, lit.right)


def variant_name(name: str, pattern: tuple[bool, ...], ns_id: int) -> str:
    return f"{name}@{pattern_text(pattern)}@{ns_id}"


def probe_of(atom: Atom) -> tuple:
    """A fact atom reduced to what decides whether it can match: the predicate and its constant arguments
    (floats left out: pyDatalog rounds them)."""
    return (
        atom.pred,
        tuple((i, a.value) for i, a in enumerate(atom.args) if isinstance(a, Const) and not isinstance(a.value, float)),
    )


def probe_alive(counts: dict, probe: tuple, positions: Mapping[str, Collection[int]]) -> bool:
    """Can a fact of the counted ones match ``probe``? An entry ``(i, value)`` needs a fact with ``value`` at
    place ``i``; an entry ``(i, values, catalog)`` (a catalog join: judgelog.compiled) needs one with any of
    ``values`` there, unless the state gives facts of ``catalog`` itself (then any value may join)."""
    pred, consts = probe
    if counts.get(pred, 0) <= 0:
        return False
    counted = positions.get(pred, ())
    for entry in consts:
        i = entry[0]
        if i not in counted:
            continue
        if len(entry) == 2:
            if counts.get((pred, i, entry[1]), 0) <= 0:
                return False
        elif counts.get(entry[2], 0) <= 0 and not any(counts.get((pred, i, v), 0) > 0 for v in entry[1]):
            return False
    return True


def fold_constants(term: Term) -> Term:
    """Arithmetic on integer constants, computed (pyDatalog leaves a constant expression alone); a division
    by the constant 0 stays (the backend's guard makes it hold for nothing)."""
    if not isinstance(term, BinOp):
        return term
    left, right = fold_constants(term.left), fold_constants(term.right)
    if (
        isinstance(left, Const)
        and isinstance(right, Const)
        and isinstance(left.value, int)
        and isinstance(right.value, int)
    ):
        value = arith(term.op, left.value, right.value)
        if value is not None:
            return Const(value, term.span)
    return BinOp(term.op, left, right, term.span)


def divisors(term: Term) -> list[Term]:
    """The divisors of every ``/`` in a term (each must not be 0 for the term to have a value)."""
    if not isinstance(term, BinOp):
        return []
    own = [term.right] if term.op == "/" else []
    return own + divisors(term.left) + divisors(term.right)


def checked_rows(rows: list[tuple]) -> list[tuple]:
    """pyDatalog answers ``X = a + 1`` with an exception object as the value of X: refuse it."""
    for row in rows:
        for value in row:
            if isinstance(value, BaseException):
                raise QueryError(
                    f"arithmetic on a value that is not a number ({value})",
                    hint="arithmetic takes numbers: check the values the rule reads as numbers (a keyword's "
                    "parameter, an action's argument, a fact of the scenario)",
                )
    return rows


def why_vars(rule: Rule, program: Program) -> tuple[str, ...]:
    body = program.body(rule)
    bound = bound_after(body, set())
    ordered = []
    for lit in body:
        for name in sorted(literal_vars(lit)):
            if name in bound and name not in ordered:
                ordered.append(name)
    return tuple(ordered)


def head_value(term: Term) -> object:
    """The value of a constant argument of an aggregate rule's head (its other arguments are variables)."""
    if not isinstance(term, Const):
        raise TypeError(f"an aggregate rule's head holds arithmetic: {term}")
    return term.value


@dataclass(frozen=True)
class Contributions:
    """What an aggregate fact was computed from: the body bindings of the rule(s) that derive it, and the rule
    that derived it first (None for a fact that was also given as input)."""

    rule: Rule | None
    bindings: list[dict[str, Any]]


def group_by_head(rule: Rule, names: Sequence[str], rows: Iterable[Sequence[Any]]) -> dict[tuple, list[dict[str, Any]]]:
    """An aggregate rule's body bindings (``rows`` of the variables ``names``), grouped by the values of its
    head's other arguments: one group per fact the rule derives."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for row in rows:
        binding = dict(zip(names, row))
        key = tuple(
            binding[a.name] if isinstance(a, Var) else head_value(a)
            for a in rule.head.args
            if not isinstance(a, Aggregate)
        )
        groups.setdefault(key, []).append(binding)
    return groups


def aggregate_value(agg: Aggregate, bindings: list[dict[str, Any]]) -> Any:
    if agg.func == "count":
        return len(bindings)
    assert agg.var is not None  # the parser gives sum, min and max their variable
    values = [b[agg.var.name] for b in bindings]
    if agg.func == "sum":
        return sum(v for v in values if isinstance(v, int))
    if agg.func == "min":
        return min(values, key=value_key)
    return max(values, key=value_key)


def value_key(value: object) -> tuple[int, Any, str]:
    return (0, value, "") if isinstance(value, int) else (1, 0, str(value))


def row_sort_key(row: Iterable[object]) -> tuple[tuple[int, Any, str], ...]:
    return tuple(value_key(v) for v in row)


def sorted_rows(rows: Iterable[tuple]) -> list[tuple]:
    """``rows`` in the order of :func:`row_sort_key` (numbers before words, numbers by value, words by text).
    When each column holds only numbers or only words (as almost every answer does), that is the rows' own
    order, compared without making a key per row (``("a", 9)`` before ``("a", 10)`` before ``("b", 2)``;
    a column mixing them is sorted by the key: ``(3,)`` before ``("a",)``)."""
    rows = list(rows)
    for column in zip(*rows):
        if set(map(type, column)) not in _ONE_TYPE:
            return sorted(rows, key=row_sort_key)
    return sorted(rows)


_ONE_TYPE = ({int}, {str})  # a column of these types is in row_sort_key's order by its values alone
