"""Which rules can fire in a state: the backend's *namespaces* (see judgelog.backend, "Pruning").

A namespace stands for the states in which the same fact atoms of the rule bodies have no matching fact;
the rules those atoms make impossible, and the derived predicates left with no possible rule, are known
from it. Fact counts kept up to date by the backend's diff decide when the namespace changes.
"""

from __future__ import annotations

import pyDatalog.pyEngine as _E

from .ast import Rule
from .planning import probe_alive
from .threadview import Namespace, ThreadView

__all__ = ["Liveness"]

_MAX_NAMESPACES = 256  # compiled namespaces kept per thread and engine (least recently used dropped)


class Liveness:
    """Namespaces and liveness, mixed into judgelog.backend.Backend (which holds the probes and rule info)."""

    # set by Backend.__init__
    _idb: frozenset[str]  # derived predicates
    _static_facts: frozenset[str]  # predicates with facts from the rule files or aggregates: always alive
    _probe_pos: dict[str, set[int]]  # predicate -> argument positions whose values are counted
    _probes: tuple[tuple, ...]  # the fact atoms of rule bodies, reduced (judgelog.planning.probe_of)
    _rule_info: list[tuple[Rule, tuple, tuple[str, ...]]]  # (rule, positive probes, derived preds)

    # -- which rules can fire in a state ------------------------------------
    def _namespace(self, view: ThreadView) -> Namespace:
        """The namespace for the facts now in ``view``: states whose facts leave the same rules dead share
        it (and its compiled variants)."""
        counts = view.counts
        dead_probes = frozenset(p for p in self._probes if not probe_alive(counts, p, self._probe_pos))
        with_facts = frozenset(p for p in view.edb if counts.get(p, 0) > 0)
        key = (dead_probes, with_facts)
        ns = view.namespaces.pop(key, None)
        if ns is None:
            while len(view.namespaces) >= _MAX_NAMESPACES:  # least recently used first
                old = next(k for k, v in view.namespaces.items() if v is not view.ns)
                self._drop_namespace(view, view.namespaces.pop(old))
            alive, dead_rules = self._liveness(dead_probes, with_facts)
            ns = Namespace(next(view.ns_ids), key, alive, dead_rules)
            view.namespaces_by_id[ns.id] = ns
        view.namespaces[key] = ns  # (re)inserted last: most recently used
        return ns

    @staticmethod
    def _drop_namespace(view: ThreadView, ns: Namespace) -> None:
        """Retract what was compiled for a namespace no state has used for long (bounded memory for a
        long-lived process that sees many different boards)."""
        for clause in ns.clauses:
            _E.retract(clause)
        for name, arity in ns.preds:
            _E.remove(_E.Pred(name, arity))
        view.variants.difference_update(ns.variants)  # its own keys: not a pass over every namespace's
        del view.namespaces_by_id[ns.id]

    def _liveness(self, dead_probes: frozenset, with_facts: frozenset) -> tuple[frozenset, frozenset]:
        """Derived predicates that may hold, and the rules that cannot fire: a rule is dead when one of its
        positive atoms is a fact atom with no matching fact, or a derived predicate none of whose rules
        can fire (counted bottom-up, like Horn satisfiability)."""
        alive = set(self._static_facts & self._idb) | set(with_facts)
        queue = list(alive)
        missing: dict[int, int] = {}
        watchers: dict[str, list[int]] = {}
        live_rules = set()
        for index, (rule, probes, needs) in enumerate(self._rule_info):
            if any(p in dead_probes for p in probes):
                continue
            need = [p for p in needs if p not in alive]
            if not need:
                live_rules.add(index)
                if rule.head.pred not in alive:
                    alive.add(rule.head.pred)
                    queue.append(rule.head.pred)
                continue
            missing[index] = len(need)
            for p in need:
                watchers.setdefault(p, []).append(index)
        while queue:
            pred = queue.pop()
            for index in watchers.pop(pred, ()):
                missing[index] -= 1
                if missing[index] == 0:
                    live_rules.add(index)
                    head = self._rule_info[index][0].head.pred
                    if head not in alive:
                        alive.add(head)
                        queue.append(head)
        dead = frozenset(id(info[0]) for i, info in enumerate(self._rule_info) if i not in live_rules)
        return frozenset(alive), dead

    def _count(self, view: ThreadView, fact: tuple, delta: int) -> None:
        """Keep the fact counts up to date; a count that reaches or leaves 0 may change the namespace."""
        counts = view.counts
        pred = fact[0]
        n = counts[pred] = counts.get(pred, 0) + delta
        if n == 0 or n == delta:
            view.ns_dirty = True
        for i in self._probe_pos.get(pred, ()):
            key = (pred, i, fact[i + 1])
            n = counts[key] = counts.get(key, 0) + delta
            if n == 0 or n == delta:
                view.ns_dirty = True
