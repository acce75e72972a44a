"""Fact sets carried as a base fact set plus a difference, so that a step costs its change, not the board.

An action works on its state's facts: it adds and removes a handful of them, again and again, and asks the
rules about each version. Copying, freezing and comparing whole fact sets for that makes one step cost as
much as the board. Here a version is its base (a frozenset, normally the state's facts) with the facts it
adds (``plus``, none of them in the base) and the base facts it removes (``minus``):

- :class:`Overlay`, the mutable working copy (the runtime's and the effect primitives'); a copy costs the
  difference, not the base;
- :class:`FactView`, an immutable snapshot of one, handed to the backend and to the answer cache as the
  fact set a question is asked about (what :meth:`Overlay.snapshot` gives while nothing changes);
- :func:`difference` finds what two fact sets add and remove to each other from their bases and differences
  (and from the difference a state's facts were made with, :func:`made_from`), without comparing them whole;
  None when they have no common base within a few steps.

>>> base = frozenset({("a", 1), ("b", 2)})
>>> work = Overlay(base)
>>> work.add(("c", 3)); work.discard(("a", 1))
>>> sorted(work), len(work), ("a", 1) in work
([('b', 2), ('c', 3)], 2, False)
>>> view = work.snapshot()
>>> difference(base, view)
(frozenset({('c', 3)}), frozenset({('a', 1)}))
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast

from .memo import remember

__all__ = [
    "Overlay",
    "FactView",
    "Chained",
    "ChainedMap",
    "WorkingFacts",
    "chained",
    "difference",
    "made_from",
    "as_frozenset",
    "by_pred",
]

_EMPTY: frozenset = frozenset()
_DEPTH = 4  # bases followed up from a fact set when looking for a common one
_MADE: dict[int, tuple[frozenset, frozenset, frozenset, frozenset]] = {}  # id -> (it, base, plus, minus)
_MADE_KEPT = 8
CHAIN_MAX = 4096  # a state's facts further from their root than this many facts are made whole again


def made_from(facts: frozenset, base: frozenset, plus: frozenset, minus: frozenset) -> None:
    """Remember that ``facts`` equals ``base`` with ``plus`` added and ``minus`` removed (a state's facts made
    by an action), so that :func:`difference` relates it to fact sets over ``base`` (a few are kept)."""
    remember(_MADE, id(facts), (facts, base, plus, minus), keep=_MADE_KEPT)  # (threads share it)


def _parent(facts: Any, near: bool = True) -> tuple[Any, frozenset, frozenset] | None:
    """What ``facts`` was made from: (that fact set, the facts added, the facts removed); for a state's facts
    (:class:`Chained`) the state before it when ``near``, else their root."""
    kind = type(facts)
    if kind is Chained:
        return facts.via if near else (facts.base, facts.plus, facts.minus)
    if kind is FactView:
        return facts.base, facts.plus, facts.minus
    hit = _MADE.get(id(facts))
    if hit is not None and hit[0] is facts:
        return hit[1], hit[2], hit[3]
    return None


def _path(facts: Any, limit: int) -> list[tuple[Any, frozenset, frozenset, int]]:
    """``facts`` and the fact sets it was made from, nearest first, as (fact set, the facts it adds to the
    one before it in the list, the facts it removes, the facts changed from ``facts`` up to it): found by
    identity, nothing combined; a step past ``limit`` facts changed in all ends it."""
    found: list[tuple[Any, frozenset, frozenset, int]] = [(facts, _EMPTY, _EMPTY, 0)]
    cost = 0
    while len(found) <= _DEPTH + 1:
        # a state's facts: the states before them first, then (far enough up) their root directly
        parent = _parent(found[-1][0], len(found) <= _DEPTH)
        if parent is None:
            break
        up, p, m = parent
        cost += len(p) + len(m)
        if cost > limit:  # larger than asked for: stop here
            break
        found.append((up, p, m, cost))
    return found


def _combined(path: list[tuple[Any, frozenset, frozenset, int]], depth: int) -> tuple[frozenset, frozenset]:
    """What ``path[0]`` adds to ``path[depth]`` and removes from it (each step's difference on top of the
    one above it)."""
    plus, minus = _EMPTY, _EMPTY
    for _up, p, m, _cost in path[1 : depth + 1]:
        # facts_now = up + p - m (p disjoint from up, m within it); then the difference so far on top
        plus, minus = (p - minus) | (plus - m), (m - plus) | (minus - p)
    return plus, minus


_FOUND: dict[tuple[int, int], tuple[Any, Any, tuple[frozenset, frozenset]]] = {}  # the last differences found
_FOUND_KEPT = 16


def difference(old: Any, new: Any, limit: int = 100_000) -> tuple[frozenset, frozenset] | None:
    """``(added, removed)``: the facts ``new`` has and ``old`` lacks, and the other way round, found from a
    common base of the two (the one whose paths change the fewest facts: the two fact sets' lines of bases
    are followed by identity first, and only the two paths to the base chosen are combined); None when they
    have none within a few steps, or none whose path from either changes at most ``limit`` facts (compare
    them whole then). The last few found are kept by the identity of the two (immutable) fact sets."""
    if old is new:
        return _EMPTY, _EMPTY
    key = (id(old), id(new))
    hit = _FOUND.get(key)
    if hit is not None and hit[0] is old and hit[1] is new:
        return hit[2]
    olds, news = _path(old, limit), _path(new, limit)
    at_old = {id(entry[0]): i for i, entry in reversed(list(enumerate(olds)))}
    best: tuple[int, int, int] | None = None  # (facts changed on the two paths, old depth, new depth)
    for j, entry in enumerate(news):
        i = at_old.get(id(entry[0]))
        if i is not None and olds[i][0] is entry[0]:
            candidate = (olds[i][3] + entry[3], i, j)
            if best is None or candidate < best:
                best = candidate
    if best is None:
        return None
    _cost, i, j = best
    old_plus, old_minus = _combined(olds, i)
    new_plus, new_minus = _combined(news, j)
    found = (new_plus - old_plus) | (old_minus - new_minus), (old_plus - new_plus) | (new_minus - old_minus)
    if type(old) in _IMMUTABLE and type(new) in _IMMUTABLE:
        if len(_FOUND) >= _FOUND_KEPT:
            _FOUND.clear()  # (one call: safe if two threads fill it at once)
        _FOUND[key] = (old, new, found)
    return found


def by_pred(facts: Iterable[tuple]) -> dict[str, list[tuple]]:
    """The facts by predicate, each predicate's in their order: a change of thousands of facts is then handled
    one predicate at a time (counted, indexed, judged) instead of one fact at a time.

    >>> by_pred([("a", 1), ("b", 2), ("a", 3)])
    {'a': [('a', 1), ('a', 3)], 'b': [('b', 2)]}
    """
    out: dict[str, list[tuple]] = {}
    get = out.get
    for fact in facts:
        group = get(fact[0])
        if group is None:
            out[fact[0]] = [fact]
        else:
            group.append(fact)
    return out


def as_frozenset(facts: Iterable[tuple]) -> frozenset:
    """The facts as a plain frozenset (a snapshot or working copy made whole; a frozenset as it is)."""
    if isinstance(facts, (FactView, Overlay)):
        return facts.frozen()
    return facts if isinstance(facts, frozenset) else frozenset(facts)


class FactView:
    """An immutable fact set: ``base`` with ``plus`` added and ``minus`` removed (``plus`` disjoint from the
    base, ``minus`` within it). Equal to another fact set with the same facts; hashed by identity (an equal
    frozenset hashes otherwise: use :meth:`frozen` to mix them in a dict)."""

    __slots__ = ("base", "plus", "minus", "_frozen")

    def __init__(self, base: frozenset, plus: frozenset = _EMPTY, minus: frozenset = _EMPTY) -> None:
        self.base, self.plus, self.minus = base, plus, minus
        self._frozen: frozenset | None = None

    def __contains__(self, fact: object) -> bool:
        return fact in self.plus or (fact in self.base and fact not in self.minus)

    def __len__(self) -> int:
        return len(self.base) - len(self.minus) + len(self.plus)

    def __iter__(self) -> Iterator[tuple]:
        yield from self.plus
        if self.minus:
            minus = self.minus
            yield from (f for f in self.base if f not in minus)
        else:
            yield from self.base

    def __bool__(self) -> bool:
        return len(self) > 0

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if not isinstance(other, (FactView, Overlay, frozenset, set)) or len(other) != len(self):
            return False
        found = difference(self, other)
        if found is not None:
            return not found[0] and not found[1]
        return self.frozen() == as_frozenset(other)

    __hash__ = object.__hash__

    # the operations of a frozenset, on the whole set (made once, :meth:`frozen`): a state's facts are read
    # with them; an action's steps use the base and the difference instead
    def __sub__(self, other: Iterable[tuple]) -> frozenset:
        return self.frozen() - as_frozenset(other)

    def __rsub__(self, other: Iterable[tuple]) -> frozenset:
        return as_frozenset(other) - self.frozen()

    def __or__(self, other: Iterable[tuple]) -> frozenset:
        return self.frozen() | as_frozenset(other)

    def __and__(self, other: Iterable[tuple]) -> frozenset:
        return self.frozen() & as_frozenset(other)

    def __xor__(self, other: Iterable[tuple]) -> frozenset:
        return self.frozen() ^ as_frozenset(other)

    __ror__, __rand__, __rxor__ = __or__, __and__, __xor__

    def __le__(self, other: Iterable[tuple]) -> bool:
        return self.frozen() <= as_frozenset(other)

    def __lt__(self, other: Iterable[tuple]) -> bool:
        return self.frozen() < as_frozenset(other)

    def __ge__(self, other: Iterable[tuple]) -> bool:
        return self.frozen() >= as_frozenset(other)

    def __gt__(self, other: Iterable[tuple]) -> bool:
        return self.frozen() > as_frozenset(other)

    def union(self, *others: Iterable[tuple]) -> frozenset:
        return self.frozen().union(*others)

    def difference(self, *others: Iterable[tuple]) -> frozenset:
        return self.frozen().difference(*others)

    def intersection(self, *others: Iterable[tuple]) -> frozenset:
        return self.frozen().intersection(*others)

    def symmetric_difference(self, other: Iterable[tuple]) -> frozenset:
        return self.frozen().symmetric_difference(other)

    def issubset(self, other: Iterable[tuple]) -> bool:
        return self.frozen().issubset(other)

    def issuperset(self, other: Iterable[tuple]) -> bool:
        return all(f in self for f in other)

    def isdisjoint(self, other: Iterable[tuple]) -> bool:
        return not any(f in self for f in other)

    def copy(self) -> FactView:
        return self

    def __reduce__(self) -> tuple:
        return frozenset, (self.frozen(),)  # pickled whole, as a plain frozenset

    def frozen(self) -> frozenset:
        """The facts as a frozenset (made once)."""
        if self._frozen is None:
            if not self.plus and not self.minus:
                self._frozen = self.base
            else:
                self._frozen = (self.base - self.minus) | self.plus
        return self._frozen

    def __repr__(self) -> str:
        return f"<FactView {len(self.base)} facts +{len(self.plus)} -{len(self.minus)}>"


class Chained(FactView):
    """A state's facts (:func:`chained`): its root fact set (``base``, a frozenset) with ``plus`` added and
    ``minus`` removed, and ``via``, the fact set of the state before it with the action's change, so that
    :func:`difference` relates it to that state's facts at the cost of the change."""

    __slots__ = ("via",)

    def __init__(
        self, base: frozenset, plus: frozenset, minus: frozenset, via: tuple[Any, frozenset, frozenset]
    ) -> None:
        super().__init__(base, plus, minus)
        self.via = via

    def __repr__(self) -> str:
        return f"<Chained {len(self.base)} facts +{len(self.plus)} -{len(self.minus)}>"


