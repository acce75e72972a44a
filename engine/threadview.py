"""What one backend has put in one thread's pyDatalog database (judgelog.backend): the predicates made, the
facts materialised and those computed, the binding-pattern variants compiled and the namespaces they belong
to (judgelog.liveness), the fact counts the diff keeps up to date.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from .ast import Rule

if TYPE_CHECKING:  # pragma: no cover
    from .setwise import Base

__all__ = ["ThreadView", "Namespace", "VariantCode"]


class Namespace:
    """What cannot hold in a family of states: fact atoms of the rule bodies with no matching fact, hence
    the derived predicates that may hold and the rules that cannot fire. Variants compiled for a namespace
    leave the dead rules out and drop ``not`` of atoms that cannot hold, so a board pays only for the rules
    its facts can trigger. A variant depends only on what its predicate can reach: namespaces that agree
    there share it (:class:`VariantCode`)."""

    __slots__ = (
        "id",
        "key",
        "dead_probes",
        "alive",
        "dead_rules",
        "with_facts",
        "single",
        "signatures",
        "used",
    )

    def __init__(self, ns_id: int, key: tuple, alive: frozenset, dead_rules: frozenset) -> None:
        self.id = ns_id
        self.key = key
        self.dead_probes, self.with_facts = key  # with_facts: derived predicates with facts of their own
        self.alive = alive
        self.dead_rules = dead_rules
        self.single: dict[str, Rule | None] = {}  # predicate -> its only possible rule (see _single_rule)
        self.signatures: dict[object, int] = {}  # predicate or id(rule) -> the id of its reach's signature here
        self.used: set[tuple] = set()  # the variants its questions call, directly or through others


class VariantCode:
    """One compiled variant (a predicate, or a rule's proof predicate, for a binding pattern and a signature
    of what it can reach): its clauses and engine predicates, the variants its bodies call, and the
    namespaces that use it. It is retracted when the last of them is dropped."""

    __slots__ = ("clauses", "preds", "calls", "users", "compiled")

    def __init__(self) -> None:
        self.clauses: list = []
        self.preds: list[tuple[str, int]] = []
        self.calls: list[tuple] = []  # the keys of the variants its bodies call
        self.users: set[int] = set()  # namespace ids
        self.compiled = False


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
        "compiling",
        "edb",
        "counts",
        "ns",
        "ns_dirty",
        "dead_probes",
        "dirty_preds",
        "namespaces",
        "namespaces_by_id",
        "signatures",
        "signature_of",
        "signature_ids",
        "materialised",
        "ns_ids",
        "derivations",
        "delta_preds",
        "computed_count",
        "joins",
        "deferred",
        "unfit",
        "answers",
        "setwise",
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
        self.joins: tuple | None = None  # (facts, materialised, judgelog.widejoins.StateCheck) of the state now,
        # and the checks of the last few states (newest first), whose verdicts a new state's check may take
        self.query_ids = itertools.count(1)
        # (pred or id(rule), pattern, signature id) -> the variant named (compiled before the next question)
        self.variants: dict[tuple, VariantCode] = {}
        self.pending: list[tuple] = []  # (variant key, namespace id): named but not compiled yet
        self.compiling: VariantCode | None = None  # the variant whose bodies this thread is planning
        self.edb: dict[str, object] = {}  # derived predicate -> its @edb fact predicate
        self.counts: dict = {}  # facts now: pred -> n, and (pred, position, value) -> n for probed positions
        self.ns: Namespace | None = None  # the namespace of the facts now
        self.namespaces: dict[tuple, Namespace] = {}
        self.namespaces_by_id: dict[int, Namespace] = {}
        # what a predicate (or a rule) can reach leaves dead in a namespace, and its id (a variant's last number)
        self.signatures: dict[tuple, int] = {}
        self.signature_of: dict[int, tuple[tuple, set[int]]] = {}  # id -> (signature, the namespaces using it)
        self.signature_ids = itertools.count(1)
        self.ns_dirty = False  # a fact count reached or left 0 since the namespace was found
        self.dead_probes: frozenset | None = None  # the probes with no matching fact when it was found
        self.dirty_preds: set[str] = set()  # the predicates of the counts that reached or left 0 since
        self.ns_ids = itertools.count(1)
        self.materialised = False  # the computed facts match self.facts
        # facts of self.facts that no rule reads, kept out of pyDatalog until a question names their
        # predicate (judgelog.unread): predicate -> those facts
        self.deferred: dict[str, dict[tuple, set[tuple]]] = {}
        # the keys of facts kept out that a question's atom was found not to match, by the atom's predicate
        # and constants (judgelog.unread.Unread.fitting)
        self.unfit: dict[tuple, set[tuple]] = {}
        # answers to the ground questions of proofs (an atom's rows, a rule's body bindings) for the facts now:
        # a proof asks the same premises again and again (emptied by every change of facts)
        self.answers: dict[tuple, tuple] = {}
        # self.facts by predicate for set-at-a-time questions (judgelog.setwise), made by the first of them
        self.setwise: Base | None = None

    @property
    def namespace(self) -> Namespace:
        """The namespace of the facts now, which every question finds before it compiles anything."""
        if self.ns is None:
            raise RuntimeError("no namespace yet: the backend compiles only inside a session")
        return self.ns
