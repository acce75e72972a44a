"""Large and hostile inputs: a 5,000-permanent scenario, a 1,000-rule file, many answers, deep proofs,
YAML that expands or nests without end; and the progress line (stderr, only on a terminal).

Each test takes at most a few seconds; the slowest are marked ``slow`` (deselect them with -m "not slow").
"""

from __future__ import annotations

import io
import time

import pytest
from helpers import run_cli, watchdog
from paths import SCENARIOS

from judgelog import Engine, ScenarioError
from judgelog.parser import MAX_DEPTH, parse_text
from judgelog.scenario import compile_scenario

BOTH_SIDES = str(SCENARIOS / "banding_both_sides.yaml")


@pytest.fixture(scope="module")
def big_scenario(tmp_path_factory) -> str:
    """5,000 permanents: Benalish Heroes (banding) for alice, Grizzly Bears for bob; a band attacks and one
    Bears blocks it."""
    lines = ["name: Five thousand permanents", "players: [alice, bob]", "active: alice", "objects:"]
    for i in range(5000):
        card, who = ("Benalish Hero", "alice") if i % 2 == 0 else ("Grizzly Bears", "bob")
        lines.append(f"  c{i}: {{card: {card}, controller: {who}}}")
    lines += ["combat:", "  attackers: {c0: bob, c2: bob}", "  bands: [[c0, c2]]", "  blockers: {c1: [c0]}"]
    path = tmp_path_factory.mktemp("large") / "five_thousand.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.slow
def test_five_thousand_permanents(engine, big_scenario):
    state = engine.load(big_scenario)
    assert len([f for f in state.facts if f[0] == "permanent"]) == 5000
    assert state.query("power(c4999, P)") == [{"P": 2}]
    assert state.query("damage_assigner(c1, P)") == [{"P": "alice"}]  # 702.22k: blocks a band with banding
    assert state.query("damage_assigner(c0, P)") == [{"P": "alice"}]  # 510.1c: its blocker has no banding
    assert "702.22k" in state.explain("damage_assigner(c1, alice)").all_cites()
    assert len(state.query("controller(O, alice)", limit=10)) == 10


@pytest.mark.slow
def test_a_thousand_rules_pass_check(capsys, tmp_path):
    lines = ["## 1,000 generated rules over the library's predicates."]
    lines += [f'.decl gen{i}(o: object) "{{o}} is generated {i}"' for i in range(1000)]
    for i in range(1000):
        body = "creature(O)" if i == 0 else f"gen{i - 1}(O)"
        if i % 3 == 0:
            body += ", not tapped(O)"
        if i % 7 == 0:
            body += f", power(O, P), P >= {i % 5}"
        lines += [f"@name gen.rule_{i}", "@cr 100.1", f"gen{i}(O) :- {body}."]
    path = tmp_path / "thousand.dl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = run_cli(capsys, ["check", str(path)])
    assert run.code == 0, run.err
    assert run.err == ""
    assert run.out.startswith("0 error(s), 0 warning(s) in ")
    state = Engine(rules=[str(path)]).load(BOTH_SIDES)
    assert state.query("gen999(O)") == [{"O": "wurm"}]  # the only one with power >= 4


# -- bounds -------------------------------------------------------------------------------------------------
def test_query_output_is_limited(capsys):
    five = "permanent(A), permanent(B), permanent(C), permanent(D), permanent(E)"  # 4^5 = 1024 answers
    run = run_cli(capsys, ["query", BOTH_SIDES, five])
    assert run.code == 0
    lines = run.out.splitlines()
    assert len(lines) == 2 + 1000 + 2
    assert lines[-2:] == ["(1024 answers)", "(showing the first 1000; --limit N shows more, --limit 0 all)"]
    run = run_cli(capsys, ["query", BOTH_SIDES, five, "--limit", "0"])
    assert len(run.out.splitlines()) == 2 + 1024 + 1
    run = run_cli(capsys, ["query", BOTH_SIDES, five, "--limit", "3", "--format", "json"])
    assert run.json()["count"] == 1024 and len(run.json()["answers"]) == 3
    run = run_cli(capsys, ["query", BOTH_SIDES, "creature(X)", "--format", "json"])
    data = run.json()  # nothing cut: the documented shape (judgelog/query/1), count always present
    assert set(data) == {"schema", "query", "variables", "answers", "count", "truncated"}
    assert data["truncated"] is False and data["count"] == len(data["answers"])
    run = run_cli(capsys, ["query", BOTH_SIDES, five, "--limit", "-1"])
    assert run.code == 2 and "--limit must be 0 (all answers) or more" in run.err


