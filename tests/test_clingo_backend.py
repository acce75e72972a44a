"""The clingo backend: its compiler (judgelog.asp), choosing it, and what happens without the extra."""

from __future__ import annotations

import sys

import pytest

from judgelog import Engine, QueryError, UsageError
from judgelog.analysis import analyze
from judgelog.asp import compile_program, compile_rule, value_text
from judgelog.ast import Atom, Var
from judgelog.cli import main
from judgelog.parser import parse_text

RULES = """
.decl bonus(o: atom, s: atom, n: int) "" input
.decl total(o: atom, n: int) ""
.decl how_many(o: atom, n: int) ""
.decl lowest(o: atom, n: int) ""
.decl plain(o: atom) ""
.decl next_to(o: atom, n: int) ""
@name t.total
@cr 100.1
total(O, sum(N)) :- bonus(O, _, N).
@name t.count
@cr 100.1
how_many(O, count()) :- bonus(O, _, _).
@name t.lowest
@cr 100.1
lowest(O, min(N)) :- bonus(O, _, N).
@name t.plain
@cr 100.1
plain(O) :- bonus(O, _, _), not bonus(O, banding, _).
@name t.next
@cr 100.1
next_to(O, M) :- bonus(O, _, N), N + 1 = M.
"""


def _program():
    program, diags = analyze([parse_text(RULES, "t.dl")])
    assert not [d for d in diags if d.severity == "error"]
    return program


def test_words_are_strings_and_negative_numbers_parenthesised():
    assert value_text("banding") == '"banding"'
    assert value_text('a "b"\\') == '"a \\"b\\"\\\\"'
    assert value_text(-3) == "(-3)"
    assert value_text(7) == "7"


def test_an_aggregate_counts_bindings_and_a_lone_variable_is_assigned_on_the_left():
    program = _program()
    text = compile_rule(program.rule_by_name["t.next"], 4)
    assert "M = (N+1)" in text
    text = compile_rule(program.rule_by_name["t.count"], 1)
    assert "#count{ O,V__2_,V__3_ : j_bonus(O,V__2_,V__3_) }" in text  # every binding, the anonymous ones named
    assert 'not j_bonus(O,"banding",_)' in compile_rule(program.rule_by_name["t.plain"], 3)


def test_compiled_program_solves_to_the_pydatalog_answers():
    clingo = pytest.importorskip("clingo")
    program = _program()
    facts = [
        ("bonus", "bear", "a", 2),
        ("bonus", "bear", "b", 2),
        ("bonus", "elf", "banding", 5),
        ("bonus", "elf", "c", -1),
    ]
    asp = compile_program(program, facts=facts)
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], asp.text)
    ctl.ground([("base", [])])
    model = []
    ctl.solve(on_model=lambda m: model.extend(asp.names.fact(s) for s in m.symbols(atoms=True)))
    derived = {f for f in model if f is not None and f[0] != "bonus"}
    assert derived == {
        ("total", "bear", 4),
        ("total", "elf", 4),
        ("how_many", "bear", 2),
        ("how_many", "elf", 2),
        ("lowest", "bear", 2),
        ("lowest", "elf", -1),
        ("plain", "bear"),
        ("next_to", "bear", 3),
        ("next_to", "elf", 6),
        ("next_to", "elf", 0),
    }


def test_a_slice_holds_only_the_rules_the_predicates_depend_on():
    text = compile_program(_program(), preds=["plain"]).text
    assert "j_plain" in text and "#sum" not in text


