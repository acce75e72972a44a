"""The fact sets one action works on (judgelog.runtime), handled at the cost of the action's change.

An action starts from a state's facts, edits a working copy, asks the rules about it again and again
(effects, triggers, state-based actions) and strips the transient facts before the next state is made.
Done naively, each of those steps scans the whole board. :class:`StepFacts` keeps what the state before
the action already knows (its :class:`~judgelog.state_index.StateIndex`, handed down from state to state)
so that each step looks only at what the action added:

- the next event number, from the index's counted event numbers and timestamps;
- the facts of some predicates dropped: when the state before had none of them, only the added facts
  can hold one;
- the fact set asked about frozen once while it does not change (the same object for the backend's
  session and the answer cache, judgelog.answer_cache.AnswerCache).

>>> from judgelog import Engine
>>> state = Engine().state_from_dict({"players": ["alice", "bob"], "objects": {
...     "bear": {"card": "Grizzly Bears", "controller": "alice"}}})
>>> steps = StepFacts(state)
>>> facts = set(state.facts) | {("recent_event", 1)}
>>> steps.without(facts, ("recent_event",)) == set(state.facts)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard

from .factview import FactView, Overlay, as_frozenset
from .state_index import StateIndex

if TYPE_CHECKING:  # pragma: no cover
    from .change import Event
    from .protocols import Board

__all__ = ["StepFacts"]


class StepFacts:
    """What one action needs to know of the state it starts from, counted once (see the module doc)."""

    __slots__ = ("before", "index", "_frozen", "_views")

    def __init__(self, state: Board) -> None:
        self.before = state.facts
        self.index: StateIndex = state.index
        self._frozen: frozenset | None = None  # the facts last asked about
        # the backend takes a fact set as a base and a difference (judgelog.factview) without making it whole
        self._views = bool(getattr(state.engine.backend, "takes_views", False))

    def first_seq(self) -> int:
        """The number of the action's first event: later than any event or timestamp of the state (613.7b)."""
        return 1 + self.index.top

    def base(self) -> tuple[frozenset, Any]:
        """The state's facts and their index by (predicate, first argument), for judgelog.change.Change."""
        return self.before, self.index.by_key

    def _over(self, facts: object) -> TypeGuard[Overlay]:
        return isinstance(facts, Overlay) and facts.base is self.before

    def freeze(self, facts: Iterable[tuple]) -> frozenset | FactView:
        """``facts`` frozen: a working copy's snapshot (the same one while it does not change), or, for a
        backend that takes no snapshot, a frozenset (the one made last time while they have not changed)."""
        if isinstance(facts, Overlay) and self._views:
            return facts.snapshot()
        if isinstance(facts, FactView) and self._views:
            return facts
        frozen = self._frozen
        if frozen is not None and isinstance(facts, (set, frozenset)) and len(frozen) == len(facts) and frozen == facts:
            return frozen
        frozen = self._frozen = as_frozenset(facts)
        return frozen

    def without(self, facts: set[tuple] | frozenset | Overlay, preds: Sequence[str]) -> set[tuple] | Overlay:
        """``facts`` less those of ``preds``; when the state before the action has none of them, only the
        facts the action added are looked at."""
        if any(self.index.preds.get(p) for p in preds):
            if isinstance(facts, Overlay):
                return facts.select(lambda f: f[0] not in preds)
            return {f for f in facts if f[0] not in preds}
        if self._over(facts):
            return facts.difference([f for f in facts.plus if f[0] in preds])
        added = facts - self.before
        return set(facts) - {f for f in added if f[0] in preds}

    def added(self, facts: Iterable[tuple]) -> Iterable[tuple]:
        """The facts of ``facts`` that the state before the action lacks."""
        if self._over(facts):
            return facts.plus
        return [f for f in facts if f not in self.before]

    def any_of(self, facts: Iterable[tuple], preds: Sequence[str], first: object) -> bool:
        """Does ``facts`` hold a fact of one of ``preds`` with ``first`` as its first argument?"""
        if self._over(facts):
            minus = facts.minus
            by_key = self.index.by_key
            return any(f[0] in preds and f[1] == first for f in facts.plus) or any(
                f not in minus for p in preds for f in by_key.get((p, first), ())
            )
        return any(f[0] in preds and len(f) > 1 and f[1] == first for f in facts)

    def recent(self, facts: set[tuple] | frozenset | Overlay, events: Sequence[Event]) -> set[tuple]:
        """The ``recent_event`` facts in ``facts``: those of the action's events, unless the state before
        the action held some of its own."""
        if self.index.preds.get("recent_event"):
            return {f for f in facts if f[0] == "recent_event"}
        return {f for f in (("recent_event", e.seq) for e in events) if f in facts}
