"""Which derived facts a change of facts can affect: *affected patterns* over the predicate dependency graph.

A change is a set of facts added or removed. A pattern is a tuple of argument values in which some
positions are :data:`WILD` (any value): ``("toughness", "a17", WILD)`` stands for every toughness fact of
a17. :func:`affected` starts from the changed facts themselves and follows every rule whose body holds an
atom (positive or under ``not``) that matches a pattern: the head's variables that the atom binds take the
pattern's values, every other head argument is WILD. The result is closed under the rules (recursion
reaches a fixpoint), so it over-approximates: a derived fact whose truth, or whose set of derivations,
differs between the two fact sets matches a pattern of its predicate (by induction on its derivation, one
of whose body facts then matched a pattern). Everything that matches no pattern is the same before and
after the change, which is what lets the backend recompute aggregates and recursive predicates only for
the affected objects (judgelog.materialise) and the runtime re-ask a whole-board question only about
them (judgelog.answer_cache).

Patterns of one predicate beyond :data:`MAX_PATTERNS` collapse into one all-WILD pattern: the whole
predicate is then recomputed.

>>> from judgelog import Engine
>>> found = affected(Engine().program, [("counter", "bear", "p1p1", 2)])
>>> found.matches(("toughness", "bear", 4)), found.matches(("toughness", "wolf", 2))
(True, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .ast import Atom, Const, Negation, Rule, Var
from .memo import remember
from .patterns import WILD, Among, Pattern, matches
from .patterns import meet as _meet
from .program import Program

__all__ = ["WILD", "Among", "Affected", "Pattern", "affected", "coarse_affected", "matches"]
__all__ += ["readers", "reached_preds", "question_patterns"]


MAX_PATTERNS = 64


class Affected:
    """The affected patterns of each predicate (see the module doc)."""

    __slots__ = ("exact", "wild", "all")

    def __init__(self) -> None:
        self.exact: dict[str, set[Pattern]] = {}  # patterns without WILD
        self.wild: dict[str, set[Pattern]] = {}  # patterns with some WILD
        self.all: dict[str, int] = {}  # predicates whose every fact may be affected -> their arity

    def preds(self) -> set[str]:
        return set(self.exact) | set(self.wild) | set(self.all)

    def patterns(self, pred: str) -> list[Pattern]:
        if pred in self.all:
            return [tuple(WILD for _ in range(self.all[pred]))]
        return list(self.wild.get(pred, ())) + list(self.exact.get(pred, ()))

    def whole(self, pred: str) -> bool:
        return pred in self.all

    def touches(self, pred: str) -> bool:
        return pred in self.all or pred in self.exact or pred in self.wild

    def matches(self, fact: tuple) -> bool:
        """Does a fact (pred, args...) match one of its predicate's patterns?"""
        pred = fact[0]
        if pred in self.all:
            return True
        args = fact[1:]
        exact = self.exact.get(pred)
        if exact and args in exact:
            return True
        return any(matches(p, args) for p in self.wild.get(pred, ()))

    def merge(self, other: Affected) -> None:
        """Add every pattern of ``other`` (as :meth:`add` of each would, a bucket at a time)."""
        for pred, arity in other.all.items():
            if pred not in self.all:
                self.all[pred] = arity
                self.exact.pop(pred, None)
                self.wild.pop(pred, None)
        for mine, theirs in ((self.exact, other.exact), (self.wild, other.wild)):
            for pred, patterns in theirs.items():
                if pred in self.all:
                    continue
                bucket = mine.get(pred)
                if bucket is None:
                    bucket = mine[pred] = set(patterns)
                else:
                    bucket |= patterns
                if len(bucket) > MAX_PATTERNS:
                    self.add(pred, tuple(WILD for _ in next(iter(bucket))))

    def add(self, pred: str, pattern: Pattern) -> bool:
        """Add a pattern; False when it is there already (patterns are not merged: one that another covers
        only costs a second look)."""
        if pred in self.all:
            return False
        if WILD in pattern or any(type(v) is Among for v in pattern):
            if all(v is WILD for v in pattern):
                self.all[pred] = len(pattern)
                self.exact.pop(pred, None)
                self.wild.pop(pred, None)
                return True
            bucket = self.wild.setdefault(pred, set())
        else:
            bucket = self.exact.setdefault(pred, set())
        if pattern in bucket:
            return False
        bucket.add(pattern)
        if len(bucket) > MAX_PATTERNS:
            self.add(pred, tuple(WILD for _ in pattern))
        return True


