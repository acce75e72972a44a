"""Evaluation outside recursion is bounded too: integers computed by a rule or a query stop at the integer
limit (L003) wherever pyDatalog computes them, and a rule whose body multiplies unconnected parts beyond
the limit on derived facts is refused before pyDatalog enumerates it (L004). Exit code 5, never a
traceback, and the next question is answered again.

Every question runs under a watchdog: a hang fails the test instead of stalling the suite.
"""

from __future__ import annotations

import pytest
from helpers import run_cli, watchdog

from judgelog import Engine
from judgelog.errors import LimitError
from judgelog.recursion import Limits

POWERS = """\
## Test rules: powers of a number, without recursion.
.decl start(n: int) "counting starts at {n}" input
.decl p1(n: int) "{n} is the first power"
.decl p2(n: int) "{n} is the second power"

@name t.p1
@cr 100.1
p1(X) :- start(Y), X = {product}.

@name t.p2
@cr 100.1
p2(X) :- p1(Y), X = {product}.
"""


@pytest.mark.slow
def test_integers_computed_outside_recursion_stop_at_the_limit(capsys, tmp_path):
    rules = tmp_path / "powers.dl"
    rules.write_text(POWERS.replace("{product}", " * ".join(["Y"] * 100)), encoding="utf-8")
    scenario = tmp_path / "s.yaml"
    scenario.write_text('players: [alice]\nfacts: ["start(999999)"]\n', encoding="utf-8")
    with watchdog(60):  # was: p2 ran for minutes (600 digits to the power 100), then exit 4 printing it
        run = run_cli(capsys, ["query", "--rules", str(rules), str(scenario), "p2(X)"])
    assert run.code == 5 and "error: [L003]" in run.err and "Traceback" not in run.err, run.err
    engine = Engine(rules=[str(rules)], limits=Limits(int_digits=700))
    state = engine.state_from_dict({"players": ["alice"], "facts": ["start(999999)"]})
    with watchdog(60):
        [answer] = state.query("p1(X)")
        assert answer["X"] == 999999**100
        for _ in range(2):  # the same error each time
            with pytest.raises(LimitError, match=r"\[L003\]"):
                state.query("p2(X)")
        assert state.query("p1(X)") == [answer]


