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
from dataclasses import dataclass, replace

from .ast import Atom, Comparison, Const, Negation, Rule, Span, Var, literal_vars
from .codes import L004
from .errors import LimitError

__all__ = ["unconnected_parts", "JoinGuard", "StateCheck", "estimate", "passed_positions"]

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


def _combines(parts: Sequence[Sequence[Atom]]) -> bool:
    """Whether two or more parts hold variables: a part that is one atom of constants only is a check (it
    counts at most 1, :func:`estimate`), so a body with one other part combines nothing.

    >>> from judgelog.parser import parse_body
    >>> [_combines(unconnected_parts(parse_body(b))) for b in ("action(attack), f(A), g(A)", "f(A), g(B)")]
    [False, True]
    """
    return sum(1 for part in parts if len(part) > 1 or _vars(part[0])) > 1


_PARTS: dict[tuple, tuple[list[list[Atom]], bool]] = {}  # the bodies asked lately: their parts, and _combines
_PARTS_KEPT = 4096


def _split(body: Sequence) -> tuple[list[list[Atom]], bool]:
    """:func:`unconnected_parts` and :func:`_combines` of ``body``, remembered for the last few thousand bodies
    (a pure function; the caller does not change the parts)."""
    key = tuple(body)
    found = _PARTS.get(key)
    if found is None:
        if len(_PARTS) >= _PARTS_KEPT:
            _PARTS.clear()
        parts = unconnected_parts(key)
        found = _PARTS[key] = (parts, _combines(parts))
    return found


def _parts(body: Sequence) -> list[list[Atom]]:
    return _split(body)[0]


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


def passed_positions(rules: Iterable[Rule], derived: Collection[str]) -> dict[str, set[int]]:
    """Where a constant that a rule body asks of a derived predicate reaches the facts: ``pred -> positions``
    of the fact predicates a head variable holding it is read at, through any number of rules
    (``has_keyword(A, fear)`` reaches ``printed_keyword`` at position 1). Counting the facts there by value
    lets :meth:`StateCheck.size` count what can match such an atom.

    >>> from judgelog.parser import parse_text
    >>> rules = [r for r in parse_text("k(O, K) :- src(O, K), ok(O). f(A) :- k(A, fear).", "t.dl").items]
    >>> passed_positions(rules, {"k", "f"})
    {'src': {1}}
    """
    rules = [r for r in rules if r.body]
    by_head: dict[str, list[Rule]] = {}
    for rule in rules:
        by_head.setdefault(rule.head.pred, []).append(rule)
    queue = [
        (atom.pred, i)
        for rule in rules
        for lit in rule.body
        if isinstance(lit, (Atom, Negation))
        for atom in [lit.atom if isinstance(lit, Negation) else lit]
        if atom.pred in derived
        for i, arg in enumerate(atom.args)
        if isinstance(arg, Const)
    ]
    seen = set(queue)
    out: dict[str, set[int]] = {}
    while queue:
        pred, pos = queue.pop()
        for rule in by_head.get(pred, ()):
            head_arg = rule.head.args[pos] if pos < len(rule.head.args) else None
            if not isinstance(head_arg, Var) or head_arg.anonymous:
                continue
            for lit in rule.body:
                if not isinstance(lit, (Atom, Negation)):
                    continue
                atom = lit.atom if isinstance(lit, Negation) else lit
                for j, arg in enumerate(atom.args):
                    if isinstance(arg, Var) and arg.name == head_arg.name:
                        if atom.pred not in derived:
                            out.setdefault(atom.pred, set()).add(j)
                        elif (atom.pred, j) not in seen:
                            seen.add((atom.pred, j))
                            queue.append((atom.pred, j))
    return out


@dataclass(frozen=True)
class _Wide:
    rule: Rule
    parts: tuple[tuple[Atom, ...], ...]


