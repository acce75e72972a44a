"""Set-at-a-time evaluation (judgelog.setwise) against the reference's answers (tests/replays.py).

Every declared predicate of the first and the last state of every bundled scenario is answered
set-at-a-time, open and with its first argument bound to a set of values, and compared with the facts the
reference derives; a proliferate
over many objects (the toughness check under it reads negations and an aggregate) gives the same state
and events with and without the set-at-a-time path; arithmetic, a division by zero and a comparison of a
word with a number behave as on pyDatalog.
"""

from __future__ import annotations

import pytest
from replays import NAMES, scenario_param

import judgelog.backend as backend_module
import judgelog.incremental as incremental
from judgelog import Engine
from judgelog.analysis import check_query
from judgelog.ast import Atom, Var
from judgelog.errors import QueryError
from judgelog.parser import parse_body
from judgelog.planning import sorted_rows


def _setwise(state, body, names, among=None) -> list[tuple]:
    backend = state.engine.backend
    with backend.session(state.facts) as view:
        found = backend._setwise(view, body, names, among)
    assert found is not None, [str(lit) for lit in body]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("name", [scenario_param(n) for n in NAMES])
def test_every_predicate_as_the_reference_derives_it(replays, name):
    """Every predicate of the state as loaded and of the final state, its first argument bound to a set of
    values (the runtime asks so about the objects a change can reach), and open in every state (which
    test_differential compares with the reference after every action: State.derived_all asks a whole
    predicate set-at-a-time)."""
    program = replays.engine("pydatalog").program
    ours, reference = replays.get("pydatalog", name), replays.get("reference", name)
    for state, expected_state in ((ours.start, reference.start), (ours.states[-1], reference.states[-1])):
        assert state.facts == expected_state.facts, name
        derived = replays.derived(state)  # every predicate open, set-at-a-time (State.derived_all)
        for pred, facts in replays.derived(expected_state).items():
            names = [f"V{i}" for i in range(program.decls[pred].arity)]
            body = (Atom(pred, tuple(Var(n) for n in names)),)
            expected = sorted_rows({tuple(f[1:]) for f in facts})
            assert sorted_rows({tuple(f[1:]) for f in derived[pred]}) == expected, (name, pred)
            if names:  # the first argument bound to a set: its values, and one no fact has
                values = frozenset({f[1] for f in facts} | {"nothing_has_this"})
                assert _setwise(state, body, names, {"V0": values}) == expected, (name, pred)


def _board(n: int) -> dict:
    """``n`` 3/3 creatures (a +1/+1 counter each), one 1/1 (a -1/-1 counter) that proliferate kills, a 2/2
    with a -1/-1 counter and an anthem-free board of ``3 n`` creatures without counters."""
    objects = {f"bear{i}": {"card": "Grizzly Bears", "controller": "bob", "counters": {"p1p1": 1}} for i in range(n)}
    objects |= {f"plain{i}": {"card": "Grizzly Bears", "controller": "alice"} for i in range(3 * n)}
    objects["frail"] = {"card": "Grizzly Bears", "controller": "bob", "counters": {"m1m1": 1}}
    objects["mixed"] = {"card": "Grizzly Bears", "controller": "alice", "counters": {"m1m1": 1, "p1p1": 2}}
    return {"name": "many counters", "players": ["alice", "bob"], "active": "alice", "objects": objects}


def _proliferate(engine: Engine) -> tuple:
    state = engine.state_from_dict(_board(80))
    state, _ = state.apply({"do": "put_counters", "target": "bear0", "kind": "+1/+1", "n": 1})
    everyone = sorted({f[1] for f in state.facts if f[0] == "counter"})
    state, events = state.apply({"do": "proliferate", "player": "alice", "choose": everyone})
    return state, [(e.kind, e.subject) for e in events]


@pytest.mark.slow
def test_a_large_set_is_asked_set_at_a_time_with_the_same_outcome(monkeypatch):
    monkeypatch.setattr(incremental, "COARSE_ABOVE", 0)  # every change by coarse shapes, with sets
    monkeypatch.setattr(incremental, "_COARSE_SHAPE", 0)
    used: list[int] = []
    setwise = backend_module.Backend._setwise

    def spy(self, view, body, names, among):
        found = setwise(self, view, body, names, among)
        if found is not None:  # a question on the whole board has no bound set: 0
            used.append(max((len(vs) for vs in among.values()), default=0) if among else 0)
        return found

    monkeypatch.setattr(backend_module.Backend, "_setwise", spy)
    state, events = _proliferate(Engine())
    assert used and max(used) >= backend_module.SETWISE_VALUES  # the path was taken, for a large set
    assert "frail" not in {r["O"] for r in state.query("creature(O)")}
    assert state.query("toughness(bear3, T)") == [{"T": 4}]
    assert state.query("toughness(mixed, T)") == [{"T": 4}]  # counters of both kinds: the aggregate adds up
    monkeypatch.setattr(backend_module, "SETWISE_VALUES", 10**9)  # every question top-down
    monkeypatch.setattr(backend_module, "SETWISE_FACTS", 10**9)
    used.clear()
    old_state, old_events = _proliferate(Engine())
    assert not used
    assert (state.facts, events) == (old_state.facts, old_events)


