"""Unit tests of the query planner's helpers (judgelog.planning): binding patterns, unfolding of
single-rule predicates, liveness probes, constant folding, aggregates and the order of answers."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judgelog.analysis import analyze
from judgelog.ast import Aggregate, Atom, BinOp, Comparison, Const, Negation, Var
from judgelog.errors import QueryError
from judgelog.parser import parse_atom, parse_body, parse_text
from judgelog.planning import (
    IMPOSSIBLE,
    aggregate_value,
    binding_pattern,
    checked_rows,
    fold_constants,
    literal_terms,
    pattern_text,
    probe_alive,
    probe_of,
    row_sort_key,
    sorted_rows,
    unfold,
    value_key,
    variant_name,
    why_vars,
)


def rule(text: str):
    (item,) = parse_text(text, "t.dl").items
    return item


def texts(literals) -> list:
    return [str(lit) for lit in literals]


def test_a_pattern_says_which_arguments_are_known():
    atom = Atom("p", (Var("X"), Var("Y"), Const("a"), BinOp("+", Var("X"), Var("Z"))))
    assert binding_pattern(atom, set()) == (False, False, True, False)
    assert binding_pattern(atom, {"X"}) == (True, False, True, False)
    assert binding_pattern(atom, {"X", "Z"}) == (True, False, True, True)
    assert pattern_text(binding_pattern(atom, {"Y"})) == "fbbf"
    assert variant_name("p", (True, False), 3) == "p@bf@3"
    counted = Atom("total", (Var("X"), Aggregate("count", None)))
    assert binding_pattern(counted, {"X"}) == (True, False)  # an aggregate is never known beforehand


def test_unfolding_matches_head_arguments():
    r = rule("q(X, Y) :- r(X, Y), s(Y), Y != 0.")
    out = unfold(parse_atom("q(a, W)"), r, r.body, 7, False)
    assert texts(out) == ["r(a, W)", "s(W)", "W != 0"]


def test_a_rule_whose_head_drops_a_body_variable_stays_a_call():
    """q(X, Y) :- r(X, Z), s(Z, Y) answers each (X, Y) once; unfolded, its body would answer it once per Z and
    multiply the rows of the body it joins (every attacker of a player, for every other row)."""
    r = rule("q(X, Y) :- r(X, Z), s(Z, Y), Z != 0.")
    assert unfold(parse_atom("q(a, W)"), r, r.body, 7, False) is None
    r = rule("attacked(T) :- attacking(_, T).")
    assert unfold(parse_atom("attacked(bob)"), r, r.body, 7, False) is None


def test_under_not_the_rest_is_renamed_apart():
    r = rule("q(X) :- thing(X, Y).")
    out = unfold(parse_atom("q(a)"), r, r.body, 2, True)
    assert out == [Atom("thing", (Const("a"), Var("_Y#2")))]


def test_unfolding_a_repeated_head_variable_adds_an_equality():
    r = rule("same(X, X) :- thing(X).")
    assert texts(unfold(parse_atom("same(A, B)"), r, r.body, 1, False)) == ["A = B", "thing(A)"]
    r = rule("q(a, X) :- thing(X).")
    assert texts(unfold(parse_atom("q(A, b)"), r, r.body, 1, False)) == ["A = a", "thing(b)"]


def test_unfolding_against_a_different_constant_is_impossible():
    r = rule("q(a, X) :- thing(X).")
    assert unfold(parse_atom("q(b, Y)"), r, r.body, 1, False) is IMPOSSIBLE
    assert unfold(parse_atom("q(a, Y)"), r, r.body, 1, False) is not IMPOSSIBLE


def test_what_cannot_be_unfolded():
    r = rule("q(X) :- thing(X), other(X).")
    assert unfold(Atom("q", (BinOp("+", Var("Y"), Const(1)),)), r, r.body, 1, False) is None  # an arithmetic argument
    assert unfold(parse_atom("q(Y)"), r, r.body, 1, True) is None  # under not: more than one atom
    tested = rule("q(X) :- thing(X), X > 2.")
    assert unfold(parse_atom("q(_)"), tested, tested.body, 1, False) is None  # "any value" reaching a test
    one = rule("q(X, a) :- thing(X).")
    assert unfold(parse_atom("q(Y, Z)"), one, one.body, 1, True) is None  # under not with an equality


def test_unfolding_under_not_keeps_the_rest_anonymous():
    r = rule("q(X) :- link(X, Y).")
    (out,) = unfold(parse_atom("q(a)"), r, r.body, 4, True)
    assert out == Atom("link", (Const("a"), Var("_Y#4")))


def test_literal_terms():
    atom, neg, cmp_ = parse_body("p(X, 1), not r(X), X < 3")
    assert literal_terms(atom) == atom.args
    assert literal_terms(neg) == neg.atom.args
    assert literal_terms(cmp_) == (cmp_.left, cmp_.right)


def test_a_probe_keeps_the_predicate_and_its_constants_but_no_floats():
    assert probe_of(Atom("p", (Var("X"), Const("a"), Const(2), Const(1.5)))) == ("p", ((1, "a"), (2, 2)))


def test_a_probe_is_alive_while_facts_could_match_it():
    counts = {"p": 2, ("p", 1, "a"): 1}
    positions = {"p": {1}}
    assert probe_alive(counts, ("p", ((1, "a"),)), positions)
    assert not probe_alive(counts, ("p", ((1, "b"),)), positions)  # no fact of p has b at position 1
    assert probe_alive(counts, ("p", ((0, "z"),)), positions)  # position 0 is not counted: can't tell
    assert not probe_alive(counts, ("q", ()), positions)  # no fact of q at all
    assert not probe_alive({"p": 0}, ("p", ()), positions)


def test_constant_arithmetic_is_folded():
    assert fold_constants(BinOp("+", Const(2), BinOp("-", Const(5), Const(1)))) == Const(6)
    assert fold_constants(BinOp("+", Var("X"), BinOp("-", Const(5), Const(1)))) == BinOp("+", Var("X"), Const(4))
    assert fold_constants(BinOp("+", Const("a"), Const(1))) == BinOp("+", Const("a"), Const(1))  # not numbers
    assert fold_constants(Var("X")) == Var("X")


def test_an_arithmetic_error_in_an_answer_is_refused():
    rows = [("a", 1), ("b", 2)]
    assert checked_rows(rows) is rows
    with pytest.raises(QueryError, match="arithmetic on a value that is not a number"):
        checked_rows([("a", 1), ("b", TypeError("unsupported operand"))])


def test_why_vars_are_the_bound_variables_in_body_order():
    program, diags = analyze(
        parse_text_files("""