def test_a_proof_deeper_than_the_limit_is_cut_not_lost(capsys, tmp_path, monkeypatch):
    from judgelog import provenance

    (tmp_path / "chain.dl").write_text(
        '.decl link(a: atom, b: atom) "{a} links to {b}" input\n'
        '.decl reach(a: atom, b: atom) "{a} reaches {b}"\n'
        "@name chain.step\n@cr 100.1\nreach(X, Y) :- link(X, Y).\n"
        "@name chain.more\n@cr 100.1\nreach(X, Z) :- link(X, Y), reach(Y, Z).\n",
        encoding="utf-8",
    )
    links = ", ".join(f'"link(n{i}, n{i + 1})"' for i in range(12))
    (tmp_path / "chain.yaml").write_text(f"players: [alice]\nrules: [chain.dl]\nfacts: [{links}]\n", encoding="utf-8")
    monkeypatch.setattr(provenance, "MAX_PROOF_DEPTH", 5)
    run = run_cli(capsys, ["explain", str(tmp_path / "chain.yaml"), "reach(n0, n12)"])
    assert run.code == 0, run.out + run.err
    assert run.out.splitlines()[-1].strip() == "reach(n6, n12)  [holds; proof deeper than 5 steps not shown]"
    run = run_cli(capsys, ["explain", str(tmp_path / "chain.yaml"), "reach(n0, n12)", "--format", "json"])
    assert '"kind": "truncated"' in run.out


def test_parser_nesting_and_huge_integers_are_errors():
    deep = "p(X) :- q(X), X = " + "(" * (MAX_DEPTH + 5) + "1" + ")" * (MAX_DEPTH + 5) + "."
    [diag] = parse_text(deep, "deep.dl", strict=False).diagnostics
    assert (diag.span.line, diag.code, diag.message) == (1, "E001", "expected a shallower expression, found '('")
    [diag] = parse_text("p(" + "9" * 5000 + ").", "big.dl", strict=False).diagnostics
    assert (diag.span.line, diag.span.col, diag.message) == (1, 3, "integer too large (5000 digits, at most 100)")


@pytest.mark.slow
def test_yaml_aliases_that_expand_exponentially_are_refused(engine):
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]  # 10^9 values
    # refused when the count passes the bound, long before 10^9 values (a hang fails here, not the suite)
    with watchdog(600), pytest.raises(ScenarioError) as info:
        engine.state_from_scenario(compile_scenario("\n".join(levels), path="bomb.yaml"))
    [diag] = info.value.diagnostics
    assert diag.code == "S002" and diag.message.startswith("more than 500000 values")
    assert diag.span.file == "bomb.yaml"


def test_yaml_nesting_is_bounded():
    # 3,000 levels: refused at the first node deeper than the limit, by libyaml's tree or by the pure-Python
    # composer alike (never Python's recursion limit), with the same position.
    for text, codes in (
        ("players: " + "[" * 150 + "]" * 150, {"S002"}),
        ("a: &x [*x]", {"S002"}),
        ("players: " + "[" * 3000 + "]" * 3000, {"S002"}),
    ):
        with pytest.raises(ScenarioError) as info:
            compile_scenario(text, path="nest.yaml")
        [diag] = info.value.diagnostics
        assert diag.code in codes and "nest" in diag.message and diag.span.file == "nest.yaml"


# -- the progress line ------------------------------------------------------------------------------------
class _Clock:
    """time.monotonic advancing 0.6 s per call, so that every run 'takes' more than a second. (The evaluation's
    --time-limit reads the same clock, once per recursive component: the tests raise it out of the way.)"""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        self.now += 0.6
        return self.now


_NO_TIME_LIMIT = ("--time-limit", "1000000")


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_quiet_when_stderr_is_not_a_terminal(capsys, monkeypatch):
    monkeypatch.setattr(time, "monotonic", _Clock())
    run = run_cli(
        capsys,
        [
            "test",
            *_NO_TIME_LIMIT,
            str(SCENARIOS / "banding_both_sides.yaml"),
            str(SCENARIOS / "banding_blocked_by_one.yaml"),
        ],
    )
    assert run.code == 0
    assert run.err == ""
    run = run_cli(capsys, ["choices", *_NO_TIME_LIMIT, str(SCENARIOS / "banding_two_with_one_without.yaml"), "bands"])
    assert run.code == 0
    assert run.err == ""


def test_progress_on_a_terminal(monkeypatch):
    from judgelog.cli import main

    monkeypatch.setattr(time, "monotonic", _Clock())
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr("sys.stdout", io.StringIO())
    assert (
        main(
            [
                "test",
                *_NO_TIME_LIMIT,
                str(SCENARIOS / "banding_both_sides.yaml"),
                str(SCENARIOS / "banding_blocked_by_one.yaml"),
            ]
        )
        == 0
    )
    shown = terminal.getvalue()
    assert "\r[2/2] " in shown and "banding_blocked_by_one.yaml" in shown
    assert shown.endswith("\r" + " " * 72 + "\r")  # the line is wiped at the end
    terminal.seek(0)
    terminal.truncate()
    assert main(["choices", *_NO_TIME_LIMIT, str(SCENARIOS / "banding_two_with_one_without.yaml"), "bands"]) == 0
    shown = terminal.getvalue()
    assert "\r[2] candidate bands of 3 attackers" in shown  # [N]: the number of candidates is not known
    assert shown.endswith("\r" + " " * 72 + "\r")
