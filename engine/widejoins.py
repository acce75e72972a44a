"""Bodies that multiply unconnected parts: their size estimated before pyDatalog enumerates them (L004).

pyDatalog evaluates a body as nested loops, and its loop cannot be interrupted. When a body falls into
*unconnected parts* (atoms that share no variable: ``big(A) :- f(A), f(B), f(C)``), it enumerates every
combination of the parts, however few answers the head keeps: 16 atoms over 3 facts each are 43 million
combinations. So before a question, every such body it may reach (its own, and the rules of the predicates it
reads, transitively) is estimated from the sizes of the relations in the state asked: a part counts as its
smallest atom (its other atoms join it on a shared variable, which selects), the body as the product of its
parts; rules that cannot hold in the state (judgelog.liveness) are left out. A body whose estimate passes
:class:`~judgelog.recursion.Limits` ``join_combinations`` is refused with a
:class:`~judgelog.errors.LimitError` (L004) at the rule, before anything is enumerated.

Sizes: a predicate with facts counts them (scenario facts, and what judgelog computes itself: recursive
components and aggregates); a predicate derived by pyDatalog counts the estimates of its rules' bodies. The
estimate is a guard, not a plan: it never changes an answer, only refuses a question too large to ask.

>>> from judgelog.parser import parse_body
>>> [[str(a) for a in part] for part in unconnected_parts(parse_body("f(A), g(A, B), f(C), h(x)"))]
[['f(A)', 'g(A, B)'], ['f(C)'], ['h(x)']]
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from .ast import Atom, Comparison, Negation, Rule, Span, Var, literal_vars
from .errors import LimitError

__all__ = ["unconnected_parts", "JoinGuard", "StateCheck", "estimate"]

_CAP = 10**30  # estimates are capped: only "more than the limit" matters


def _vars(atom: Atom) -> set[str]:
    return {t.name for t in atom.args if isinstance(t, Var) and not t.name.startswith("_")}


def unconnected_parts(body: Sequence) -> list[list[Atom]]:
    """The positive atoms of ``body`` grouped into parts that share no variable, in order of appearance.
    An assignment (``B = A + 1``) joins its sides; other comparisons and ``not`` only filter the
    combinations, which pyDatalog enumerates all the same."""
    order = {id(lit): i for i, lit in enumerate(body)}
    parts: list[tuple[set[str], list[Atom]]] = []
    for lit in body:
        if isinstance(lit, Comparison) and lit.op == "=":  # an assignment binds: its sides are joined
            names, atoms = {v for v in literal_vars(lit) if not v.startswith("_")}, []
        elif isinstance(lit, Atom):
            names, atoms = _vars(lit), [lit]
        else:
            continue
        kept = []
        for part in parts:
            if part[0] & names:
                names |= part[0]
                atoms += part[1]
            else:
                kept.append(part)
        parts = kept + [(names, sorted(atoms, key=lambda a: order[id(a)]))]
    return sorted((atoms for _, atoms in parts if atoms), key=lambda atoms: order[id(atoms[0])])


def estimate(parts: Sequence[Sequence[Atom]], size: Callable[[Atom], int]) -> int:
    """The number of combinations of ``parts``: the product of each part's smallest atom (the part's other
    atoms join it on a shared variable, which selects; an atom of constants only is a check: at most 1).

    >>> from judgelog.parser import parse_body
    >>> estimate(unconnected_parts(parse_body("f(A), f(B), g(A, C), h(x)")), lambda atom: 3)
    9
    """
    total = 1
    for part in parts:
        total = min(total * min(min(size(a), 1) if not _vars(a) else size(a) for a in part), _CAP)
    return total


@dataclass(frozen=True)
class _Wide:
    rule: Rule
    parts: tuple[tuple[Atom, ...], ...]


class JoinGuard:
    """The rules of a program whose bodies fall into unconnected parts, and which predicates reach them."""

    def __init__(self, rules: Iterable[Rule], body: Callable[[Rule], Sequence]) -> None:
        self._body = body
        self.rules_for: dict[str, list[Rule]] = {}
        self.wide: dict[int, _Wide] = {}
        reads: dict[str, set[str]] = {}
        for rule in rules:
            if not rule.body:
                continue
            self.rules_for.setdefault(rule.head.pred, []).append(rule)
            lits = body(rule)
            reads.setdefault(rule.head.pred, set()).update(
                (lit.atom if isinstance(lit, Negation) else lit).pred
                for lit in lits
                if isinstance(lit, (Atom, Negation))
            )
            parts = unconnected_parts(lits)
            if len(parts) > 1:
                self.wide[id(rule)] = _Wide(rule, tuple(tuple(p) for p in parts))
        # pred -> the wide rules a question about it may evaluate (the rules of what it reads, transitively)
        self.wide_below: dict[str, tuple[_Wide, ...]] = {}
        for pred in reads:
            seen, stack, found = {pred}, [pred], []
            while stack:
                p = stack.pop()
                for rule in self.rules_for.get(p, ()):
                    if id(rule) in self.wide:
                        found.append(self.wide[id(rule)])
                for q in reads.get(p, ()):
                    if q not in seen:
                        seen.add(q)
                        stack.append(q)
            if found:
                self.wide_below[pred] = tuple(found)

    def for_state(
        self, facts: Callable[[Atom], int], computed: frozenset[str], limit: int, dead: Collection[int] = ()
    ) -> StateCheck:
        """The check for one state: ``facts(atom)`` counts the facts there that may match ``atom`` (of its
        predicate, or those with its constants where they are counted; given or computed);
        ``computed``: the predicates judgelog computes itself (pyDatalog does not derive them); ``dead``:
        the ids of the rules that cannot hold in the state (never evaluated: judgelog.liveness)."""
        return StateCheck(self, facts, computed, limit, dead)


class StateCheck:
    """:class:`JoinGuard` for one state, with the predicate sizes and the questions already checked."""

    def __init__(
        self,
        guard: JoinGuard,
        facts: Callable[[Atom], int],
        computed: frozenset[str],
        limit: int,
        dead: Collection[int] = (),
    ) -> None:
        self.guard, self.facts, self.computed, self.limit, self.dead = guard, facts, computed, limit, dead
        self._sizes: dict[str, int] = {}
        self._checked: set[str] = set()

    def size(self, atom: Atom) -> int:
        """The facts that may match ``atom``, plus, for a predicate pyDatalog derives, the estimates of its
        rules' bodies."""
        pred = atom.pred
        if pred in self._sizes:
            return self._sizes[pred] + self.facts(atom)
        self._sizes[pred] = 0  # no cycle: recursive predicates are computed by judgelog (they have facts)
        total = 0
        if pred not in self.computed:
            for rule in self.guard.rules_for.get(pred, ()):
                if id(rule) in self.dead:
                    continue
                total = min(total + estimate(unconnected_parts(self.guard._body(rule)), self.size), _CAP)
        self._sizes[pred] = total
        return total + self.facts(atom)

    def check(self, preds: Iterable[str], *, body: Sequence = (), where: Span | None = None) -> None:
        """Refuse (L004) when ``body`` or a wide rule that ``preds`` reach would enumerate more than the
        limit's combinations."""
        parts = unconnected_parts(body) if body else []
        if len(parts) > 1:
            total = estimate(parts, self.size)
            if total > self.limit:
                raise _refusal(None, parts, total, self.limit, where or parts[1][0].span)
        for pred in preds:
            if pred in self._checked:
                continue
            for wide in self.guard.wide_below.get(pred, ()):
                if id(wide.rule) in self.dead:
                    continue
                total = estimate(wide.parts, self.size)
                if total > self.limit:
                    raise _refusal(wide.rule, wide.parts, total, self.limit, wide.rule.span)
            self._checked.add(pred)


def _refusal(
    rule: Rule | None, parts: Sequence[Sequence[Atom]], total: int, limit: int, span: Span | None
) -> LimitError:
    shown = ", ".join(" ".join(str(a) for a in part) for part in parts[:4]) + (", ..." if len(parts) > 4 else "")
    what = f"rule {rule.name or rule.span.short()}" if rule is not None else "the query"
    about = "more than 10^30" if total >= _CAP else f"about {total}"
    return LimitError(
        "L004",
        f"{what} joins {len(parts)} unconnected parts ({shown}): {about} combinations, more than {limit}",
        hint="join the parts on a shared variable, or raise the limit (--max-join N, Limits(join_combinations=N))",
        span=span,
    )