def chained(parent: Any, plus: frozenset, minus: frozenset) -> Any:
    """``parent`` with ``plus`` added (none of them in it) and ``minus`` removed (all of them in it), for a
    state an action makes: a :class:`Chained` over the root of ``parent`` (a frozenset, or a Chained's
    base), which costs the change and the facts it already differs by from that root; a frozenset made
    whole when that difference grows past :data:`CHAIN_MAX` facts (a copy of the board every few
    thousand facts changed)."""
    if type(parent) is Chained:
        root, p, m = parent.base, parent.plus, parent.minus
    else:
        root, p, m = as_frozenset(parent), _EMPTY, _EMPTY
    # parent = root + p - m; the new set's difference with the root (plus facts in m are back in root)
    new_plus = (p - minus) | (plus - m) if p or m else plus
    new_minus = (m - plus) | (minus - p) if p or m else minus
    if len(new_plus) + len(new_minus) > CHAIN_MAX:
        whole = (root - new_minus) | new_plus
        made_from(whole, parent, plus, minus)
        return whole
    return Chained(root, new_plus, new_minus, (parent, plus, minus))


_IMMUTABLE = (frozenset, FactView, Chained)  # fact sets whose differences are kept by identity


class ChainedMap(Mapping):
    """A read-only mapping kept as its root mapping with the keys it overrides (``own``) and the root's keys
    it drops (``gone``): :meth:`updated` costs the change and the keys it already differs by from the root,
    and makes it whole when those grow past :data:`CHAIN_MAX` (a state's origins and causes)."""

    __slots__ = ("root", "own", "gone")

    def __init__(self, root: Mapping | None = None, own: dict | None = None, gone: frozenset = _EMPTY) -> None:
        self.root: Mapping = {} if root is None else root
        self.own: dict = {} if own is None else own
        self.gone = gone

    def __getitem__(self, key: Any) -> Any:
        own = self.own
        if key in own:
            return own[key]
        if key in self.gone:
            raise KeyError(key)
        return self.root[key]

    def get(self, key: Any, default: Any = None) -> Any:
        own = self.own
        if key in own:
            return own[key]
        if key in self.gone:
            return default
        return self.root.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self.own or (key in self.root and key not in self.gone)

    def __iter__(self) -> Iterator:
        own, gone = self.own, self.gone
        yield from own
        yield from (k for k in self.root if k not in own and k not in gone)

    def __len__(self) -> int:
        root, gone = self.root, self.gone
        return len(root) - len(gone) + sum(1 for k in self.own if k not in root or k in gone)

    def __bool__(self) -> bool:
        return bool(self.own) or len(self.root) > len(self.gone)

    def updated(self, removed: Iterable, new: Mapping) -> ChainedMap:
        """This mapping without the keys ``removed``, then with the entries of ``new``."""
        removed = [k for k in removed if k in self]
        if not removed and not new:
            return self
        own = dict(self.own)
        dropped = []
        for k in removed:
            own.pop(k, None)
            if k in self.root:
                dropped.append(k)
        own.update(new)
        gone = self.gone | frozenset(dropped) if dropped else self.gone
        if len(own) + len(gone) > CHAIN_MAX:
            whole = dict(self.root)
            for k in gone:
                whole.pop(k, None)
            whole.update(own)
            return ChainedMap(whole)
        return ChainedMap(self.root, own, gone)

    def __repr__(self) -> str:
        return f"<ChainedMap {len(self.root)} keys +{len(self.own)} -{len(self.gone)}>"