class JoinGuard:
    """The rules of a program whose bodies fall into unconnected parts, and which predicates reach them."""

    def __init__(self, rules: Iterable[Rule], body: Callable[[Rule], Sequence]) -> None:
        self.body = body  # a rule's body in evaluation order (Program.body)
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
            if _combines(parts):
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

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["wide"] = list(self.wide.values())  # keyed by rule ids, which do not survive pickling
        return state

    def __setstate__(self, state: dict) -> None:
        state["wide"] = {id(wide.rule): wide for wide in state["wide"]}
        self.__dict__.update(state)


class StateCheck:
    """:class:`JoinGuard` for one state, with the predicate sizes and the questions already checked."""

    def __init__(
        self,
        guard: JoinGuard,
        count: Callable[[str, tuple[object, ...]], int],
        computed: frozenset[str],
        limit: int,
        dead: Collection[int] = (),
        *,
        previous: Sequence[StateCheck] = (),
    ) -> None:
        """The check of ``guard`` for one state: ``count(pred, values)`` counts the facts there that may match
        an atom of ``pred`` with ``values`` (its constants, None for a variable; given or computed);
        ``computed``: the predicates judgelog computes itself (pyDatalog does not derive them); ``dead``: the
        ids of the rules that cannot hold in the state (never evaluated: judgelog.liveness); ``previous``: the
        checks of the states before (newest first), whose verdicts this one takes over from the first whose
        every count read is the same here."""
        self.guard, self.count, self.computed, self.limit, self.dead = guard, count, computed, limit, dead
        self._counted: dict[tuple[str, tuple[object, ...]], int] = {}  # every count read: what the verdicts rest on
        self._sizes: dict[tuple[str, tuple[object, ...]], int] = {}
        self._checked: set[str] = set()
        self.rules_checked: set[int] = set()  # ids of the rules whose bodies were checked (by the caller)
        self._passed: set[tuple] = set()  # the bodies found within the limit (in this state)
        self._wide_passed: set[int] = set()  # the ids of the wide rules found within it (many predicates reach one)
        for earlier in previous:
            if self._same_counts(earlier):
                # every verdict of that state rests on counts that are the same here (a step changes a few
                # facts, most often none of the sizes the guard reads): they hold here too. Copied: each state
                # goes on with the counts it reads itself
                self._counted, self._sizes = dict(earlier._counted), dict(earlier._sizes)
                self._checked, self.rules_checked = set(earlier._checked), set(earlier.rules_checked)
                self._passed, self._wide_passed = set(earlier._passed), set(earlier._wide_passed)
                break

    def _same_counts(self, previous: StateCheck) -> bool:
        """Whether ``previous`` (a check of another state) read the counts this state has, with the same
        rules, limit and dead rules: its verdicts are then this state's."""
        if previous.guard is not self.guard or previous.limit != self.limit or previous.computed is not self.computed:
            return False
        if previous.dead is not self.dead and previous.dead != self.dead:
            return False
        count = self.count
        return all(count(pred, values) == n for (pred, values), n in previous._counted.items())

    def facts(self, atom: Atom) -> int:
        """The facts of the state that may match ``atom`` (of its predicate, with its constants where counted)."""
        key = (atom.pred, tuple(a.value if isinstance(a, Const) else None for a in atom.args))
        found = self._counted.get(key)
        if found is None:
            found = self._counted[key] = self.count(*key)
        return found

    def size(self, atom: Atom) -> int:
        """The facts that may match ``atom``, plus, for a predicate pyDatalog derives, the estimates of its
        rules' bodies. The atom's constants go down into the rules whose head passes them on (a rule whose
        head has another constant there derives none): ``has_keyword(A, fear)`` counts the fear keywords
        only, not every keyword."""
        pred = atom.pred
        key = (pred, tuple(a.value if isinstance(a, Const) else None for a in atom.args))
        if key in self._sizes:
            return self._sizes[key] + self.facts(atom)
        self._sizes[key] = 0  # no cycle: recursive predicates are computed by judgelog (they have facts)
        total = 0
        if pred not in self.computed:
            for rule in self.guard.rules_for.get(pred, ()):
                if id(rule) in self.dead:
                    continue
                bound = _binding(rule.head, atom)
                if bound is None:
                    continue
                body = self.guard.body(rule)
                rows = estimate(_parts(body), self.size)
                if bound:  # never more than without the constants (they may split a part in two)
                    rows = min(rows, estimate(_parts(_substitute(body, bound)), self.size))
                total = min(total + rows, _CAP)
        self._sizes[key] = total
        return total + self.facts(atom)

    def _surely_within(self, parts: Sequence[Sequence[Atom]]) -> bool:
        """Whether the parts' estimate is within the limit by a bound that needs no rule's estimate: a part of
        one atom of constants counts at most 1, another part at most the facts of its atoms whose size is their
        facts alone (of a predicate with no rule, or one judgelog computes). False when some part has no such
        atom, or the bound passes the limit (the estimate itself decides then)."""
        rules_for, computed, facts = self.guard.rules_for, self.computed, self.facts
        total = 1
        for part in parts:
            if len(part) == 1 and not _vars(part[0]):
                continue
            bound = min((facts(a) for a in part if a.pred in computed or a.pred not in rules_for), default=None)
            if bound is None:
                return False
            total *= bound
            if total > self.limit:
                return False
        return True

    def check(self, preds: Iterable[str], *, body: Sequence = (), where: Span | None = None) -> None:
        """Refuse (L004) when ``body`` or a wide rule that ``preds`` reach would enumerate more than the
        limit's combinations."""
        if body:
            key = tuple(body)
            if key not in self._passed:
                parts, combines = _split(key)
                if combines and not self._surely_within(parts):
                    total = estimate(parts, self.size)
                    if total > self.limit:  # the parts of this body (a remembered equal one may sit elsewhere)
                        parts = unconnected_parts(body)
                        raise _refusal(None, parts, total, self.limit, where or parts[1][0].span)
                self._passed.add(key)
        for pred in preds:
            if pred in self._checked:
                continue
            passed = self._wide_passed
            for wide in self.guard.wide_below.get(pred, ()):
                rule_id = id(wide.rule)
                if rule_id in passed or rule_id in self.dead:
                    continue
                if not self._surely_within(wide.parts):
                    total = estimate(wide.parts, self.size)
                    if total > self.limit:
                        raise _refusal(wide.rule, wide.parts, total, self.limit, wide.rule.span)
                passed.add(rule_id)
            self._checked.add(pred)


