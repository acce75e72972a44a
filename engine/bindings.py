"""Bindings of a rule's variables: evaluating a term under a binding, grounding an atom, and substituting the
bound variables of a literal (what a proof or a why-not shows of a rule with some of its variables known).

>>> from judgelog.parser import parse_body
>>> atom, comparison = parse_body("power(O, N), M = N + 1")
>>> ground(atom, {"O": "bear", "N": 2}), eval_term(comparison.right, {"N": 2})
(('power', 'bear', 2), 3)
>>> str(partial_lit(comparison, {"N": 2})), sorted(var_names(comparison))
('M = 2 + 1', ['M', 'N'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

from .ast import Aggregate, Atom, BinOp, Comparison, Const, Literal, Negation, Term, Var, arith, format_value
from .errors import QueryError

__all__ = [
    "Binding",
    "eval_term",
    "eval_or_none",
    "ground",
    "ground_or_none",
    "head_text",
    "head_vars",
    "unify_head",
    "unify_vars",
    "partial",
    "partial_lit",
    "var_names",
    "vars_of",
]

Binding = dict[str, Any]


def eval_term(term: Term, binding: Binding) -> Any:
    if isinstance(term, Var):
        return binding.get(term.name, term.name)
    if isinstance(term, Const):
        return term.value
    if isinstance(term, BinOp):
        left, right = eval_term(term.left, binding), eval_term(term.right, binding)
        if type(left) is int and type(right) is int and arith(term.op, left, right) is not None:
            return arith(term.op, left, right)
        return str(BinOp(term.op, Const(left), Const(right)))
    raise QueryError(f"cannot evaluate {term}")


def eval_or_none(term: Term, binding: Binding) -> Any:
    try:
        value = eval_term(term, binding)
    except QueryError:
        return None
    return None if isinstance(term, Var) and term.name not in binding else value


def ground_or_none(atom: Atom) -> tuple | None:
    values = tuple(a.value for a in atom.args if isinstance(a, Const))
    return (atom.pred,) + values if len(values) == len(atom.args) else None


def ground(atom: Atom, binding: Binding) -> tuple:
    """The fact ``atom`` stands for under ``binding`` (every variable bound; arithmetic evaluated)."""
    return (atom.pred,) + tuple(eval_term(a, binding) for a in atom.args)


def head_text(atom: Atom, binding: Binding) -> str:
    """What a rule's head gives under ``binding``, in rule syntax: a fact, or, for an aggregate's head, the
    part one body match adds to it (``power_bonus(bears, sum(1))``: a 1 among the sum's terms).

    >>> from judgelog.parser import parse_text
    >>> head = parse_text("b(O, sum(N)) :- a(O, N).").items[0].head
    >>> head_text(head, {"O": "bears", "N": 1})
    'b(bears, sum(1))'
    """
    args = [
        f"{a.func}({format_value(eval_term(a.var, binding)) if a.var else ''})"
        if isinstance(a, Aggregate)
        else format_value(eval_term(a, binding))
        for a in atom.args
    ]
    return f"{atom.pred}({', '.join(args)})"


def partial(atom: Atom, binding: Binding) -> Atom:
    args: list[Term] = []
    for a in atom.args:
        if isinstance(a, Var) and a.name in binding:
            args.append(Const(binding[a.name]))
        else:
            args.append(a)
    return Atom(atom.pred, tuple(args), atom.span)


def _partial_term(term: Term, binding: Binding) -> Term:
    if isinstance(term, Var) and term.name in binding:
        return Const(binding[term.name])
    if isinstance(term, BinOp):
        return BinOp(term.op, _partial_term(term.left, binding), _partial_term(term.right, binding), term.span)
    return term


@overload
def partial_lit(lit: Atom, binding: Binding) -> Atom: ...
@overload
def partial_lit(lit: Negation, binding: Binding) -> Negation: ...
@overload
def partial_lit(lit: Comparison, binding: Binding) -> Comparison: ...
@overload
def partial_lit(lit: Literal, binding: Binding) -> Literal: ...
def partial_lit(lit: Literal, binding: Binding) -> Literal:
    if isinstance(lit, Atom):
        return partial(lit, binding)
    if isinstance(lit, Negation):
        return Negation(partial(lit.atom, binding), lit.span)
    return Comparison(lit.op, _partial_term(lit.left, binding), _partial_term(lit.right, binding), lit.span)


def vars_of(lit: Literal) -> list[Var]:
    terms: Sequence[Term]
    if isinstance(lit, Comparison):
        terms = (lit.left, lit.right)
    else:
        terms = (lit.atom if isinstance(lit, Negation) else lit).args
    out: list[Var] = []
    for t in terms:
        out.extend(_term_var_objs(t))
    return out


def _term_var_objs(t: Term) -> list[Var]:
    if isinstance(t, Var):
        return [t]
    if isinstance(t, BinOp):
        return _term_var_objs(t.left) + _term_var_objs(t.right)
    return []


def var_names(lit: Literal) -> set[str]:
    return {v.name for v in vars_of(lit)}


def head_vars(head: Atom) -> tuple[tuple[int, str | None], ...]:
    """The positions of a head that are not constants, each with its variable's name (None for a term that is
    neither a constant nor a variable): once its constants match, unifying a fact looks at these only."""
    return tuple(
        (i, a.name if isinstance(a, Var) else None) for i, a in enumerate(head.args) if not isinstance(a, Const)
    )


def unify_vars(plan: tuple[tuple[int, str | None], ...], values: Sequence[Any]) -> Binding | None:
    """The binding of a head's variables to ``values`` (None: no value asked there), the head's constants
    matching already, from its other positions (:func:`head_vars`); None when they cannot be unified."""
    binding: Binding = {}
    n = len(values)
    for i, name in plan:
        if i >= n:
            break
        value = values[i]
        if value is None:
            continue
        if name is None:
            return None
        if name in binding and binding[name] != value:
            return None
        binding[name] = value
    return binding


def unify_head(head: Atom, values: Sequence[Any]) -> Binding | None:
    """The binding of a head's variables to ``values`` (None: no value asked there), or None when the head
    cannot give them (a constant differs, a variable would take two values)."""
    for arg, value in zip(head.args, values):
        if isinstance(arg, Const) and value is not None and (arg.value != value or type(arg.value) is not type(value)):
            return None
    return unify_vars(head_vars(head), values)
