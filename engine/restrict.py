"""Restricting a rule or a question to an affected pattern of a change (judgelog.incremental): the
comparisons that bind its head's variables to the pattern's values, and the variables the pattern binds to
a set of values (:class:`~judgelog.incremental.Among`).

>>> from judgelog.incremental import WILD
>>> from judgelog.parser import parse_body
>>> (head,) = parse_body("toughness(O, N)")
>>> [str(c) for c in binding_literals(head, ("bear", WILD))], binding_literals(head, ("bear", WILD)) is None
(['O = bear'], False)
"""

from __future__ import annotations

from typing import Any

from .ast import Atom, Comparison, Const, Var
from .incremental import WILD, Among, Pattern

__all__ = ["binding_literals", "among_bindings"]


def binding_literals(rule_head: Atom, pattern: Pattern) -> list[Comparison] | None:
    """Comparisons ``X = value`` that restrict a rule (or question) with head ``rule_head`` to the facts
    matching ``pattern``; None when a constant of the head rules the pattern out."""
    out: list[Comparison] = []
    seen: dict[str, Any] = {}
    for term, value in zip(rule_head.args, pattern):
        if value is WILD:
            continue
        if type(value) is Among:  # a set of values: see among_bindings
            if isinstance(term, Const) and term.value not in value.values:
                return None
            continue
        if isinstance(term, Const):
            if term.value != value:
                return None
        elif isinstance(term, Var) and not term.name.startswith("_"):
            if term.name in seen:
                if seen[term.name] != value:
                    return None
                continue
            seen[term.name] = value
            out.append(Comparison("=", Var(term.name), Const(value)))
    return out


def among_bindings(rule_head: Atom, pattern: Pattern) -> dict[str, frozenset]:
    """The variables of ``rule_head`` that ``pattern`` binds to a set of values (:class:`Among`), with the
    values (:func:`binding_literals` leaves them open)."""
    out: dict[str, frozenset] = {}
    for term, value in zip(rule_head.args, pattern):
        if type(value) is Among and isinstance(term, Var) and not term.name.startswith("_"):
            out[term.name] = out[term.name] & value.values if term.name in out else value.values
    return out
