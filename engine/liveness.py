"""Which rules can fire in a state: the backend's *namespaces* (see judgelog.backend, "Pruning").

A namespace stands for the states in which the same fact atoms of the rule bodies (the *probes* of
judgelog.compiled) have no matching fact; the rules those atoms make impossible, and the derived predicates
left with no possible rule, are known from it. Fact counts kept up to date by the backend's diff decide when
the namespace changes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import pyDatalog.pyEngine as _E

from .ast import Atom
from .compiled import CompiledProgram
from .materialise import DELTA
from .planning import probe_alive, probe_of
from .threadview import Namespace, ThreadView

__all__ = ["Liveness"]

_MAX_NAMESPACES = 256  # compiled namespaces kept per thread and engine (least recently used dropped)
_GUESSED = 256  # rules found dead by Liveness.dead_after, kept with the probes and facts they were found from


class Liveness:
    """Namespaces and the fact counts that decide them, for one compiled program (one per backend)."""

    def __init__(self, compiled: CompiledProgram) -> None:
        self.compiled = compiled
        # read on every fact the diff counts and every atom a body plans: kept at hand
        self._idb = compiled.idb | compiled.gated
        self._static_facts = compiled.static_facts
        self._probe_set = compiled.probe_set
        self._positions = compiled.probe_positions
        self._guessed: dict[int, tuple[frozenset, tuple[frozenset, frozenset]]] = {}  # see dead_after
        # the facts dead_after was last given, and their values at the places it looked at
        self._values: tuple[Mapping | None, dict[tuple[str, int], set]] = (None, {})

    # -- which rules can fire in a state ------------------------------------
    def namespace(self, view: ThreadView) -> Namespace:
        """The namespace for the facts now in ``view``: states whose facts leave the same rules dead share
        it (and its compiled variants)."""
        counts = view.counts
        positions = self._positions
        if view.dead_probes is None:
            dead_probes = frozenset(p for p in self.compiled.probes if not probe_alive(counts, p, positions))
        else:  # only the probes of the predicates whose counts reached or left 0 may have changed
            by_pred = self.compiled.liveness_index.probes_by_pred
            touched = [p for pred in view.dirty_preds for p in by_pred.get(pred, ())]
            dead_probes = view.dead_probes.difference(touched).union(
                p for p in touched if not probe_alive(counts, p, positions)
            )
        view.dead_probes, view.dirty_preds = dead_probes, set()
        with_facts = frozenset(p for p in view.edb if counts.get(p, 0) > 0)
        key = (dead_probes, with_facts)
        ns = view.namespaces.pop(key, None)
        if ns is None:
            while len(view.namespaces) >= _MAX_NAMESPACES:  # least recently used first
                old = next(k for k, v in view.namespaces.items() if v is not view.ns)
                _drop_namespace(view, view.namespaces.pop(old))
            alive, dead_rules = self.liveness(dead_probes, with_facts)
            ns = Namespace(next(view.ns_ids), key, alive, dead_rules)
            view.namespaces_by_id[ns.id] = ns
        view.namespaces[key] = ns  # (re)inserted last: most recently used
        return ns

    def liveness(self, dead_probes: frozenset, with_facts: frozenset) -> tuple[frozenset, frozenset]:
        """Derived predicates that may hold, and the ids of the rules that cannot fire
        (:meth:`CompiledProgram.liveness <judgelog.compiled.CompiledProgram.liveness>`)."""
        return self.compiled.liveness(dead_probes, with_facts)

    def dead_after(
        self, dead: frozenset, added: Mapping[str, Sequence[tuple]], ns: Namespace | None
    ) -> frozenset | None:
        """Rules that cannot fire after a change that adds the facts ``added`` (by predicate) and removes any, to
        a state over which the rules of ``dead`` cannot (those of the namespace ``ns``, or found by this method
        before): those dead when the probes dead there that an added fact may match have a match
        (removing facts and matching more probes can only leave fewer rules able to fire, so these are dead
        whatever was removed). A probe that tests one counted place matches an added fact with its value
        there; one that tests several (or a catalog join) is taken to match when its predicate has facts
        added. None when ``dead`` is neither."""
        if ns is not None and ns.dead_rules is dead:
            dead_probes, with_facts = ns.dead_probes, ns.with_facts
        else:
            known = self._guessed.get(id(dead))
            if known is None or known[0] is not dead:
                return None
            dead_probes, with_facts = known[1]
        positions, by_pred = self._positions, self.compiled.liveness_index.probes_by_pred
        preds = {pred for pred, facts in added.items() if facts}
        maybe = [p for pred in preds for p in by_pred.get(pred, ()) if p in dead_probes]
        # the values the added facts have at the one counted place a probe tests: only at the places the dead
        # probes of the added predicates test (a step's events are most of its facts, and few such probes)
        cached = self._values  # (the questions of a step ask again about the same change)
        if cached[0] is not added:
            cached = self._values = (added, {})
        values = cached[1]
        for probe in maybe:
            place = _counted_place(probe, preds, positions)
            if place is not None and (probe[0], place[0]) not in values:
                i = place[0]
                values[(probe[0], i)] = {fact[i + 1] for fact in added[probe[0]] if i + 1 < len(fact)}
        revived = [p for p in maybe if _may_match(p, preds, values, positions)]
        key = (dead_probes.difference(revived), with_facts | (preds & self._idb))
        found = self.liveness(*key)[1]
        if len(self._guessed) >= _GUESSED:
            self._guessed.clear()
        self._guessed[id(found)] = (found, key)  # (a state after this one starts from it)
        return found

    def dead(self, view: ThreadView, atom: Atom, now: bool) -> bool:
        """Can ``atom`` have no instance at all in the current namespace, or, with ``now`` (a query, compiled
        for this state only), in the facts now?"""
        pred = atom.pred
        if pred in self._idb:
            return pred not in view.namespace.alive
        if pred in self._static_facts or pred.endswith(DELTA):
            return False
        probe = probe_of(atom)
        if probe in self._probe_set:
            return probe in view.namespace.dead_probes
        return now and not probe_alive(view.counts, probe, self._positions)

    def count(self, view: ThreadView, pred: str, facts: Sequence[tuple], delta: int) -> None:
        """Keep the fact counts up to date for ``facts``, all of ``pred`` and all added (``delta`` 1) or all
        removed (-1); a count that reaches or leaves 0 on the way may change the namespace. Counted one
        predicate and one value at a time: a count moves by the facts' number in one step, and passes 0 on the
        way exactly when 0 lies between its old and new values."""
        counts = view.counts
        dirty = _moved(counts, pred, len(facts) * delta)
        for i in self._positions.get(pred, ()):
            for value, n in Counter(fact[i + 1] for fact in facts).items():
                dirty = _moved(counts, (pred, i, value), n * delta) or dirty
        if dirty:
            view.ns_dirty = True
            view.dirty_preds.add(pred)


def _moved(counts: dict, key: object, change: int) -> bool:
    """Move a count by ``change`` (not 0): did it reach or leave 0 on the way?"""
    before = counts.get(key, 0)
    after = counts[key] = before + change
    return before <= 0 <= after if change > 0 else after <= 0 <= before


def _counted_place(probe: tuple, preds: set[str], positions: Mapping) -> tuple[int, object] | None:
    """The one counted place ``probe`` tests and the value it tests there, when a fact of ``preds`` matches it
    by that value alone (see :meth:`Liveness.dead_after`); None when it is taken to match."""
    pred, consts = probe
    if pred not in preds:
        return None  # (a catalog join's probe, by its catalog's facts)
    counted = positions.get(pred, ())
    entries = [entry for entry in consts if entry[0] in counted]
    if len(entries) != 1 or len(entries[0]) != 2:
        return None
    return entries[0][0], entries[0][1]


def _may_match(probe: tuple, preds: set[str], values: dict[tuple[str, int], set], positions: Mapping) -> bool:
    """May a fact of ``preds`` with ``values`` at the counted places (see :meth:`Liveness.dead_after`) match
    ``probe``?"""
    place = _counted_place(probe, preds, positions)
    if place is None:
        return True
    i, value = place
    return value in values.get((probe[0], i), ())


def _drop_namespace(view: ThreadView, ns: Namespace) -> None:
    """Forget a namespace no state has used for long, and retract the variants no other namespace uses
    (bounded memory for a long-lived process that sees many different boards)."""
    for key in ns.used:
        code = view.variants[key]
        code.users.discard(ns.id)
        if not code.users:
            for clause in code.clauses:
                _E.retract(clause)
            for name, arity in code.preds:
                _E.remove(_E.Pred(name, arity))
            del view.variants[key]
    for found in ns.signatures.values():
        signature, users = view.signature_of[found]
        users.discard(ns.id)
        if not users:
            del view.signatures[signature], view.signature_of[found]
    del view.namespaces_by_id[ns.id]
