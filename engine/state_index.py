"""The names a state's facts mention, counted, and kept up to date from one state to the next.

Validating an action (judgelog.validation.action_problems) asks whether each constant it names is known
to the state: an id at an object, player or ability position of some fact, a player, any string of any
fact. Scanning every fact for that makes each step cost as much as the board. A :class:`StateIndex`
counts those names once for a state; the state an action makes gets its index from its parent's by the
facts the action removed and added (:meth:`StateIndex.updated`), so a step pays for its change only.

>>> from judgelog import Engine
>>> state = Engine().state_from_dict({"players": ["alice", "bob"], "objects": {
...     "bear": {"card": "Grizzly Bears", "controller": "alice"}}})
>>> index = state.index
>>> "bear" in index.objects(), "alice" in index.objects(), sorted(index.players)
(True, False, ['alice', 'bob'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Set
from typing import Any

from .program import Program

__all__ = ["StateIndex", "Names", "Layered"]

ID_TYPES = ("object", "player", "ability")


class StateIndex:
    """Counts of the string constants of a set of facts: at any position (``values``), at positions of
    each id type (``typed``; an event's subject counts as an object), and the ``player`` facts."""

    __slots__ = ("values", "typed", "players", "preds", "seqs", "by_key", "top")

    def __init__(self) -> None:
        self.values: dict[str, int] = {}
        self.typed: dict[str, dict[str, int]] = {t: {} for t in ID_TYPES}
        self.players: dict[str, int] = {}
        self.preds: dict[str, int] = {}  # facts per predicate
        self.seqs: dict[int, int] = {}  # event numbers and effect timestamps (the runtime numbers on from them)
        self.by_key = Layered()  # the facts by (predicate, first argument): judgelog.effects
        self.top = 0  # the largest integer of seqs (0 when none)

    @classmethod
    def build(cls, program: Program, facts: Iterable[tuple]) -> StateIndex:
        out = cls()
        by_key = out.by_key.own
        for fact in facts:
            out._count(program, fact, 1)
            by_key.setdefault(fact[:2], set()).add(fact)
        out.top = _top(out.seqs)
        return out

    def updated(self, program: Program, removed: Iterable[tuple], added: Iterable[tuple]) -> StateIndex:
        out = StateIndex()
        out.values = dict(self.values)
        out.typed = {t: dict(c) for t, c in self.typed.items()}
        out.players = dict(self.players)
        out.preds = dict(self.preds)
        out.seqs = dict(self.seqs)
        out.by_key = self.by_key.child()  # the sets of the keys the change touches are copied before they change
        # the facts' names counted by their net change: a fact counts in values, typed, players and preds
        # only by its predicate and its strings (:func:`_names`), so a counter moving from 3 to 4 cancels
        # out, and many facts that differ only in numbers (events' details) are counted once, times their number
        net: dict[tuple, int] = {}
        own, inherited = out.by_key.own, out.by_key.get
        out.top, lost = self.top, False
        for sign, facts in ((-1, removed), (1, added)):
            for fact in facts:
                names = _names(fact)
                net[names] = net.get(names, 0) + sign
                seq = _seq(fact)
                if seq is not None:  # the largest number only grows unless one goes
                    _bump(out.seqs, seq, sign)
                    lost = lost or sign < 0
                    if isinstance(seq, int) and seq > out.top:
                        out.top = seq
                key = fact[:2]
                found = own.get(key)
                if found is None:  # copied from the parent's layers once, before it changes
                    found = own[key] = set(inherited(key, ()))
                if sign > 0:
                    found.add(fact)
                else:
                    found.discard(fact)
        # what goes first: a name's count never falls to nothing on its way to a positive one
        for names, n in sorted(net.items(), key=lambda item: item[1]):
            if n:
                out._count_names(program, names, n)
        if lost:
            out.top = _top(out.seqs)
        return out

    def _count(self, program: Program, fact: tuple, sign: int) -> None:
        seq = _seq(fact)
        if seq is not None:
            _bump(self.seqs, seq, sign)
        self._count_names(program, _names(fact), sign)

    def _count_names(self, program: Program, fact: tuple, sign: int) -> None:
        """Count a fact's predicate and strings (``fact`` as :func:`_names` gives it), ``sign`` times."""
        _bump(self.preds, fact[0], sign)
        for value in fact[1:]:
            if value is not None:
                _bump(self.values, value, sign)
        for i, kind in _typed_positions(program, fact[0]):
            if i < len(fact) and fact[i] is not None:
                _bump(self.typed[kind], fact[i], sign)
        if fact[0] == "event" and len(fact) == 4 and fact[3] is not None:
            _bump(self.typed["object"], fact[3], sign)
        if fact[0] == "player" and len(fact) > 1 and fact[1] is not None:
            _bump(self.players, fact[1], sign)

    def objects(self, extra: Iterable[str] = ()) -> Names:
        """The object ids (as judgelog.validation.typed_ids gives them), plus ``extra``."""
        typed = self.typed
        extra = {v for v in extra if isinstance(v, str)}
        return Names(
            lambda v: (v in typed["object"] or v in extra) and v not in typed["player"],
            lambda: (set(typed["object"]) | extra) - set(typed["player"]),
        )


class Layered:
    """A read-only mapping (``get``) kept as the keys one state changed over its parent state's mapping, so
    that handing it down costs the change; made whole again every :data:`MAX_DEPTH` generations."""

    __slots__ = ("own", "parent", "depth")
    MAX_DEPTH = 16
    depth: int

    def __init__(self, own: dict | None = None, parent: Layered | None = None) -> None:
        self.own: dict = {} if own is None else own
        self.parent = parent
        self.depth = 0 if parent is None else parent.depth + 1

    def get(self, key: Any, default: Any = None) -> Any:
        layer: Layered | None = self
        while layer is not None:
            found = layer.own.get(key, _MISSING)
            if found is not _MISSING:
                return found
            layer = layer.parent
        return default

    def child(self) -> Layered:
        """An empty layer over this one (over a whole copy when the chain is long)."""
        if self.depth < self.MAX_DEPTH:
            return Layered({}, self)
        return Layered({}, Layered(self.whole()))

    def whole(self) -> dict:
        """The mapping as one dict (each key as its nearest layer has it)."""
        chain: list[Layered] = []
        layer: Layered | None = self
        while layer is not None:
            chain.append(layer)
            layer = layer.parent
        out: dict = {}
        for layer in reversed(chain):
            out.update(layer.own)
        return out


_MISSING = object()


class Names(Set[str]):
    """A set of names given by a membership test (cheap) and, for messages, the whole set (built when it is
    iterated)."""

    __slots__ = ("_has", "_all")

    def __init__(self, has: Callable[[object], bool], every: Callable[[], Set[str]]) -> None:
        self._has = has
        self._all = every

    def __contains__(self, value: object) -> bool:
        return self._has(value)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._all()))

    def __len__(self) -> int:
        return len(self._all())

    def __or__(self, other: Set[Any]) -> Names:
        return Names(lambda v: v in self or v in other, lambda: set(self) | {v for v in other if isinstance(v, str)})

    __ror__ = __or__


