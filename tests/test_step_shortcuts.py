"""Shortcuts a large step takes give what the plain computations they replace give.

- judgelog.incremental._fact_shapes computes a fact's coarse and exact shapes in one pass: the same as the
  two shapes' definitions, computed apart (:func:`_exact_shape` below);
- judgelog.provenance unifies a fact with a candidate rule's head from the head's non-constant positions
  (head_vars, unify_vars): the same binding as unifying the whole head, for every rule head and facts that share or
  miss its constants, repeat its variables' values or leave positions open (None);
- Prover.deriving_rules over many facts finds the same rule for each as Prover.deriving_rule one by one.
"""

from __future__ import annotations

import random

import pytest
from paths import SCENARIOS

from judgelog import Engine
from judgelog.ast import Const, Var
from judgelog.bindings import head_vars as _head_vars
from judgelog.bindings import unify_head as _unify_head
from judgelog.bindings import unify_vars as _unify_vars
from judgelog.deriving import _free, _head_candidates
from judgelog.incremental import _NUMBERS, _SLOTS, WILD, _closures, _fact_shapes, _Number, _Slot
from judgelog.provenance import Prover


def _kept(fact: tuple, consts: frozenset) -> list[bool]:
    """Whether each value of the fact is kept as a constant: a word the rules write anywhere; a number where a
    rule writes it at a place of the predicate that holds it (then everywhere in the fact)."""
    numbers = {v for i, v in enumerate(fact[1:]) if type(v) is int and (fact[0], i, v) in consts}
    return [v in numbers if type(v) is int else v in consts and not isinstance(v, bool) for v in fact[1:]]


def _exact_shape(fact: tuple, consts: frozenset) -> tuple[tuple, tuple]:
    """The exact shape by its definition: the predicate, the rules' constants the fact holds, a placeholder for
    each other value (equal values sharing one; a number's matches any constant, _Number); and the values the
    placeholders stand for."""
    values: list = []
    shape = [fact[0]]
    for v, kept in zip(fact[1:], _kept(fact, consts)):
        if kept:
            shape.append(v)
        else:
            if v not in values:
                values.append(v)
            i = values.index(v)
            slots, slot = (_NUMBERS, _Number) if type(v) is int else (_SLOTS, _Slot)
            shape.append(slots[i] if i < len(slots) else slot(i))
    return tuple(shape), tuple(values)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def test_both_shapes_in_one_pass_are_the_shapes(engine):
    consts, _, numbered_preds = _closures(engine.program)
    assert numbered_preds == {c[0] for c in consts if isinstance(c, tuple)}
    named = sorted((c for c in consts if not isinstance(c, tuple)), key=repr)[:40]
    # predicates at whose places the rules write numbers (counter(_, _, 0), step(1), ...), and the numbers
    numbered = sorted({c[0] for c in consts if isinstance(c, tuple)})[:6]
    numbers = sorted({c[2] for c in consts if isinstance(c, tuple)})[:8]
    values = named + numbers + [0, 1, 2, 17, True, False, 1.0, "x", "y"] + [f"o{i}" for i in range(20)]
    rng = random.Random(7)
    shapes: dict = {}  # shared by every fact, as a change's facts share them: never a shape of other types
    for _ in range(5000):
        pred = rng.choice(["p", *numbered])
        fact = (pred,) + tuple(rng.choice(values) for _ in range(rng.randint(0, 20)))  # up to 20: past 16 slots
        entry = _fact_shapes({}, shapes, fact, consts, numbered_preds)
        coarse = (fact[0],) + tuple(v if kept else WILD for v, kept in zip(fact[1:], _kept(fact, consts)))
        shape, held = _exact_shape(fact, consts)
        assert entry == (fact, coarse, shape, held), fact
        assert [type(v) for v in entry[2]] == [type(v) for v in shape], fact  # True and 1 are equal, not alike
        assert [type(v) for v in entry[1]] == [type(v) for v in coarse], fact


def test_unifying_by_a_heads_variables_is_unifying_the_head(engine):
    program = engine.program
    rng = random.Random(11)
    compared = free = 0
    for rule in program.rules:
        if not rule.body or rule.aggregate is not None:
            continue
        args = rule.head.args
        pool = [a.value for a in args if isinstance(a, Const)] + [1, 2, "x", "y", True, None]
        for _ in range(6):
            values = tuple(a.value if isinstance(a, Const) and rng.random() < 0.7 else rng.choice(pool) for a in args)
            fact = (rule.head.pred, *values)
            if rule not in _head_candidates(program, fact):
                continue  # its constants are not the fact's: the candidates leave the rule out
            assert _unify_vars(_head_vars(rule.head), values) == _unified(rule.head, values), (rule, fact)
            # a head judged free (deriving_rules then takes it as a candidate unseen) unifies with any values
            assert not _free(_head_vars(rule.head)) or _unified(rule.head, values) is not None, (rule, fact)
            compared += 1
            free += _free(_head_vars(rule.head))
        for _ in range(6):  # and any values, for the whole unification (constants checked too)
            values = tuple(rng.choice(pool) for _ in args)
            assert _unify_head(rule.head, values) == _unified(rule.head, values), (rule, values)
    assert compared > 100 and 0 < free < compared


def _unified(head, values):
    """Unification of a head with a fact's values by its definition, position by position (None: any value)."""
    binding: dict = {}
    for arg, value in zip(head.args, values):
        if value is None:
            continue
        if isinstance(arg, Const):
            if arg.value != value or type(arg.value) is not type(value):
                return None
        elif isinstance(arg, Var):
            if arg.name in binding and binding[arg.name] != value:
                return None
            binding[arg.name] = value
        else:
            return None
    return binding


@pytest.mark.parametrize("pred", ["damage_assigner", "blocked_by", "has_quality", "keyword_source", "view_edge"])
def test_many_facts_find_the_rules_one_fact_finds(engine, pred):
    """Facts of a predicate several rules derive, as many as an effect over a board's creatures."""
    state = engine.load(SCENARIOS / "banding_blocker_defender_divides.yaml")
    facts = state.derived(pred)
    assert facts, pred
    candidates = [f for f in facts if len(_head_candidates(engine.program, f)) > 1]
    if len(candidates) < 8:  # the bulk path asks a rule once from this many (deriving._BULK)
        facts = facts * (8 // max(len(facts), 1) + 1)
    with engine.backend.session(state.facts) as view:
        prover = Prover(engine.backend, view, {})
        together = prover.deriving_rules(facts)
        one_by_one = [prover.deriving_rule(f) for f in facts]
    assert together == one_by_one
    assert all(r is not None for r in together), pred  # each fact holds: some rule derives it