def test_questions_with_negation_and_an_aggregate_over_a_set_agree_with_pydatalog():
    engine = Engine()
    state = engine.state_from_dict(_board(30))
    creatures = frozenset(r["O"] for r in state.query("creature(O)"))
    backend = engine.backend
    for text in (
        "toughness(O, T)",
        "toughness_change(O, N), not has_pt_modifier(O)",
        "creature(O), not counter(O, p1p1, _), toughness(O, T), T > 1",
        "counter(O, K, N), M = N * 2 - 1, M >= 1",
    ):
        body, names = check_query(engine.program, parse_body(text), text=text)
        with backend.session(state.facts) as view:
            expected = sorted_rows(set(backend.ask_body(view, body, names)))
            assert expected, text
            assert backend._setwise(view, body, names, None) == expected, text
            assert backend._setwise(view, body, names, {"O": creatures}) == expected, text


RULES = """
.decl num(n: int) "{n} is a number"
.decl word(w: atom) "{w} is a word"
.decl ratio(a: int, b: int, q: int) "{a} / {b} is {q}"
.decl odd_one(a: int) "{a} is not the ratio of any two numbers"
num(7). num(2). num(0). num(-3). word(seven).

@name t.ratio
@cr 107.1
ratio(A, B, Q) :- num(A), num(B), Q = A / B.

@name t.odd_one
@cr 107.1
odd_one(A) :- num(A), not ratio(_, _, A).
"""


def test_arithmetic_and_comparisons_as_on_pydatalog(tmp_path):
    path = tmp_path / "t.dl"
    path.write_text(RULES)
    engine = Engine(rules=[str(path)])
    state = engine.state_from_dict({"players": ["alice"]})
    backend = engine.backend
    for text, among in (("ratio(A, B, Q)", {"A": frozenset({7, 2, 0, -3, 5})}), ("odd_one(A)", None)):
        body, names = check_query(engine.program, parse_body(text), text=text)
        with backend.session(state.facts) as view:
            assert backend._setwise(view, body, names, among) == sorted_rows(set(backend.ask_body(view, body, names)))
    assert (0, 2, 0) in _setwise(state, *_checked(engine, "ratio(A, B, Q)"))
    assert not any(b == 0 for _, b, _ in _setwise(state, *_checked(engine, "ratio(A, B, Q)")))  # no value
    with pytest.raises(QueryError):
        _setwise(state, *_checked(engine, "num(A), word(W), A < W"))


def _checked(engine: Engine, text: str) -> tuple:
    return check_query(engine.program, parse_body(text), text=text)


PLAN_RULES = """
.decl needed(o: object, k: atom, n: int) "{o} needs {n} for {k}"
.decl held(c: object, p: player) "{p} holds {c}"
.decl candidate(o: object, c: object) "{c} can pay for {o}"

@name t.candidate
@cr 601.2h
candidate(O, C) :- held(C, P), needed(O, _, _), C != O, P != O.
"""


def test_a_plan_starts_with_the_atom_of_fewest_named_unknowns(tmp_path):
    # needed(O, _, _) binds one variable the rest of the body reads, held(C, P) two: an anonymous variable
    # binds nothing, so needed comes first (when nothing needs paying, nothing held is looked at: a board's
    # creatures were read for every activation cost, before proliferate's choice, at every step)
    path = tmp_path / "t.dl"
    path.write_text(PLAN_RULES)
    engine = Engine(rules=[str(path)])
    rule = next(r for r in engine.program.rules if r.head.pred == "candidate")
    steps, schema = engine.backend.planner.plan(("test", 1), engine.program.body(rule), [])
    first = [v.split("#")[0] for v in schema if not v.startswith("_")]
    assert first == ["O", "C", "P"], schema


def test_an_index_made_while_facts_are_computed_takes_each_new_one():
    """A question asked while the computed facts grow (an aggregate after a recursive component, in one
    materialise) reads an index made earlier in the same pass: each computed fact goes into it as it is made
    (it once read an index made before the component's last facts, and an aggregate over them came out
    empty)."""
    from judgelog.setwise import Base

    base = Base([("has_keyword", "bear", "trample")], mixed={"has_keyword"})
    computed = {"bear": [("has_keyword", "bear", "trample")]}
    index = base.index("has_keyword", (1,), computed, ())
    assert index == {("trample",): {("bear", "trample")}}
    base.computed(("has_keyword", "bear", "lifelink"))
    assert base.index("has_keyword", (1,), computed, ()) == {
        ("trample",): {("bear", "trample")},
        ("lifelink",): {("bear", "lifelink")},
    }
    base.computed(("other", "x"))  # no index of its predicate yet: made from the computed facts when asked
    assert base.index("other", (0,), {"x": [("other", "x")]}, ()) == {("x",): {("x",)}}
