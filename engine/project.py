"""Projecting a predicate to the places its readers use, for a backend that grounds bottom-up (clingo).

clingo makes an atom for every fact of every predicate of a question's slice, and making atoms is most of its
grounding. Where every rule of the slice that reads a predicate reads it with a variable used nowhere else at
some place (``damage_assigner(A, P) :- ..., damage_recipient(A, _), ...``), the facts it needs are those of the
predicate *projected* to its other places: a predicate ``damage_recipient'k0(A)`` whose rules are those of
``damage_recipient`` with the dropped places taken out of their heads (their bodies unchanged), read in place of
the atom. ``damage_recipient(A, B) :- blocked_by(A, B)`` becomes ``damage_recipient'k0(A) :- blocked_by(A, B)``:
one atom for each creature in a combat instead of one for each pair. The answers are the same: a projected fact
holds exactly where some fact of the predicate has those values at the places kept. The caller decides which
predicates are projected (only plain, not recursive ones, not given facts) and never projects a read under
``not``, in an aggregate's body or in a recursive rule.

A predicate with few rules, each of whose body's variables all occur in its head (:func:`narrow`: one body
instance per fact, like ``blocks(B, A) :- blocked_by(A, B)`` or ``creature(O) :- permanent(O), card_type(O,
creature), not replaced(O, type)``), costs its readers no more instances when unfolded into them
(judgelog.unfold) than it costs to ground, and its atoms are not made: the caller unfolds it wherever it is read
positively by a plain rule, however many rules read it.

>>> from judgelog.ast import Atom, Const, Negation, Rule, Var
>>> A, B, P, T = Var("A"), Var("B"), Var("P"), Var("_T")
>>> reader = Rule(Atom("assigner", (A, P)), (Atom("attacking", (A, P)), Atom("recipient", (A, T))))
>>> single_places([reader], lambda rule: True)
{'attacking': frozenset(), 'recipient': frozenset({1})}
>>> rule = Rule(Atom("recipient", (A, B)), (Atom("blocked_by", (A, B)),))
>>> print(projected_head(rule, "recipient'k0", (0,)).head)
recipient'k0(A)
>>> print(projected_body(reader, {"recipient": ("recipient'k0", (0,))}).body[1])
recipient'k0(A)
>>> narrow(rule), narrow(Rule(Atom("blocked", (A,)), (Atom("blocked_by", (A, B)),)))
(True, False)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from .ast import Atom, Negation, Rule, Var, literal_vars, term_vars

__all__ = ["narrow", "projected_body", "projected_head", "projected_name", "single_places"]


def narrow(rule: Rule) -> bool:
    """A plain rule each of whose body's variables occurs in its head (each fact it derives has one body
    instance)."""
    if rule.aggregate is not None:
        return False
    head = {v for arg in rule.head.args for v in term_vars(arg)}
    return all(v in head for lit in rule.body for v in literal_vars(lit))


def single_places(rules: Iterable[Rule], plain: Callable[[Rule], bool]) -> dict[str, frozenset[int] | None]:
    """For each predicate ``rules`` read, the places at which every atom reading it has a variable occurring
    nowhere else in its rule (a projection may drop them); None for a predicate read under ``not``, or by a
    rule that is not ``plain`` (read whole)."""
    found: dict[str, frozenset[int] | None] = {}
    for rule in rules:
        counts = _occurrences(rule)
        is_plain = plain(rule)
        for lit in rule.body:
            if isinstance(lit, Negation) or isinstance(lit, Atom) and not is_plain:
                atom = lit.atom if isinstance(lit, Negation) else lit
                found[atom.pred] = None
            elif isinstance(lit, Atom):
                single = frozenset(
                    i for i, arg in enumerate(lit.args) if isinstance(arg, Var) and counts[arg.name] == 1
                )
                if lit.pred not in found:
                    found[lit.pred] = single
                elif (known := found[lit.pred]) is not None:
                    found[lit.pred] = known & single
    return found


def projected_name(name: str, kept: tuple[int, ...]) -> str:
    """The projected predicate's name (a quote is no part of a judgelog name, as judgelog.specialise's)."""
    return f"{name}'k{'_'.join(map(str, kept))}"


def projected_head(rule: Rule, name: str, kept: tuple[int, ...]) -> Rule:
    """A rule of the projected predicate ``name``: ``rule`` with only the ``kept`` places of its head."""
    return replace(rule, head=Atom(name, tuple(rule.head.args[i] for i in kept), rule.head.span))


def projected_body(rule: Rule, projected: Mapping[str, tuple[str, tuple[int, ...]]]) -> Rule:
    """``rule`` reading the ``projected`` predicates (predicate -> projected name and kept places) in place of
    their atoms (each such atom's other places hold variables used nowhere else)."""
    body = tuple(
        Atom(found[0], tuple(lit.args[i] for i in found[1]), lit.span)
        if isinstance(lit, Atom) and (found := projected.get(lit.pred)) is not None
        else lit
        for lit in rule.body
    )
    return rule if body == rule.body else replace(rule, body=body)


def _occurrences(rule: Rule) -> Counter[str]:
    """How many times each variable of ``rule`` occurs (a term's variables once per term)."""
    counts: Counter[str] = Counter()
    for lit in (rule.head, *rule.body):
        atom = lit.atom if isinstance(lit, Negation) else lit
        terms = atom.args if isinstance(atom, Atom) else (atom.left, atom.right)
        for term in terms:
            counts.update(term_vars(term))
    return counts