def test_every_predicates_facts_at_once_are_each_predicates_facts_on_both_backends():
    # derived_all grounds, on clingo, the rules of every predicate asked in one call; the answers are
    # derived's, predicate by predicate, on either backend
    for engine in (Engine(), Engine(backend="clingo")):
        state = engine.load(engine.example("banding_blocked_by_one.yaml"))
        every = state.derived_all()
        assert sorted(every) == sorted(engine.program.decls)
        assert every["damage_assigner"]
        fresh = engine.load(engine.example("banding_blocked_by_one.yaml"))  # another state: nothing ground yet
        assert {pred: fresh.derived(pred) for pred in sorted(engine.program.decls)} == every
        assert state.derived_all(["blocked_by", "attacking"]) == {p: every[p] for p in ("blocked_by", "attacking")}
        with pytest.raises(QueryError, match="unknown predicate 'no_such'"):
            state.derived_all(["attacking", "no_such"])


def test_an_unknown_backend_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown backend 'souffle'"):
        Engine(backend="souffle")


def test_without_the_extra_the_clingo_backend_names_the_install(monkeypatch, capsys, chdir_root):
    monkeypatch.setitem(sys.modules, "clingo", None)  # import clingo raises ImportError
    code = main(["query", "facts/scenarios/banding_blocked_by_one.yaml", "attacking(A)", "--backend", "clingo"])
    assert code == 2
    assert 'pip install "judgelog[clingo]"' in capsys.readouterr().err


def test_the_cli_answers_the_same_on_both_backends(capsys, chdir_root):
    pytest.importorskip("clingo")
    out = []
    for backend in ("pydatalog", "clingo"):
        assert (
            main(
                [
                    "explain",
                    "facts/scenarios/banding_blocked_by_one.yaml",
                    "damage_assigner(bears, alice)",
                    "--backend",
                    backend,
                    "--format",
                    "json",
                ]
            )
            == 0
        )
        out.append(capsys.readouterr().out)
    assert out[0] == out[1] and "702.22" in out[0]


def test_atoms_read_back_in_one_pass_equal_the_symbols_read_one_by_one():
    """The clingo backend reads a predicate's atoms from their text in one JSON pass; every value judgelog
    writes (strings with quotes, backslashes, newlines, tabs, non-ASCII; negative numbers; no arguments)
    reads back as asking clingo for each argument does, and a term judgelog never writes falls back to that."""
    clingo = pytest.importorskip("clingo")
    from judgelog.asp import AspNames

    values = ["a b", 'x"y', "back\\slash", "nl\nx", "tab\tx", "ünï", -5, 0, 7, "true", "null", "", "1"]
    program = "p(" + ",".join(value_text(v) for v in values) + '). q(f(a)). q("s"). r. s(1, "a"). s(-2, "b").'
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], program)
    ctl.ground([("base", [])])
    for name, arity in (("p", len(values)), ("q", 1), ("r", 0), ("s", 2)):
        symbols = [atom.symbol for atom in ctl.symbolic_atoms.by_signature(name, arity)]
        one_by_one = [tuple(AspNames.value(a) for a in symbol.arguments) for symbol in symbols]
        assert AspNames.arguments(symbols) == one_by_one, name
    [row] = AspNames.arguments([a.symbol for a in ctl.symbolic_atoms.by_signature("p", len(values))])
    assert row == tuple(values)


def test_atom_texts_read_through_the_library_equal_the_public_api(monkeypatch):
    """The backend reads a predicate's atoms, or every atom at once, through clingo's library directly; the
    texts (a string longer than the first buffer included) and the "not decided by grounding" flags are what
    clingo's Python API gives, and a signature with no atom gives none."""
    clingo = pytest.importorskip("clingo")
    from judgelog import clingo_atoms

    long = "x" * 3000  # longer than the first buffer
    program = f'p(1, "a"). p(2, "{long}"). p(-3, "ü"). q(1). q(2). r(X) :- q(X), not s(X). s(X) :- q(X), not r(X).'
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], program)
    ctl.ground([("base", [])])
    for name, arity in (("p", 2), ("r", 1), ("q", 1), ("p", 1), ("none", 3)):
        direct = clingo_atoms.atom_texts(ctl, name, arity)
        assert direct == clingo_atoms._public(ctl.symbolic_atoms.by_signature(name, arity)), (name, arity)
    assert clingo_atoms.atom_texts(ctl, "p", 2)[0][1] == f'p(2,"{long}")'
    assert clingo_atoms.atom_texts(ctl, "r", 1) == ([], True)
    assert clingo_atoms._library() is not None  # the pinned clingo has the library module read directly
    every = clingo_atoms.every_atom_text(ctl)
    assert every == {"p": clingo_atoms.atom_texts(ctl, "p", 2)[0], "q": ["q(1)", "q(2)"], "r": None, "s": None}
    monkeypatch.setattr(clingo_atoms, "_backdoor", lambda ctl: (None, None))  # another clingo: the public API
    assert clingo_atoms.every_atom_text(ctl) == every
    assert clingo_atoms.atom_texts(ctl, "r", 1) == ([], True)


