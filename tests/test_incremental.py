"""Incremental steps give exactly what a full recomputation gives.

After a change of facts, the backend recomputes only the aggregates and recursive facts the change can
affect, and the runtime asks its whole-board questions again only about the affected objects
(judgelog.incremental). ``Engine(incremental=False)`` recomputes everything instead. Both engines apply
every SAMPLE-th bundled scenario's actions (every one is compared with the reference, clingo asking every
question whole: tests/test_differential.py), and random short action sequences on some boards, one after
another; after each action they must have the same facts, the same events or the same refusal, the same
facts of every declared predicate, and the same proofs.
"""

from __future__ import annotations

import random

import pytest
from replays import sample, scenario_param

import judgelog.answer_cache as answer_cache
from judgelog import Engine
from judgelog.errors import JudgelogError
from judgelog.incremental import WILD, affected

RANDOM_BOARDS = ["banding_blocked_by_one.yaml", "proliferate_kinds.yaml", "trample_with_and_without_banding.yaml"]
RANDOM_SEQUENCES = 4  # per board
RANDOM_STEPS = 5


@pytest.fixture(scope="module")
def engines(replays) -> tuple[Engine, Engine]:
    return replays.engine("pydatalog"), replays.engine("full")


def _outcome(state, action: dict):
    """The state after the action and what the action gave: its events, or its refusal."""
    try:
        after, events = state.apply(action)
    except JudgelogError as exc:
        return state, ("refused", type(exc).__name__, str(exc))
    return after, ("applied", [e.to_dict() for e in events])


def _same(replays, inc, full, where: str) -> None:
    """The same facts, the same facts of every declared predicate, the same proof of the first fact of every
    derived predicate (tests/replays.py computes them once per state: test_differential reads them too)."""
    assert inc.facts == full.facts, where
    assert replays.derived(inc) == replays.derived(full), where
    assert replays.proofs(inc) == replays.proofs(full), where


@pytest.mark.slow
@pytest.mark.parametrize("name", [scenario_param(n) for n in sample(0)])
def test_a_bundled_scenario_steps_as_a_full_recomputation(replays, name):
    inc, full = replays.get("pydatalog", name), replays.get("full", name)
    assert len(inc.steps) == len(full.steps)
    for a, b in zip(inc.steps, full.steps):
        where = f"{name}: action {a.index + 1} ({a.action.get('do')})"
        assert str(a.error) == str(b.error), where
        assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events], where
        _same(replays, a.state, b.state, where)


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
def test_random_action_sequences_step_as_a_full_recomputation(replays, engines, board):
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
            _same(replays, inc, full, where)


def test_a_counter_on_one_creature_affects_that_creature_only(engine):
    found = affected(engine.program, [("counter", "bear", "p1p1", 1)])
    assert found.matches(("counter", "bear", "p1p1", 1)) and found.matches(("toughness", "bear", 3))
    assert not found.matches(("toughness", "wolf", 3))
    assert found.patterns("toughness") and all(p[0] == "bear" for p in found.patterns("toughness"))
    assert all(p[0] is not WILD for p in found.patterns("power"))


def test_a_question_asked_before_a_large_step_is_kept_after_it_for_the_small_change():
    """A question last asked over the snapshot of a large step (more than a quarter of the state, the state
    after it made whole) and asked again over the next action's snapshot is asked again only where the small
    change between the two can reach it, with the answers a full question gives; the two snapshots are related
    through the state before the large step, not compared whole."""
    import judgelog.factview as fv
    from judgelog.answer_cache import AnswerCache
    from judgelog.planning import row_sort_key

    engine, state, body, ask, asked = _counter_question()
    names = ["O", "N"]

    root = fv.as_frozenset(state.facts)
    step = fv.Overlay(root)
    for i in range(2100):  # facts the question cannot reach: more than a quarter of the state, and 2,000
        step.add(("life", f"p{i}", i))
    last = step.snapshot()
    cache = AnswerCache(engine.program)
    before = cache.ask(last, tuple(body), names, ask, row_sort_key)
    saved, fv.CHAIN_MAX = fv.CHAIN_MAX, 10
    try:
        made = fv.chained(root, frozenset(step.plus), frozenset(step.minus))
    finally:
        fv.CHAIN_MAX = saved
    after = fv.Overlay(made)
    after.discard(("counter", "elves", "p1p1", 1))
    after.add(("counter", "elves", "p1p1", 2))
    first = after.snapshot()
    asked.clear()
    whole: list = []  # fact sets compared whole with the cache's anchor: none, they relate by their bases
    cache._delta = lambda facts: whole.append(facts)  # type: ignore[method-assign]
    rows = cache.ask(first, tuple(body), names, ask, row_sort_key)
    assert not whole
    assert rows == engine.ask_rows(first.frozen(), tuple(body), names) != before
    assert asked and all(len(b) > len(body) for b in asked)  # asked again for the changed object only


