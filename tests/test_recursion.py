"""Recursive rules terminate on finite facts whatever their literal order, and answer like a closure
computed in Python: left, right and double recursion, mutual recursion, over cycles, asked with bound and
free arguments, through the API and the command line; proofs of recursive facts hold and follow first
derivations (no cycles, one step per link).

Every question runs under a watchdog: a hang fails the test instead of stalling the suite.
"""

from __future__ import annotations

import textwrap

import pytest
from helpers import run_cli, watchdog
from sampling import everyday_sample

from judgelog import Engine
from judgelog.provenance import MAX_PROOF_DEPTH

HEADER = """\
## Test rules: reachability over an edge relation.
.decl edge(a: atom, b: atom) "{a} leads to {b}" input
.decl reach(a: atom, b: atom) "{b} can be reached from {a}"
.decl odd(a: atom, b: atom) "an odd path leads from {a} to {b}"
.decl even(a: atom, b: atom) "an even path leads from {a} to {b}"

@name t.reach_edge
@cr 100.1
reach(X, Y) :- edge(X, Y).
"""

RECURSIVE_RULES = {
    "left": "reach(X, Z) :- reach(X, Y), edge(Y, Z).",
    "left_reordered": "reach(X, Z) :- edge(Y, Z), reach(X, Y).",
    "right": "reach(X, Z) :- edge(X, Y), reach(Y, Z).",
    "right_reordered": "reach(X, Z) :- reach(Y, Z), edge(X, Y).",
    "double": "reach(X, Z) :- reach(X, Y), reach(Y, Z).",
}

MUTUAL = """
@name t.odd_edge
@cr 100.1
odd(X, Y) :- edge(X, Y).

@name t.even_step
@cr 100.1
even(X, Z) :- odd(X, Y), edge(Y, Z).

@name t.odd_step
@cr 100.1
odd(X, Z) :- edge(Y, Z), even(X, Y).
"""

GRAPHS = {
    "triangle": [("a", "b"), ("b", "c"), ("c", "a")],
    "self_loop_and_tail": [("a", "a"), ("a", "b"), ("b", "c"), ("d", "c")],
    "two_cycles": [("a", "b"), ("b", "a"), ("b", "c"), ("c", "d"), ("d", "c"), ("e", "a")],
}


def closure(edges):
    reach = set(edges)
    while True:
        more = {(x, w) for (x, y) in reach for (z, w) in edges if y == z} - reach
        if not more:
            return reach
        reach |= more


def parity_paths(edges):
    odd, even = set(edges), set()
    while True:
        new_even = {(x, z) for (x, y) in odd for (w, z) in edges if y == w} - even
        new_odd = {(x, z) for (x, y) in even for (w, z) in edges if y == w} - odd
        if not new_even and not new_odd:
            return odd, even
        even |= new_even
        odd |= new_odd


def write_rules(tmp_path, extra):
    path = tmp_path / "reach.dl"
    path.write_text(HEADER + textwrap.dedent(extra), encoding="utf-8")
    return str(path)


def state_of(engine, edges):
    return engine.state_from_dict({"players": ["alice"], "facts": [f"edge({a}, {b})" for a, b in edges]})


@pytest.fixture(scope="module", params=everyday_sample(sorted(RECURSIVE_RULES), 2))  # all: -m slow
def reach_engine(request, tmp_path_factory):
    rule = RECURSIVE_RULES[request.param]
    path = write_rules(tmp_path_factory.mktemp(request.param), f"\n@name t.reach_step\n@cr 100.1\n{rule}\n")
    return Engine(rules=[path])