def test_a_query_computing_a_huge_integer_stops_at_the_limit(capsys, tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text("players: [alice]\nlife: {alice: " + "9" * 100 + "}\n", encoding="utf-8")
    run = run_cli(capsys, ["query", str(scenario), "life(P, L), M = L * L * L * L * L * L * L * L * L * L"])
    assert run.code == 5 and "[L003]" in run.err, run.err  # was 4 past 4,300 digits: ValueError printing it
    run = run_cli(capsys, ["query", str(scenario), "life(P, L), L > 5"])
    assert run.code == 0 and "9" * 100 in run.out  # a given integer is not computed: answered as given


# -- bodies of unconnected parts -------------------------------------------------------------------------
def cross_rules(tmp_path, width, head="X0"):
    body = ", ".join(f"f(X{i})" for i in range(width))
    path = tmp_path / f"cross{width}.dl"
    path.write_text(
        '## Test rules: a cross product.\n.decl f(v: atom) "{v} is a value" input\n'
        f'.decl big(v: atom) "{{v}} is big"\n.decl pair(a: atom, b: atom) "{{a}} and {{b}}"\n\n'
        f"@name t.big\n@cr 100.1\nbig({head}) :- {body}.\n\n"
        "@name t.pair\n@cr 100.1\npair(A, B) :- f(A), f(B).\n",
        encoding="utf-8",
    )
    return path


def test_a_rule_multiplying_unconnected_parts_beyond_the_limit_is_refused(capsys, tmp_path):
    rules = cross_rules(tmp_path, 16)  # 3^16 = 43 million combinations for 3 answers
    scenario = tmp_path / "s.yaml"
    scenario.write_text('players: [alice]\nfacts: ["f(a)", "f(b)", "f(c)"]\n', encoding="utf-8")
    with watchdog(60):  # was: 90 s in pyDatalog's loop, then "internal error"
        run = run_cli(capsys, ["query", "--rules", str(rules), str(scenario), "big(X)"])
    assert run.code == 5 and (str(rules), 8, 1, "error", "L004") in run.diagnostics(), run.err
    assert "rule t.big joins 16 unconnected parts (f(X0), f(X1), f(X2), f(X3), ...): about 43046721" in run.err
    assert "--max-join N" in run.err and "Traceback" not in run.err
    with watchdog(60):  # a question that does not reach the rule is answered
        run = run_cli(capsys, ["query", "--rules", str(rules), str(scenario), "pair(a, B)"])
    assert run.code == 0 and run.out.split() == ["B", "-", "a", "b", "c", "(3", "answers)"], run.out


def test_the_limit_is_configurable_and_a_refusal_leaves_the_state_usable(capsys, tmp_path):
    rules = cross_rules(tmp_path, 4)  # 81 combinations
    scenario = tmp_path / "s.yaml"
    scenario.write_text('players: [alice]\nfacts: ["f(a)", "f(b)", "f(c)"]\n', encoding="utf-8")
    run = run_cli(capsys, ["query", "--rules", str(rules), str(scenario), "big(X)"])
    assert run.code == 0 and "(3 answers)" in run.out
    run = run_cli(capsys, ["query", "--rules", str(rules), "--max-join", "50", str(scenario), "big(X)"])
    assert run.code == 5 and "about 81 combinations, more than 50" in run.err
    engine = Engine(rules=[str(rules)], limits=Limits(join_combinations=50))
    state = engine.state_from_dict({"players": ["alice"], "facts": ["f(a)", "f(b)", "f(c)"]})
    for _ in range(2):
        with pytest.raises(LimitError) as info:
            state.query("big(X)")
        assert info.value.code == "L004" and info.value.diagnostics[0].span.line == 8
        assert state.query("pair(A, b)") == [{"A": "a"}, {"A": "b"}, {"A": "c"}]
    small = engine.state_from_dict({"players": ["alice"], "facts": ["f(a)", "f(b)"]})  # 16 combinations
    assert small.query("big(X)") == [{"X": "a"}, {"X": "b"}]


def test_a_query_multiplying_unconnected_parts_is_refused_at_its_position(tmp_path):
    rules = cross_rules(tmp_path, 2)
    engine = Engine(rules=[str(rules)], limits=Limits(join_combinations=1000))
    state = engine.state_from_dict({"players": ["alice"], "facts": [f"f(v{i})" for i in range(12)]})
    assert len(state.query("f(A), f(B)")) == 144
    with watchdog(60), pytest.raises(LimitError) as info:
        state.query("f(A), f(B), f(C)")  # 1,728 combinations
    [diag] = info.value.diagnostics
    assert (diag.code, diag.span.file, diag.span.col) == ("L004", "<query>", 7)  # where the second part begins
    assert "the query joins 3 unconnected parts" in diag.message
    assert len(state.query("f(A), f(B), A = B")) == 12  # an assignment joins: no product


def _attack(keyword: str | None, n: int = 30) -> dict:
    """``n`` attackers (with ``keyword``, if any) and ``n`` untapped creatures of the defending player."""
    objects: dict[str, dict] = {}
    for i in range(n):
        spec: dict = {"name": "Attacker", "types": ["creature"], "power": 1, "toughness": 1, "controller": "alice"}
        if keyword is not None:
            spec["keywords"] = [keyword]
        objects[f"a{i}"] = spec
        objects[f"b{i}"] = {"name": "Blocker", "types": ["creature"], "power": 1, "toughness": 1, "controller": "bob"}
    return {
        "players": ["alice", "bob"],
        "active": "alice",
        "objects": objects,
        "combat": {"attackers": {f"a{i}": "bob" for i in range(n)}},
    }


def test_an_atom_with_a_constant_is_sized_by_the_facts_with_that_constant():
    # fear.only_artifact_or_black joins {attacking(A, _), has_keyword(A, fear)} with {creature(B)}: with no
    # creature with fear the first part is empty, whatever other keywords the attackers have
    engine = Engine(limits=Limits(join_combinations=1000))
    for other in (None, "vigilance"):
        state = engine.state_from_dict(_attack(other))
        with watchdog(120):
            assert not state.holds("block_restriction(B, A, fear)")
    with watchdog(120), pytest.raises(LimitError) as info:  # 30 fear attackers x 60 creatures: refused
        engine.state_from_dict(_attack("fear")).holds("block_restriction(B, A, fear)")
    assert info.value.code == "L004" and "fear.only_artifact_or_black" in str(info.value)


@pytest.mark.slow
def test_a_step_that_grows_what_a_question_joins_is_estimated_again(tmp_path):
    """The join check is one state's: a rule and a query found within the limit on a small state are refused
    once a step grows what they join, and answered again when it shrinks back."""
    rules = cross_rules(tmp_path, 4)
    engine = Engine(rules=[str(rules)], limits=Limits(join_combinations=50))
    small = engine.state_from_dict({"players": ["alice"], "facts": ["f(a)", "f(b)"]})  # 16 combinations
    grown = small.with_facts(set(small.facts) | {("f", "c")})  # 81
    question = "f(A), f(B), pair(C, D)"  # 2 x 2 x 4 = 16, then 3 x 3 x 9 = 81
    for _ in range(2):
        assert small.query("big(X)") == [{"X": "a"}, {"X": "b"}]
        assert len(small.query(question)) == 16
        assert grown.query("player(P)") == [{"P": "alice"}]  # a question the change cannot reach
        for text in ("big(X)", question):
            with pytest.raises(LimitError) as info:
                grown.query(text)
            assert info.value.code == "L004"


@pytest.mark.slow
def test_a_step_that_leaves_the_joined_sizes_alone_keeps_the_verdicts_of_the_state_before(tmp_path, monkeypatch):
    """A state whose counts the join check read are those of a state checked before takes that state's
    verdicts without estimating again (an action's steps change a few facts); a count read that differs
    (one more ``f``) is estimated again, and refused past the limit."""
    from judgelog import widejoins

    estimates = []
    real = widejoins.estimate
    monkeypatch.setattr(widejoins, "estimate", lambda parts, size: estimates.append(parts) or real(parts, size))
    rules = tmp_path / "derived_cross.dl"  # parts of a derived predicate: no cheap bound, so estimated
    rules.write_text(
        '## Test rules: a cross product of a derived predicate.\n.decl f(v: atom) "{v} is a value" input\n'
        '.decl g(v: atom) "{v} is a value too"\n.decl big(v: atom) "{v} is big"\n'
        '.decl h(v: atom) "{v} is a value no rule reads" input\n\n'
        "@name t.g\n@cr 100.1\ng(X) :- f(X).\n\n@name t.big\n@cr 100.1\nbig(X0) :- g(X0), g(X1), g(X2).\n",
        encoding="utf-8",
    )
    engine = Engine(rules=[str(rules)], limits=Limits(join_combinations=30))
    small = engine.state_from_dict({"players": ["alice"], "facts": ["f(a)", "f(b)", "f(c)"]})  # 27
    assert len(small.query("big(X)")) == 3 and estimates
    estimates.clear()
    other = small.with_facts(set(small.facts) | {("h", "x")})  # no count the check read changes (no rule reads h)
    assert len(other.query("big(X)")) == 3 and not estimates
    grown = other.with_facts(set(other.facts) | {("f", "d")})  # 4^3 = 64
    with pytest.raises(LimitError) as info:
        grown.query("big(X)")
    assert info.value.code == "L004" and estimates


@pytest.mark.slow
def test_the_same_wide_question_written_twice_is_refused_at_each_ones_position(tmp_path):
    rules = cross_rules(tmp_path, 2)
    engine = Engine(rules=[str(rules)], limits=Limits(join_combinations=1000))
    state = engine.state_from_dict({"players": ["alice"], "facts": [f"f(v{i})" for i in range(12)]})
    for text, col in (("f(A), f(B), f(C)", 7), ("f(A),   f(B),  f(C)", 9), ("f(A), f(B), f(C)", 7)):
        with pytest.raises(LimitError) as info:
            state.query(text)
        assert info.value.diagnostics[0].span.col == col, text


@pytest.mark.slow
def test_a_body_passed_by_the_cheap_bound_is_within_the_limit_by_its_estimate(monkeypatch):
    """The check passes a body without estimating its rules when the facts of its fact atoms bound it within
    the limit: wherever it does, the estimate is within the limit too (bundled scenarios under a low limit,
    where both happen)."""
    from replays import NAMES

    from judgelog.widejoins import StateCheck, estimate

    surely = StateCheck._surely_within
    seen = {True: 0, False: 0}

    def checked(self, parts):
        found = surely(self, parts)
        if found:
            assert estimate(parts, self.size) <= self.limit, parts
        seen[found] += 1
        return found

    monkeypatch.setattr(StateCheck, "_surely_within", checked)
    engine = Engine(limits=Limits(join_combinations=40))
    for name in NAMES[::8]:
        try:
            state = engine.load(engine.example(name))
        except LimitError:  # the load's own questions can pass so low a limit
            continue
        for pred in sorted(engine.program.decls):
            try:
                state.derived(pred)
            except LimitError:
                pass
    assert seen[True] > 20 and seen[False] > 20, seen