class Overlay:
    """A mutable fact set over a frozen base (see the module doc). Set operations with small fact sets
    (``|``, ``-``, ``&``, ``|=``, ``-=``, ``add``, ``discard``) cost the size of the small one and of the
    difference; iterating costs the whole set."""

    __slots__ = ("base", "plus", "minus", "_snap")
    base: frozenset
    plus: set[tuple]
    minus: set[tuple]

    def __init__(self, base: Iterable[tuple], plus: Iterable[tuple] = (), minus: Iterable[tuple] = ()) -> None:
        if isinstance(base, Overlay):
            self.base, self.plus, self.minus = base.base, set(base.plus), set(base.minus)
        elif isinstance(base, Chained):  # a state's facts: the base as they are (their root is far)
            self.base, self.plus, self.minus = cast(frozenset, base), set(), set()  # reads as one
        elif isinstance(base, FactView):
            self.base, self.plus, self.minus = base.base, set(base.plus), set(base.minus)
        else:
            self.base = base if isinstance(base, frozenset) else frozenset(base)
            self.plus, self.minus = set(), set()
        self._snap: FactView | None = None
        for f in minus:
            self.discard(f)
        for f in plus:
            self.add(f)

    # -- reading --------------------------------------------------------
    def __contains__(self, fact: object) -> bool:
        return fact in self.plus or (fact in self.base and fact not in self.minus)

    def __len__(self) -> int:
        return len(self.base) - len(self.minus) + len(self.plus)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[tuple]:
        yield from list(self.plus)
        if self.minus:
            minus = self.minus
            yield from (f for f in self.base if f not in minus)
        else:
            yield from self.base

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if isinstance(other, Overlay):
            other = other.snapshot()
        return self.snapshot() == other

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __le__(self, other: Iterable[tuple]) -> bool:
        other = other if isinstance(other, (set, frozenset, Overlay, FactView)) else set(other)
        return len(self) <= len(other) and all(f in other for f in self)

    def __ge__(self, other: Iterable[tuple]) -> bool:
        return all(f in self for f in other)

    def __lt__(self, other: Iterable[tuple]) -> bool:
        return self <= other and len(self) != len(set(other) if not hasattr(other, "__len__") else other)  # type: ignore[arg-type]

    def __gt__(self, other: Iterable[tuple]) -> bool:
        return self >= other and len(self) != len(set(other) if not hasattr(other, "__len__") else other)  # type: ignore[arg-type]

    issubset, issuperset = __le__, __ge__

    def snapshot(self) -> FactView:
        """The facts now, frozen: the same object until the next change."""
        if self._snap is None:
            self._snap = FactView(self.base, frozenset(self.plus), frozenset(self.minus))
        return self._snap

    def frozen(self) -> frozenset:
        return self.snapshot().frozen()

    def copy(self) -> Overlay:
        out = Overlay.__new__(Overlay)  # a plain working copy, whatever this one's kind
        Overlay._init_copy(out, self)
        return out

    def _init_copy(self, other: Overlay) -> None:
        self.base, self.plus, self.minus, self._snap = other.base, set(other.plus), set(other.minus), other._snap

    # -- changing -------------------------------------------------------
    def add(self, fact: tuple) -> None:
        if fact in self.base:
            if fact in self.minus:
                self.minus.discard(fact)
                self._snap = None
        elif fact not in self.plus:
            self.plus.add(fact)
            self._snap = None

    def discard(self, fact: object) -> None:
        if fact in self.plus:
            self.plus.discard(fact)
            self._snap = None
        elif fact in self.base and fact not in self.minus:
            self.minus.add(fact)  # type: ignore[arg-type]
            self._snap = None

    def remove(self, fact: tuple) -> None:
        if fact not in self:
            raise KeyError(fact)
        self.discard(fact)

    def update(self, facts: Iterable[tuple]) -> None:
        for f in list(facts) if facts is self else facts:
            self.add(f)

    def difference_update(self, facts: Iterable[tuple]) -> None:
        for f in list(facts) if facts is self else facts:
            self.discard(f)

    def __ior__(self, facts: Iterable[tuple]) -> Overlay:
        self.update(facts)
        return self

    def __isub__(self, facts: Iterable[tuple]) -> Overlay:
        self.difference_update(facts)
        return self

    def __or__(self, facts: Iterable[tuple]) -> Overlay:
        out = self.copy()
        out.update(facts)
        return out

    def __sub__(self, facts: Iterable[tuple]) -> Overlay:
        out = self.copy()
        out.difference_update(facts)
        return out

    union = __or__
    difference = __sub__

    def __and__(self, facts: Iterable[tuple]) -> set[tuple]:
        return {f for f in facts if f in self}

    __rand__ = __and__

    def select(self, keep: Any) -> Overlay:
        """The facts for which ``keep(fact)`` holds (a whole pass)."""
        out = self.copy()
        out.difference_update([f for f in self if not keep(f)])
        return out

    def __repr__(self) -> str:
        return f"<Overlay {len(self.base)} facts +{len(self.plus)} -{len(self.minus)}>"


# the runtime's working fact set: an Overlay over the state's facts, or a plain set where one is made whole
WorkingFacts = set[tuple] | Overlay