def _binding(head: Atom, atom: Atom) -> dict[str, Const] | None:
    """The head's variables that ``atom``'s constants fix, or None when a constant of the head differs."""
    bound: dict[str, Const] = {}
    for mine, asked in zip(head.args, atom.args):
        if not isinstance(asked, Const):
            continue
        if isinstance(mine, Const):
            if mine.value != asked.value:
                return None
        elif isinstance(mine, Var) and not mine.anonymous:
            if bound.setdefault(mine.name, asked).value != asked.value:
                return None
    return bound


def _substitute(body: Sequence, bound: dict[str, Const]) -> list:
    """``body`` with the variables of ``bound`` replaced by their constants in its atoms."""

    def atom(a: Atom) -> Atom:
        return replace(a, args=tuple(bound.get(t.name, t) if isinstance(t, Var) else t for t in a.args))

    out: list = []
    for lit in body:
        if isinstance(lit, Atom):
            out.append(atom(lit))
        elif isinstance(lit, Negation):
            out.append(replace(lit, atom=atom(lit.atom)))
        else:
            out.append(lit)
    return out


def _refusal(
    rule: Rule | None, parts: Sequence[Sequence[Atom]], total: int, limit: int, span: Span | None
) -> LimitError:
    shown = ", ".join(" ".join(str(a) for a in part) for part in parts[:4]) + (", ..." if len(parts) > 4 else "")
    what = f"rule {rule.name or rule.span.short()}" if rule is not None else "the query"
    about = "more than 10^30" if total >= _CAP else f"about {total}"
    return LimitError(
        L004,
        f"{what} joins {len(parts)} unconnected parts ({shown}): {about} combinations, more than {limit}",
        hint="join the parts on a shared variable, or raise the limit (--max-join N, Limits(join_combinations=N))",
        span=span,
    )