@pytest.mark.parametrize("graph", everyday_sample(sorted(GRAPHS), 6))  # all: -m slow
def test_reachability_whatever_the_literal_order(reach_engine, graph):
    edges = GRAPHS[graph]
    expected = closure(edges)
    nodes = sorted({n for e in edges for n in e})
    state = state_of(reach_engine, edges)
    with watchdog():
        assert {(a["X"], a["Y"]) for a in state.query("reach(X, Y)")} == expected
        assert {a["X"] for a in state.query("reach(X, X)")} == {x for x, y in expected if x == y}
        for node in nodes:
            assert {a["Y"] for a in state.query(f"reach({node}, Y)")} == {y for x, y in expected if x == node}
            assert {a["X"] for a in state.query(f"reach(X, {node})")} == {x for x, y in expected if y == node}
            for other in nodes:
                assert state.holds(f"reach({node}, {other})") is ((node, other) in expected)


@pytest.mark.parametrize("graph", everyday_sample(sorted(GRAPHS), 6, offset=3))  # all: -m slow
def test_proofs_of_recursive_facts_hold_and_never_go_round_a_cycle(reach_engine, graph):
    edges = GRAPHS[graph]
    state = state_of(reach_engine, edges)
    with watchdog():
        for x, y in sorted(closure(edges)):
            proof = state.explain(f"reach({x}, {y})")
            assert proof is not None and proof.kind == "rule"
            seen = set()
            for node in proof.walk():
                if node.kind == "fact":
                    assert tuple(node.fact[1:]) in edges
                if node.kind == "rule":
                    assert node.fact not in seen, f"{node.atom} proved twice in one branch"
                    assert state.holds(node.atom)
                    seen.add(node.fact)


def test_mutual_recursion_over_a_cycle(tmp_path):
    engine = Engine(rules=[write_rules(tmp_path, MUTUAL)])
    for graph, edges in sorted(GRAPHS.items()):
        odd, even = parity_paths(edges)
        state = state_of(engine, edges)
        with watchdog():
            assert {(a["X"], a["Y"]) for a in state.query("odd(X, Y)")} == odd, graph
            assert {(a["X"], a["Y"]) for a in state.query("even(X, Y)")} == even, graph
            for x, y in sorted(even):
                assert state.explain(f"even({x}, {y})") is not None


@pytest.mark.slow
def test_a_long_chain_is_explained(tmp_path):
    """Explaining the end of a chain longer than the proof depth (a cycle of 251 nodes, 63,001 reach facts): the
    proof follows the links, cut once at the proof depth."""
    path = write_rules(tmp_path, f"\n@name t.reach_step\n@cr 100.1\n{RECURSIVE_RULES['right']}\n")
    engine = Engine(rules=[path])
    assert MAX_PROOF_DEPTH < 249
    edges = [(f"n{i}", f"n{i + 1}") for i in range(250)] + [("n250", "n0")]
    state = state_of(engine, edges)
    with watchdog(120):
        proof = state.explain("reach(n0, n249)")
    assert proof is not None
    kinds = [node.kind for node in proof.walk()]
    assert kinds.count("truncated") == 1 and kinds.count("rule") > 100


@pytest.mark.slow
def test_the_command_line_answers_left_recursion_over_a_cycle(capsys, tmp_path):
    rules = write_rules(tmp_path, f"\n@name t.reach_step\n@cr 100.1\n{RECURSIVE_RULES['left']}\n")
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        'players: [alice, bob]\nfacts: ["edge(a, b)", "edge(b, c)", "edge(c, a)"]\n'
        'expect:\n  - holds: "reach(a, b)"\n  - explain: "reach(c, c)"\n'
        '  - query: "reach(b, Y)"\n    answers: [{Y: a}, {Y: b}, {Y: c}]\n',
        encoding="utf-8",
    )
    with watchdog(120):  # three commands, each analysing the library with the test's own rules
        run = run_cli(capsys, ["query", "--rules", rules, scenario, "reach(a, b)"])
        assert (run.code, run.out.strip()) == (0, "yes")
        run = run_cli(capsys, ["explain", "--rules", rules, scenario, "reach(a, a)"])
        assert run.code == 0 and "t.reach_step" in run.out
        run = run_cli(capsys, ["test", "--rules", rules, str(scenario)])
        assert run.code == 0, run.out + run.err


