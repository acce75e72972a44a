"""The analysed rule program as Answer Set Programming text for clingo (the second backend's compiler).

Compiled from the same syntax tree as the pyDatalog backend, never from rule-file text:

* every predicate ``p`` becomes ``j_p`` (facts given for a predicate that rules also derive: ``e_p``,
  bridged into ``j_p``), so no rule name can collide with the helper predicates below;
* every word is an ASP string (judgelog reads ``banding`` and ``"banding"`` as one value), integers stay
  numbers (negative ones in parentheses);
* ``_`` under ``not`` stays ``_`` ("any value"); elsewhere every variable is named, so that an aggregate
  counts distinct *bindings* of its body, as judgelog does, not distinct values;
* ``A + 1 = B`` is written ``B = A + 1`` (clingo assigns only to a lone variable on the left);
* a head aggregate ``total(O, sum(N)) :- body.`` becomes a key rule ``k_<i>(O) :- body.`` and
  ``j_total(O, S) :- k_<i>(O), S = #sum{ N, <every body variable> : body }.``: an empty group has no row.

:func:`compile_program` gives a whole program (rules and facts) as text with the :class:`AspNames` that read
clingo's symbols back as judgelog facts.

>>> from judgelog.parser import parse_text
>>> from judgelog.analysis import analyze
>>> f = parse_text('''
... .decl bonus(o: atom, s: atom, n: int) "" input
... .decl total(o: atom, n: int) ""
... @name t.total
... @cr 100.1
... total(O, sum(N)) :- bonus(O, _, N).
... ''', "t.dl")
>>> program, _ = analyze([f])
>>> asp = compile_program(program, facts=[("bonus", "bear", "a", 2), ("bonus", "bear", "b", 2)])
>>> print(asp.text)  # doctest: +NORMALIZE_WHITESPACE
k_0(O) :- j_bonus(O,V__1_,N).
j_total(O,Agg_) :- k_0(O), Agg_ = #sum{ N,O,V__1_ : j_bonus(O,V__1_,N) }.
j_bonus("bear","a",2).
j_bonus("bear","b",2).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING

from .ast import NO_SPAN, Aggregate, Atom, BinOp, Comparison, Const, Literal, Negation, Rule, Term, Var, literal_vars
from .codes import L003
from .errors import LimitError
from .program import Program

if TYPE_CHECKING:
    import clingo

__all__ = [
    "AspNames",
    "AspProgram",
    "compile_program",
    "compile_rule",
    "compile_facts",
    "compile_query",
    "compile_constraint",
    "bridge",
    "check_rule_ints",
    "overflow_rules",
    "overflow_refused",
    "OVERFLOW_PRED",
    "derived_with_facts",
    "value_text",
    "ASP_OPS",
    "CLINGO_INT_BOUND",
]

# clingo computes with 32-bit integers and wraps silently: a fact or a rule holding a number of 8 digits or more
# is refused (L003), so that a sum of many numbers of 7 digits stays below 2**31
CLINGO_INT_BOUND = 10**7

# clingo's largest integer: arithmetic past it wraps silently (2147483647 + 1 is -2147483648)
_INT_MAX = 2**31 - 1
OVERFLOW_PRED = "j__overflow"  # no judgelog predicate is spelled so (names start with a lower-case letter)

# arithmetic of the rule language -> clingo's (integer division truncates in both)
ASP_OPS = {"+": "+", "-": "-", "*": "*", "/": "/", "//": "/"}
_PLAIN_VAR = re.compile(r"[A-Z][A-Za-z0-9_]*\Z")


def value_text(value: object) -> str:
    """A judgelog value as an ASP term: integers as numbers, everything else as a string."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value) if value >= 0 else f"({value})"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


