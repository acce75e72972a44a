"""Arithmetic of the rule language: + - * / (integer division, rounded down), min(A, B) and max(A, B), in
comparisons; aggregates over products. Parsed, checked for safety, evaluated by the backends alike."""

from __future__ import annotations

import pytest

from judgelog import Engine
from judgelog.errors import RuleError
from judgelog.library import load_program
from judgelog.parser import parse_body, parse_text

RULES = """
.decl num(n: int) "{n} is a number"
.decl calc(a: int, b: int, p: int, q: int, lo: int, hi: int) "{a}, {b}: product {p}, quotient {q}, min {lo}, max {hi}"
.decl tenfold_total(n: int) "the numbers times ten add up to {n}"
.decl bonus(n: int) "+{n}/+{n} for each number beyond the first, twice"
.decl how_many(n: int) "there are {n} numbers"
num(7). num(2). num(0). num(-3).

@name arith.calc
@cr 107.1
calc(A, B, P, Q, L, H) :- num(A), num(B), P = A * B, Q = A / B, L = min(A, B), H = max(A, B).

@name arith.tenfold_total
@cr 107.1
tenfold_total(sum(V)) :- num(A), V = A * 10.

@name arith.how_many
@cr 107.1
how_many(count()) :- num(_).

@name arith.bonus
@cr 702.23a
bonus(X) :- how_many(K), K > 1, X = (K - 1) * 2.
"""


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    path = tmp_path_factory.mktemp("arith") / "arith.dl"
    path.write_text(RULES)
    return str(path)


def test_precedence_and_printing_round_trip():
    body = parse_body("N = A - (B - C) * 2 / D + min(A, B), M = (A + B) * C, K = A / (B / C), L = A - B - C")
    assert [str(lit) for lit in body] == [
        "N = A - (B - C) * 2 / D + min(A, B)",
        "M = (A + B) * C",
        "K = A / (B / C)",
        "L = A - B - C",
    ]
    assert [str(lit) for lit in parse_body(", ".join(str(lit) for lit in body))] == [str(lit) for lit in body]
    assert str(parse_body("min(A, 1) = 1")[0]) == "min(A, 1) = 1"


def test_values(rules):
    state = Engine(rules=[rules]).state_from_dict({"players": ["alice"]})
    assert state.query("calc(7, 2, P, Q, L, H)") == [{"P": 14, "Q": 3, "L": 2, "H": 7}]
    assert state.query("calc(-3, 2, P, Q, L, H)") == [{"P": -6, "Q": -2, "L": -3, "H": 2}]  # rounded down
    assert state.query("calc(A, 0, P, Q, L, H)") == []  # division by 0: no value, no answer
    assert state.query("N = 7 / 0") == [] and state.query("N = 7 / (2 - 2)") == []
    assert state.query("tenfold_total(N)") == [{"N": 60}]
    assert state.query("bonus(X)") == [{"X": 6}]
    assert state.query("num(A), min(A, 1) = 1") == [{"A": 2}, {"A": 7}]


def test_the_proof_shows_the_computed_values(rules):
    state = Engine(rules=[rules]).state_from_dict({"players": ["alice"]})
    text = state.explain("calc(7, 2, 14, 3, 2, 7)").to_text()
    assert "14 = 14  [comparison]" in text and "3 = 3  [comparison]" in text


def test_both_backends_agree(rules):
    pytest.importorskip("clingo")
    mine = Engine(rules=[rules]).state_from_dict({"players": ["alice"]})
    other = Engine(rules=[rules], backend="clingo").state_from_dict({"players": ["alice"]})
    for query in ("calc(A, B, P, Q, L, H)", "tenfold_total(N)", "bonus(X)"):
        assert mine.query(query) == other.query(query), query


def test_safety_and_placement_are_checked(tmp_path):
    path = tmp_path / "bad.dl"
    path.write_text(
        '.decl num(n: int) "{n}"\n.decl out(n: int) "{n}"\n'
        "@name bad.unsafe\n@cr 107.1\nout(N) :- num(A), N = A * B.\n"
        "@name bad.in_atom\n@cr 107.1\nout(N) :- num(A), num(A * 2), N = A.\n"
    )
    codes = sorted({d.code for d in load_program([str(path)]).diagnostics if d.span and d.span.file == str(path)})
    assert codes == ["E001", "E004"]
    with pytest.raises(RuleError):
        parse_text("p(X) :- q(X), N = min(X).\n", "agg.dl")
