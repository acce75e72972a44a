"""The working copy an action changes, and the events it logs.

A :class:`Change` is a mutable copy of a state's facts, indexed by predicate and first argument, that
remembers which facts were added (so the runtime knows which rule made which fact); the effect primitives
(judgelog.effects) edit it and emit :class:`Event` records, which become the state's event log.

>>> ch = Change([("permanent", "bears"), ("counter", "bears", "p1p1", 1)], {})
>>> ch.value("counter", "bears", "p1p1"), ch.is_permanent("bears"), ch.fresh_id("Soldier Token")
(1, True, 'soldier_token_1')
>>> Event(3, "tapped", "bears", rule="vigilance_no_tap", cites=("702.20b",)).to_text()
'  3. tapped bears  [vigilance_no_tap, CR 702.20b]'
>>> Event(9, "ended", "damage_marked", {"n": 1, "facts": "damage_marked(bears, 3)"}).to_text()
'  9. ended damage_marked(bears, 3)'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .ast import format_value
from .errors import ActionError
from .fact import Fact, fact_order
from .factview import Overlay

if TYPE_CHECKING:
    from .interface import Interface

# An argument of an effect: a value the rules' answer gave (an atom as str, or an int), or ``none``; each
# primitive checks what it needs (a number, a permanent) before it uses one
Arg = Any

__all__ = ["Arg", "Change", "Event", "object_facts", "spec_facts"]


@dataclass
class Event:
    """Something that happened, with the rule that caused it."""

    seq: int
    kind: str
    subject: object
    details: dict[str, object] = field(default_factory=dict)
    rule: str = ""
    cites: tuple[str, ...] = ()

    def facts(self) -> list[tuple]:
        out: list[tuple] = [("event", self.seq, self.kind, self.subject)]
        out += [("event_detail", self.seq, k, v) for k, v in sorted(self.details.items())]
        if self.rule:
            out.append(("event_cause", self.seq, self.rule))
        return out

    def to_text(self) -> str:
        cause = f"  [{self.rule}" + (f", CR {', '.join(self.cites)}" if self.cites else "") + "]" if self.rule else ""
        if self.kind == "ended" and "facts" in self.details:  # the facts that ended, not their count n
            return f"{self.seq:>3}. ended {self.details['facts']}{cause}"
        detail = ", ".join(f"{k}={format_value(v)}" for k, v in sorted(self.details.items()))
        return f"{self.seq:>3}. {self.kind} {format_value(self.subject)}" + (f" ({detail})" if detail else "") + cause

    def to_dict(self) -> dict:
        return {
            "seq": self.seq,
            "kind": self.kind,
            "subject": self.subject,
            "details": dict(self.details),
            "rule": self.rule,
            "cites": list(self.cites),
        }


class _LoggedSet(Overlay):
    """A set of facts that remembers what was added to it (so the runtime knows which rule made which
    fact) and indexes facts by predicate and first argument (so primitives don't scan the whole state).
    It is an :class:`~judgelog.factview.Overlay` over the state's facts: a copy costs the action's change."""

    __slots__ = ("log", "index", "by_key")

    def __init__(self, items: Iterable[tuple] = (), base: tuple[frozenset, Any] | None = None) -> None:
        # ``base``: the state's facts and their index by (pred, first argument) (judgelog.state_index): only
        # the facts not in it are indexed here, and the base's are read through it
        self.by_key: Any = None  # a mapping with get (judgelog.state_index.Layered) or a dict
        if base is not None and isinstance(items, Overlay) and items.base is base[0]:
            self._init_copy(items)
            self.by_key = base[1]
        elif base is not None:
            given = items if isinstance(items, (set, frozenset)) else set(items)
            Overlay.__init__(self, base[0])
            self.plus = {f for f in given if f not in base[0]}
            self.minus = set(base[0] - given) if len(base[0]) + len(self.plus) != len(given) else set()
            self.by_key = base[1]
        elif isinstance(items, Overlay):
            self._init_copy(items)
        else:
            Overlay.__init__(self, items if isinstance(items, frozenset) else frozenset(items))
        self.log: list[tuple] = []
        self.index: dict[tuple, set[tuple]] = {}
        for item in self.plus:
            self.index.setdefault(item[:2], set()).add(item)

    def add(self, item: tuple) -> None:
        if item not in self:
            self.log.append(item)
            Overlay.add(self, item)
            if item in self.plus:
                self.index.setdefault(item[:2], set()).add(item)

    def discard(self, item: object) -> None:
        if isinstance(item, tuple) and item in self.plus:
            self.index.get(item[:2], set()).discard(item)
        Overlay.discard(self, item)

    def _base_index(self) -> dict[tuple, set[tuple]]:
        if self.by_key is None:
            by_key: dict[tuple, set[tuple]] = {}
            for f in self.base:
                by_key.setdefault(f[:2], set()).add(f)
            self.by_key = by_key
        return self.by_key

    def matching(self, pred: str, prefix: tuple) -> list[tuple]:
        """Facts of ``pred`` whose first arguments are ``prefix``."""
        if prefix:
            key = (pred, prefix[0])
            minus = self.minus
            pool = self.index.get(key, set()) | {f for f in self._base_index().get(key, ()) if f not in minus}
            return [f for f in pool if f[1 : 1 + len(prefix)] == prefix]
        return [f for f in self if f[0] == pred]


class Change:
    """A mutable working copy of a state's facts, with indexes the primitives need."""

    def __init__(
        self,
        facts: Iterable[tuple],
        pending: dict[str, list[tuple]],
        inputs: dict[str, int] | None = None,
        *,
        face: Interface | None = None,
        combat: Iterable[str] = (),
        base: tuple[frozenset, Any] | None = None,
    ) -> None:
        self.facts = _LoggedSet(facts, base)
        self.pending = pending  # object id -> facts, for put_onto_battlefield
        self.inputs = inputs or {}  # input predicate -> arity: what record/forget may touch
        self.face = face  # the rule-declared interface (judgelog.interface): how a record propagates
        self.combat = tuple(combat)  # the predicates whose facts end with combat (ends_with_combat)
        self.events: list[tuple[str, object, dict[str, object]]] = []
        self.created: list[tuple] = []
        self.next_seq = 1  # the number the first event emitted here will get (the runtime sets it)
        self.token_ids: list[str] = []  # ids the action gives the tokens it creates, in order (its `as:`)
        # 611.2c, 613.7b: one effect begun on a set of objects (one spec, begun on each in these effects) has one
        # timestamp, that of its first part: spec -> timestamp
        self.effect_stamps: dict[Arg, int] = {}
        # the objects the rules say are creatures (creature/1, all layers applied) as these effects begin: a move
        # to a graveyard makes one of them die (700.4); None: the printed card type says
        self.creatures: frozenset | None = None
        # what the rules say each object a move takes off the battlefield is as these effects begin
        # (last_known_info/4: its keywords, controller, qualities), kept as last_known facts (608.2h, 113.7a)
        self.last_known: dict[Arg, list[tuple]] = {}
        # (object, zone) -> (zone, kind): a replacement effect of that kind puts the object into the first zone
        # if it would be put into the second from the battlefield (614.1a; leaves_battlefield_instead/4)
        self.instead: dict[tuple[Arg, Arg], tuple[Arg, Arg]] = {}

    # -- lookups --------------------------------------------------------
    def one(self, pred: str, *prefix: Arg) -> tuple | None:
        found = self.facts.matching(pred, prefix)
        # several (e.g. two life totals given in facts:): the same one whatever the set's order
        return min(found, key=fact_order) if found else None

    def all(self, pred: str, *prefix: Arg) -> list[tuple]:
        return sorted(self.facts.matching(pred, prefix), key=fact_order)

    def value(self, pred: str, *prefix: Arg, default: Arg = None) -> Arg:
        f = self.one(pred, *prefix)
        return f[len(prefix) + 1] if f is not None else default

    def is_permanent(self, o: Arg) -> bool:
        return ("permanent", o) in self.facts

    def is_player(self, x: Arg) -> bool:
        return ("player", x) in self.facts

    def emit(self, event_kind: str, subject: Arg, **details: Arg) -> None:
        details = {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in details.items() if v is not None}
        self.events.append((event_kind, subject, details))

    def used_ids(self) -> set[str]:
        return {a for f in self.facts for a in f[1:] if isinstance(a, str)} | set(self.pending)

    def token_id(self, base: str) -> str:
        """The id of a token being created: the next id the action named for it, else a fresh one."""
        if self.token_ids:
            oid = self.token_ids.pop(0)
            if oid in self.used_ids():
                named = next((f for f in sorted(self.facts, key=fact_order) if oid in f[1:]), None)
                where = "an object or player" if named is None or named[1] == oid else "a word of the state"
                raise ActionError(
                    f"as: the id {oid!r} is already in use: it names {where}"
                    + (f" ({Fact(*named)})" if named is not None else ""),
                    hint="give the token an id no fact of the state has (e.g. " + oid + "_token)",
                )
            return oid
        return self.fresh_id(base)

    def fresh_id(self, base: str) -> str:
        base = re.sub(r"[^a-z0-9_]+", "_", base.lower()).strip("_") or "token"
        if not base[0].isalpha():
            base = "t_" + base
        used = self.used_ids()
        k = 1
        while f"{base}_{k}" in used:
            k += 1
        return f"{base}_{k}"


def object_facts(change: Change, oid: str) -> list[tuple]:
    """Every fact that is about the object (its characteristics and status), not the records of what it did
    that the rules keep after it leaves (``outlives_object/1``)."""
    kept = change.face.outlives if change.face is not None else frozenset()
    return sorted(
        (
            f
            for f in change.facts
            if len(f) > 1 and f[1] == oid and f[0] not in ("event", "event_detail") and f[0] not in kept
        ),
        key=fact_order,
    )


def kept_values(change: Change, facts: list[tuple], kept: dict[str, int]) -> list[tuple]:
    """The ``card_value`` facts a permanent leaving the battlefield keeps (its owner and copiable values, the
    predicates of ``kept``), from its ``facts``: a characteristic whose value the rules put in a carrier
    (``kept_off_battlefield_as(What, Carrier)``: a prototyped permanent's power, CR 718.4) is the carrier's,
    ``Carrier(O, none)`` saying it has none (a colorless card's color)."""
    pairs = change.face.off_battlefield if change.face is not None else ()
    carried = {carrier: what for what, carrier in pairs if any(f[0] == carrier for f in facts)}
    out = [f for f in facts if f[0] in kept and f[0] not in carried.values()]
    out += [(carried[f[0]],) + tuple(f[1:]) for f in facts if f[0] in carried and f[2:] != ("none",)]
    return [("card_value", f[1], f[0]) + tuple(f[2:]) + ("none",) * (6 - len(f)) for f in out]


def spec_facts(rows: Iterable[dict[str, Any]], ask: Callable[[str], list[dict[str, Any]]]) -> list[tuple]:
    """The facts of the specs the effects ``rows`` (``P, A, B, C``) read as they are applied: token specs,
    effect specs (``begin_effect``), the exceptions to a copy (707.9b), a token's name words and keywords."""
    kinds = {r["P"] for r in rows}
    specs: list[tuple] = [("token_spec", r["S"], r["F"], r["V"]) for r in ask("token_spec(S, F, V)")]
    if "begin_effect" in kinds:
        specs += [("effect_spec", r["S"], r["K"], r["V"]) for r in ask("effect_spec(S, K, V)")]
    if "create_copy" in kinds:  # 707.9b: exceptions to a copy
        specs += [("copy_exception", r["O"], r["F"], r["V"]) for r in ask("copy_exception(O, F, V)")]
    if "create_token" in kinds:
        specs += [("token_name_word", r["S"], r["I"], r["W"]) for r in ask("token_name_word(S, I, W)")]
        specs += [("token_name_suffix", r["S"], r["W"]) for r in ask("token_name_suffix(S, W)")]
        params = ask("token_spec_param(S, K, A, V)")  # a keyword with its parameter
        specs += [("token_spec_param", r["S"], r["K"], r["A"], r["V"]) for r in params]
    return specs