def readers(program: Program, pred: str) -> list[tuple[Rule, Atom]]:
    """The (rule, body atom) pairs where ``pred`` is read, positively or under ``not``: the rules of its
    successors in the program's dependency graph (kept per program)."""
    kept: dict[str, list[tuple[Rule, Atom]]] = program.kept("incremental.readers", dict)
    found = kept.get(pred)
    if found is None:
        found = kept[pred] = _readers(program, pred)
    return found


_MAX_REACHED = 256


def reached_preds(program: Program, preds: frozenset, dead: frozenset = frozenset()) -> frozenset:
    """``preds`` and every predicate whose rules read one of them, directly or through other rules: the only
    predicates a change of facts of ``preds`` can affect (kept per program by the set of predicates).
    ``dead``: the ids of rules that fire on neither side of the change (see :func:`affected`), not followed."""
    kept: dict[tuple, frozenset] = program.kept("incremental.reached", dict)
    found = kept.get((preds, dead))
    if found is None:
        seen, work = set(preds), list(preds)
        while work:
            pred = work.pop()
            if dead:
                heads: Iterable[str] = {r.head.pred for r, _atom in readers(program, pred) if id(r) not in dead}
            else:
                heads = program.index.readers.get(pred, ())
            for head in heads:
                if head not in seen:
                    seen.add(head)
                    work.append(head)
        if len(kept) >= _MAX_REACHED:
            kept.clear()
        found = kept[(preds, dead)] = frozenset(seen)
    return found


def _readers(program: Program, pred: str) -> list[tuple[Rule, Atom]]:
    out: list[tuple[Rule, Atom]] = []
    for head in program.index.readers.get(pred, ()):
        for rule in program.rules_by_head.get(head, ()):
            for lit in rule.body:
                atom = lit.atom if isinstance(lit, Negation) else lit
                if isinstance(atom, Atom) and atom.pred == pred:
                    out.append((rule, atom))
    return out


def _bind(atom: Atom, pattern: Pattern) -> dict[str, Any] | None:
    """The variables of a body atom that the pattern fixes; None when the atom cannot match it."""
    binding: dict[str, Any] = {}
    for term, value in zip(atom.args, pattern):
        if isinstance(term, Const):
            if value is WILD or type(value) is _Number:
                continue
            if type(value) is Among:
                if term.value not in value.values:
                    return None
            elif value != term.value:
                return None
        elif isinstance(term, Var) and value is not WILD and not term.name.startswith("_"):
            if term.name in binding:
                value = _meet(binding[term.name], value)
                if value is None:
                    return None
            binding[term.name] = value
    return binding


def _head_pattern(rule: Rule, binding: dict[str, Any]) -> Pattern:
    return tuple(
        binding.get(a.name, WILD) if isinstance(a, Var) else a.value if isinstance(a, Const) else WILD
        for a in rule.head.args
    )


class _Slot:
    """A placeholder for a value no rule names: the analysis only compares values with the rules' constants
    and with each other, so one closure computed over placeholders serves every fact of the same shape."""

    __slots__ = ("i", "_hash")
    MARK = "$"

    def __init__(self, i: int) -> None:
        self.i = i
        self._hash = hash((self.MARK, i))  # (shapes are hashed as they are shared, a large change's facts each)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.i == self.i

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"{self.MARK}{self.i}"


class _Number(_Slot):
    """A placeholder for a number that no rule writes where the fact holds it (a count of counters, a life
    total, an event's number): it may still equal a number a rule writes elsewhere, so it matches every
    constant (an over-approximation). Counting 4, 5, 6 ... counters then needs one closure, not one each."""

    __slots__ = ()
    MARK = "#"


_MAX_CLOSURES = 4096
_SLOTS = tuple(_Slot(i) for i in range(16))
_NUMBERS = tuple(_Number(i) for i in range(16))