def test_a_question_grounds_no_rule_that_cannot_fire_in_the_state():
    """clingo grounds bottom-up what it is given: a question leaves out the rules whose fact atoms have no
    matching fact in the state (and what only they read), as the pyDatalog backend prunes; the answers are
    the pyDatalog backend's, before and after a fact that brings the rules back."""
    pytest.importorskip("clingo")
    from judgelog.backend import Backend
    from judgelog.clingo_backend import ClingoBackend

    program, diags = analyze(
        [
            parse_text(
                """
.decl thing(o: atom) "" input
.decl special(o: atom, k: atom) "" input
.decl pair(a: atom, b: atom) "every two things"
.decl marked(a: atom) "a special thing with a partner"
.decl lonely(a: atom) "a thing not marked"
pair(A, B) :- thing(A), thing(B), A != B.
marked(A) :- special(A, gold), pair(A, _).
lonely(A) :- thing(A), not marked(A).
""",
                "pairs.dl",
            )
        ],
        require_annotations=False,
    )
    assert not [d for d in diags if d.severity == "error"]
    pyd, clg = Backend(program), ClingoBackend(program)
    things = [("thing", f"t{i}") for i in range(30)]
    lonely = (Atom("lonely", (Var("A"),)),)
    for extra, expected in (([], 30), ([("special", "t3", "silver")], 30), ([("special", "t3", "gold")], 29)):
        facts = frozenset(things + extra)
        with pyd.session(facts) as view:
            by_pydatalog = pyd.ask(view, lonely, ["A"])
        with clg.session(facts) as view:
            by_clingo = clg.ask(view, lonely, ["A"])
            ground = {atom.symbol.name for atom in view.ctl.symbolic_atoms}
        assert by_clingo == by_pydatalog and len(by_clingo) == expected
        # marked/1's rule is ground only when a gold special thing lets it fire; pair/2 (870 atoms), read by it
        # alone, is unfolded into it (judgelog.unfold), never ground
        assert ("j_marked" in ground) == (expected == 29) and "j_pair" not in ground
    with clg.session(facts) as view:  # asked itself, it is ground
        assert len(clg.ask(view, (Atom("pair", (Var("A"), Var("B"))),), ["A", "B"])) == 870


SPECIALISED = """
.decl counter(o: atom, k: atom, n: int) "" input
.decl permanent(o: atom) "" input
.decl count(o: atom, k: atom, n: int) "{o} has {n} {k} counters"
.decl kinds(k: atom) "{k} is a kind"
.decl strong(o: atom, n: int) "{o} has {n} p1p1 counters and no m1m1"
kinds(p1p1).
kinds(m1m1).
kinds(charge).
count(O, K, N) :- counter(O, K, N).
count(O, K, 0) :- permanent(O), kinds(K), not counter(O, K, _).
strong(O, N) :- count(O, p1p1, N), count(O, m1m1, 0).
"""