def test_a_change_is_not_followed_through_rules_dead_on_both_of_its_sides(tmp_path, monkeypatch):
    """A rule that can fire in neither fact set (an atom of constants with no fact: the action is not the
    one it is for) does not carry a change to a question: the question keeps its answers when the backend
    tells which rules are dead, and is asked again in full when it can't (it then reaches the whole question)."""
    from judgelog.analysis import check_query
    from judgelog.answer_cache import AnswerCache
    from judgelog.parser import parse_body
    from judgelog.planning import row_sort_key

    monkeypatch.setattr(answer_cache, "_FACTS_PER_REASKED", 1)  # patterns asked again on a board this small
    rules = tmp_path / "t.dl"
    rules.write_text(
        '## Test rules.\n.decl act(a: atom) "the action is {a}" input\n.decl size(o: atom, n: int) "{o} is {n}" input\n'
        '.decl limit(p: atom) "{p} has a limit" input\n.decl over(p: atom) "{p} is over"\n\n'
        "@name t.over\n@cr 100.1\nover(P) :- act(declare), size(_, N), N > 3, limit(P).\n",
        encoding="utf-8",
    )
    engine = Engine(rules=[str(rules)])
    others = [f"size(b{i}, 0)" for i in range(20)]  # a change of a few facts is small beside them
    facts = ["act(other)", "size(a, 1)", "limit(alice)", *others]
    state = engine.state_from_dict({"players": ["alice"], "facts": facts})
    grown = state.with_facts((set(state.facts) - {("size", "a", 1)}) | {("size", "a", 5)})
    body, _ = check_query(engine.program, parse_body("over(P)"), text="over(P)")
    asked: list = []

    def ask(facts, body_, names_):
        asked.append(body_)
        return engine.ask_rows(facts, body_, names_)

    for dead, asked_again in ((engine.backend.dead_rules, 0), (None, 1)):
        asked.clear()

        cache = AnswerCache(engine.program)
        assert cache.ask(state.facts, tuple(body), ["P"], ask, row_sort_key, None, dead) == []
        assert cache.ask(grown.facts, tuple(body), ["P"], ask, row_sort_key, None, dead) == []
        assert len(asked) == 1 + asked_again, dead


def test_a_question_asked_of_two_kinds_of_fact_set_by_turns_is_updated_from_the_nearest(monkeypatch):
    """A large change that cannot reach a question keeps its answers (facts of another predicate, more than
    the state holds), and a question asked of two kinds of fact set by turns is updated from the one nearer
    to the fact set asked, not from the last one asked: a change of one counter re-asks about that object."""
    import judgelog.factview as fv
    from judgelog.answer_cache import AnswerCache
    from judgelog.planning import row_sort_key

    monkeypatch.setattr(answer_cache, "_FACTS_PER_REASKED", 1)  # patterns asked again on a board this small
    engine, state, body, ask, asked = _counter_question()

    cache = AnswerCache(engine.program)
    base = fv.as_frozenset(state.facts)
    rows = cache.ask(base, tuple(body), ["O", "N"], ask, row_sort_key)
    large = base | {("life", f"p{i}", i) for i in range(2 * len(base))}  # life: not read by the question
    assert cache.ask(large, tuple(body), ["O", "N"], ask, row_sort_key) == rows and len(asked) == 1
    obj, n = rows[0]
    moved = (base - {("counter", obj, "p1p1", n)}) | {("counter", obj, "p1p1", n + 1)}
    expected = engine.ask_rows(moved, body, ["O", "N"])
    assert cache.ask(moved, tuple(body), ["O", "N"], ask, row_sort_key) == expected != rows
    assert len(asked) > 1 and all(any(str(lit) == f"O = {obj}" for lit in again) for again in asked[1:]), asked[1:]


