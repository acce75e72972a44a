"""Incremental steps give exactly what a full recomputation gives.

After a change of facts, the backend recomputes only the aggregates and recursive facts the change can
affect, and the runtime asks its whole-board questions again only about the affected objects
(judgelog.incremental). ``Engine(incremental=False)`` recomputes everything instead. Both engines apply
every bundled scenario's actions, and random short action sequences on some boards, one after another;
after each action they must have the same facts, the same events or the same refusal, the same facts of
every declared predicate, and the same proofs.
"""

from __future__ import annotations

import random

import pytest
from paths import ROOT

from judgelog import Engine
from judgelog.errors import JudgelogError
from judgelog.incremental import WILD, affected
from judgelog.recursion import recursive_components
from judgelog.replay import replay

SCENARIOS = sorted(p.name for p in (ROOT / "facts" / "scenarios").glob("*.yaml"))
RANDOM_BOARDS = ["banding_blocked_by_one.yaml", "proliferate_kinds.yaml", "trample_with_and_without_banding.yaml"]
RANDOM_SEQUENCES = 4  # per board
RANDOM_STEPS = 5


@pytest.fixture(scope="module")
def engines() -> tuple[Engine, Engine]:
    return Engine(), Engine(incremental=False)


def _derived(state) -> dict[str, list[tuple]]:
    return {pred: state.derived(pred) for pred in sorted(state.engine.program.decls)}


def _skeleton(node: dict) -> list:
    """A proof's kinds and rules, depth first, without atoms and bindings."""
    return [(node.get("kind"), node.get("rule"))] + [x for p in node.get("premises", ()) for x in _skeleton(p)]


def _normal(node: dict, recursive: set[str]) -> dict:
    """A proof as JSON, where the proof of a fact of a recursive predicate is kept as its rules only: it
    shows the first derivation found, whose witnesses depend on the order facts were computed in (as
    between the two backends, tests/test_differential.py)."""
    if node.get("term", {}).get("pred") in recursive:
        return {"atom": node.get("atom"), "skeleton": _skeleton(node)}
    return {k: ([_normal(p, recursive) for p in v] if k == "premises" else v) for k, v in node.items()}


def _proofs(state, facts: dict[str, list[tuple]]) -> dict[tuple, object]:
    """The proof of the first fact of every derived predicate."""
    program = state.engine.program
    recursive = {p for c in recursive_components(program) for p in c.preds}
    out: dict[tuple, object] = {}
    for pred, found in facts.items():
        if program.derived(pred) and found:
            proof = state.explain(found[0])
            assert proof is not None, found[0]
            out[found[0]] = _normal(proof.to_dict(), recursive)
    return out


def _outcome(state, action: dict):
    """The state after the action and what the action gave: its events, or its refusal."""
    try:
        after, events = state.apply(action)
    except JudgelogError as exc:
        return state, ("refused", type(exc).__name__, str(exc))
    return after, ("applied", [e.to_dict() for e in events])


def _same(inc, full, where: str) -> None:
    assert inc.facts == full.facts, where
    facts = _derived(inc)
    assert facts == _derived(full), where
    assert _proofs(inc, facts) == _proofs(full, facts), where


@pytest.mark.slow
@pytest.mark.parametrize("name", SCENARIOS)
def test_a_bundled_scenario_steps_as_a_full_recomputation(engines, name):
    inc_engine, full_engine = engines
    inc, full = inc_engine.load(inc_engine.example(name)), full_engine.load(full_engine.example(name))
    actions = list(inc.meta.scenario.actions) if inc.meta.scenario else []
    inc_steps = list(replay(inc, actions))
    full_steps = list(replay(full, list(full.meta.scenario.actions) if full.meta.scenario else []))
    assert len(inc_steps) == len(full_steps)
    for a, b in zip(inc_steps, full_steps):
        where = f"{name}: action {a.index + 1} ({a.action.get('do')})"
        assert str(a.error) == str(b.error), where
        assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events], where
        _same(a.state, b.state, where)


def _random_action(rng: random.Random, state) -> dict:
    permanents = sorted(f[1] for f in state.facts if f[0] == "permanent")
    players = sorted(f[1] for f in state.facts if f[0] == "player")
    keywords = sorted(state.engine.keywords)
    if not permanents:
        return {"do": "proliferate", "player": rng.choice(players)}
    obj = rng.choice(permanents)
    return rng.choice(
        [
            {"do": "put_counters", "target": obj, "kind": rng.choice(["p1p1", "m1m1"]), "n": rng.randint(1, 2)},
            {"do": "proliferate", "player": rng.choice(players)},
            {"do": "tap", "object": obj},
            {"do": "untap", "object": obj},
            {"do": "gain_ability", "object": obj, "keyword": rng.choice(keywords)},
            {"do": "lose_ability", "object": obj, "keyword": rng.choice(keywords)},
            {"do": "apply_effect", "object": obj, "power": rng.randint(-2, 2), "toughness": rng.randint(-2, 2)},
            {"do": "gain_control", "object": obj, "player": rng.choice(players)},
            {"do": "leave_battlefield", "object": obj},
            {"do": "end_turn"},
        ]
    )


@pytest.mark.slow
@pytest.mark.parametrize("board", RANDOM_BOARDS)
def test_random_action_sequences_step_as_a_full_recomputation(engines, board):
    inc_engine, full_engine = engines
    for seed in range(RANDOM_SEQUENCES):
        rng = random.Random(f"{board}:{seed}")
        inc, full = inc_engine.load(inc_engine.example(board)), full_engine.load(full_engine.example(board))
        for step in range(RANDOM_STEPS):
            action = _random_action(rng, inc)
            where = f"{board} seed {seed} step {step}: {action}"
            inc, got = _outcome(inc, action)
            full, expected = _outcome(full, action)
            assert got == expected, where
            _same(inc, full, where)


def test_a_counter_on_one_creature_affects_that_creature_only(engine):
    found = affected(engine.program, [("counter", "bear", "p1p1", 1)])
    assert found.matches(("counter", "bear", "p1p1", 1)) and found.matches(("toughness", "bear", 3))
    assert not found.matches(("toughness", "wolf", 3))
    assert found.patterns("toughness") and all(p[0] == "bear" for p in found.patterns("toughness"))
    assert all(p[0] is not WILD for p in found.patterns("power"))