def _closures(
    program: Program,
) -> tuple[frozenset, dict[tuple, tuple[list[tuple[str, Pattern]], frozenset]], frozenset]:
    """The constants the rules write, the closures of change shapes found so far with every rule (each with
    the ids of the rules it went through), and the predicates at some place of which a rule writes a number
    (the others' numbers are never kept in a shape: see _shapes), kept per program."""

    def make() -> tuple[frozenset, dict[tuple, tuple[list[tuple[str, Pattern]], frozenset]], frozenset]:
        # words as they are; a number as (predicate, position, number), where a rule writes it (see _shapes)
        consts = frozenset(
            (atom.pred, i, a.value) if type(a.value) is int else a.value
            for r in program.rules
            for lit in (r.head, *r.body)
            if isinstance(lit, (Atom, Negation))
            for atom in (lit.atom if isinstance(lit, Negation) else lit,)
            for i, a in enumerate(atom.args)
            if isinstance(a, Const)
        )
        return consts, {}, frozenset(c[0] for c in consts if type(c) is tuple)

    return program.kept("incremental.closures", make)


def _cached_closure(program: Program, key: tuple, dead: frozenset = frozenset()) -> list[tuple[str, Pattern]]:
    """:func:`_closure` of the change shape ``key`` (predicate, then its pattern) with the rules of ``dead``
    left out, kept per program.

    The closure with every rule is computed first, with the rules it goes through: leaving out a rule makes
    the closure no larger (each pattern reached is reached by one at least as wide with every rule), so it
    goes through none of the others, and the closure without ``dead`` is the closure without those of its
    rules that ``dead`` holds: usually none, and so the closure with every rule, whatever else the state's
    namespace leaves dead (states of different boards share it)."""
    whole = _closures(program)[1]
    found = whole.get(key)
    if found is None:
        if len(whole) >= _MAX_CLOSURES:
            whole.clear()
        found = whole[key] = _closure(program, key[0], key[1:])
    closure, used = found
    if not dead:
        return closure
    left_out = used & dead  # (a frozenset intersection walks the smaller of the two)
    if not left_out:
        return closure
    kept: dict[tuple, list[tuple[str, Pattern]]] = program.kept("incremental.dead_closures", dict)
    without = kept.get((key, left_out))
    if without is None:
        if len(kept) >= _MAX_CLOSURES:
            kept.clear()
        without = kept[(key, left_out)] = _closure(program, key[0], key[1:], left_out)[0]
    return without


def affected(
    program: Program, changed: Iterable[tuple], *, among: bool = False, dead: frozenset = frozenset()
) -> Affected:
    """The affected patterns of every predicate after ``changed`` facts were added or removed.

    The closure of a set of changes is the union of the closures of each change; each change's closure is
    computed once per *shape* (its predicate, the rules' constants it holds, and which of its other values
    are equal), with placeholders for those other values, and kept. A large change is analysed by its
    *coarse shapes* instead (:func:`coarse_affected`; ``among``: as there).

    ``dead``: the ids of rules that can fire neither before nor after the change (judgelog.liveness): the
    change is not followed through them (they derive nothing on either side)."""
    changed = changed if isinstance(changed, (list, tuple, set, frozenset)) else list(changed)
    if len(changed) > COARSE_ABOVE:
        return coarse_affected(program, changed, among=among, dead=dead)
    return _exact(program, changed, dead)


def _exact(program: Program, changed: Iterable[tuple], dead: frozenset = frozenset()) -> Affected:
    consts, _, numbered = _closures(program)
    out = Affected()
    for fact in changed:
        key = (fact, tuple(map(type, fact)), dead)  # True and 1 are equal keys, not equal shapes
        known = _ONE.get(key)
        if known is None or known[0] is not program:
            known = (program, _affected_one(program, fact, consts, numbered, dead))
            if len(_ONE) >= _MAX_ONE:
                _ONE.clear()
            _ONE[key] = known
        out.merge(known[1])
    return out


_ONE: dict[tuple, tuple[Program, Affected]] = {}  # a changed fact -> its affected patterns (kept, a few thousand)
_MAX_ONE = 2048
COARSE_ABOVE = 256  # a change of more facts is analysed by coarse shapes (see coarse_affected)
_MAX_AMONG_GROUPS = 64  # large groups of changed facts whose closures with sets of values are kept
_MAX_COARSE_KEYS = 200_000  # the coarse shapes of facts kept per program
_COARSE_SHAPE = 8  # within such a change, a coarse shape of more facts is followed as one WILD pattern


