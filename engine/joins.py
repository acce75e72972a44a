"""Conjunctive questions over a computed model: the clingo backend's way of asking once clingo has derived
the relations a question reads.

clingo decides every atom of the (stratified) rules; a question (a query, a proof step, a why-not literal)
is then one join over those relations: positive atoms through hash indexes on their known arguments,
``not`` as an index probe, comparisons and arithmetic with the rule language's semantics (integers only;
ordering a word against a number is refused, as the pyDatalog backend refuses it; a division by zero has
no value, so the literal holds for no binding).

>>> from judgelog.parser import parse_body
>>> rel = {"p": [(1, "a"), (2, "b")], "q": [("b",)]}
>>> sorted(answers(lambda pred: rel.get(pred, []), parse_body("p(N, X), not q(X), M = N + 1"), ["X", "M"]))
[('a', 2)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .ast import Atom, BinOp, Comparison, Const, Negation, Term, Var, arith
from .bounded import limit_error
from .errors import QueryError, WordForNumber
from .recursion import DEFAULT_LIMITS

__all__ = ["Relations", "answers", "compare", "check_numbers"]

Rows = Sequence[tuple]


class Relations:
    """The rows of each predicate (from ``source``, read once) with hash indexes built on first use.
    ``int_digits``: the integer limit of the arithmetic of questions about them (Limits.int_digits, L003)."""

    def __init__(self, source: Callable[[str], Rows], *, int_digits: int | None = DEFAULT_LIMITS.int_digits) -> None:
        self._source = source
        self.int_bound = None if int_digits is None else 10**int_digits
        self._rows: dict[str, Rows] = {}
        self._indexes: dict[tuple[str, tuple[int, ...]], dict[tuple, list[tuple]]] = {}

    def rows(self, pred: str) -> Rows:
        rows = self._rows.get(pred)
        if rows is None:
            rows = self._rows[pred] = list(self._source(pred))
        return rows

    def provide(self, pred: str, rows: Rows) -> None:
        """The rows of ``pred``, read by the caller with others (not read again from the source)."""
        self._rows.setdefault(pred, list(rows))

    def lookup(self, pred: str, positions: tuple[int, ...], key: tuple) -> Rows:
        if not positions:
            return self.rows(pred)
        index = self._indexes.get((pred, positions))
        if index is None:
            index = {}
            for row in self.rows(pred):
                index.setdefault(tuple(row[i] for i in positions), []).append(row)
            self._indexes[(pred, positions)] = index
        return index.get(key, ())


def _value(term: Term, binding: dict[str, Any], bound: int | None = None) -> Any:
    """The value of a term under a binding; None when it has none (a division by zero, anywhere in it).
    ``bound``: a value that large or larger is refused (L003), as the default backend's queries do."""
    if isinstance(term, Const):
        return term.value
    if isinstance(term, Var):
        return binding[term.name]
    if not isinstance(term, BinOp):
        raise TypeError(f"not a term of a query: {term!r}")
    left, right = _value(term.left, binding, bound), _value(term.right, binding, bound)
    if left is None or right is None:
        return None
    check_numbers(term.op, left, right)
    try:
        value = arith("/" if term.op == "//" else term.op, left, right)
    except ValueError:
        raise QueryError(f"unknown operator {term.op!r}") from None
    if bound is not None and type(value) is int and abs(value) >= bound:
        raise limit_error(len(str(bound)) - 1, "arithmetic")
    return value


def check_numbers(op: str, left: Any, right: Any) -> None:
    """Refuse arithmetic on a value that is not a number (the rule language's integers only)."""
    if not (type(left) is int and type(right) is int):
        raise WordForNumber(
            f"arithmetic on a value that is not a number ({left!r} {op} {right!r})",
            word=left if type(left) is not int else right,
            hint=f"{op} takes numbers: check the values the rule reads as numbers (a keyword's parameter, an "
            "action's argument, a fact of the scenario)",
        )


