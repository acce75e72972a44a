"""Rules to pyDatalog clauses: the syntax tree (judgelog.ast) compiled to pyDatalog's engine objects.

judgelog never hands pyDatalog rule *text* (``load()`` executes Python); it builds engine terms, literals
and clauses from the syntax tree. Names are given by the caller (judgelog.backend mangles every predicate).

>>> from judgelog.parser import parse_body
>>> [cmp] = parse_body("X + 1 < 3")
>>> literal = compile_comparison(cmp)
>>> literal.pred.name, [str(t) for t in literal.terms]  # the sum on the right: 3 > X + 1
('>', ["'3'", "(X+'1')"])
"""

from __future__ import annotations

from typing import Any

import pyDatalog.pyEngine as _E

from .ast import Atom, BinOp, Comparison, Const, Term, Var
from .bounded import operator_function, take
from .errors import WordForNumber
from .planning import fold_constants

__all__ = ["new_pred", "compile_term", "compile_atom", "compile_comparison", "bridge", "fact_clause", "ask_literal"]

# pyDatalog's engine objects (predicates, terms, literals, clauses): pyDatalog ships no types
Engine = Any

_OPS = {"=": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_MIRROR = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def new_pred(name: str, arity: int) -> Engine:
    """A new engine predicate ``name`` of ``arity`` arguments in the thread's database."""
    pred = _E.Pred(name, arity)
    pred.prearity = arity
    _E.insert(pred)
    return pred


def compile_term(term: Term, *, int_digits: int | None = None) -> Engine:
    """``term`` as a pyDatalog term; with ``int_digits``, its arithmetic is judgelog's own bounded operators
    (judgelog.bounded), which stop at an integer of more digits (L003)."""
    if isinstance(term, Var):
        return _E.Var(term.name)
    if isinstance(term, Const):
        return _E.Const(term.value)
    if isinstance(term, BinOp):
        left = compile_term(term.left, int_digits=int_digits)
        right = compile_term(term.right, int_digits=int_digits)
        if int_digits is not None:  # a function of both values: pyDatalog calls it once both are known
            return _E.Operation(_E.Const(operator_function(term.op, int_digits)), "(", _E.VarTuple([left, right]))
        if term.op in ("min", "max"):
            return _E.Operation(_E.Const(min if term.op == "min" else max), "(", _E.VarTuple([left, right]))
        return _E.Operation(left, "//" if term.op == "/" else term.op, right)
    raise TypeError(f"cannot compile term {term!r}")


def compile_atom(name: str, atom: Atom, *, int_digits: int | None = None) -> Engine:
    """``atom``'s arguments under the engine name ``name`` (``~name`` for a negated call)."""
    return _E.Literal(name, [compile_term(a, int_digits=int_digits) for a in atom.args])


def compile_comparison(lit: Comparison, *, int_digits: int | None = None) -> Engine:
    """pyDatalog needs a variable or a constant on the left of a comparison: fold constant sums, put a lone
    sum on the right, and compare two sums as 0 op (right - left) (integers; both are bound)."""
    left, right, op = fold_constants(lit.left), fold_constants(lit.right), lit.op
    if isinstance(left, BinOp):
        if isinstance(right, BinOp):
            left, right = Const(0), BinOp("-", right, left)
        else:
            left, right, op = right, left, _MIRROR[op]
    return _E.Literal(_OPS[op], [compile_term(left, int_digits=int_digits), compile_term(right, int_digits=int_digits)])


def bridge(edb: Engine, name: str, arity: int) -> Engine:
    """Assert ``name(X0, ...) <= edb(X0, ...)``: the facts of ``edb`` hold for ``name`` too."""
    xs = [_E.Var(f"X{i}") for i in range(arity)]
    return _E.assert_(_E.Clause(_E.Literal(name, xs), [_E.Literal(edb, xs)]))


def fact_clause(pred: Any, fact: tuple) -> Engine:
    """The bodiless clause stating ``fact``'s arguments for ``pred`` (an engine predicate or its name), to
    assert or retract."""
    return _E.Clause(_E.Literal(pred, [_E.Const(a) for a in fact[1:]]), [])


def ask_literal(literal: Engine) -> Engine:
    """pyDatalog's answer to a literal; a comparison of a word with a number is the user's error, an integer
    beyond the limit stops the question (judgelog.bounded)."""
    take()
    try:
        result = literal.ask()
    except TypeError as exc:  # pyDatalog compares a word with a number
        limit = take()
        if limit is not None:
            raise limit from None
        raise WordForNumber(
            f"a comparison mixes numbers and words ({exc})",
            hint="compare numbers with numbers; check the arguments given",
        ) from None
    limit = take()
    if limit is not None:
        raise limit
    return result
