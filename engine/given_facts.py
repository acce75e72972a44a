"""A scenario's ``facts:`` entries checked against the rules' declarations, beyond their predicate and arity
(judgelog.engine.Engine.check_facts), each a warning (the board is answered as written): an argument
declared as an id (``object``, ``player``, ``ability``, ``effect``) that names nothing of the board (S203,
with a did-you-mean: ``tapped(baers)``), and a fact of a predicate the rules derive, which is added to what
they derive, not put in its place (S202: ``power(bears, 5)`` beside the rules' ``power(bears, 2)`` gives
the Bears two powers).

>>> from judgelog import Engine
>>> engine = Engine()
>>> state = engine.state_from_dict({"players": ["alice", "bob"], "objects": {"bears": {"card": "Grizzly Bears",
...     "controller": "alice"}}, "facts": ["tapped(bears)", "power(bears, 5)"]})
>>> [(d.code, d.severity, d.message.split(":")[0]) for d in state.meta.scenario.warnings]
[('S202', 'warning', 'power is derived by the rules (objects.power, objects.power_switched)')]
"""

from __future__ import annotations

from collections.abc import Iterable

from . import constants
from .analysis import suggest
from .ast import Decl, Span
from .codes import S202, S203, S204, S205
from .errors import Diagnostic
from .fact import Fact
from .program import Program

__all__ = ["counter_kind_problems", "given_fact_problems"]

ID_TYPES = frozenset({*constants.ID_TYPES, "effect"})  # declared types whose values are ids
# where a board names its ids: an id is known when one of these facts holds it at this place
_NAMING = {"player": 1, "permanent": 1, "card_in_zone": 1, "token_in_zone": 1, "on_stack": 1, "continuous_effect": 1}
_WORDS = frozenset({"none", "game"})  # words that stand where an id may be (no object, the game itself)


def given_fact_problems(
    program: Program, facts: Iterable[tuple], given: Iterable[tuple], origins: dict[tuple, Span]
) -> list[Diagnostic]:
    """The warnings of the ``given`` facts (a scenario's ``facts:``) among all its ``facts``."""
    facts = facts if isinstance(facts, (list, tuple, set, frozenset)) else list(facts)
    known = set(_WORDS)
    for fact in facts:
        place = _NAMING.get(fact[0])
        if place is not None and len(fact) > place:
            known.add(fact[place])
        elif fact[0] == "event" and len(fact) == 4:  # a subject of the game's history (an object that left)
            known.add(fact[3])
        elif fact[0] == "event_detail" and len(fact) == 4:
            known.add(fact[3])
    warnings: list[Diagnostic] = []
    facts_by: dict[str, list[tuple]] = {}

    def position(fact: tuple) -> tuple:
        span = origins.get(fact)
        return (span.line, span.col) if span is not None else (0, 0)

    for fact in sorted(given, key=lambda f: (position(f), repr(f))):
        decl = program.decl(fact[0])
        if decl is None or decl.arity != len(fact) - 1:
            continue  # told by the predicate check (S101)
        span = origins.get(fact)
        for param, value in zip(decl.params, fact[1:]):
            if param.type in ID_TYPES and isinstance(value, str) and value not in known:
                near = suggest(value, sorted(k for k in known if isinstance(k, str)))
                warnings.append(
                    Diagnostic(
                        S203,
                        f"unknown id {value!r} in {fact[0]} (its {param.name}: {param.type}): no object, player, "
                        "ability or effect of the board is called that",
                        span,
                        severity="warning",
                        hint=f"did you mean {near!r}?" if near else "give the object under objects: (or the player)",
                    )
                )
        if decl.is_input and decl.functional:
            if fact[0] not in facts_by:  # the board's facts of the predicate, gathered once
                facts_by[fact[0]] = [f for f in facts if f[0] == fact[0]]
            warnings.extend(_second_value(decl, fact, facts_by[fact[0]], span))
        if not decl.is_input:
            rules = [r.name for r in program.rules_by_head.get(fact[0], ()) if r.name][:2]
            by = f" ({', '.join(rules)})" if rules else ""
            warnings.append(
                Diagnostic(
                    S202,
                    f"{fact[0]} is derived by the rules{by}: this fact is added to what they derive, not put "
                    "in its place",
                    span,
                    severity="warning",
                    hint="give the facts the rules derive it from (a base value, a counter, an effect) instead",
                )
            )
    return warnings


def counter_kind_problems(program: Program, facts: Iterable[tuple], origins: dict[tuple, Span]) -> list[Diagnostic]:
    """Warnings for the counters a board gives of a kind no rule names (``counters: {tiem: 1}``): a kind is
    any word, so a misspelt one is a kind of its own, which counts for nothing; the nearest kind the rules
    name is suggested (S204)."""
    words = constants.program_constants(program)
    unread = [f for f in facts if f[0] == "counter" and len(f) == 4 and isinstance(f[2], str) and f[2] not in words]
    if not unread:
        return []
    kinds = sorted({str(row[0]) for row in program.ground_facts("counter_kind") if row} | set(words))
    warnings: list[Diagnostic] = []
    for fact in sorted(unread, key=repr):
        kind = fact[2]
        near = suggest(kind, kinds)
        warnings.append(
            Diagnostic(
                S204,
                f"{kind!r} counters on {fact[1]}: no rule names this kind of counter, so they count for nothing",
                origins.get(fact),
                severity="warning",
                hint=f"did you mean {near!r}?"
                if near
                else "declare counter_kind(" + kind + ") and write the rules that read it",
            )
        )
    return warnings


def _second_value(decl: Decl, fact: tuple, same_pred: list[tuple], span: Span | None) -> list[Diagnostic]:
    """S205: a given fact of a single-valued input predicate (``functional(...)``: life, base_power, counter)
    beside another value for the same key (``life(alice, 5)`` beside the board's 20)."""
    keys = decl.key_positions
    key = [fact[1 + i] for i in keys]
    others = sorted(str(Fact(*f)) for f in same_pred if f != fact and [f[1 + i] for i in keys] == key)
    if not others:
        return []
    return [
        Diagnostic(
            S205,
            f"{Fact(*fact)} is a second value beside {', '.join(others)}: both hold",
            span,
            severity="warning",
            hint=f"{fact[0]} has one value for each {', '.join(decl.functional)}: give it where the board sets it "
            "(life:, the object's fields, counters:) instead of under facts:",
        )
    ]