@dataclass(frozen=True)
class AspNames:
    """How judgelog predicates are spelt in ASP, and how clingo's symbols read back."""

    derived_with_facts: frozenset = frozenset()  # predicates whose given facts go to e_<pred>

    @staticmethod
    def pred(pred: str) -> str:
        return "j_" + pred

    def fact_pred(self, pred: str) -> str:
        return ("e_" if pred in self.derived_with_facts else "j_") + pred

    @staticmethod
    def judgelog_pred(name: str) -> str | None:
        """The judgelog predicate of an ASP name (None for the compiler's helper predicates)."""
        return name[2:] if name.startswith("j_") else None

    @staticmethod
    def value(symbol: clingo.Symbol) -> int | str:
        """A clingo symbol (a number or a string) as a judgelog value."""
        kind = symbol.type.name
        if kind == "Number":
            return symbol.number
        if kind == "String":
            return symbol.string
        return str(symbol)

    @classmethod
    def arguments(cls, symbols: Sequence[clingo.Symbol]) -> list[tuple]:
        """The arguments of ``symbols`` (atoms of one predicate) as tuples of judgelog values (see
        :meth:`rows`)."""
        return cls.rows([str(symbol) for symbol in symbols])

    @classmethod
    def rows(cls, texts: Sequence[str]) -> list[tuple]:
        """The arguments of atoms of one predicate, given as clingo writes them, as tuples of judgelog
        values. clingo writes a number as JSON does and a string with JSON's escapes, so the texts are read
        in one JSON pass (a few hundred times faster than asking clingo for each argument); if a text is
        not of numbers and strings only, every atom is read symbol by symbol."""
        if not texts:
            return []
        start = texts[0].find("(") + 1  # the same name begins every text
        if not start:  # a predicate of no arguments
            return [()] * len(texts)
        try:
            rows = json.loads("[[" + "],[".join([text[start:-1] for text in texts]) + "]]", strict=False)
        except ValueError:  # a function symbol or another term judgelog does not make: one by one
            rows = None
        if rows is None or not set(map(type, chain.from_iterable(rows))) <= {int, str}:
            from clingo import parse_term

            return [tuple(cls.value(a) for a in parse_term(text).arguments) for text in texts]
        return list(map(tuple, rows))

    def fact(self, symbol: clingo.Symbol) -> tuple | None:
        """A model atom ``j_p(...)`` as the judgelog fact ``(p, ...)`` (None for a helper atom)."""
        pred = self.judgelog_pred(symbol.name)
        if pred is None:
            return None
        return (pred,) + tuple(self.value(a) for a in symbol.arguments)


@dataclass(frozen=True)
class AspProgram:
    text: str
    names: AspNames = field(default_factory=AspNames)


class _Vars:
    """Variable names in ASP: named variables kept when ASP can spell them, every other one renamed."""

    def __init__(self, body: Sequence, extra: Iterable[str] = ()) -> None:
        self.positive: set[str] = set(extra)
        for lit in body:
            if not isinstance(lit, Negation):
                self.positive |= literal_vars(lit)
        self.names: dict[str, str] = {}

    def name(self, var: str, *, negated: bool = False) -> str:
        if negated and var.startswith("_") and var not in self.positive:
            return "_"
        out = self.names.get(var)
        if out is None:
            if _PLAIN_VAR.match(var) and not var.endswith("_"):
                out = var
            else:
                out = "V" + re.sub(r"[^A-Za-z0-9]", "_", var) + "_"  # ends in _: no plain name does
            self.names[var] = out
        return out


def _term(term: Term, names: _Vars, negated: bool = False) -> str:
    if isinstance(term, Var):
        return names.name(term.name, negated=negated)
    if isinstance(term, Const):
        return value_text(term.value)
    if isinstance(term, BinOp) and term.op in ("/", "min", "max"):
        a, b = _term(term.left, names), _term(term.right, names)
        if term.op == "/":  # rounded down like judgelog's "/" (clingo's rounds toward 0); undefined for b = 0
            return f"(({a}-((({a})\\({b})+({b}))\\({b})))/({b}))"
        sign = "-" if term.op == "min" else "+"  # min/max of two values: (a + b -/+ |a - b|) / 2, exact
        return f"(({a}+{b}{sign}|{a}-{b}|)/2)"
    if isinstance(term, BinOp):
        op = ASP_OPS.get(term.op)
        if op is None:
            raise ValueError(f"no ASP form for the operator {term.op!r}")  # a mistake in judgelog's code
        return f"({_term(term.left, names)}{op}{_term(term.right, names)})"
    raise ValueError(f"no ASP form for the term {term!r}")


def _atom(atom: Atom, names: _Vars, aspnames: AspNames, *, negated: bool = False, pred: str | None = None) -> str:
    name = pred or aspnames.pred(atom.pred)
    if not atom.args:
        return name
    return f"{name}({','.join(_term(a, names, negated) for a in atom.args)})"


