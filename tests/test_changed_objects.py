"""A large change's objects as sets of values: a question is asked again for the objects changed only.

With ``among``, :func:`judgelog.incremental.coarse_affected` follows a coarse shape's facts by their exact
shapes, each placeholder standing for the set of values the facts hold there (``Among``), and the answer
cache asks a question again with those variables bound to the set (the pyDatalog backend's ``in``). These
tests check that this covers what the exact analysis finds, and that a state-based action caused by a
proliferate-like change of many objects is still found (one creature of many dies of a -1/-1 counter).
"""

from __future__ import annotations

import random

import judgelog.answer_cache as answer_cache
import judgelog.incremental as incremental
from judgelog import Engine
from judgelog.incremental import WILD, Among, affected, coarse_affected, matches


def test_a_large_change_names_the_objects_it_changed(engine):
    changed = [("counter", f"c{i}", "p1p1", n) for i in range(200) for n in (1, 2)]
    found = coarse_affected(engine.program, changed, among=True)
    assert found.matches(("toughness", "c7", 4)) and not found.matches(("toughness", "other", 4))
    assert found.matches(("state_based", 1, "move", "c7", "graveyard", "toughness"))
    assert not found.matches(("state_based", 1, "move", "other", "graveyard", "toughness"))
    sets = [v for p in found.patterns("toughness") for v in p if type(v) is Among]
    assert sets and all(v.values == {f"c{i}" for i in range(200)} for v in sets)
    # without among: every toughness, as before
    assert coarse_affected(engine.program, changed).whole("toughness")


def test_patterns_with_sets_match_and_cover_as_sets():
    some, more = Among(frozenset({"a", "b"})), Among(frozenset({"a", "b", "c"}))
    assert matches(("x", some), ("x", "a")) and not matches(("x", some), ("x", "c"))
    assert matches((more,), (some,)) and not matches((some,), (more,))
    assert not matches((some,), (WILD,)) and matches((WILD,), (some,))


def test_sets_cover_every_fact_the_exact_analysis_finds(replays):
    state = replays.start("pydatalog", "proliferate_kinds.yaml")
    facts = sorted(state.facts, key=repr)
    rng = random.Random(1)
    derived = [tuple(f) for found in replays.derived(state).values() for f in found]
    program = state.engine.program
    for _ in range(5):
        changed = [tuple(f) for f in rng.sample(facts, min(len(facts), 40))]
        exact = affected(program, changed)
        for shape in (0, 2):  # every coarse shape followed by its facts' sets, or only those of 3 facts or more
            incremental._COARSE_SHAPE, saved = shape, incremental._COARSE_SHAPE
            try:
                among = coarse_affected(program, changed, among=True)
            finally:
                incremental._COARSE_SHAPE = saved
            for fact in derived + changed:
                assert not exact.matches(fact) or among.matches(fact), (fact, changed)


def _board(n: int) -> dict:
    """``n`` 3/3 creatures (a +1/+1 counter each), one 1/1 (a -1/-1 counter) that proliferate kills, and
    ``3 n`` creatures without counters (a change of less than a quarter of the state is analysed)."""
    objects = {f"bear{i}": {"card": "Grizzly Bears", "controller": "bob", "counters": {"p1p1": 1}} for i in range(n)}
    objects |= {f"plain{i}": {"card": "Grizzly Bears", "controller": "alice"} for i in range(3 * n)}
    objects["frail"] = {"card": "Grizzly Bears", "controller": "bob", "counters": {"m1m1": 1}}
    return {"name": "many counters", "players": ["alice", "bob"], "active": "alice", "objects": objects}


def test_proliferate_over_many_objects_still_kills_the_one_it_makes_zero_toughness(monkeypatch):
    monkeypatch.setattr(incremental, "COARSE_ABOVE", 0)  # every change by coarse shapes, with sets ...
    monkeypatch.setattr(incremental, "_COARSE_SHAPE", 0)
    monkeypatch.setattr(answer_cache, "_FACTS_PER_REASKED", 1)  # patterns asked again on a board this small
    asked: list[dict] = []
    ask_among = Engine._ask_among

    def spy(self, facts, body, names, among):
        asked.append(among)
        return ask_among(self, facts, body, names, among)

    monkeypatch.setattr(Engine, "_ask_among", spy)
    outcomes = []
    for engine in (Engine(), Engine(incremental=False)):
        state = engine.state_from_dict(_board(12))
        state, _ = state.apply({"do": "put_counters", "target": "bear0", "kind": "+1/+1", "n": 1})
        everyone = sorted({f[1] for f in state.facts if f[0] == "counter"})
        state, events = state.apply({"do": "proliferate", "player": "alice", "choose": everyone})
        assert "frail" not in {r["O"] for r in state.query("creature(O)")}
        assert state.query("toughness(bear3, T)") == [{"T": 4}]
        outcomes.append((state.facts, [(e.kind, e.subject) for e in events]))
    assert outcomes[0] == outcomes[1]
    # the incremental engine asked a question again about the objects the change named, as a set
    assert any(len(vs) > 1 for among in asked for vs in among.values())