def compare(op: str, left: Any, right: Any) -> bool:
    """A comparison of two values of facts (a str or an int each) with the rule language's semantics:
    ``=`` and ``!=`` on any two, ordering only two numbers or two words (a number against a word is refused);
    a value that does not exist (None: a division by zero) holds for no comparison."""
    if left is None or right is None:
        return False
    if op == "=":
        return left == right
    if op == "!=":
        return left != right
    if (type(left) is int) != (type(right) is int):
        raise WordForNumber(
            f"a comparison mixes numbers and words ({left!r} {op} {right!r})",
            word=left if type(left) is not int else right,
            hint="compare numbers with numbers; check the arguments given",
        )
    if op == "<":
        return left < right
    if op == "<=":
        return left <= right
    if op == ">":
        return left > right
    return left >= right


def _match(atom: Atom, binding: dict, rel: Relations, *, negated: bool) -> Iterator[dict]:
    positions, key, free = [], [], []
    for i, arg in enumerate(atom.args):
        if isinstance(arg, Const):
            positions.append(i)
            key.append(arg.value)
        elif not isinstance(arg, Var):
            raise TypeError(f"not an argument of a query atom: {arg!r}")
        elif arg.name in binding:
            positions.append(i)
            key.append(binding[arg.name])
        else:
            free.append((i, arg.name))
    for row in rel.lookup(atom.pred, tuple(positions), tuple(key)):
        out = binding if negated else dict(binding)
        new: dict = {}
        for i, name in free:
            if new.setdefault(name, row[i]) != row[i]:
                break
        else:
            if negated:
                yield binding
                return
            out.update(new)
            yield out


def _solve(body: Sequence, i: int, binding: dict, rel: Relations) -> Iterator[dict]:
    if i == len(body):
        yield binding
        return
    lit = body[i]
    if isinstance(lit, Atom):
        for extended in _match(lit, binding, rel, negated=False):
            yield from _solve(body, i + 1, extended, rel)
    elif isinstance(lit, Negation):
        if next(_match(lit.atom, binding, rel, negated=True), None) is None:
            yield from _solve(body, i + 1, binding, rel)
    elif isinstance(lit, Comparison):
        left, right = lit.left, lit.right
        if lit.op == "=" and isinstance(right, Var) and right.name not in binding:
            left, right = right, left
        if lit.op == "=" and isinstance(left, Var) and left.name not in binding:
            value = _value(right, binding, rel.int_bound)
            if value is not None:  # no value (a division by zero): no binding
                yield from _solve(body, i + 1, dict(binding, **{left.name: value}), rel)
        elif compare(lit.op, _value(left, binding, rel.int_bound), _value(right, binding, rel.int_bound)):
            yield from _solve(body, i + 1, binding, rel)
    else:  # pragma: no cover - the analysis admits no other literal
        raise TypeError(f"not a literal: {lit!r}")


def answers(source: Relations | Callable[[str], Rows], body: Sequence, names: Sequence[str]) -> set:
    """The distinct bindings of ``names`` satisfying ``body`` (in evaluation order: every comparison and
    negation after the atoms that bind its variables). ``source`` is a :class:`Relations` or a function
    from a predicate to its rows."""
    rel = source if isinstance(source, Relations) else Relations(source)
    places = _one_atom_places(body, names)
    if places is not None:  # the rows of one atom of distinct variables, projected: no binding made per row
        rows = rel.rows(body[0].pred)
        if places == list(range(len(body[0].args))):
            return set(rows)
        return {tuple(row[i] for i in places) for row in rows}
    return {tuple(b[n] for n in names) for b in _solve(tuple(body), 0, {}, rel)}


def _one_atom_places(body: Sequence, names: Sequence[str]) -> list[int] | None:
    """Where each of ``names`` is in ``body`` when it is one atom whose arguments are distinct variables."""
    if len(body) != 1 or not isinstance(body[0], Atom):
        return None
    args = [a.name if isinstance(a, Var) else None for a in body[0].args]
    if None in args or len(set(args)) != len(args) or not set(names) <= set(args):
        return None
    return [args.index(n) for n in names]