def coarse_affected(
    program: Program, changed: Iterable[tuple], *, among: bool = False, dead: frozenset = frozenset()
) -> Affected:
    """The affected patterns of a large change: its facts grouped by *coarse shape* (their predicate and
    the rules' constants they hold, every other value WILD); a shape that more than a few facts have is
    followed as that one pattern, the others fact by fact (:func:`affected`). This over-approximates the
    exact analysis (a WILD value stands for every value) at the cost of the change's distinct shapes, so
    that a change of hundreds of objects (proliferate) still recomputes only the predicates, and the
    rule-constant groups of them, that it can reach: ``counter(_, p1p1, _)`` for every creature reaches
    every toughness and power, but of the state-based actions only those whose rules read them or
    counters, and of the keywords counters grant only ``has_keyword(_, p1p1)``.

    With ``among``, such a shape's facts are followed by their exact shapes instead (which of their other
    values are equal), each closure once, its placeholders standing for the set of values the facts hold
    there (:class:`Among`): ``toughness(<the creatures given a counter>, _)``, not every toughness. This is
    the union of the facts' exact closures, widened to the product of each position's values. ``dead``: as
    :func:`affected`."""
    out = Affected()
    for key, entries, facts in _grouped(program, changed):
        if len(entries) <= _COARSE_SHAPE:
            out.merge(_exact(program, [e[0] for e in entries], dead))
        elif among and WILD in key[1:]:
            # the same large group of facts is often analysed again (each question compares its own fact
            # sets): kept by its facts
            among_kept: dict[tuple, list[tuple[str, Pattern]]] = program.kept("incremental.among_groups", dict)
            whole = (key, facts, dead)
            found = among_kept.get(whole)
            if found is None:
                if len(among_kept) >= _MAX_AMONG_GROUPS:
                    among_kept.clear()
                found = among_kept[whole] = _among_closure(program, _among_values(program, key, entries, facts), dead)
            for pred, pattern in found:
                if pred not in out.all:
                    out.add(pred, pattern)
        else:
            for pred, pattern in _cached_closure(program, key, dead):
                out.add(pred, pattern)
    return out


_MAX_GROUPINGS = 64  # large changes whose facts' grouping by coarse shape is kept


def _grouped(program: Program, changed: Iterable[tuple]) -> list[tuple[tuple, list[tuple], frozenset]]:
    """The facts of a large change grouped by coarse shape: (the shape, the facts' entries (see
    :func:`_fact_shapes`), the facts of a group of more than _COARSE_SHAPE). Kept by the change's facts: the
    questions of one step analyse the same change again and again, each with the rules dead on both of its
    sides (thousands of facts looked up each time, for the same groups)."""
    changed = changed if isinstance(changed, frozenset) else frozenset(changed)
    groupings: dict[frozenset, list[tuple[tuple, list[tuple], frozenset]]] = program.kept("incremental.groupings", dict)
    found = groupings.get(changed)
    if found is not None:
        return found
    consts, _, numbered = _closures(program)
    # fact -> (the fact, its coarse shape, its exact shape, the values the exact shape's placeholders stand
    # for): a change is often analysed again by each fact set compared (the backend's, each question's)
    kept: dict[tuple, tuple] = program.kept("incremental.fact_shapes", dict)
    shapes: dict[tuple, tuple] = program.kept("incremental.shapes", dict)  # each shape once (see _shared)
    if len(kept) > _MAX_COARSE_KEYS:
        kept.clear()
        shapes.clear()
    groups: dict[tuple, list[tuple]] = {}
    for fact in changed:
        entry = kept.get(fact)
        if entry is None or entry[0] is not fact and tuple(map(type, entry[0])) != tuple(map(type, fact)):
            entry = _fact_shapes(kept, shapes, fact, consts, numbered)
        group = groups.get(entry[1])
        if group is None:
            groups[entry[1]] = [entry]
        else:
            group.append(entry)
    # a group's facts as a set only where coarse_affected keys on them (a group followed by its exact shapes)
    found = [
        (key, entries, frozenset(e[0] for e in entries) if len(entries) > _COARSE_SHAPE else frozenset())
        for key, entries in groups.items()
    ]
    return remember(groupings, changed, found, keep=_MAX_GROUPINGS)


