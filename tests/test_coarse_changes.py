"""A large change of facts is analysed by its coarse shapes, and gives what a full recomputation gives.

A change of more than ``judgelog.incremental.COARSE_ABOVE`` facts (proliferate over a large board) is
analysed by its *coarse shapes* (predicate and the rules' constants, every other value WILD): the backend
then recomputes only the computed predicates the change can reach, and the runtime's questions keep the
answers it cannot reach. These tests check that the coarse analysis over-approximates the exact one, and
that steps taken with every change analysed coarsely give the same facts, events and derived facts as
``Engine(incremental=False)``.
"""

from __future__ import annotations

import random

import pytest
from test_incremental import RANDOM_BOARDS, _outcome, _random_action

import judgelog.incremental as incremental
from judgelog import Engine
from judgelog.incremental import WILD, affected, coarse_affected


def test_a_large_change_of_one_counter_kind_reaches_what_that_kind_reaches(engine):
    changed = [("counter", f"c{i}", "p1p1", n) for i in range(200) for n in (1, 2)]
    found = affected(engine.program, changed)  # more than COARSE_ABOVE facts: by coarse shapes
    assert len(changed) > incremental.COARSE_ABOVE
    assert found.matches(("toughness", "anything", 7)) and found.whole("toughness")
    # the state-based actions the change reaches keep the constants of their rules' heads: the question
    # is asked again for those rules, not for every state-based action
    patterns = found.patterns("state_based")
    assert patterns and all(any(v is not WILD for v in p) for p in patterns)
    assert not found.matches(("state_based", 4, "lose_game", "alice", "life", "none"))
    # who divides combat damage is reached (510.1a: a creature with power 0 or less assigns none), but not
    # what the damage may be assigned to, nor the blocks
    assert found.touches("damage_assigner")
    assert not found.touches("damage_recipient") and not found.touches("blocked_by")
    # no keyword_counter fact of the rule files names p1p1: the keywords counters grant are not reached
    assert not found.touches("keyword_source") and not found.touches("has_keyword")


def test_a_rule_whose_stated_facts_rule_out_a_binding_is_not_followed(engine):
    kinds = {f[1] for f in engine.program.fact_rules if f[0] == "keyword_counter"}
    assert kinds and "p1p1" not in kinds
    kind = sorted(kinds)[0]
    assert affected(engine.program, [("counter", "bear", kind, 1)]).matches(("keyword_source", "bear", kind))
    assert not affected(engine.program, [("counter", "bear", "p1p1", 1)]).touches("keyword_source")


def test_coarse_shapes_cover_every_fact_the_exact_analysis_finds(replays):
    state = replays.start("pydatalog", "proliferate_kinds.yaml")
    facts = sorted(state.facts, key=repr)
    rng = random.Random(0)
    derived = [f for found in replays.derived(state).values() for f in found]
    for _ in range(5):
        changed = [tuple(f) for f in rng.sample(facts, min(len(facts), 12))]
        exact, coarse = affected(state.engine.program, changed), coarse_affected(state.engine.program, changed)
        for fact in [tuple(f) for f in derived] + changed:
            assert not exact.matches(fact) or coarse.matches(fact), (fact, changed)


@pytest.mark.slow
@pytest.mark.parametrize("board", RANDOM_BOARDS)
def test_steps_with_every_change_analysed_coarsely_match_a_full_recomputation(replays, monkeypatch, board):
    monkeypatch.setattr(incremental, "COARSE_ABOVE", 0)  # every change by coarse shapes ...
    monkeypatch.setattr(incremental, "_COARSE_SHAPE", 0)  # ... and every shape followed as one pattern
    coarse, full_engine = Engine(), replays.engine("full")
    for seed in range(2):
        rng = random.Random(f"coarse:{board}:{seed}")
        inc, full = coarse.load(coarse.example(board)), full_engine.load(full_engine.example(board))
        for step in range(5):
            action = _random_action(rng, inc)
            where = f"{board} seed {seed} step {step}: {action}"
            inc, got = _outcome(inc, action)
            full, expected = _outcome(full, action)
            assert got == expected, where
            assert inc.facts == full.facts, where
            assert replays.derived(inc) == replays.derived(full), where