def _typed_positions(program: Program, pred: str) -> tuple[tuple[int, str], ...]:
    """The positions of a predicate's facts whose declared type is an id type, with the type (kept per
    program: an action with thousands of facts asks for the same few predicates)."""
    kept: dict[str, tuple[tuple[int, str], ...]] = program.kept("state_index.typed_positions", dict)
    found = kept.get(pred)
    if found is None:
        decl = program.decl(pred)
        params = decl.params if decl is not None else ()
        found = kept[pred] = tuple((i, p.type) for i, p in enumerate(params, 1) if p.type in ID_TYPES)
    return found


def _top(seqs: Iterable[object]) -> int:
    return max([v for v in seqs if isinstance(v, int)] or [0])


def _names(fact: tuple) -> tuple:
    """What a fact counts in a :class:`StateIndex` besides ``seqs``: its predicate, and its values with
    None for each that is not a string (its length kept: positions are counted by their declared type)."""
    return (fact[0], *[v if isinstance(v, str) else None for v in fact[1:]])


def _seq(fact: tuple) -> object:
    """The event number or timestamp a fact counts in ``seqs``, else None."""
    if fact[0] == "event" and len(fact) > 1:
        return fact[1]
    return fact[2] if fact[0] == "effect_timestamp" and len(fact) > 2 else None


def _bump(counts: dict[Any, int], value: object, sign: int) -> None:
    n = counts.get(value, 0) + sign
    if n > 0:
        counts[value] = n
    else:
        counts.pop(value, None)
