"""A state's index handed down from step to step (judgelog.state_index) equals one built from its facts.

Each state an action makes gets its index from its parent's and the change (StateIndex.updated, which
counts the change's names by their net change); a cache that went stale would show as a name counted
too often or too rarely, a fact missing from (or left in) the index by key, or a wrong largest number.
"""

from __future__ import annotations

import pytest
from paths import SCENARIOS
from replays import NAMES, scenario_param

from judgelog import Engine, JudgelogError
from judgelog.state_index import ID_TYPES, Layered, StateIndex


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def _whole(layered: Layered) -> dict:
    """A layered mapping as one dict, empty sets left out (a key emptied by a step may stay in its layer)."""
    return {k: v for k, v in layered.whole().items() if v}


def _same_index(handed: StateIndex, built: StateIndex, where: str) -> None:
    assert handed.values == built.values, where
    assert {t: handed.typed[t] for t in ID_TYPES} == {t: built.typed[t] for t in ID_TYPES}, where
    assert handed.players == built.players, where
    assert handed.preds == built.preds, where
    assert handed.seqs == built.seqs, where
    assert handed.top == built.top, where
    assert _whole(handed.by_key) == _whole(built.by_key), where


def _check_chain(engine: Engine, state, actions: list[dict], name: str) -> int:
    """Apply ``actions`` one after another (a refused one is skipped), comparing each new state's handed-down
    index with one built from scratch; the number of states compared."""
    assert state.index is not None  # built once on the first state, then handed down
    compared = 0
    for i, action in enumerate(actions):
        try:
            after, _ = state.apply({k: v for k, v in action.items() if k != "expect_error"})
        except JudgelogError as exc:  # a refusal leaves the state as it was
            if "expect_error" not in action:
                raise AssertionError(f"{name}: action {i + 1} refused: {exc}") from exc
            continue
        assert after._index is not None, f"{name}: action {i + 1}: the index was not handed down"
        _same_index(after.index, StateIndex.build(engine.program, after.facts), f"{name}: action {i + 1}")
        state = after
        compared += 1
    return compared


def test_put_counters_and_proliferate_chain_keep_the_index_whole(engine):
    state = engine.load(SCENARIOS / "proliferate_kinds.yaml")
    actions = [
        {"do": "put_counters", "target": "elves", "kind": "p1p1", "n": 1},
        {"do": "proliferate", "player": "alice", "choose": ["bears", "walker", "bob", "elves"]},
        {"do": "proliferate", "player": "alice", "choose": ["bears", "alice"]},
        {"do": "tap", "object": "bears"},
        {"do": "proliferate", "player": "alice", "choose": ["elves", "bob"]},
    ]
    assert _check_chain(engine, state, actions, "proliferate_kinds") == len(actions)


def test_a_name_that_comes_and_goes_within_one_change_is_counted_once():
    """Facts that cancel (removed and added with the same names) or repeat names are counted by their net."""
    program = Engine().program
    start = [("counter", "x", "p1p1", 3), ("counter", "y", "p1p1", 1), ("controller", "x", "alice")]
    index = StateIndex.build(program, start)
    removed = [("counter", "x", "p1p1", 3), ("counter", "y", "p1p1", 1), ("controller", "x", "alice")]
    added = [("counter", "x", "p1p1", 4), ("counter", "z", "p1p1", 1), ("controller", "x", "bob")]
    after = index.updated(program, removed, added)
    built = StateIndex.build(program, added)
    _same_index(after, built, "one change")
    assert "y" not in after.values and after.values["x"] == 2 and after.values["p1p1"] == 2
    assert "alice" not in after.values and after.values["bob"] == 1
    # the parent is untouched
    _same_index(index, StateIndex.build(program, start), "the parent")


@pytest.mark.slow
@pytest.mark.parametrize("name", [scenario_param(n) for n in NAMES])
def test_a_bundled_scenario_hands_down_the_index_it_would_build(replays, name):
    """Every state a bundled scenario's actions make (the session's replays, tests/replays.py)."""
    run = replays.get("pydatalog", name)
    program = run.start.engine.program
    before = run.start
    for step in run.steps:
        if step.state is not before:
            where = f"{name}: action {step.index + 1}"
            assert step.state._index is not None, f"{where}: the index was not handed down"
            _same_index(step.state.index, StateIndex.build(program, step.state.facts), where)
        before = step.state