def _literal(lit: Literal, names: _Vars, aspnames: AspNames) -> str:
    if isinstance(lit, Atom):
        return _atom(lit, names, aspnames)
    if isinstance(lit, Negation):
        return "not " + _atom(lit.atom, names, aspnames, negated=True)
    left, right = lit.left, lit.right
    if lit.op == "=" and not isinstance(left, Var) and isinstance(right, Var):
        left, right = right, left  # clingo assigns to a lone variable on the left
    return f"{_term(left, names)} {lit.op} {_term(right, names)}"


def _body(body: Sequence, names: _Vars, aspnames: AspNames) -> str:
    return ", ".join(_literal(lit, names, aspnames) for lit in body)


def compile_rule(rule: Rule, index: int, *, names: AspNames = AspNames(), overflow_test: bool = False) -> str:
    """One rule as ASP (an aggregate rule as its key rule plus its aggregate rule). ``index`` numbers the
    helper predicate of an aggregate; it must be unique in the program. ``overflow_test``: a sum aggregate
    also derives ``j__overflow(index)`` when the sum of its values may pass 2**31 (see overflow_rules)."""
    agg = rule.aggregate
    vars_ = _Vars(rule.body)
    if agg is None:
        head = _atom(rule.head, vars_, names)
        return f"{head}." if not rule.body else f"{head} :- {_body(rule.body, vars_, names)}."
    body = _body(rule.body, vars_, names)
    keys = [a for a in rule.head.args if not isinstance(a, Aggregate)]
    key_atom = f"k_{index}" + (f"({','.join(_term(a, vars_) for a in keys)})" if keys else "")
    every: list[str] = []
    for lit in rule.body:
        for name in sorted(literal_vars(lit)):
            if isinstance(lit, Negation) and vars_.name(name, negated=True) == "_":
                continue
            asp = vars_.name(name)
            if asp not in every:
                every.append(asp)
    others: list[str] = []
    if agg.func == "count":
        elements = ",".join(every) if every else "1"
    else:
        assert agg.var is not None  # the parser gives sum, min and max their variable
        value = vars_.name(agg.var.name)
        others = [v for v in every if v != value]
        elements = ",".join([value] + others)
    result = "Agg_"
    head_args = [result if isinstance(a, Aggregate) else _term(a, vars_) for a in rule.head.args]
    head = f"{names.pred(rule.head.pred)}({','.join(head_args)})"
    text = f"{key_atom} :- {body}.\n{head} :- {key_atom}, {result} = #{agg.func}{{ {elements} : {body} }}."
    if agg.func == "sum" and overflow_test:  # clingo wraps a sum past 32 bits: 2**16 * 2**15 is near enough
        magnitudes = ",".join([f"|{value}|/65536"] + others)
        text += f"\n{OVERFLOW_PRED}({index}) :- {key_atom}, #sum{{ {magnitudes} : {body} }} > 32767."
    return text


def _overflow_tests(term: object, names: _Vars) -> Iterator[str]:
    """For each + - * inside ``term``, the conditions (ASP) under which clingo would wrap its result."""
    if not isinstance(term, BinOp):
        return
    yield from _overflow_tests(term.left, names)
    yield from _overflow_tests(term.right, names)
    if term.op not in ("+", "-", "*"):
        return
    a, b = _term(term.left, names), _term(term.right, names)
    if term.op == "*":
        yield f"{b} != 0, |{a}| > {_INT_MAX}/|{b}|"
    else:
        sign = "-" if term.op == "+" else "+"
        yield f"{b} {'>' if term.op == '+' else '<'} 0, {a} > {_INT_MAX}{sign}{b}"
        yield f"{b} {'<' if term.op == '+' else '>'} 0, {a} < -{_INT_MAX}{sign}{b}"


def _plus_minus_leaves(term: object) -> list[Term] | None:
    """The operands of a tree of + and - (``B + P - M + X``: B, P, M, X), or None if it holds another
    operator or is no such tree."""
    if not isinstance(term, BinOp):
        return None
    if term.op not in ("+", "-"):
        return None
    out: list[Term] = []
    for side in (term.left, term.right):
        inner = _plus_minus_leaves(side)
        if inner is not None:
            out += inner
        elif isinstance(side, BinOp):
            return None
        else:
            out.append(side)
    return out


