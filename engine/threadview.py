"""What one backend has put in one thread's pyDatalog database (judgelog.backend): the predicates made, the
facts materialised and those computed, the binding-pattern variants compiled and the namespaces they belong
to (judgelog.liveness), the fact counts the diff keeps up to date.
"""

from __future__ import annotations

import itertools

from .ast import Rule

__all__ = ["ThreadView", "Namespace"]


class Namespace:
    """What cannot hold in a family of states: fact atoms of the rule bodies with no matching fact, hence
    the derived predicates that may hold and the rules that cannot fire. Variants compiled for a namespace
    leave the dead rules out and drop ``not`` of atoms that cannot hold, so a board pays only for the rules
    its facts can trigger."""

    __slots__ = (
        "id",
        "key",
        "dead_probes",
        "alive",
        "dead_rules",
        "with_facts",
        "single",
        "clauses",
        "preds",
        "variants",
    )

    def __init__(self, ns_id: int, key: tuple, alive: frozenset, dead_rules: frozenset) -> None:
        self.id = ns_id
        self.key = key
        self.dead_probes, self.with_facts = key  # with_facts: derived predicates with facts of their own
        self.alive = alive
        self.dead_rules = dead_rules
        self.single: dict[str, Rule | None] = {}  # predicate -> its only possible rule (see _single_rule)
        self.clauses: list = []  # what was compiled for this namespace (retracted when it is dropped)
        self.preds: list[tuple[str, int]] = []
        self.variants: list[tuple] = []  # its keys in ThreadView.variants (forgotten with it)


class ThreadView:
    """What one backend has put in one thread's database."""

    __slots__ = (
        "preds",
        "facts",
        "computed",
        "computed_by",
        "computed_counts",
        "query_ids",
        "fact_preds",
        "variants",
        "pending",
        "edb",
        "counts",
        "ns",
        "ns_dirty",
        "namespaces",
        "namespaces_by_id",
        "materialised",
        "ns_ids",
        "derivations",
        "delta_preds",
        "computed_count",
        "joins",
        "deferred",
    )

    def __init__(self) -> None:
        self.preds: dict[str, object] = {}
        self.fact_preds: dict[str, object] = {}  # where a predicate's facts are asserted (see Variants.fact_pred)
        self.facts: frozenset | None = None
        self.computed: set = set()  # facts asserted by judgelog.materialise (aggregates, recursive predicates)
        self.computed_by: dict[str, dict] = {}  # the same, by predicate and first argument
        self.computed_counts: dict[object, int] = {}  # the same, counted by predicate
        self.derivations: dict[tuple, tuple] = {}  # recursive fact -> (rule, binding) that first derived it
        self.delta_preds: dict[str, object] = {}
        self.computed_count = 0
        self.joins: tuple | None = None  # (facts, materialised, judgelog.widejoins.StateCheck) of the state now
        self.query_ids = itertools.count(1)
        self.variants: set[tuple] = set()  # (pred or id(rule), pattern, namespace id) compiled in this thread
        self.pending: list[tuple] = []  # variants named but not compiled yet
        self.edb: dict[str, object] = {}  # derived predicate -> its @edb fact predicate
        self.counts: dict = {}  # facts now: pred -> n, and (pred, position, value) -> n for probed positions
        self.ns: Namespace | None = None  # the namespace of the facts now
        self.namespaces: dict[tuple, Namespace] = {}
        self.namespaces_by_id: dict[int, Namespace] = {}
        self.ns_dirty = False  # a fact count reached or left 0 since the namespace was found
        self.ns_ids = itertools.count(1)
        self.materialised = False  # the computed facts match self.facts
        # facts of self.facts that no rule reads, kept out of pyDatalog until a question names their
        # predicate (judgelog.unread): predicate -> those facts
        self.deferred: dict[str, dict[tuple, set[tuple]]] = {}

    @property
    def namespace(self) -> Namespace:
        """The namespace of the facts now, which every question finds before it compiles anything."""
        if self.ns is None:
            raise RuntimeError("no namespace yet: the backend compiles only inside a session")
        return self.ns