def _fact_shapes(
    kept: dict[tuple, tuple], shapes: dict[tuple, tuple], fact: tuple, consts: frozenset, numbered: frozenset
) -> tuple:
    """(fact, its coarse shape, its exact shape, the exact shape's values), kept by the fact unless an equal
    fact of other types (1 and True) is kept already. The shapes are the ones ``shapes`` holds when equal
    and alike (:func:`_shared`): thousands of facts share a few (fewer objects kept, and fewer for the cyclic
    collector to walk)."""
    coarse, exact, values = _shapes(fact, consts, numbered)
    entry = (fact, _shared(shapes, coarse), _shared(shapes, exact), values)
    if fact not in kept:
        kept[fact] = entry
    return entry


def _shared(shapes: dict[tuple, tuple], shape: tuple) -> tuple:
    """The shape ``shapes`` holds equal to ``shape`` and of the same types (1, 1.0 and True are equal)."""
    return shapes.setdefault((shape, tuple(map(type, shape))), shape)


def _among_values(program: Program, key: tuple, entries: list[tuple], facts: frozenset) -> list[tuple[tuple, list]]:
    """The exact shapes of the facts of ``entries`` (of the coarse shape ``key``; see :func:`_fact_shapes`),
    each with what its placeholders stand for: the value the facts of that shape hold at each, or the set of
    them (:class:`Among`). Kept by the facts: the questions of a step analyse them again with the rules dead
    over their own fact sets, which change only the closures (:func:`_among_closure`)."""
    kept: dict[tuple, list[tuple[tuple, list]]] = program.kept("incremental.among_values", dict)
    found = kept.get((key, facts))
    if found is not None:
        return found
    # the exact shapes are shared (_shared): grouped by identity first, then equal ones merged (a shape made
    # again after the shared ones were dropped), so that no fact hashes its shape here
    by_id: dict[int, tuple[tuple, list[set]]] = {}
    for _fact, _coarse, shape, values in entries:
        seen = by_id.get(id(shape))
        if seen is None:
            seen = by_id[id(shape)] = (shape, [set() for _ in values])
        for held, v in zip(seen[1], values):
            held.add(v)
    shapes: dict[tuple, list[set]] = {}
    for shape, sets in by_id.values():
        merged = shapes.setdefault(shape, sets)
        if merged is not sets:
            for held, more in zip(merged, sets):
                held |= more
    found = [
        (shape, [Among(frozenset(vs)) if len(vs) > 1 else next(iter(vs)) for vs in sets])
        for shape, sets in shapes.items()
    ]
    return remember(kept, (key, facts), found, keep=_MAX_AMONG_GROUPS)


def _among_closure(
    program: Program, shapes: list[tuple[tuple, list]], dead: frozenset = frozenset()
) -> list[tuple[str, Pattern]]:
    """The closures of exact shapes, each placeholder standing for what ``shapes`` gives it (see
    :func:`_among_values` and :func:`coarse_affected`)."""
    out: list[tuple[str, Pattern]] = []
    for key, held in shapes:
        for pred, pattern in _cached_closure(program, key, dead):
            out.append((pred, tuple(held[v.i] if isinstance(v, _Slot) else v for v in pattern)))
    return out


def _shapes(fact: tuple, consts: frozenset, numbered: frozenset) -> tuple[tuple, tuple, tuple]:
    """A fact's coarse shape (its predicate, the rules' constants it holds, WILD for each other value), its
    exact shape (a placeholder for each other value instead, equal values sharing one) and the values the
    placeholders stand for, in one pass (``consts`` and ``numbered``: see _closures)."""
    pred = fact[0]
    coarse: list = [pred]
    shape: list = [pred]
    values: list = []
    slots: tuple[_Slot, ...]
    # a number is kept as a constant where a rule writes it at one of the places the fact holds it (so
    # that equal numbers of the fact stay equal); elsewhere it is a _Number, which matches any constant
    kept_numbers = (
        {v for i, v in enumerate(fact[1:]) if type(v) is int and (pred, i, v) in consts} if pred in numbered else ()
    )
    for v in fact[1:]:
        if type(v) is int:  # (True is not a number here: bool is a type of its own)
            if v in kept_numbers:
                coarse.append(v)
                shape.append(v)
                continue
            slots = _NUMBERS
        elif v in consts and not isinstance(v, bool):
            coarse.append(v)
            shape.append(v)
            continue
        else:
            slots = _SLOTS
        coarse.append(WILD)
        if v in values:
            i = values.index(v)
        else:
            i = len(values)
            values.append(v)
        shape.append(slots[i] if i < len(slots) else (_Number if slots is _NUMBERS else _Slot)(i))
    return tuple(coarse), tuple(shape), tuple(values)