def test_a_rule_reading_a_predicate_with_a_constant_grounds_only_those_facts():
    """``count(O, p1p1, N)``: clingo would derive ``count`` for every permanent and every kind; the question
    grounds it specialised to the constants the rule reads (judgelog.specialise), with the facts given for
    ``count`` itself too, and answers as the pyDatalog backend does."""
    pytest.importorskip("clingo")
    from judgelog.backend import Backend
    from judgelog.clingo_backend import ClingoBackend

    program, diags = analyze([parse_text(SPECIALISED, "spec.dl")], require_annotations=False)
    assert not [d for d in diags if d.severity == "error"]
    pyd, clg = Backend(program), ClingoBackend(program)
    facts = frozenset(
        [("permanent", f"o{i}") for i in range(20)]
        + [("counter", "o1", "p1p1", 2), ("counter", "o2", "m1m1", 1), ("counter", "o3", "charge", 4)]
        + [("count", "o4", "p1p1", 7)]  # given for the derived predicate: it holds too
    )
    strong = (Atom("strong", (Var("O"), Var("N"))),)
    with pyd.session(facts) as view:
        expected = pyd.ask(view, strong, ["O", "N"])
    with clg.session(facts) as view:
        assert clg.ask(view, strong, ["O", "N"]) == expected
        ground = [str(a.symbol) for a in view.ctl.symbolic_atoms if a.symbol.name.split("'")[0] == "j_count"]
    assert ("o1", 2) in expected and ("o4", 7) in expected and ("o2", 0) not in expected and len(expected) == 20
    assert ground and all('"p1p1"' in a or '"m1m1"' in a for a in ground)  # no charge counts: never read
    with clg.session(facts) as view:  # asked itself, the predicate is ground whole
        whole = clg.ask(view, (Atom("count", (Var("O"), Var("K"), Var("N"))),), ["O", "K", "N"])
    with pyd.session(facts) as view:
        assert whole == pyd.ask(view, (Atom("count", (Var("O"), Var("K"), Var("N"))),), ["O", "K", "N"])
    assert ("o3", "charge", 4) in whole


def test_a_division_by_zero_has_no_value_on_both_backends(tmp_path):
    """docs/language.md: a division by 0 has no value, so the literal holds for no binding, in a rule and in a
    query, on either backend (the clingo backend's questions refused it with an error)."""
    rules = tmp_path / "div.dl"
    rules.write_text(
        '## Test rules: division.\n.decl v(a: atom, n: int) "{a} has {n}" input\n'
        '.decl q(a: atom, n: int) "{a} gives {n}"\n\n@name t.q\n@cr 100.1\nq(A, X) :- v(A, N), X = 10 / N.\n',
        encoding="utf-8",
    )
    data = {"players": ["alice"], "facts": ["v(a, 2)", "v(b, 0)", "v(c, -3)"]}
    found = {}
    for backend in ("pydatalog", "clingo"):
        state = Engine(rules=[str(rules)], backend=backend).state_from_dict(data)
        found[backend] = [
            state.query("q(A, X)"),
            state.query("v(A, N), X = 10 / N"),
            state.query("v(A, N), 10 / N < 5"),
            state.query("v(A, N), X = (10 / N) + 1, X > 0"),
            state.query("v(A, N), not q(A, _)"),
        ]
    assert found["clingo"] == found["pydatalog"]
    assert found["pydatalog"][0] == [{"A": "a", "X": 5}, {"A": "c", "X": -4}]
    assert found["pydatalog"][2] == [{"A": "c", "N": -3}] and found["pydatalog"][4] == [{"A": "b", "N": 0}]


