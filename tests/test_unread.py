"""Facts no rule reads wait outside pyDatalog (judgelog.unread): an action's events of kinds that no rule
able to fire reads are kept out of the backend's database until a question names them, or until a rule that
reads them can fire. Every answer stays the same: a query about them, a rule that reads one kind of event,
and a rule that can fire only after a later action all see them.
"""

from __future__ import annotations

import pytest

from judgelog import Engine
from judgelog.analysis import checked_question
from judgelog.database import THREAD

COUNT = """
## Test rule: a derived fact per counters_put event.
.decl counted_put(x: object) "a counter was put on {x}"

@name test.counted_put
@cr 122.1
counted_put(X) :- event(_, counters_put, X).
"""

WATCH = """
## Test rule: a derived fact per counters_put event while some permanent is tapped.
.decl watched_put(x: object) "a counter was put on {x} while something is tapped"

@name test.watched_put
@cr 122.1
watched_put(X) :- tapped(_), event(_, counters_put, X).
"""


def _board() -> dict:
    objects = {f"bear{i}": {"card": "Grizzly Bears", "controller": "alice"} for i in range(4)}
    return {"name": "events", "players": ["alice", "bob"], "active": "alice", "objects": objects}


def _kept_out(engine: Engine) -> dict:
    view = THREAD.engines[engine.backend.id]
    return {pred: sum(map(len, by_key.values())) for pred, by_key in view.deferred.items()}


def test_events_no_rule_reads_wait_outside_and_a_query_still_sees_them():
    answers = []
    for engine in (Engine(), Engine(incremental=False)):
        state = engine.state_from_dict(_board())
        state, _ = state.apply({"do": "put_counters", "target": "bear1", "kind": "+1/+1", "n": 1})
        state.query("creature(X)")  # the state synced into the backend
        if engine.backend.incremental:
            assert _kept_out(engine).get("event", 0) > 0  # the counters_put event: no rule reads that kind
        answers.append(state.query("event(N, counters_put, X), event_detail(N, K, V)"))
    assert answers[0] == answers[1] and {r["X"] for r in answers[0]} == {"bear1"}


@pytest.mark.slow
def test_a_rule_that_reads_an_event_kind_sees_it(tmp_path):
    (tmp_path / "count.dl").write_text(COUNT)
    engine = Engine(rules=[str(tmp_path)])
    state = engine.state_from_dict(_board())
    state, _ = state.apply({"do": "put_counters", "target": "bear2", "kind": "+1/+1", "n": 1})
    assert [r["X"] for r in state.query("counted_put(X)")] == ["bear2"]


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_a_rule_that_can_fire_only_later_sees_the_events_that_waited(tmp_path):
    (tmp_path / "watch.dl").write_text(WATCH)
    engine = Engine(rules=[str(tmp_path)])
    state = engine.state_from_dict(_board())
    state, _ = state.apply({"do": "put_counters", "target": "bear3", "kind": "+1/+1", "n": 1})
    assert state.query("watched_put(X)") == []  # nothing is tapped: the rule cannot fire
    assert _kept_out(engine).get("event", 0) > 0
    state, _ = state.apply({"do": "tap", "object": "bear0"})
    assert [r["X"] for r in state.query("watched_put(X)")] == ["bear3"]
    assert state.query("watched_put(X)") == Engine(rules=[str(tmp_path)], incremental=False).state_from_dict(
        _board()
    ).apply({"do": "put_counters", "target": "bear3", "kind": "+1/+1", "n": 1})[0].apply(
        {"do": "tap", "object": "bear0"}
    )[0].query("watched_put(X)")


BOTH = {("counters_put", "bear1"), ("counters_put", "bear3")}

BEAR2 = """
## Test rule: the counters_put events of one creature, counted.
.decl puts_on_bear2(n: int) "{n} counters_put events name bear2"

@name test.puts_on_bear2
@cr 122.1
puts_on_bear2(count()) :- event(N, counters_put, bear2).
"""


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_a_question_remembers_the_keys_kept_out_that_do_not_fit_it(tmp_path):
    """Keys found not to fit a question's constants are remembered (judgelog.unread.Unread.fitting): a body
    asked of pyDatalog again (as a proof or a recursive component's delta round asks it) after more facts were
    kept out judges only the new ones; a fact that fits is read, and the answers are those of the database with
    every fact."""
    (tmp_path / "bear2.dl").write_text(BEAR2)
    engine = Engine(rules=[str(tmp_path)])
    state = engine.state_from_dict(_board())
    body, names = checked_question(engine.program, "event(N, counters_put, bear2)")

    def unfit_events() -> set:
        unfit = THREAD.engines[engine.backend.id].unfit
        return {key[1] for (pred, _consts), keys in unfit.items() if pred == "event" for key in keys}

    order = ("bear2", "bear1", "bear2", "bear3", "bear2")
    unfit_after, found = [], []
    for bear in order:
        state, _ = state.apply({"do": "put_counters", "target": bear, "kind": "+1/+1", "n": 1})
        with engine.backend.session(state.facts) as view:  # the aggregate's body, asked top-down
            found.append(len(engine.backend.ask_body(view, body, names)))
        unfit_after.append(unfit_events())
    # bear1's and bear3's events are kept out (the live rule's constants name bear2); each is judged not to
    # fit when the body is next asked, and remembered
    bear1 = {("counters_put", "bear1")}
    assert unfit_after == [set(), bear1, bear1, BOTH, BOTH]
    assert found == [1, 1, 2, 2, 3]
    assert [r["N"] for r in state.query("puts_on_bear2(N)")] == [3]
    assert len(state.query("event(N, counters_put, X)")) == 5
    whole = Engine(rules=[str(tmp_path)], incremental=False).state_from_dict(_board())
    for bear in order:
        whole, _ = whole.apply({"do": "put_counters", "target": bear, "kind": "+1/+1", "n": 1})
    assert whole.query("puts_on_bear2(N)") == state.query("puts_on_bear2(N)")


JOINED = """
## Test rule: an aggregate over the counters_put events of attacking creatures.
.decl attacking_puts(n: int) "{n} counters_put events name an attacking creature"

@name test.attacking_puts
@cr 122.1
attacking_puts(count()) :- event(N, counters_put, X), attacking(X, _).
"""


@pytest.mark.slow  # seconds: several actions or turns, or a library of its own
def test_a_question_reads_only_the_facts_kept_out_that_its_given_atoms_can_join(tmp_path):
    """The aggregate's rule cannot fire while nothing attacks, so the counters_put events stay out of
    pyDatalog; asking its body reads none of them (no event names an attacking creature), and it gives
    the answers the database with every fact gives."""
    (tmp_path / "joined.dl").write_text(JOINED)
    answers, kept = [], []
    for engine in (Engine(rules=[str(tmp_path)]), Engine(rules=[str(tmp_path)], incremental=False)):
        state = engine.state_from_dict(_board())
        for bear in ("bear1", "bear2"):
            state, _ = state.apply({"do": "put_counters", "target": bear, "kind": "+1/+1", "n": 1})
        answers.append(state.query("attacking_puts(N)"))
        kept.append(_kept_out(engine).get("event", 0))
        board = dict(_board(), combat={"attackers": {"bear2": "bob"}})
        attacked = engine.state_from_dict(board)
        attacked, _ = attacked.apply({"do": "put_counters", "target": "bear2", "kind": "+1/+1", "n": 1})
        answers.append(attacked.query("attacking_puts(N)"))
    assert kept[0] >= 2  # both events waited outside, though the aggregate's body was asked
    assert answers[0] == answers[2] == [] and answers[1] == answers[3] == [{"N": 1}]
