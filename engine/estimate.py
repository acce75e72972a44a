"""About how many candidates a body enumerates in a state, from the fact counts a backend keeps.

The pyDatalog backend asks a question with variables bound to sets of values (judgelog.incremental's
``Among``) by evaluating the body once per value; that pays only when the values are fewer than the
candidates the body would enumerate with those variables open. :func:`enumerated` estimates those: the
fewest facts of one positive atom of the body (its constants counted where the backend counts them), a
derived atom by the rules that may derive it (their own estimates, summed, a few levels down). It is an
estimate for choosing how to ask, never for an answer.

>>> from judgelog import Engine
>>> from judgelog.analysis import checked_question
>>> engine = Engine()
>>> state = engine.load(engine.example("proliferate_kinds.yaml"))
>>> def estimate(text, var):
...     body, _names = checked_question(engine.program, text)
...     with engine.backend.session(state.facts) as view:
...         return enumerated(engine.backend.compiled, view, body, var)
>>> estimate("permanent(O)", "O"), estimate("permanent(O), counter(O, p1p1, N)", "O")
(4, 2)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .ast import Atom, Comparison, Const, Var

if TYPE_CHECKING:  # pragma: no cover
    from .compiled import CompiledProgram
    from .threadview import ThreadView

__all__ = ["enumerated", "counted_facts"]

DEPTH = 3  # derived atoms are followed this many rules down; deeper, they count as unknown (infinite)


def enumerated(compiled: CompiledProgram, view: ThreadView, body: Sequence, var: str) -> float:
    """The estimate of the module doc: how many values of ``var`` the body enumerates (its ``X = value``
    comparisons bind X); ``math.inf`` when no positive atom holding ``var`` gives one."""
    fixed = {
        lit.left.name: lit.right.value
        for lit in body
        if isinstance(lit, Comparison) and lit.op == "=" and isinstance(lit.left, Var) and isinstance(lit.right, Const)
    }
    return _body(compiled, view, body, fixed, var, DEPTH)


def counted_facts(
    compiled: CompiledProgram, given: Mapping, computed: Mapping, pred: str, values: Sequence[Any]
) -> int:
    """About how many facts of ``pred`` hold ``values`` (None: any value), from a backend's counts of the
    facts given and computed (by predicate, and by predicate, position and value where the values are
    counted: the fewest with one of the values), plus those the rule files state."""
    n_given, n_made = given.get(pred, 0), computed.get(pred, 0)
    for i in compiled.probe_positions.get(pred, ()):
        if i < len(values) and values[i] is not None:
            n_given = min(n_given, given.get((pred, i, values[i]), 0))
            n_made = min(n_made, computed.get((pred, i, values[i]), 0))
    return n_given + n_made + compiled.rule_fact_counts.get(pred, 0)


def _body(
    compiled: CompiledProgram, view: ThreadView, body: Sequence, fixed: dict[str, Any], var: str, depth: int
) -> float:
    """The fewest values of ``var`` one positive atom of ``body`` holding it has."""
    best = math.inf
    for lit in body:
        if isinstance(lit, Atom):
            for i, term in enumerate(lit.args):
                if isinstance(term, Var) and term.name == var:
                    best = min(best, _atom(compiled, view, lit, i, fixed, depth))
                    break
            if best == 0:
                break
    return best


def _atom(compiled: CompiledProgram, view: ThreadView, atom: Atom, at: int, fixed: dict[str, Any], depth: int) -> float:
    """About how many values argument ``at`` of ``atom`` takes: its facts (with its constants), or the
    values the rules that may derive it give it."""
    values = [a.value if isinstance(a, Const) else fixed.get(a.name) if isinstance(a, Var) else None for a in atom.args]
    if atom.pred not in compiled.idb:  # facts: counted (computed facts too)
        return counted_facts(compiled, view.counts, view.computed_counts, atom.pred, values)
    if depth == 0:
        return math.inf
    total = 0.0
    program = compiled.program
    for rule in program.rules_by_head.get(atom.pred, ()):
        bound: dict[str, Any] = {}
        fits = True
        for term, value in zip(rule.head.args, values):
            if value is None:
                continue
            if isinstance(term, Const) and term.value != value:
                fits = False
                break
            if isinstance(term, Var):
                bound[term.name] = value
        if not fits:
            continue
        head = rule.head.args[at] if at < len(rule.head.args) else None
        if not isinstance(head, Var) or not rule.body:
            total += 1  # one value (a constant, or a fact the rule files state)
        else:
            total += _body(compiled, view, program.body(rule), bound, head.name, depth - 1)
        if total == math.inf:
            break
    return total