def _magnitude_test(leaves: list[Term], names: _Vars) -> str:
    """One condition under which a sum or difference of ``leaves`` may pass 32 bits, computed without
    wrapping: each operand's magnitude divided by 2k (k operands) sums to at most half of the largest
    integer. When it does not hold, the operands' magnitudes sum to at most the largest integer, and so does
    every partial sum: no test per operator is needed (one join of the body instead of two per + or -).
    It may hold where the exact sum would still fit (operands near 2**31 in magnitude that cancel): the
    question is then refused (L003) where it could have been answered, never answered wrong."""
    k = len(leaves)
    divisor = 2 * k
    threshold = (_INT_MAX - 2 * k * k) // divisor
    parts = " + ".join(f"|{_term(leaf, names)}|/{divisor}" for leaf in leaves)
    return f"{parts} > {threshold}"


def overflow_rules(rule: Rule, index: int, *, names: AspNames = AspNames()) -> str:
    """ASP rules deriving ``j__overflow(index)`` when some binding of ``rule``'s body would make clingo wrap
    one of its sums, differences or products past 32 bits (the caller refuses the question: L003). For an
    assignment ``M = N * N`` the test keeps the literals that don't read M: whatever reads it would read the
    wrapped value. A tree of + and - of several operands is tested once, by its operands' magnitudes
    (:func:`_magnitude_test`)."""
    by_atoms = {v for lit in rule.body if isinstance(lit, Atom) for v in literal_vars(lit)}

    def assigned(lit: object) -> set[str]:
        if not (isinstance(lit, Comparison) and lit.op == "="):
            return set()
        return {t.name for t in (lit.left, lit.right) if isinstance(t, Var) and t.name not in by_atoms}

    places: list[tuple[int | None, Term]] = [(None, arg) for arg in rule.head.args if isinstance(arg, BinOp)]
    for k, lit in enumerate(rule.body):
        if isinstance(lit, Comparison):
            places += [(k, lit.left), (k, lit.right)]
    out = []
    for i, term in places:
        removed: set[int | None] = {i}
        unbound = assigned(rule.body[i]) if i is not None else set()
        while True:
            more = {j for j, lit in enumerate(rule.body) if j not in removed and literal_vars(lit) & unbound}
            if not more:
                break
            removed |= more
            unbound |= {v for j in more for v in assigned(rule.body[j])}
        body = [lit for j, lit in enumerate(rule.body) if j not in removed]
        vars_ = _Vars(body)
        prefix = _body(body, vars_, names)
        leaves = _plus_minus_leaves(term)
        tests = [_magnitude_test(leaves, vars_)] if leaves else _overflow_tests(term, vars_)
        for test in tests:
            out.append(f"{OVERFLOW_PRED}({index}) :- {prefix + ', ' if prefix else ''}{test}.")
    return "\n".join(out)


def overflow_refused(rule: Rule) -> LimitError:
    """L003 for a rule whose arithmetic clingo would wrap past 32 bits in the state asked about."""
    return LimitError(
        L003,
        f"the clingo backend computes with 32-bit integers, and rule {rule.name or rule.head.pred} "
        f"({rule.span.short()}) computes a sum, difference or product beyond {_INT_MAX} in this state",
        hint="use the default backend (pyDatalog), which computes with larger integers",
    )


def compile_facts(
    facts: Iterable[tuple],
    *,
    names: AspNames = AspNames(),
    texts: dict[tuple, str] | None = None,
    int_bound: int | None = None,
) -> str:
    """Facts ``(pred, value, ...)`` as ASP facts, one a line. ``texts``: the arguments' text of facts written
    before, kept by the caller (the states of one game share most of their facts). ``int_bound``: refuse
    (L003) a fact holding an integer of that size or more (clingo computes with 32-bit integers and would
    wrap a larger one silently)."""
    lines = []
    for fact in facts:
        name = names.fact_pred(fact[0])
        if len(fact) == 1:
            lines.append(f"{name}.")
            continue
        args = texts.get(fact) if texts is not None else None
        if args is None:
            if int_bound is not None:
                _check_ints(fact, int_bound)
            args = ",".join(value_text(v) for v in fact[1:])
            if texts is not None:
                texts[fact] = args
        lines.append(f"{name}({args}).")
    return "\n".join(lines)