# -- limits and unbounded arithmetic -------------------------------------------------------------------------
COUNTER = """\
## Test rules: counting up by recursion.
.decl start(n: int) "counting starts at {n}" input
.decl n(v: int) "{v} is counted"

@name t.start
@cr 100.1
n(X) :- start(X).

@name t.step
@cr 100.1
{step}
"""


def counter_rules(tmp_path, step):
    path = tmp_path / "counter.dl"
    path.write_text(COUNTER.replace("{step}", step), encoding="utf-8")
    return str(path)


def test_unbounded_arithmetic_recursion_is_refused_statically(capsys, tmp_path):
    path = counter_rules(tmp_path, "n(X) :- n(Y), X = Y + 1.")
    run = run_cli(capsys, ["check", "--no-library", path])
    assert run.code == 1 and (path, 11, 17, "error", "E016") in run.diagnostics(), run.err
    assert "recursive rule makes a new number for ever: X = Y + 1 feeds n again" in run.err


def test_bounded_arithmetic_recursion_is_evaluated(tmp_path):
    engine = Engine(rules=[counter_rules(tmp_path, "n(X) :- n(Y), X = Y + 1, X < 50.")])
    state = engine.state_from_dict({"players": ["alice"], "facts": ["start(3)"]})
    with watchdog():
        assert [a["V"] for a in state.query("n(V)")] == list(range(3, 50))
        assert state.explain("n(49)") is not None


@pytest.mark.parametrize(
    "argv, code",
    [
        (["--max-derived", "500"], "L001"),
        (["--time-limit", "0.5"], "L002"),
    ],
)
@pytest.mark.slow
def test_a_bound_the_wrong_way_stops_at_a_limit(capsys, tmp_path, argv, code):
    rules = counter_rules(tmp_path, "n(X) :- n(Y), X = Y + 1, X > 0.")  # compared, but never bounded
    scenario = tmp_path / "s.yaml"
    scenario.write_text('players: [alice]\nfacts: ["start(1)"]\n', encoding="utf-8")
    with watchdog(120):
        run = run_cli(capsys, ["query", "--rules", rules, *argv, str(scenario), "n(7)"])
    assert run.code == 5, run.err
    assert f"[{code}]" in run.err and "Traceback" not in run.err


def test_integers_beyond_the_value_limit_stop_evaluation(tmp_path):
    from judgelog.errors import LimitError
    from judgelog.recursion import Limits

    rules = counter_rules(tmp_path, "n(X) :- n(Y), X = Y + Y, X > 0.")  # doubles: 60 rounds to 18 digits
    engine = Engine(rules=[rules], limits=Limits(int_digits=6))
    state = engine.state_from_dict({"players": ["alice"], "facts": ["start(1)"]})
    with watchdog():
        for _ in range(2):  # the same error each time, never a partial answer
            with pytest.raises(LimitError, match=r"\[L003\]"):
                state.query("n(V)")


@pytest.mark.slow
def test_an_engine_made_from_another_keeps_its_limits(tmp_path):
    """A scenario with rules of its own, or one that expects a property, is evaluated by an engine derived
    from the one it was loaded with: the same limits, so a limit set by the caller still stops it."""
    from judgelog.errors import LimitError
    from judgelog.recursion import Limits

    rules = counter_rules(tmp_path, "n(X) :- n(Y), X = Y + Y, X > 0.")
    engine = Engine(limits=Limits(int_digits=6), incremental=False)
    for derived in (engine.with_rules([rules]), engine.with_properties(), engine.with_properties().with_rules([rules])):
        assert (derived.limits, derived.incremental) == (engine.limits, False)
    state = engine.with_properties().with_rules([rules]).state_from_dict({"players": ["alice"], "facts": ["start(1)"]})
    with watchdog(), pytest.raises(LimitError, match=r"\[L003\]"):
        state.query("n(V)")
