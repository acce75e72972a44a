"""Facts as values: one ground atom such as ``name(bear, "Grizzly Bears")``, as clingo's ``Symbol`` is.

A :class:`Fact` is a tuple ``(pred, arg, ...)`` (equal to, and hashed as, that plain tuple, so it costs
nothing where facts are stored and looked up) whose text is rule syntax and parses back to the same value.
Its arguments are words (``str``) and integers (``int``).

>>> from judgelog import Fact
>>> fact = Fact("name", "bear", "Grizzly Bears")
>>> print(fact)
name(bear, "Grizzly Bears")
>>> fact
Fact('name', 'bear', 'Grizzly Bears')
>>> fact.pred, fact.args, fact.signature
('name', ('bear', 'Grizzly Bears'), 'name/2')
>>> Fact.parse(str(fact)) == fact == ("name", "bear", "Grizzly Bears")
True
>>> Fact.parse("counter(bear, p1p1, -1)").args
('bear', 'p1p1', -1)
>>> Fact.parse("tapped(X)")
Traceback (most recent call last):
  ...
judgelog.errors.QueryError: a fact is one atom with constant arguments, got 'tapped(X)':
<atom>:1:8: error[E001]: expected a constant, found variable X
  hint: one atom whose arguments are constants: lower_snake words, "quoted" strings or integers, e.g. tapped(bear)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Self

from .ast import Atom, Const, Term, Var, ground_text
from .codes import E001
from .errors import Diagnostic, QueryError
from .parser import parse_body

__all__ = ["Fact", "Value", "fact_order", "natural_order", "fact_set"]

Value = str | int  # the value of an argument: a word (atom or quoted string) or an integer


class Fact(tuple[Any, ...]):
    """A ground atom: ``Fact("tapped", "bear")`` is ``tapped(bear)``; ``Fact("turn")`` is ``turn()``.

    ``str()`` is rule syntax, :meth:`parse` reads it back; ``repr()`` is Python that makes it again."""

    __slots__ = ()

    def __new__(cls, pred: str, *args: Value) -> Self:
        return tuple.__new__(cls, (pred, *args))

    def __getnewargs__(self) -> tuple[Any, ...]:  # pickling and copying call __new__(cls, pred, *args)
        return tuple(self)

    @classmethod
    def of(cls, fact: tuple[Any, ...]) -> Fact:
        """The fact a tuple ``(pred, arg, ...)`` stands for (the same object when it is one already)."""
        return fact if type(fact) is cls else tuple.__new__(cls, fact)

    @classmethod
    def parse(cls, text: str, path: str = "<atom>") -> Fact:
        """The fact that ``text`` writes in rule syntax; a syntax error or an argument that is not a constant
        raises :class:`~judgelog.QueryError` with the place (``path:line:col``) and a hint."""
        try:
            body = parse_body(text, path)
        except QueryError as exc:
            first = f": {exc.diagnostics[0].message}" if exc.diagnostics else ""
            raise QueryError(f"cannot parse fact {text!r}{first}", diagnostics=exc.diagnostics) from None
        if len(body) != 1 or not isinstance(body[0], Atom):
            extra = body[1] if len(body) > 1 else body[0]
            raise QueryError(
                f"{_SHAPE}, got {text!r}",
                diagnostics=[Diagnostic(E001, "expected one atom", extra.span, hint=_HINT)],
            )
        return cls.from_atom(body[0], text=text)

    @classmethod
    def from_atom(cls, atom: Atom, *, text: str | None = None) -> Fact:
        """The fact a ground atom of the syntax tree stands for; ``text``, when given, is what it was parsed
        from (for the message when an argument is a variable or arithmetic)."""
        values: list[Value] = []
        for arg in atom.args:
            if not isinstance(arg, Const):
                raise QueryError(
                    f"{_SHAPE}, got {text if text is not None else str(atom)!r}",
                    diagnostics=[Diagnostic(E001, f"expected a constant, found {_what(arg)}", arg.span, hint=_HINT)],
                )
            values.append(arg.value)
        return tuple.__new__(cls, (atom.pred, *values))

    @property
    def pred(self) -> str:
        """The predicate's name."""
        return str(self[0])

    @property
    def args(self) -> tuple[Value, ...]:
        return tuple(self[1:])

    @property
    def arity(self) -> int:
        return len(self) - 1

    @property
    def signature(self) -> str:
        """``pred/arity``, as rule files and messages name a predicate (:attr:`judgelog.ast.Atom.key`)."""
        return f"{self[0]}/{len(self) - 1}"

    def to_atom(self) -> Atom:
        """This fact as an atom of the syntax tree (its arguments constants)."""
        return Atom(self[0], tuple(Const(v) for v in self[1:]))

    def __str__(self) -> str:
        return ground_text(self[0], self[1:])

    def __repr__(self) -> str:
        return "Fact" + tuple.__repr__(self)


_SHAPE = "a fact is one atom with constant arguments"
_HINT = 'one atom whose arguments are constants: lower_snake words, "quoted" strings or integers, e.g. tapped(bear)'


def _what(term: Term) -> str:
    return f"variable {term}" if isinstance(term, Var) else f"{term}"


def fact_order(fact: tuple[Any, ...]) -> str:
    """The key that lists facts in a stable order (that of their tuple text): a :class:`Fact` and the plain
    tuple it equals sort alike, and words and integers never meet in a comparison."""
    return tuple.__repr__(fact)


def natural_order(values: tuple[Any, ...]) -> tuple:
    """The key that lists facts (or any tuples of words and integers) as a reader expects: integers by value
    and the numbers in words by theirs (``event(2, ...)`` before ``event(10, ...)``, ``effect_2`` before
    ``effect_10``); an integer before a word at the same place, so the two are never compared.

    >>> sorted([("e", 10), ("e", 2), ("e", "x_10"), ("e", "x_9")], key=natural_order)
    [('e', 2), ('e', 10), ('e', 'x_9'), ('e', 'x_10')]
    """
    return tuple(
        (0, v, ())
        if isinstance(v, int)
        else (1, 0, tuple(int(p) if i % 2 else p for i, p in enumerate(_DIGITS.split(str(v)))))
        for v in values
    )


_DIGITS = re.compile(r"(\d+)")


def fact_set(facts: Iterable[tuple[Any, ...]]) -> frozenset[Fact]:
    """The facts as a set of :class:`Fact` values; those that are one already are kept as they are (a state made
    from another by an action converts only the facts the action made)."""
    return frozenset([f if f.__class__ is Fact else tuple.__new__(Fact, f) for f in facts])