def test_a_number_clingo_would_wrap_is_refused_not_answered():
    """clingo computes with 32-bit integers and wraps a larger one silently (3,000,000,000 came back as
    -1,294,967,296): a state holding a number of 8 digits or more is refused on the clingo backend (L003),
    as the action that would make one; the default backend answers it."""
    pytest.importorskip("clingo")
    from judgelog.errors import LimitError

    board = {
        "players": ["alice", "bob"],
        "active": "alice",
        "life": {"alice": 3_000_000_000, "bob": 20},
        "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}},
    }
    assert Engine().state_from_dict(board).query("life(alice, L)") == [{"L": 3_000_000_000}]
    clingo = Engine(backend="clingo")
    with pytest.raises(LimitError, match="32-bit") as refused:
        clingo.state_from_dict(board).query("life(alice, L)")
    assert refused.value.code == "L003"
    small = clingo.state_from_dict({**board, "life": {"alice": 9_999_999, "bob": 20}})
    assert small.query("life(alice, L)") == [{"L": 9_999_999}]
    with pytest.raises(LimitError, match="32-bit"):
        small.apply({"do": "put_counters", "target": "bears", "kind": "+1/+1", "n": 3_000_000_000})


def test_a_rule_writing_a_number_clingo_would_wrap_is_refused_with_its_place(tmp_path):
    """A rule's own number is held to the same bound as a fact's: `P < 3000000000` wrapped to a negative
    number on clingo and answered nothing where the default backend answers every creature."""
    pytest.importorskip("clingo")
    from judgelog.errors import LimitError

    rules = tmp_path / "big.dl"
    rules.write_text(
        '.decl bigger(a: object) "{a} is smaller than a big number"\n@name t.bigger\n@cr 208.1\n'
        "bigger(X) :- power(X, P), P < 3000000000.\n"
    )
    board = {"players": ["alice"], "objects": {"bears": {"card": "Grizzly Bears", "controller": "alice"}}}
    assert Engine(rules=[str(rules)]).state_from_dict(board).query("bigger(X)") == [{"X": "bears"}]
    with pytest.raises(LimitError, match="32-bit") as refused:
        Engine(rules=[str(rules)], backend="clingo")
    assert refused.value.code == "L003" and f"{rules}:4:" in str(refused.value)


ARITHMETIC = """.decl val(o: word, n: int) "{o} has {n}" input
.decl sq(o: word, n: int) "{o} squared is {n}"
.decl small_sq(o: word) "{o} squared is below 100"
.decl tot(n: int) "the total is {n}"
@name t.square
@cr 107.1
sq(O, M) :- val(O, N), M = N * N.
@name t.small
@cr 107.1
small_sq(O) :- val(O, N), M = N * N, M < 100.
@name t.total
@cr 107.1
tot(sum(N)) :- val(_, N).
.decl twice(n: int) "twice the total is {n}"
@name t.twice
@cr 107.1
twice(M) :- tot(T), val(x, N), M = T + T - N.
"""


@pytest.mark.parametrize(
    ("values", "question", "exact", "rule"),
    [
        # 10**10 came back as 1,410,065,408
        ({"w": 100_000, "x": 3}, "sq(O, M)", [{"O": "w", "M": 10**10}, {"O": "x", "M": 9}], "t.square"),
        ({"w": 65_536}, "small_sq(O)", [], "t.small"),  # 2**32 wrapped to 0, which is below 100
        ({f"o{i}": 9_000_000 for i in range(300)}, "tot(N)", [{"N": 2_700_000_000}], "t.total"),  # came back < 0
        # a sum that fits, doubled: one test of the operands' magnitudes for the whole T + T - N
        ({**{f"o{i}": 9_000_000 for i in range(200)}, "x": 3}, "twice(M)", [{"M": 3_600_000_003}], "t.twice"),
    ],
)
@pytest.mark.slow
def test_arithmetic_clingo_would_wrap_is_refused_not_answered(tmp_path, values, question, exact, rule):
    pytest.importorskip("clingo")
    from judgelog.errors import LimitError

    rules = tmp_path / "arith.dl"
    rules.write_text(ARITHMETIC)
    board = {"players": ["alice"], "facts": [f"val({o}, {n})" for o, n in values.items()]}
    assert Engine(rules=[str(rules)]).state_from_dict(board).query(question) == exact
    with pytest.raises(LimitError, match="32-bit") as refused:
        Engine(rules=[str(rules)], backend="clingo").state_from_dict(board).query(question)
    assert refused.value.code == "L003" and rule in str(refused.value)
    within = {"players": ["alice"], "facts": ["val(w, 9)", "val(x, 3)"]}
    for backend in ("pydatalog", "clingo"):
        state = Engine(rules=[str(rules)], backend=backend).state_from_dict(within)
        assert state.query("sq(w, M)") == [{"M": 81}] and state.query("tot(N)") == [{"N": 12}]
        assert state.query("twice(M)") == [{"M": 21}]


