"""Differential testing on generated input: random rule programs of the language (stratified negation,
comparisons, arithmetic with division by zero, every aggregate) on random facts, and random combat boards on the shipped
library; the pyDatalog and clingo backends must derive the same facts."""

from __future__ import annotations

import pytest

pytest.importorskip("clingo")

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from judgelog.analysis import analyze  # noqa: E402
from judgelog.ast import Atom, Var  # noqa: E402
from judgelog.backend import Backend  # noqa: E402
from judgelog.clingo_backend import ClingoBackend  # noqa: E402
from judgelog.parser import parse_text  # noqa: E402

DECLS = """
.decl e(x: atom) "" input
.decl r(x: atom, y: atom) "" input
.decl n(x: atom, v: int) "" input
.decl d1(x: atom) ""
.decl d2(x: atom, y: atom) ""
.decl d3(x: atom, v: int) ""
.decl d4(x: atom) ""
"""
# predicate -> argument kinds; derived ones in stratum order (a rule may negate only lower ones)
SIGNATURES = {"e": "a", "r": "aa", "n": "ai", "d1": "a", "d2": "aa", "d3": "ai", "d4": "a"}
DERIVED = ["d1", "d2", "d3", "d4"]
WORDS = ["a", "b", "c"]
ATOM_VARS, INT_VARS = ["X", "Y", "Z"], ["N", "M"]


@st.composite
def atoms(draw, preds, bound):
    pred = draw(st.sampled_from(preds))
    args = []
    for kind in SIGNATURES[pred]:
        pool = ATOM_VARS if kind == "a" else INT_VARS
        consts = WORDS if kind == "a" else ["0", "1", "2"]
        args.append(draw(st.sampled_from(pool + consts[:1] + ["_"])))
    return pred, args


@st.composite
def rules(draw, head, index):
    level = DERIVED.index(head)
    usable = ["e", "r", "n"] + DERIVED[: level + 1]
    lower = ["e", "r", "n"] + DERIVED[:level]
    body, bound, ints = [], set(), set()
    for _ in range(draw(st.integers(1, 3))):
        pred, args = draw(atoms(usable, bound))
        body.append(f"{pred}({', '.join(args)})")
        for kind, arg in zip(SIGNATURES[pred], args):
            if arg[0].isupper():
                bound.add(arg)
                if kind == "i":
                    ints.add(arg)
    if draw(st.booleans()):
        pred, args = draw(atoms(lower, bound))
        args = [a if not a[0].isupper() or a in bound else "_" for a in args]
        body.append(f"not {pred}({', '.join(args)})")
    if ints and draw(st.booleans()):
        var = draw(st.sampled_from(sorted(ints)))
        body.append(f"{var} {draw(st.sampled_from(['<', '<=', '>', '>=', '=', '!=']))} {draw(st.integers(0, 2))}")
    if ints and draw(st.booleans()):
        var = draw(st.sampled_from(sorted(ints)))
        new = "K"
        if draw(st.booleans()):
            body.append(f"{new} = {var} {draw(st.sampled_from(['+', '-', '*', '/']))} {draw(st.integers(0, 2))}")
        else:  # a divisor that is 0 in some facts: no value there (docs/language.md)
            body.append(f"{new} = {draw(st.integers(-3, 3))} / {var}")
        ints.add(new)
        bound.add(new)
    if len(ATOM_VARS) and ("X" in bound or "Y" in bound) and draw(st.booleans()):
        pair = sorted(v for v in bound if v in ATOM_VARS)
        body.append(f"{pair[0]} != {draw(st.sampled_from(pair + WORDS))}")
    words = sorted(v for v in bound if v in ATOM_VARS) + WORDS[:1]
    args = []
    aggregate = head == "d3" and draw(st.booleans())
    for kind in SIGNATURES[head]:
        if kind == "i" and aggregate:
            func = draw(st.sampled_from(["sum", "count", "min", "max"]))
            if func != "count" and not ints:
                func = "count"
            args.append("count()" if func == "count" else f"{func}({draw(st.sampled_from(sorted(ints)))})")
        elif kind == "a":
            args.append(draw(st.sampled_from(words)))
        else:
            args.append(draw(st.sampled_from(sorted(ints) + ["1"])))
    if aggregate:  # an aggregate reads only lower strata
        body = [lit for lit in body if not any(lit.lstrip("not ").startswith(p + "(") for p in DERIVED[level:])]
        assume(body and any(not lit.startswith("not ") and "(" in lit for lit in body))
    return f"@name t.r{index}\n@cr 100.1\n{head}({', '.join(args)}) :- {', '.join(body)}.\n"