def _affected_one(program: Program, fact: tuple, consts: frozenset, numbered: frozenset, dead: frozenset) -> Affected:
    """The affected patterns of one changed fact, from the closure of its shape."""
    out = Affected()
    _, shape, values = _shapes(fact, consts, numbered)
    for pred, pattern in _cached_closure(program, shape, dead):
        if pred in out.all:
            continue
        out.add(pred, tuple(values[v.i] if isinstance(v, _Slot) else v for v in pattern))
    return out


def _stated(program: Program) -> dict[str, list[tuple]]:
    """The predicates whose facts are all stated in the rule files (no rule with a body derives them, no
    scenario gives them), each with those facts' arguments: they are the same in every state."""

    def make() -> dict[str, list[tuple]]:
        derived = {r.head.pred for r in program.rules if r.body or r.aggregate is not None}
        out: dict[str, list[tuple]] = {}
        for fact in program.fact_rules:
            decl = program.decls.get(fact[0])
            if fact[0] not in derived and decl is not None and not decl.is_input:
                out.setdefault(fact[0], []).append(fact[1:])
        return out

    return program.kept("incremental.stated", make)


def _possible(program: Program, rule: Rule, binding: dict[str, Any]) -> bool:
    """False when, under ``binding``, a positive body atom of ``rule`` over a predicate the rule files state
    in full matches none of its facts: the rule derives nothing for that binding in any state
    (``keyword_source(O, K) :- counter(O, K, N), ..., keyword_counter(K)`` with K a counter kind that no
    ``keyword_counter`` fact names)."""
    stated = _stated(program)
    for lit in program.body(rule):
        if not isinstance(lit, Atom) or lit.pred not in stated:
            continue
        wanted = tuple(
            a.value
            if isinstance(a, Const)
            else binding.get(a.name, WILD)
            if isinstance(a, Var) and not isinstance(binding.get(a.name, WILD), _Slot)
            else WILD
            for a in lit.args
        )
        if all(v is WILD for v in wanted):
            continue
        if not any(matches(wanted, args) for args in stated[lit.pred]):
            return False
    return True


def _closure(
    program: Program, pred: str, args: Pattern, dead: frozenset = frozenset()
) -> tuple[list[tuple[str, Pattern]], frozenset]:
    """Every (predicate, pattern) that the change of one fact reaches through the rules (but those of
    ``dead``), and the ids of the rules it reaches them through."""
    out = Affected()
    used: set[int] = set()
    followed_whole: set[str] = set()
    work: list[tuple[str, Pattern]] = []
    if out.add(pred, args):
        work.append((pred, args))
    while work:
        pred, pattern = work.pop()
        if pred in out.all:  # the whole predicate (perhaps collapsed meanwhile): followed once, whole
            if pred in followed_whole:
                continue
            followed_whole.add(pred)
            pattern = tuple(WILD for _ in pattern)
        for rule, atom in readers(program, pred):
            if dead and id(rule) in dead:
                continue
            binding = _bind(atom, pattern)
            if binding is None or not _possible(program, rule, binding):
                continue
            used.add(id(rule))
            head = rule.head.pred
            new = _head_pattern(rule, binding)
            if out.add(head, new):
                work.append((head, tuple(WILD for _ in new) if head in out.all else new))
    return [(p, q) for p in out.preds() for q in out.patterns(p)], frozenset(used)


def question_patterns(found: Affected, head: Atom, body: Sequence) -> Affected:
    """The affected patterns of a question (``head`` over its answer variables, ``body`` its literals)."""
    out = Affected()
    for lit in body:
        atom = lit.atom if isinstance(lit, Negation) else lit
        if not isinstance(atom, Atom) or not found.touches(atom.pred):
            continue
        for pattern in found.patterns(atom.pred):
            binding = _bind(atom, pattern)
            if binding is not None:
                out.add(head.pred, tuple(binding.get(a.name, WILD) if isinstance(a, Var) else WILD for a in head.args))
                if out.whole(head.pred):
                    return out
    return out