def test_a_querys_arithmetic_has_the_same_limit_on_both_backends():
    pytest.importorskip("clingo")
    from judgelog.errors import LimitError
    from judgelog.recursion import Limits

    board = {"players": ["alice"], "objects": {}}
    for backend in ("pydatalog", "clingo"):
        state = Engine(backend=backend).state_from_dict(board)
        with pytest.raises(LimitError) as refused:
            state.query("X = 1000000000 * 1000000000")
        assert refused.value.code == "L003"
        assert state.query("X = 1000000 * 1000000") == [{"X": 10**12}]
        # the engine's own limit, not a constant of the backend
        wider = Engine(backend=backend, limits=Limits(int_digits=30)).state_from_dict(board)
        assert wider.query("X = 1000000000 * 1000000000") == [{"X": 10**18}]


@pytest.mark.slow  # seconds: a library of its own or the command line, several times
def test_a_recursion_making_new_numbers_for_ever_is_stopped_on_clingo_too(tmp_path):
    """level(O, N) :- level(O, M), N = M + 1, N > 0 passes check (its N is compared) but makes numbers for ever:
    the default backend stops it after --max-derived facts (L001); clingo, which grounds a recursion whole and
    can't be stopped midway, grew to gigabytes. It grounds the rule with its new numbers bounded and stops
    with L001 naming the rule once they pass the bound; a bounded recursion answers as before."""
    from judgelog.codes import L001
    from judgelog.errors import LimitError

    rules = tmp_path / "levels.dl"
    rules.write_text(
        "## Test rules: levels.\n"
        '.decl level(o: object, n: int) "{o} at level {n}"\n'
        "@name my.level0\n@cr 208.1\nlevel(O, N) :- power(O, N).\n"
        "@name my.level_up\n@cr 208.1\nlevel(O, N) :- level(O, M), N = M + 1, N > 0.\n"
    )
    board = Engine.example("banding_blocked_by_one.yaml")
    state = Engine(rules=[str(rules)], backend="clingo").load(board)
    with pytest.raises(LimitError) as info:
        state.query("level(wurm, N)")
    assert info.value.code == L001 and "my.level_up" in str(info.value)
    assert state.query("power(wurm, N)") == [{"N": 6}]  # a question that does not read the recursion
    rules.write_text(rules.read_text().replace("N > 0.", "N < 9."))
    bounded = Engine(rules=[str(rules)], backend="clingo").load(board)
    assert [r["N"] for r in bounded.query("level(wurm, N)")] == [6, 7, 8]


BOUNDED = """.decl val(o: word, n: int) "{o} has {n}" input
.decl extra(o: word, n: int) "{o} gets {n} more"
.decl more(o: word, n: int) "{o} has {n} and more"
.decl tot(n: int) "the total is {n}"
.decl sq(o: word, n: int) "{o} squared is {n}"
.decl past(o: word, n: int) "{o} is {n} past the total"
@name t.extra
@cr 107.1
extra(O, 2) :- val(O, _).
@name t.extra_val
@cr 107.1
extra(O, N) :- val(O, N), N > 5.
@name t.more
@cr 107.1
more(O, M) :- val(O, N), extra(O, X), M = N + X - 1.
@name t.total
@cr 107.1
tot(sum(N)) :- val(_, N).
@name t.square
@cr 107.1
sq(O, M) :- val(O, N), M = N * N.
@name t.past
@cr 107.1
past(O, M) :- val(O, N), tot(T), M = N + T.
"""


