"""A change of facts handled one predicate at a time (the backend's sync, judgelog.liveness.Liveness.count and
dead_after, judgelog.unread.Unread.split, judgelog.setwise.Base.update) gives what handling it one fact at a
time gives: the same counts and namespace changes, the same facts kept out, the same indexes, the same rules
found dead."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from judgelog import Engine
from judgelog.compiled import CompiledProgram
from judgelog.factview import by_pred
from judgelog.liveness import Liveness
from judgelog.setwise import Base
from judgelog.unread import Unread


@pytest.fixture(scope="module")
def engine():
    return Engine()


@pytest.fixture(scope="module")
def board_facts(engine):
    state = engine.load(engine.example("proliferate_kinds.yaml"))
    after, _ = state.apply({"do": "tap", "object": sorted(f[1] for f in state.facts if f[0] == "permanent")[0]})
    return sorted(state.facts), sorted(after.facts)


def _events(rng: random.Random, n: int) -> list[tuple]:
    kinds = ["counters_put", "tapped", "attacks", "dies", "chosen"]
    out: list[tuple] = []
    for seq in range(1000, 1000 + n):
        obj = f"o{rng.randrange(6)}"
        out += [("event", seq, rng.choice(kinds), obj), ("recent_event", seq), ("event_detail", seq, "n", 1)]
    return out


def _count_one_by_one(liveness: Liveness, view, fact: tuple, delta: int) -> None:
    """The count of one fact, as the sync counted before (the reference)."""
    counts, pred = view.counts, fact[0]
    n = counts[pred] = counts.get(pred, 0) + delta
    if n == 0 or n == delta:
        view.ns_dirty = True
        view.dirty_preds.add(pred)
    for i in liveness._positions.get(pred, ()):
        key = (pred, i, fact[i + 1])
        n = counts[key] = counts.get(key, 0) + delta
        if n == 0 or n == delta:
            view.ns_dirty = True
            view.dirty_preds.add(pred)


def _view(counts: dict):
    return SimpleNamespace(counts=dict(counts), ns_dirty=False, dirty_preds=set())


@pytest.mark.parametrize("seed", range(4))
def test_counting_by_predicate_is_counting_fact_by_fact(engine, board_facts, seed):
    liveness = Liveness(CompiledProgram.of(engine.program))
    rng = random.Random(seed)
    facts = board_facts[0] + _events(rng, 30)
    start = _view({})
    for fact in facts:
        _count_one_by_one(liveness, start, fact, 1)
    for _round in range(5):
        removed = rng.sample(facts, rng.randrange(len(facts) // 3))
        added = _events(rng, rng.randrange(1, 20)) + rng.sample(removed, len(removed) // 2)
        one, batched = _view(start.counts), _view(start.counts)
        for fact in removed:
            _count_one_by_one(liveness, one, fact, -1)
        for fact in added:
            _count_one_by_one(liveness, one, fact, 1)
        for pred, group in by_pred(removed).items():
            liveness.count(batched, pred, group, -1)
        for pred, group in by_pred(added).items():
            liveness.count(batched, pred, group, 1)
        assert batched.counts == one.counts
        assert (batched.ns_dirty, batched.dirty_preds) == (one.ns_dirty, one.dirty_preds)
        facts = [f for f in facts if f not in set(removed)] + added
        start = one
    # and one fact at a time, the namespace's change judged after each (a count leaving or reaching 0)
    one, batched = _view(start.counts), _view(start.counts)
    for fact, delta in [(f, -1) for f in rng.sample(facts, 40)] + [(f, 1) for f in _events(rng, 10)]:
        _count_one_by_one(liveness, one, fact, delta)
        liveness.count(batched, fact[0], [fact], delta)
        assert (batched.counts, batched.dirty_preds) == (one.counts, one.dirty_preds)
        one.dirty_preds, batched.dirty_preds = set(), set()


def test_splitting_by_predicate_keeps_out_what_each_key_would(engine):
    unread = Unread(engine.program)
    dead_sets = [frozenset(), frozenset(id(r) for r in engine.program.rules if r.name and "until_event" in r.name)]
    facts = _events(random.Random(1), 60) + [("counter", "o1", "p1p1", 1), ("event", 7)]
    for dead in dead_sets:
        for pred, group in by_pred(facts).items():
            kept_out, read = unread.split(pred, group, dead)
            expected_out: dict[tuple, set] = {}
            expected_read = []
            for fact in group:
                key = unread.key(fact)
                if key is not None and unread.unread(key, dead):
                    expected_out.setdefault(key, set()).add(fact)
                else:
                    expected_read.append(fact)
            assert (kept_out, read) == (expected_out, expected_read)


def test_a_base_updated_by_predicate_indexes_as_one_made_afresh(board_facts):
    before, after = board_facts
    rng = random.Random(3)
    extra = _events(rng, 20)
    old = set(before) | set(extra[:30])
    new = set(after) | set(extra[15:])
    base = Base(old, mixed={"recent_event"})
    positions = {}
    for pred in {f[0] for f in old | new}:
        arity = max(len(f) for f in old | new if f[0] == pred) - 1
        positions[pred] = tuple(range(min(arity, 2)))
        base.index(pred, positions[pred], {}, ())
    base.update(by_pred(new - old), by_pred(old - new))
    fresh = Base(new)
    for pred, at in positions.items():
        assert base.index(pred, at, {}, ()) == fresh.index(pred, at, {}, ())
        assert base.by_pred.get(pred, set()) == fresh.by_pred.get(pred, set())


def _dead_after_fact_by_fact(liveness: Liveness, dead_probes: frozenset, with_facts: frozenset, added) -> frozenset:
    """Liveness.dead_after's rules, with the values of every counted place of every added fact (the reference)."""
    from judgelog.liveness import _may_match

    positions, by_probe_pred = liveness._positions, liveness.compiled.liveness_index.probes_by_pred
    preds = {f[0] for f in added}
    values: dict[tuple[str, int], set] = {}
    for fact in added:
        for i in positions.get(fact[0], ()):
            if i + 1 < len(fact):
                values.setdefault((fact[0], i), set()).add(fact[i + 1])
    revived = [
        p
        for pred in preds
        for p in by_probe_pred.get(pred, ())
        if p in dead_probes and _may_match(p, preds, values, positions)
    ]
    return liveness.liveness(dead_probes.difference(revived), with_facts | (preds & liveness._idb))[1]


@pytest.mark.parametrize("seed", range(3))
def test_dead_after_by_predicate_finds_the_rules_found_fact_by_fact(engine, board_facts, seed):
    compiled = CompiledProgram.of(engine.program)
    liveness = Liveness(compiled)
    dead_probes, with_facts = compiled.dead_probes(board_facts[0])
    ns = SimpleNamespace(dead_probes=dead_probes, with_facts=with_facts)
    ns.dead_rules = liveness.liveness(dead_probes, with_facts)[1]
    rng = random.Random(seed)
    added = _events(rng, 25) + [("counter", "o2", "p1p1", 3), ("tapped", "o3")]
    found = liveness.dead_after(ns.dead_rules, by_pred(added), ns)
    assert found == _dead_after_fact_by_fact(liveness, dead_probes, with_facts, added)
    assert found is not None and found <= ns.dead_rules