@st.composite
def programs(draw):
    text = DECLS
    for i in range(draw(st.integers(1, 6))):
        text += draw(rules(draw(st.sampled_from(DERIVED)), i))
    return text


facts_strategy = st.tuples(
    st.sets(st.sampled_from(WORDS)),
    st.sets(st.tuples(st.sampled_from(WORDS), st.sampled_from(WORDS))),
    st.sets(st.tuples(st.sampled_from(WORDS), st.integers(0, 3))),
).map(lambda t: frozenset([("e", w) for w in t[0]] + [("r",) + p for p in t[1]] + [("n",) + p for p in t[2]]))


def _relation(backend, facts, pred):
    names = [f"V{i}" for i in range(len(SIGNATURES[pred]))]
    with backend.session(facts) as view:
        return backend.ask(view, (Atom(pred, tuple(Var(n) for n in names)),), names)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(text=programs(), facts=facts_strategy)
def test_random_programs_derive_the_same_facts(text, facts):
    program, diags = analyze([parse_text(text, "random.dl")])
    assume(not [d for d in diags if d.severity == "error"])
    pyd, clg = Backend(program), ClingoBackend(program)
    for pred in DERIVED:
        assert _relation(pyd, facts, pred) == _relation(clg, facts, pred), (pred, text)


CARDS = ["Benalish Hero", "Craw Wurm", "Grizzly Bears", "Mesa Pegasus", "Serra Angel", "Llanowar Elves"]


@st.composite
def boards(draw):
    n = draw(st.integers(1, 6))
    objects, mine, theirs = {}, [], []
    for i in range(n):
        controller = draw(st.sampled_from(["alice", "bob"]))
        obj = {"card": draw(st.sampled_from(CARDS)), "controller": controller}
        if draw(st.booleans()):
            obj["counters"] = {"p1p1": draw(st.integers(1, 2))}
        objects[f"c{i}"] = obj
        (mine if controller == "alice" else theirs).append(f"c{i}")
    attackers = draw(st.lists(st.sampled_from(mine), unique=True)) if mine else []
    combat = {}
    if attackers:
        combat["attackers"] = {a: "bob" for a in attackers}
        if len(attackers) > 1 and draw(st.booleans()):
            combat["bands"] = [attackers[: draw(st.integers(2, len(attackers)))]]
        blockers = {}
        for b in theirs:
            if draw(st.booleans()):
                blockers[b] = [draw(st.sampled_from(attackers))]
        if blockers:
            combat["blockers"] = blockers
    board = {"players": ["alice", "bob"], "active": "alice", "objects": objects}
    if combat:
        board["combat"] = combat
    return board


@pytest.fixture(scope="module")
def engines(replays):
    """The session's engines (tests/replays.py)."""
    return replays.engine("pydatalog"), replays.engine("clingo")


@pytest.mark.slow
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(board=boards())
def test_random_boards_derive_the_same_facts(engines, board):
    pyd, clg = engines
    s1, s2 = pyd.state_from_dict(board), clg.state_from_dict(board)
    for pred in sorted(pyd.program.decls):
        if pyd.program.derived(pred):
            assert s1.derived(pred) == s2.derived(pred), pred