def test_a_small_board_asks_a_question_the_change_reaches_again_whole():
    """On a board of few facts (fewer than answer_cache._FACTS_PER_REASKED) a question that a change can reach
    is asked again whole, once, not once per affected pattern: that costs less there than finding the patterns.
    A change that cannot reach it still keeps its answers; either way the answers are those of the new facts."""
    from judgelog.answer_cache import AnswerCache
    from judgelog.planning import row_sort_key

    engine, state, body, ask, asked = _counter_question()
    assert len(state.facts) < answer_cache._FACTS_PER_REASKED

    cache = AnswerCache(engine.program)
    rows = cache.ask(state.facts, tuple(body), ["O", "N"], ask, row_sort_key)
    obj, n = rows[0]
    unread = state.facts | {("life", "nobody", 3)}  # life: not read by the question
    assert cache.ask(unread, tuple(body), ["O", "N"], ask, row_sort_key) == rows and asked == [tuple(body)]
    moved = (state.facts - {("counter", obj, "p1p1", n)}) | {("counter", obj, "p1p1", n + 1)}
    assert cache.ask(moved, tuple(body), ["O", "N"], ask, row_sort_key) == engine.ask_rows(moved, body, ["O", "N"])
    assert asked == [tuple(body), tuple(body)]  # the whole question, not "O = obj" prepended


def _counter_question():
    """The bundled proliferate_kinds board, the question ``counter(O, p1p1, N), permanent(O)`` checked, and an
    asker that records each body it asks the backend: (engine, state, body, ask, asked)."""
    from judgelog.analysis import check_query
    from judgelog.parser import parse_body

    engine = Engine()
    state = engine.load(engine.example("proliferate_kinds.yaml"))
    text = "counter(O, p1p1, N), permanent(O)"
    body, _ = check_query(engine.program, parse_body(text), text=text)
    asked: list = []

    def ask(facts, body_, names_):
        asked.append(body_)
        return engine.ask_rows(facts, body_, names_)

    return engine, state, body, ask, asked


def test_a_large_change_read_only_by_rules_dead_on_both_sides_is_not_analysed(tmp_path, monkeypatch):
    """The facts of a large change that only rules dead before and after it read (an action's events, where no
    rule that reads them can fire) are not analysed fact by fact when the backend can tell, from the rules
    dead before the change and the facts it adds, which rules stay dead; the question gets the answers a
    full question gives. Without that, they are grouped by shape like any others."""
    import judgelog.incremental as incremental
    from judgelog.analysis import check_query
    from judgelog.answer_cache import AnswerCache
    from judgelog.parser import parse_body
    from judgelog.planning import row_sort_key

    rules = tmp_path / "t.dl"
    rules.write_text(
        '## Test rules.\n.decl act(a: atom) "the action is {a}" input\n.decl size(o: atom, n: int) "{o} is {n}" input\n'
        '.decl mark(o: atom, n: int) "{o} is marked {n}" input\n.decl limit(p: atom) "{p} has a limit" input\n'
        '.decl over(p: atom) "{p} is over"\n\n'
        "@name t.over\n@cr 100.1\nover(P) :- size(_, N), N > 3, limit(P).\n\n"
        "@name t.marked\n@cr 100.2\nover(P) :- act(declare), mark(_, N), N > 3, limit(P).\n",
        encoding="utf-8",
    )
    engine = Engine(rules=[str(rules)])
    others = [f"size(b{i}, 0)" for i in range(1300)]  # the marks are a small part of the state
    state = engine.state_from_dict({"players": ["alice"], "facts": ["act(other)", "limit(alice)", *others]})
    marks = {("mark", f"m{i}", 5) for i in range(300)}
    grown = state.with_facts((set(state.facts) - {("size", "b0", 0)}) | {("size", "b0", 5)} | marks)
    body, _ = check_query(engine.program, parse_body("over(P)"), text="over(P)")
    grouped: list = []
    real = incremental._grouped

    def spy(program, changed):
        grouped.append({f[0] for f in changed})
        return real(program, changed)

    monkeypatch.setattr(incremental, "_grouped", spy)
    for after, marks_analysed in ((engine.backend.dead_rules_after, False), (None, True)):
        grouped.clear()
        cache = AnswerCache(engine.program)
        ask, dead = engine.ask_rows, engine.backend.dead_rules
        assert cache.ask(state.facts, tuple(body), ["P"], ask, row_sort_key, None, dead, after) == []
        rows = cache.ask(grown.facts, tuple(body), ["P"], ask, row_sort_key, None, dead, after)
        assert rows == engine.ask_rows(grown.facts, tuple(body), ["P"]) == [("alice",)]
        assert any("mark" in preds for preds in grouped) == marks_analysed, after