def _too_big(value: object, bound: int) -> bool:
    return type(value) is int and not -bound < value < bound


def _int_refused(what: str, value: object, bound: int) -> LimitError:
    """L003 for a number clingo would wrap; ``what`` says where it is ("p(...) holds", "rule r writes")."""
    return LimitError(
        L003,
        f"the clingo backend computes with 32-bit integers, and {what} {value} (at most {len(str(bound)) - 1} "
        "digits are taken, so that sums of such numbers stay exact)",
        hint="use the default backend (pyDatalog), which computes with larger integers",
    )


def _check_ints(fact: tuple, bound: int) -> None:
    for v in fact[1:]:
        if _too_big(v, bound):
            raise _int_refused(f"{fact[0]}(...) holds", v, bound)


def check_rule_ints(rules: Iterable[Rule], bound: int) -> None:
    """Refuse (L003) a rule that writes an integer clingo would not keep exact (``bound``: as for facts)."""

    def terms(term: object) -> Iterator[object]:
        yield term
        if isinstance(term, BinOp):
            yield from terms(term.left)
            yield from terms(term.right)

    for rule in rules:
        atoms = [rule.head] + [lit.atom if isinstance(lit, Negation) else lit for lit in rule.body]
        for part in atoms:
            args = part.args if isinstance(part, Atom) else (part.left, part.right)
            for term in (t for a in args for t in terms(a)):
                if isinstance(term, Const) and _too_big(term.value, bound):
                    where = term.span if term.span != NO_SPAN else rule.span
                    name = rule.name or rule.head.pred
                    raise _int_refused(f"{where.location()}: rule {name} writes", term.value, bound)


def bridge(pred: str, arity: int, *, names: AspNames, consts: tuple = (), name: str | None = None) -> str:
    """The rule that makes facts given for a derived predicate hold (for ``name``, the predicate specialised
    to ``consts``, those of them with the constants in their places: judgelog.specialise)."""
    head = names.pred(name or pred)
    if not arity:
        return f"{head} :- {names.fact_pred(pred)}."
    fixed = dict(consts)
    xs = ",".join(value_text(fixed[i]) if i in fixed else f"X{i}" for i in range(arity))
    return f"{head}({xs}) :- {names.fact_pred(pred)}({xs})."


def compile_query(head: str, body: Sequence, answer: Sequence[str], *, names: AspNames = AspNames()) -> str:
    """A query as the rule ``head(answer vars) :- body.`` (``head`` must be a fresh lower-case name)."""
    vars_ = _Vars(body)
    args = ",".join(vars_.name(n) for n in answer)
    return f"{head}({args}) :- {_body(body, vars_, names)}." if answer else f"{head} :- {_body(body, vars_, names)}."


def compile_constraint(body: Sequence, *, names: AspNames = AspNames()) -> str:
    """``:- body.``: no model may make ``body`` hold."""
    return f":- {_body(body, _Vars(body), names)}."


def derived_with_facts(program: Program, facts: Iterable[tuple]) -> frozenset:
    """Predicates that rules derive and that are also given facts."""
    return frozenset({f[0] for f in facts} & set(program.rules_by_head))


def compile_program(
    program: Program, *, facts: Iterable[tuple] = (), preds: Iterable[str] | None = None, names: AspNames | None = None
) -> AspProgram:
    """The rules of ``program`` (only those ``preds`` depend on, when given) and ``facts`` as one ASP text.
    Read a model back with ``result.names.fact(symbol)``; a judgelog predicate ``p`` is ``result.names.pred(p)``.
    """
    facts = list(facts)
    if names is None:
        names = AspNames(derived_with_facts=derived_with_facts(program, facts))
    wanted = program.dependencies(preds) if preds is not None else None
    out: list[str] = []
    for index, rule in enumerate(program.rules):
        if wanted is None or rule.head.pred in wanted:
            out.append(compile_rule(rule, index, names=names))
    for pred in sorted(names.derived_with_facts):
        if wanted is None or pred in wanted:
            out.append(bridge(pred, program.decls[pred].arity, names=names))
    out.append(compile_facts(facts, names=names))
    return AspProgram("\n".join(line for line in out if line), names)
