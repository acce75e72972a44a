"""Differential fuzz of evaluation: random rule programs (recursion, negation, comparisons, arithmetic,
aggregates) over random finite facts, cycles included, answered by judgelog's backend and by a naive
bottom-up reference evaluator written here; every program judgelog accepts must give the reference's
answers for every derived predicate, with no hang (a per-case watchdog), no exception other than a
JudgelogError refusing the program.

Small by default; a long run: ``JUDGELOG_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz_programs.py``.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from pathlib import Path

import pytest
from helpers import alarm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgelog.backend import Backend
from judgelog.errors import JudgelogError
from judgelog.library import load_program
from judgelog.parser import parse_body

_ENV = os.environ.get("JUDGELOG_FUZZ_EXAMPLES", "").strip()
EXAMPLES = int(_ENV) if _ENV.isdigit() and int(_ENV) > 0 else 40
SECONDS = int(os.environ.get("JUDGELOG_FUZZ_WATCHDOG", "60"))

NODES = ["a", "b", "c", "d"]
VARS = ["X", "Y", "Z", "W"]
# input predicates: name -> argument kinds ("o": a node, "n": an integer)
INPUTS = {"e": "oo", "v": "on", "f": "o"}


class Hang(BaseException):
    """The watchdog fired (a BaseException: no ``except Exception`` swallows it)."""


def watchdog(what: str) -> contextlib.AbstractContextManager[None]:
    return alarm(SECONDS, lambda: Hang(f"no answer after {SECONDS} s for {what}"))


# -- random programs -------------------------------------------------------------------------------------
@st.composite
def programs(draw):
    """(kinds of each derived predicate, rules as (head, body, aggregate) tuples), built in stratum order:
    a rule of predicate i reads i and lower positively, lower ones only under ``not`` or in an aggregate."""
    count = draw(st.integers(1, 4))
    kinds: dict[str, str] = {}
    rules = []
    for i in range(count):
        name = f"p{i}"
        aggregate = i > 0 and draw(st.integers(0, 4)) == 0
        lower = [f"p{j}" for j in range(i)]
        if aggregate:
            func = draw(st.sampled_from(["count", "sum", "min", "max"]))
            body, bound = _body(draw, lower, [], allow_neg=lower)
            groups = [v for v in VARS if v in bound and bound[v] == "o"][:1]
            ints = [v for v in VARS if v in bound and bound[v] == "n"]
            if func != "count" and not ints:
                func = "count"
            kinds[name] = "o" * len(groups) + "n"
            rules.append(((name, tuple(groups)), body, (func, ints[0] if func != "count" else None)))
            continue
        arity = draw(st.integers(1, 2))
        kinds[name] = None  # decided by the first rule's head
        for r in range(draw(st.integers(1, 3))):
            recursive = r > 0 and draw(st.booleans())
            positives = lower + ([name] if recursive else [])
            body, bound = _body(draw, positives, [name] if recursive else [], allow_neg=lower, kinds=kinds)
            candidates = [v for v in VARS if v in bound]
            if kinds[name] is not None:
                wanted = kinds[name]
                pick = []
                for kind in wanted:
                    options = [v for v in candidates if bound[v] == kind and v not in pick]
                    if not options:
                        break
                    pick.append(draw(st.sampled_from(options)))
                if len(pick) != len(wanted):
                    continue
            else:
                pick = (
                    draw(st.lists(st.sampled_from(candidates), min_size=arity, max_size=arity, unique=True))
                    if len(candidates) >= arity
                    else candidates[:arity]
                )
                if not pick:
                    continue
                kinds[name] = "".join(bound[v] for v in pick)
            rules.append(((name, tuple(pick)), body, None))
        if kinds[name] is None or not any(r[0][0] == name for r in rules):
            kinds[name] = "o"
            rules.append(((name, ("X",)), [("f", (("var", "X"),))], None))
    return kinds, rules


def _body(draw, derived, must, *, allow_neg, kinds=None):
    """A safe body: 1-3 positive atoms (``must`` ones included), then maybe comparisons, arithmetic and a
    negation over the variables they bind. Returns (literals, variable -> kind)."""
    kinds = kinds or {}
    usable = {p: k for p, k in kinds.items() if k}
    choices = list(INPUTS) + [p for p in derived if p in usable]
    preds = list(must) + [draw(st.sampled_from(choices)) for _ in range(draw(st.integers(1, 2)))]
    bound: dict[str, str] = {}
    body = []
    for pred in preds:
        shape = INPUTS.get(pred) or usable.get(pred)
        if shape is None:
            shape = "o"
        args = []
        for kind in shape:
            same_kind = [v for v in VARS if bound.get(v) == kind]
            fresh = [v for v in VARS if v not in bound]
            option = draw(st.integers(0, 3))
            if kind == "o" and option == 0:
                args.append(("const", draw(st.sampled_from(NODES))))
            elif same_kind and (option == 1 or not fresh):
                args.append(("var", draw(st.sampled_from(same_kind))))
            elif fresh:
                var = fresh[0]
                bound[var] = kind
                args.append(("var", var))
            else:
                args.append(("const", draw(st.sampled_from(NODES))) if kind == "o" else ("const", 1))
        body.append((pred, tuple(args)))
    extras = draw(st.integers(0, 2))
    for _ in range(extras):
        objs = [v for v in VARS if bound.get(v) == "o"]
        nums = [v for v in VARS if bound.get(v) == "n"]
        what = draw(st.integers(0, 3))
        if what == 0 and len(objs) >= 2:
            a, b = draw(st.permutations(objs))[:2]
            body.append(("cmp", "!=", ("var", a), ("var", b)))
        elif what == 1 and nums:
            body.append(
                (
                    "cmp",
                    draw(st.sampled_from(["<", "<=", ">", ">=", "=", "!="])),
                    ("var", draw(st.sampled_from(nums))),
                    ("const", draw(st.integers(0, 3))),
                )
            )
        elif what == 2 and nums and [v for v in VARS if v not in bound]:
            target = [v for v in VARS if v not in bound][0]
            source = draw(st.sampled_from(nums))
            body.append(("assign", target, source, draw(st.sampled_from(["+", "-"])), draw(st.integers(1, 2))))
            bound[target] = "n"
            body.append(("cmp", "<=", ("var", target), ("const", 4)))  # bounded
            body.append(("cmp", ">=", ("var", target), ("const", -4)))
        elif what == 3 and allow_neg:
            neg = draw(st.sampled_from([p for p in list(INPUTS) + list(allow_neg) if p in INPUTS or p in usable]))
            shape = INPUTS.get(neg) or usable.get(neg)
            args = []
            for kind in shape:
                same_kind = [v for v in VARS if bound.get(v) == kind]
                args.append(
                    ("var", draw(st.sampled_from(same_kind))) if same_kind and draw(st.booleans()) else ("any", None)
                )
            body.append(("not", neg, tuple(args)))
    return body, bound


@st.composite
def fact_sets(draw):
    edges = draw(st.sets(st.tuples(st.sampled_from(NODES), st.sampled_from(NODES)), max_size=8))
    values = draw(st.sets(st.tuples(st.sampled_from(NODES), st.integers(-2, 3)), max_size=5))
    flags = draw(st.sets(st.sampled_from(NODES), max_size=3))
    return {("e",) + e for e in edges} | {("v",) + v for v in values} | {("f", x) for x in flags}


# -- rule text -------------------------------------------------------------------------------------------
def _term(arg):
    kind, value = arg
    return "_" if kind == "any" else value if kind == "var" else str(value)


def _lit(lit):
    if lit[0] == "cmp":
        return f"{_term(lit[2])} {lit[1]} {_term(lit[3])}"
    if lit[0] == "assign":
        return f"{lit[1]} = {lit[2]} {lit[3]} {lit[4]}"
    if lit[0] == "not":
        return f"not {lit[1]}({', '.join(_term(a) for a in lit[2])})"
    return f"{lit[0]}({', '.join(_term(a) for a in lit[1])})"


def rule_text(kinds, rules) -> str:
    names = {"o": "o: atom", "n": "n: int"}
    lines = [
        "## Fuzz program.",
        '.decl e(a: atom, b: atom) "" input',
        '.decl v(a: atom, n: int) "" input',
        '.decl f(a: atom) "" input',
    ]
    for pred, shape in kinds.items():
        params = ", ".join(f"a{i}{names[k][1:]}" for i, k in enumerate(shape))
        lines.append(f'.decl {pred}({params}) ""')
    for n, ((pred, head), body, agg) in enumerate(rules):
        args = list(head)
        if agg is not None:
            func, var = agg
            args.append(f"{func}({var or ''})")
        lines += [
            "",
            f"@name fuzz.r{n}",
            "@cr 100.1",
            f"{pred}({', '.join(args)}) :- {', '.join(_lit(x) for x in body)}.",
        ]
    return "\n".join(lines) + "\n"


# -- the reference: naive bottom-up, stratum by stratum ---------------------------------------------------
def _value(arg, env):
    kind, value = arg
    return env[value] if kind == "var" else value


def _solutions(body, db: dict[str, set[tuple]], env=None):
    env = dict(env or {})
    positives = [lit for lit in body if lit[0] not in ("cmp", "assign", "not")]
    others = [lit for lit in body if lit[0] in ("cmp", "assign", "not")]

    def atoms(i, env):
        if i == len(positives):
            yield from checks(env)
            return
        pred, args = positives[i]
        for fact in db.get(pred, ()):
            new = dict(env)
            ok = True
            for arg, value in zip(args, fact):
                kind, name = arg
                if kind == "const":
                    ok = value == name and type(value) is type(name)
                elif name in new:
                    ok = new[name] == value and type(new[name]) is type(value)
                else:
                    new[name] = value
                if not ok:
                    break
            if ok:
                yield from atoms(i + 1, new)

    def checks(env):
        for lit in [x for x in others if x[0] == "assign"]:
            value = env[lit[2]] + lit[4] if lit[3] == "+" else env[lit[2]] - lit[4]
            if lit[1] in env and env[lit[1]] != value:
                return
            env = dict(env, **{lit[1]: value})
        for lit in others:
            if lit[0] == "cmp":
                left, right = _value(lit[2], env), _value(lit[3], env)
                ok = {
                    "=": left == right,
                    "!=": left != right,
                    "<": left < right if _num(left, right) else False,
                    "<=": left <= right if _num(left, right) else False,
                    ">": left > right if _num(left, right) else False,
                    ">=": left >= right if _num(left, right) else False,
                }[lit[1]]
                if not ok:
                    return
            elif lit[0] == "not":
                for fact in db.get(lit[1], ()):
                    if all(
                        kind == "any" or (value == (env[name] if kind == "var" else name))
                        for (kind, name), value in zip(lit[2], fact)
                    ):
                        return
        yield env

    yield from atoms(0, env)


def _num(a, b):
    return type(a) is int and type(b) is int


def reference(kinds, rules, facts) -> dict[str, set[tuple]]:
    db: dict[str, set[tuple]] = {}
    for fact in facts:
        db.setdefault(fact[0], set()).add(fact[1:])
    for pred in kinds:
        mine = [r for r in rules if r[0][0] == pred]
        db.setdefault(pred, set())
        if mine and mine[0][2] is not None:
            (_, head), body, (func, var) = mine[0]
            groups: dict[tuple, set[tuple]] = {}
            for env in _solutions(body, db):
                key = tuple(env[v] for v in head)
                groups.setdefault(key, set()).add(tuple(sorted(env.items())))
            for key, bindings in groups.items():
                values = [dict(b)[var] for b in bindings] if var else []
                result = {
                    "count": len(bindings),
                    "sum": sum(values) if values else 0,
                    "min": min(values) if values else None,
                    "max": max(values) if values else None,
                }[func]
                db[pred].add(key + (result,))
            continue
        while True:  # naive fixpoint: every rule over everything, until nothing is new
            new = set()
            for (_, head), body, _ in mine:
                for env in _solutions(body, db):
                    new.add(tuple(env[v] for v in head))
            if new <= db[pred]:
                break
            db[pred] |= new
            assert len(db[pred]) < 10_000, "the reference does not terminate"
    return {pred: db[pred] for pred in kinds}


# -- the test --------------------------------------------------------------------------------------------
# the examples' files, in a folder of pytest's own (kept for the last few runs, then removed): a folder made
# at import would be left behind by the pytest-xdist workers, which end without running finalizers
_TMP: list[Path] = []


@pytest.fixture(autouse=True, scope="module")
def _examples_folder(tmp_path_factory):
    _TMP[:] = [tmp_path_factory.mktemp("judgelog-fuzz-programs")]


_counter = itertools.count()


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@pytest.mark.slow
@given(programs(), st.lists(fact_sets(), min_size=1, max_size=3))
def test_random_programs_answer_like_the_reference(program, fact_list):
    kinds, rules = program
    text = rule_text(kinds, rules)
    path = _TMP[0] / f"p{next(_counter)}.dl"
    path.write_text(text, encoding="utf-8")
    result = load_program([str(path)], include_library=False)
    if result.errors:  # refused statically (E015 arithmetic on a word, ...): nothing to compare
        assert all(d.code.startswith("E") for d in result.errors), text
        return
    backend = Backend(result.program)
    for facts in fact_list:
        expected = reference(kinds, rules, facts)
        with watchdog(text):
            try:
                with backend.session(frozenset(facts)) as view:
                    got = {}
                    for pred, shape in kinds.items():
                        names = [f"V{i}" for i in range(len(shape))]
                        body = parse_body(f"{pred}({', '.join(names)})")
                        got[pred] = set(backend.ask(view, body, names))
            except JudgelogError as exc:  # judgelog refused to evaluate: must not be a wrong answer
                raise AssertionError(f"{exc} on\n{text}\nfacts {sorted(facts)}") from None
        assert got == expected, f"\n{text}\nfacts {sorted(facts)}"


@pytest.mark.slow
def test_the_generator_makes_recursion_negation_arithmetic_and_aggregates():
    """The generator reaches every feature (a test of the test): collect over a fixed sample."""
    seen = set()

    @settings(max_examples=200, derandomize=True, database=None, deadline=None)
    @given(programs())
    def collect(program):
        kinds, rules = program
        for (pred, _), body, agg in rules:
            if agg is not None:
                seen.add("aggregate")
            for lit in body:
                if lit[0] == pred:
                    seen.add("recursion")
                if lit[0] in ("not", "assign"):
                    seen.add(lit[0])

    collect()
    assert seen >= {"aggregate", "recursion", "not", "assign"}, seen