.decl edge(a: atom, b: atom) "{a} to {b}" input
.decl far(a: atom, b: atom) "{a} far from {b}"
@name t.far
@cr 100.1
far(X, Z) :- edge(X, Y), edge(Y, Z), not edge(X, Z).
""")
    )
    assert not [d for d in diags if d.is_error]
    (far,) = program.rules
    assert why_vars(far, program) == ("X", "Y", "Z")


def parse_text_files(text: str):
    return [parse_text(text, "t.dl")]


@pytest.mark.parametrize("func, expected", [("count", 3), ("sum", 7), ("min", 1), ("max", "b")])
def test_aggregates(func, expected):
    bindings = [{"N": 1}, {"N": 6}, {"N": "b"}]
    assert aggregate_value(Aggregate(func, None if func == "count" else Var("N")), bindings) == expected


def test_answers_sort_numbers_before_atoms():
    rows = [("b", 1), (10, "a"), (2, "z"), ("a", 3)]
    assert sorted(rows, key=row_sort_key) == [(2, "z"), (10, "a"), ("a", 3), ("b", 1)]
    assert value_key(3) < value_key("a")


def test_a_comparison_and_negation_unfold_with_the_call_arguments():
    r = rule("q(X, Y) :- thing(X, Y), not gone(Y), Y > X.")
    out = unfold(parse_atom("q(a, B)"), r, r.body, 2, False)
    assert out[1] == Negation(Atom("gone", (Var("B"),)))
    assert out[2] == Comparison(">", Var("B"), Const("a"))


_VALUES = st.one_of(st.integers(-5, 5), st.sampled_from(["a", "b", "B", "10", "9", ""]))


@given(st.integers(0, 3).flatmap(lambda n: st.lists(st.tuples(*[_VALUES] * n), max_size=12)))
def test_sorted_rows_is_the_order_of_row_sort_key(rows):
    """Rows whose columns hold one type each are sorted by their values; a column mixing numbers and words
    falls back to the key (numbers first): either way the order is row_sort_key's."""
    assert sorted_rows(rows) == sorted(rows, key=row_sort_key)


def test_one_atom_question_reads_its_rows_as_the_join_does():
    """A question of one atom with distinct variables is answered from the atom's rows, projected; with a
    constant or a repeated variable it is joined as any other body. Both give what the join gives."""
    from judgelog import joins

    rel = {"p": [(1, "a"), (2, "b"), (2, 2)]}
    for body, names in (
        ("p(N, X)", ["N", "X"]),
        ("p(N, X)", ["X"]),
        ("p(N, X)", ["X", "N"]),
        ("p(N, _)", ["N"]),
        ("p(N, N)", ["N"]),
        ("p(2, X)", ["X"]),
    ):
        parsed = parse_body(body)
        joined = {tuple(b[n] for n in names) for b in joins._solve(tuple(parsed), 0, {}, joins.Relations(rel.get))}
        assert joins.answers(rel.get, parsed, names) == joined, body
    assert joins._one_atom_places(parse_body("p(N, X)"), ["X", "N"]) == [1, 0]
    assert joins._one_atom_places(parse_body("p(N, N)"), ["N"]) is None