def test_an_overflow_test_that_cannot_hold_is_not_ground():
    """A fact's numbers are below 10**7 on the clingo backend, so a sum of a few of them, or of what rules
    copy from them, cannot pass 2**31: that rule's overflow test is left out of the ground program
    (judgelog.asp_bounds); a product of two facts, or a sum reading an aggregate's sum, keeps its test."""
    pytest.importorskip("clingo")
    from judgelog.backend import Backend
    from judgelog.clingo_backend import ClingoBackend

    program, diags = analyze([parse_text(BOUNDED, "b.dl")], require_annotations=False)
    assert not [d for d in diags if d.severity == "error"]
    facts = frozenset([("val", "a", 3), ("val", "b", 9_999_999), ("val", "c", -9_999_999)])
    pyd, clg = Backend(program), ClingoBackend(program)
    found = {}
    for pred, tested in (("more", False), ("sq", True), ("past", True)):
        question = (Atom(pred, (Var("O"), Var("N"))),)
        with pyd.session(facts) as view:
            found[pred] = pyd.ask(view, question, ["O", "N"])
        with clg.session(facts) as view:
            text = clg._slice(view, [pred])
            view.ground.clear()  # the slice is ground by the question itself
            if not tested:
                assert clg.ask(view, question, ["O", "N"]) == found[pred]
        assert ("j__overflow" in text) == tested, (pred, text)
    assert ("b", 2 * 9_999_999 - 1) in found["more"] and ("c", -9_999_998) in found["more"]


UNFOLDED = """.decl thing(o: atom) "" input
.decl base(o: atom, n: int) "" input
.decl set(o: atom, k: atom) "" input
.decl token(o: atom, k: atom) "" input
.decl size(o: atom, n: int) "{o} has size {n}"
.decl level(o: atom, n: int) "{o} is at level {n}"
.decl top(o: atom) "{o} is at the top"
.decl same(a: atom, b: atom) "{a} is {b}"
.decl itself(o: atom) "{o} is itself"
.decl kind(o: atom, k: atom) "{o} is of kind {k}"
.decl typed(o: atom) "{o} has a kind"
.decl sized(o: atom, n: int) "{o} has some size {n}"
size(O, N) :- base(O, N), not set(O, _).
size(O, 0) :- token(O, _).
level(O, N) :- size(O, M), N = M + 1.
top(O) :- thing(O), level(O, N), N > 3.
same(O, O) :- thing(O).
itself(A) :- base(A, _), same(A, B), thing(B).
kind(O, a) :- thing(O).
kind(O, b) :- base(O, _).
kind(O, c) :- token(O, _).
kind(O, d) :- set(O, _).
kind(O, e) :- thing(O), not base(O, _).
typed(O) :- kind(O, _).
sized(O, count()) :- thing(O), level(O, _).
"""


def test_a_predicate_read_at_one_place_is_unfolded_into_its_reader():
    """A predicate of a question's slice read by one rule only is not ground: its rules' bodies take the place
    of its atom (judgelog.unfold), with a head's constants and repeated variables as equalities; one with many
    rules (kind/2) or read by an aggregate (level/2 by sized/2) is ground (kind/2 projected to the place its
    reader uses: judgelog.project). The answers are the pyDatalog backend's."""
    pytest.importorskip("clingo")
    from judgelog.backend import Backend
    from judgelog.clingo_backend import ClingoBackend

    program, diags = analyze([parse_text(UNFOLDED, "u.dl")], require_annotations=False)
    assert not [d for d in diags if d.severity == "error"]
    facts = frozenset(
        [("thing", f"t{i}") for i in range(8)]
        + [("base", f"t{i}", i) for i in range(6)]
        + [("set", "t5", "x"), ("token", "t6", "y"), ("token", "t9", "z")]
    )
    pyd, clg = Backend(program), ClingoBackend(program)
    for pred, arity, ground, not_ground in (
        ("top", 1, set(), {"level", "size"}),
        ("itself", 1, set(), {"same"}),
        ("typed", 1, {"kind'k0"}, {"kind"}),
        ("sized", 2, {"level"}, set()),
    ):
        question = (Atom(pred, tuple(Var(f"V{i}") for i in range(arity))),)
        names = [f"V{i}" for i in range(arity)]
        with pyd.session(facts) as view:
            expected = pyd.ask(view, question, names)
        clg.clear()
        with clg.session(facts) as view:
            assert clg.ask(view, question, names) == expected and expected, pred
            made = {atom.symbol.name[2:] for atom in view.ctl.symbolic_atoms}
        assert ground <= made and not (not_ground & made), (pred, made)
        if pred == "top":  # asked after it, in the same state, an unfolded predicate is ground then
            with clg.session(facts) as view:
                levels = clg.ask(view, (Atom("level", (Var("O"), Var("N"))),), ["O", "N"])
            assert levels == [("t0", 1), ("t1", 2), ("t2", 3), ("t3", 4), ("t4", 5), ("t6", 1), ("t9", 1)]


