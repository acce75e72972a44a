"""Static type check of arithmetic: the operands of ``+``, ``-`` (and any other arithmetic operator) must
be integers. A constant word, or a variable that the body binds only at argument positions declared with a
type other than an integer (``atom``, ``object``, ``player`` ...), is refused with E015 at its position;
pyDatalog would otherwise concatenate words (``hero + hero``) and proofs would show it as a premise. And
``<``, ``>``, ``<=``, ``>=`` do not order a word against a number (E017).

>>> from judgelog.parser import parse_text
>>> from judgelog.analysis import analyze
>>> f = parse_text('''
... .decl named(o: object, n: atom) "" input
... .decl twice(o: object, n: atom) ""
... twice(O, M) :- named(O, N), M = N + N.
... ''', "t.dl")
>>> _, diags = analyze([f], require_annotations=False)
>>> [(d.code, d.span.line, d.span.col, d.message) for d in diags if d.code == "E015"]
[('E015', 4, 33, 'arithmetic on N, bound by named as n: atom, not an integer')]
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .ast import Atom, BinOp, Comparison, Const, Decl, Literal, Term, Var
from .codes import E015, E017
from .errors import Diagnostic

__all__ = ["arithmetic_problems"]


def arithmetic_problems(
    body: Sequence[Literal], decls: dict[str, Decl], int_types: Collection[str]
) -> list[Diagnostic]:
    """E015 diagnostics for arithmetic on words in ``body`` (rule body or query)."""
    kinds: dict[str, list[tuple[str, str, str]]] = {}  # variable -> (pred, param name, type) where bound
    for lit in body:
        if not isinstance(lit, Atom):
            continue
        decl = decls.get(lit.pred)
        if decl is None or decl.arity != len(lit.args):
            continue
        for param, arg in zip(decl.params, lit.args):
            if isinstance(arg, Var):
                kinds.setdefault(arg.name, []).append((lit.pred, param.name, param.type))
    numeric = {name for name, seen in kinds.items() if any(t in int_types for _, _, t in seen)}
    for lit in body:  # a variable assigned from arithmetic is a number
        if isinstance(lit, Comparison) and lit.op == "=":
            for side, other in ((lit.left, lit.right), (lit.right, lit.left)):
                if isinstance(side, Var) and isinstance(other, BinOp):
                    numeric.add(side.name)
    out: list[Diagnostic] = []
    for lit in body:
        if not isinstance(lit, Comparison):
            continue
        reported = set()
        for term in (lit.left, lit.right):
            for operand in _operands(term):
                if isinstance(operand, Var):
                    if operand.name in reported:
                        continue
                    reported.add(operand.name)
                if isinstance(operand, Const) and (type(operand.value) is not int):
                    out.append(
                        Diagnostic(
                            E015,
                            f"arithmetic on {operand.value!r}, which is not an integer",
                            operand.span,
                            hint="arithmetic operators take integers",
                        )
                    )
                elif isinstance(operand, Var) and operand.name in kinds and operand.name not in numeric:
                    pred, pname, kind = kinds[operand.name][0]
                    shown = "_" if operand.name.startswith("_") else operand.name
                    out.append(
                        Diagnostic(
                            E015,
                            f"arithmetic on {shown}, bound by {pred} as {pname}: {kind}, not an integer",
                            operand.span,
                            hint="arithmetic operators take integers; bind the variable at an argument declared int",
                        )
                    )
    out.extend(_ordering_problems(body, kinds, numeric))
    return out


def _ordering_problems(
    body: Sequence[Literal], kinds: dict[str, list[tuple[str, str, str]]], numeric: set[str]
) -> list[Diagnostic]:
    """E017 for ``<``, ``>``, ``<=``, ``>=`` between a word and a number: the backends order them differently
    (pyDatalog refuses the comparison as it evaluates it; clingo puts every word above every number)."""
    out: list[Diagnostic] = []
    for lit in body:
        if not isinstance(lit, Comparison) or lit.op not in ("<", ">", "<=", ">="):
            continue
        sides = [(term, _kind(term, kinds, numeric)) for term in (lit.left, lit.right)]
        if {k for _, k in sides} != {"number", "word"}:
            continue
        word = next(term for term, k in sides if k == "word")
        if isinstance(word, Var):
            pred, pname, kind = kinds[word.name][0]
            what = f"{word.name}, bound by {pred} as {pname}: {kind},"
        else:
            what = f"the word {word.value!r}" if isinstance(word, Const) else "a word"
        out.append(
            Diagnostic(
                E017,
                f"{what} is compared with a number ({lit.op})",
                getattr(word, "span", None) or lit.span,
                hint="order numbers with numbers (arguments declared int); compare words with = and !=",
            )
        )
    return out


def _kind(term: Term, kinds: dict[str, list[tuple[str, str, str]]], numeric: set[str]) -> str | None:
    """``number``, ``word`` or None (unknown) for one side of a comparison."""
    if isinstance(term, BinOp):
        return "number"
    if isinstance(term, Const):
        return "number" if type(term.value) is int else "word"
    if isinstance(term, Var) and term.name in numeric:
        return "number"
    if isinstance(term, Var) and term.name in kinds:  # bound only at word positions: a word, unless one is
        # declared `atom`, which also holds an action's numbers (act_arg's values): then it is not known
        return None if any(t == "atom" for _, _, t in kinds[term.name]) else "word"
    return None


def _operands(term: Term) -> list[Term]:
    """The leaves of the arithmetic in ``term`` (nothing when ``term`` is not arithmetic)."""
    if not isinstance(term, BinOp):
        return []
    out: list[Term] = []
    for side in (term.left, term.right):
        out.extend(_operands(side) if isinstance(side, BinOp) else [side])
    return out
