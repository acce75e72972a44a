"""Syntax trees of the rule language: frozen dataclasses, each node with its source span.

>>> from judgelog.parser import parse_body
>>> body = parse_body("blocked_by(A, B), not tapped(B), A != B")
>>> [type(lit).__name__ for lit in body]
['Atom', 'Negation', 'Comparison']
>>> str(body[1])
'not tapped(B)'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter

__all__ = [
    "Span",
    "Var",
    "Const",
    "BinOp",
    "Aggregate",
    "Atom",
    "Negation",
    "Comparison",
    "Rule",
    "Param",
    "Decl",
    "Include",
    "PLACEHOLDER",
    "unfilled",
    "RuleFile",
    "Term",
    "Literal",
    "format_value",
    "ground_text",
    "term_vars",
    "literal_vars",
    "ARITHMETIC",
    "arith",
]

# the arithmetic of the rule language: binary operators, and min/max written as functions of two values
ARITHMETIC = ("+", "-", "*", "/", "min", "max")
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


def arith(op: str, left: int, right: int) -> int | None:
    """The value of ``left op right`` on integers; ``/`` is integer division rounded down, and None when
    dividing by zero (a comparison with no value holds for no binding)."""
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "/":
        return None if right == 0 else left // right
    if op == "min":
        return min(left, right)
    if op == "max":
        return max(left, right)
    raise ValueError(f"unknown operator {op!r}")


class Span(tuple):
    """A place in a source file (1-based line and column): ``Span(file, line, col=1)``, immutable.

    A tuple underneath, so that the rule library's cache entry, which holds tens of thousands of them (one
    per rule, atom, term and parameter), reads them back without a Python call each (``__reduce__``).

    >>> Span("x.dl", 3).location(), Span("x.dl", 3, 1) == Span("x.dl", 3)
    ('x.dl:3:1', True)
    """

    __slots__ = ()

    def __new__(cls, file: str, line: int, col: int = 1) -> Span:
        return tuple.__new__(cls, (file, line, col))

    file: str = property(itemgetter(0))  # type: ignore[assignment]
    line: int = property(itemgetter(1))  # type: ignore[assignment]
    col: int = property(itemgetter(2))  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Span(file={self.file!r}, line={self.line!r}, col={self.col!r})"

    def __reduce__(self) -> tuple:
        return (tuple.__new__, (Span, (self.file, self.line, self.col)))

    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def short(self) -> str:
        return f"{self.file}:{self.line}"


NO_SPAN = Span("<input>", 1, 1)


@dataclass(frozen=True)
class Var:
    name: str
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def anonymous(self) -> bool:
        return self.name.startswith("_")

    def __str__(self) -> str:
        return "_" if self.name.startswith("_") else self.name


@dataclass(frozen=True)
class Const:
    """An atom, a quoted string (the same kind of value) or an integer."""

    value: str | int
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def __str__(self) -> str:
        return format_value(self.value)


@dataclass(frozen=True)
class BinOp:
    op: str  # one of ARITHMETIC: + - * / (integer division, rounded down), min and max (of two values)
    left: Term
    right: Term
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def __str__(self) -> str:
        if self.op in ("min", "max"):
            return f"{self.op}({self.left}, {self.right})"
        mine = _PRECEDENCE[self.op]

        def side(term: Term, right: bool) -> str:
            inner = _PRECEDENCE.get(term.op, 3) if isinstance(term, BinOp) else 3
            return f"({term})" if inner < mine or (right and inner == mine and self.op in "-/") else str(term)

        return f"{side(self.left, False)} {self.op} {side(self.right, True)}"


@dataclass(frozen=True)
class Aggregate:
    """``sum(V)``, ``count()``, ``min(V)`` or ``max(V)`` in a rule head."""

    func: str
    var: Var | None
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.func}({self.var or ''})"


Term = Var | Const | BinOp | Aggregate


class _Keyed:
    """Something about a predicate with an arity, an atom or a declaration: ``key`` is ``pred/arity``, the
    name the library knows the predicate by (``p/1`` and ``p/2`` are two predicates)."""

    pred: str

    @property
    def arity(self) -> int:
        raise NotImplementedError

    @property
    def key(self) -> str:
        return f"{self.pred}/{self.arity}"


@dataclass(frozen=True)
class Atom(_Keyed):
    pred: str
    args: tuple[Term, ...]
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    @property
    def arity(self) -> int:
        return len(self.args)

    def __str__(self) -> str:
        return f"{self.pred}({', '.join(str(a) for a in self.args)})"


@dataclass(frozen=True)
class Negation:
    atom: Atom
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def __str__(self) -> str:
        return f"not {self.atom}"


@dataclass(frozen=True)
class Comparison:
    op: str  # = != < <= > >=
    left: Term
    right: Term
    span: Span = field(default=NO_SPAN, compare=False, repr=False)

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


Literal = Atom | Negation | Comparison


@dataclass(frozen=True)
class Rule:
    """``head :- body.`` (a fact when the body is empty) with its annotations."""

    head: Atom
    body: tuple[Literal, ...]
    name: str | None = None
    cites: tuple[str, ...] = ()
    doc: str = ""
    span: Span = field(default=NO_SPAN, compare=False)

    @property
    def is_fact(self) -> bool:
        return not self.body

    @cached_property  # asked of every rule again and again; a frozen rule's head does not change
    def aggregate(self) -> Aggregate | None:
        for arg in self.head.args:
            if isinstance(arg, Aggregate):
                return arg
        return None

    def __str__(self) -> str:
        if not self.body:
            return f"{self.head}."
        return f"{self.head} :- {', '.join(str(lit) for lit in self.body)}."


@dataclass(frozen=True)
class Param:
    name: str
    type: str


@dataclass(frozen=True)
class Decl(_Keyed):
    """``.decl pred(arg: type, ...) "sentence" [input] [functional(arg, ...)]``."""

    pred: str
    params: tuple[Param, ...]
    template: str = ""
    is_input: bool = False
    functional: tuple[str, ...] = ()
    doc: str = ""
    span: Span = field(default=NO_SPAN, compare=False)

    @property
    def arity(self) -> int:
        return len(self.params)

    @property
    def key_positions(self) -> tuple[int, ...]:
        """The positions of the arguments ``functional(...)`` names, which determine the others.

        >>> Decl("life", (Param("p", "player"), Param("n", "int")), functional=("p",)).key_positions
        (0,)
        """
        return tuple(i for i, p in enumerate(self.params) if p.name in self.functional)

    def sentence(self, args: Sequence[object]) -> str:
        """Fill the English template with argument values; a sign written before a number is not doubled
        (``+{dp}`` with -1 reads -1).

        >>> Decl("pt", (Param("dp", "int"),), "gives +{dp}/+{dp}").sentence([-1])
        'gives -1/-1'
        >>> Decl("info", (Param("text", "string"),), "says {text}").sentence(["power {total}, {T}"])
        'says "power <total>, {T}"'
        """
        if not self.template:
            return ground_text(self.pred, args)
        text = self.template
        for param, value in zip(self.params, args):
            shown = unfilled(format_value(value))  # a refusal's sentence as a value: its {key} unfilled here
            if isinstance(value, int) and value < 0:
                text = text.replace("+{" + param.name + "}", shown)
            text = text.replace("{" + param.name + "}", shown)
        return text


@dataclass(frozen=True)
class Include:
    path: str
    span: Span = field(default=NO_SPAN, compare=False)


@dataclass(frozen=True)
class RuleFile:
    path: str
    items: tuple[Decl | Rule | Include, ...]
    doc: str = ""


def ground_text(pred: str, args: Iterable[object]) -> str:
    """A ground atom in rule syntax, ``pred(a, "B c", 3)``: the text of a :class:`judgelog.fact.Fact`."""
    return f"{pred}({', '.join(map(format_value, args))})"


def format_value(value: object) -> str:
    """Write a constant the way the rule language reads it back."""
    if isinstance(value, bool):  # never produced by judgelog, kept readable
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if _is_atom(text):
        return text
    return (
        '"'
        + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
        + '"'
    )


_ATOM = re.compile(r"[a-z][a-z0-9_]*")  # a word the rule language reads without quotes


def _is_atom(text: str) -> bool:
    return _ATOM.fullmatch(text) is not None


# a {key} of a refusal's sentence, filled by violation_value(Code, Subject, key, Value) (judgelog.refusals): a
# key is a word (an atom), so {T}, {2} and {G/U} (mana symbols) and {tap: [...]} (a scenario's syntax) are text
PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")


def unfilled(text: str) -> str:
    """``text`` with each ``{key}`` placeholder shown as ``<key>``: a refusal's sentence where no violation
    gives it values (a listing, a board warning, a proof).

    >>> unfilled("total power {total} tapped, {T}: (choose: {tap: [...]})")
    'total power <total> tapped, {T}: (choose: {tap: [...]})'
    """
    return PLACEHOLDER.sub(lambda m: f"<{m[1]}>", text)


def term_vars(term: object) -> set[str]:
    """Variable names of a term (anonymous ones included)."""
    if isinstance(term, Var):
        return {term.name}
    if isinstance(term, BinOp):
        return term_vars(term.left) | term_vars(term.right)
    if isinstance(term, Aggregate):
        return {term.var.name} if term.var is not None else set()
    return set()


def literal_vars(lit: Literal) -> set[str]:
    if isinstance(lit, Atom):
        out: set[str] = set()
        for arg in lit.args:
            out |= term_vars(arg)
        return out
    if isinstance(lit, Negation):
        return literal_vars(lit.atom)
    return term_vars(lit.left) | term_vars(lit.right)
