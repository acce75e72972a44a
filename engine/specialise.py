"""Rules specialised to the constants a body asks with, for a backend that grounds bottom-up (clingo).

A bottom-up grounder derives every fact of a predicate a rule reads, even where the rule reads it with a
constant: ``power(O, N) :- ..., counter_count(O, p1p1, P), counter_count(O, m1m1, M)`` makes clingo derive
``counter_count`` for every permanent and every kind of counter (a dozen facts per permanent), of which two
are read. The pyDatalog backend, asked top-down, only ever evaluates the kinds asked.

A :class:`Specialiser` renames such a body atom to a *specialised predicate*: the rules of
``counter_count`` with their head unified with ``(_, p1p1, _)`` (a rule whose head has another constant
there is left out; a variable there is replaced by the constant in its whole body). Its facts are exactly
the facts of ``counter_count`` with ``p1p1`` in that place, so the rule reading it means what it meant.
The specialised rules' own bodies are specialised the same way, where the substitution gave them constants.

Only a predicate whose rules are all plain (no aggregate) and not recursive is specialised: a recursion
would carry the constant into itself, and an aggregate's helper predicate is numbered by its rule. The
question a caller asks names the predicates themselves, never a specialised one; the specialised names
(``pred'N``: a quote is no part of a judgelog name) exist only in the grounder's program.

>>> from judgelog.analysis import analyze
>>> from judgelog.parser import parse_text
>>> program, _ = analyze([parse_text('''
... .decl counter(o: atom, k: atom, n: int) "" input
... .decl permanent(o: atom) "" input
... .decl count(o: atom, k: atom, n: int) ""
... .decl big(o: atom) ""
... count(O, K, N) :- counter(O, K, N).
... count(O, k1, 0) :- permanent(O), not counter(O, k1, _).
... count(O, k2, 0) :- permanent(O), not counter(O, k2, _).
... big(O) :- count(O, k1, N), N > 2.
... ''', "t.dl")], require_annotations=False)
>>> spec = Specialiser(program, eligible=lambda pred: pred in program.rules_by_head)
>>> rule, wanted, whole = spec.rewrite(program.rules_by_head["big"][0])
>>> print(rule.body[0], wanted, whole)
count'1(O, k1, N) [("count'1", 'count', ((1, 'k1'),))] []
>>> [str(r.head) for _, r in spec.rules("count", ((1, "k1"),))]
["count'1(O, k1, N)", "count'1(O, k1, 0)"]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from .ast import Atom, Comparison, Const, Negation, Rule, Var
from .bindings import partial_lit
from .program import Program

__all__ = ["Specialiser", "Request"]

Request = tuple[str, str, tuple]  # (the specialised name, the predicate, its constants: ((place, value), ...))


class Specialiser:
    """The specialised rules of one program; names are given out once and kept (one per backend)."""

    def __init__(self, program: Program, *, eligible: Callable[[str], bool]) -> None:
        self.program = program
        self._eligible = eligible
        self._names: dict[tuple[str, tuple], str] = {}
        self._requests: dict[str, tuple[str, tuple]] = {}  # a specialised name -> its predicate and constants
        self._ok: dict[str, bool] = {}

    def specialisable(self, pred: str) -> bool:
        """Derived by plain rules only, with a variable or a constant at every place of every head."""
        found = self._ok.get(pred)
        if found is None:
            rules = self.program.rules_by_head.get(pred, ())
            found = self._ok[pred] = bool(
                rules
                and self._eligible(pred)
                and all(r.aggregate is None and all(isinstance(a, (Var, Const)) for a in r.head.args) for r in rules)
            )
        return found

    def name(self, pred: str, consts: tuple) -> str:
        key = (pred, consts)
        found = self._names.get(key)
        if found is None:
            found = self._names[key] = f"{pred}'{len(self._names) + 1}"
            self._requests[found] = key
        return found

    def request(self, name: str) -> tuple[str, tuple]:
        """The predicate and the constants a name stands for (a predicate's own name: no constants)."""
        return self._requests.get(name, (name, ()))

    def rewrite(self, rule: Rule) -> tuple[Rule, list[Request], list[str]]:
        """``rule`` with each body atom of a specialisable predicate that has a constant renamed to its
        specialised predicate, what those names stand for, and the predicates the body still reads whole."""
        wanted: list[Request] = []
        whole: list[str] = []
        body = []
        for lit in rule.body:
            atom = lit.atom if isinstance(lit, Negation) else lit
            if isinstance(atom, Atom):
                consts = tuple((i, a.value) for i, a in enumerate(atom.args) if isinstance(a, Const))
                if consts and self.specialisable(atom.pred):
                    name = self.name(atom.pred, consts)
                    wanted.append((name, atom.pred, consts))
                    renamed = replace(atom, pred=name)
                    lit = Negation(renamed, lit.span) if isinstance(lit, Negation) else renamed
                elif atom.pred not in whole:
                    whole.append(atom.pred)
            body.append(lit)
        if not wanted:
            return rule, wanted, whole
        return replace(rule, body=tuple(body)), wanted, whole

    def rules(self, pred: str, consts: tuple, rules: Iterable[Rule] | None = None) -> list[tuple[Rule, Rule]]:
        """Each rule of ``pred`` (or of ``rules``) that can derive a fact with ``consts`` in their places, and
        the rule for the specialised predicate made from it (not yet rewritten itself)."""
        name = self.name(pred, consts)
        out = []
        for rule in self.program.rules_by_head.get(pred, ()) if rules is None else rules:
            binding = _unify(rule.head.args, consts)
            if binding is None:
                continue
            head = replace(partial_lit(rule.head, binding), pred=name)
            body = tuple(partial_lit(lit, binding) for lit in rule.body)
            if any(_false(lit) for lit in body):
                continue
            out.append((rule, replace(rule, head=head, body=body)))
        return out


def _unify(args: Sequence, consts: tuple) -> dict | None:
    binding: dict = {}
    for i, value in consts:
        arg = args[i]
        if isinstance(arg, Const):
            if arg.value != value:
                return None
        elif arg.name in binding and binding[arg.name] != value:
            return None
        else:
            binding[arg.name] = value
    return binding


def _false(lit: object) -> bool:
    """A comparison of two constants that does not hold (the rule can't fire once the constants are in)."""
    if not (isinstance(lit, Comparison) and isinstance(lit.left, Const) and isinstance(lit.right, Const)):
        return False
    if lit.op in ("=", "!="):
        return (lit.left.value == lit.right.value) != (lit.op == "=")
    return False