PROJECTED = """
.decl pair(a: atom, b: atom) "" input
.decl mark(a: atom) "" input
.decl link(a: atom, b: atom) "{a} links {b}"
.decl linked(a: atom) "{a} is linked"
.decl reached(a: atom) "{a} is reached"
.decl flipped(a: atom, b: atom) "{a} is paired after {b}"
.decl marked_after(a: atom) "{a} comes after a mark"
.decl after_pair(a: atom) "{a} comes after a pair"
.decl both(a: atom) "{a} is linked and reached"
both(A) :- linked(A), reached(A).
link(A, B) :- pair(A, C), pair(C, B).
link(A, A) :- mark(A).
linked(A) :- link(A, _), mark(A).
reached(A) :- link(A, _), pair(_, A).
flipped(B, A) :- pair(A, B).
marked_after(B) :- flipped(B, A), mark(A).
after_pair(B) :- flipped(B, A), pair(_, A).
"""


def test_a_predicate_read_with_places_unused_is_ground_projected():
    """A predicate every reader of a slice reads with a variable used nowhere else at some place is ground
    projected to its other places (link/2 as link'k0/1, judgelog.project); a later question about it grounds it
    whole, and one about another of its readers reads the projection already ground. A predicate whose rules are
    narrow (flipped/2) is unfolded into each of its readers, however many, and not ground. The answers are the
    pyDatalog backend's."""
    pytest.importorskip("clingo")
    from judgelog.backend import Backend
    from judgelog.clingo_backend import ClingoBackend

    program, diags = analyze([parse_text(PROJECTED, "p.dl")], require_annotations=False)
    assert not [d for d in diags if d.severity == "error"]
    facts = frozenset(
        [("pair", "a", "b"), ("pair", "b", "c"), ("pair", "c", "a"), ("pair", "d", "e")]
        + [("mark", "a"), ("mark", "e"), ("mark", "q")]
    )
    pyd, clg = Backend(program), ClingoBackend(program)
    clg.clear()
    for pred, arity, ground, not_ground in (
        ("both", 1, {"link'k0"}, {"link", "linked", "reached"}),
        ("reached", 1, {"link'k0", "reached"}, {"link"}),  # the same state: the projection already ground is read
        ("link", 2, {"link", "link'k0"}, set()),
        ("after_pair", 1, set(), {"flipped"}),
        ("marked_after", 1, set(), {"flipped"}),
    ):
        question = (Atom(pred, tuple(Var(f"V{i}") for i in range(arity))),)
        names = [f"V{i}" for i in range(arity)]
        with pyd.session(facts) as view:
            expected = pyd.ask(view, question, names)
        with clg.session(facts) as view:
            assert clg.ask(view, question, names) == expected and expected, pred
            made = {atom.symbol.name[2:] for atom in view.ctl.symbolic_atoms}
        assert ground <= made and not (not_ground & made), (pred, made)
