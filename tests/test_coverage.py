"""Rule coverage (judgelog.coverage): a rule is used when its body holds in some state a scenario went through."""

import pytest
from paths import SCENARIOS

from judgelog.coverage import Recent, RuleUse, rules_used
from judgelog.fact import Fact
from judgelog.testing import run_scenario_file


@pytest.mark.slow
def test_rules_used_are_the_rules_whose_body_holds_in_some_state(engine):
    # rules_used skips a rule in a state that agrees with a state it was asked in on every predicate the rule
    # reads: the rules it finds are those found by asking every rule in every state
    states: list[frozenset] = []
    for name in ("banding_blocked_by_one.yaml", "soulbond_pair_when_another_enters.yaml"):
        run_scenario_file(engine, str(SCENARIOS / name), observer=states.append)
    rules = [r for r in engine.program.rules if r.body]
    backend, program = engine.backend, engine.program
    asked_everywhere = set()
    for facts in dict.fromkeys(states):
        with backend.session(facts) as view:
            for rule in rules:
                if rule.aggregate is not None:
                    fired = bool(backend.ask(view, program.body(rule), []))
                else:
                    fired = bool(backend.why_rows(view, rule, {}, limit=1))
                if fired:
                    asked_everywhere.add(id(rule))
    used = rules_used(engine, states, rules)
    assert used == asked_everywhere
    assert 0 < len(used) < len(rules)
    # shown the states as the runtime evaluates them (judgelog test --coverage): the same rules
    use = RuleUse(engine, rules)
    for name in ("banding_blocked_by_one.yaml", "soulbond_pair_when_another_enters.yaml"):
        run_scenario_file(engine, str(SCENARIOS / name), observer=use.observe)
    assert use.used == used
    # one that remembers a single state, agreement and fact set: it asks again, and finds the same rules
    forgetful = _Forgetful(engine, rules)
    for facts in states:
        forgetful.observe(facts)
    assert forgetful.used == used


class _Forgetful(RuleUse):
    RECENT = 1
    RECENT_SETS = 1


def test_recent_holds_the_keys_met_last():
    recent = Recent(2)
    assert recent.remember("a") and recent.remember("b") and not recent.remember("a")
    assert recent.remember("c") and len(recent) == 2  # "b", met least recently, is forgotten
    assert recent.remember("b") and not recent.remember("c")
    assert recent.recall("d", 1) == 1 and recent.recall("d", 2) == 1


def test_what_coverage_remembers_does_not_grow_with_the_states_it_is_shown(engine):
    """`judgelog test --coverage` over a large suite: the observer remembers a bounded number of states,
    agreements and fact sets (it once kept a tuple for every state and every set of predicates rules read:
    gigabytes over the bundled scenarios), and a state shown again after it was forgotten is asked again."""
    states: list[frozenset] = []
    run_scenario_file(engine, str(SCENARIOS / "banding_blocked_by_one.yaml"), observer=states.append)
    base = states[0] - {f for f in states[0] if f[0] == "life"}
    use = _Forgetful(engine, [r for r in engine.program.rules if r.body])
    held = []
    for life in range(12):  # states that differ in a fact many rules read, every one new
        use.observe(base | {Fact("life", "alice", 20), Fact("life", "bob", life)})
        held.append(use.remembered())
    assert held[3] == held[-1] > 0


@pytest.mark.slow
def test_the_coverage_of_a_test_run_counts_the_rules_it_loaded(capsys, tmp_path, monkeypatch):
    """`judgelog test --coverage` reports the rules of the library in use and the scenarios' own rule files
    (a scenario with ``rules:`` runs on an engine of its own)."""
    import json
    import shutil

    from helpers import run_cli
    from paths import ROOT

    from judgelog.library import rules_dir

    monkeypatch.setenv("JUDGELOG_ALLOW_DIRS", str(ROOT / "tests"))
    designer = str(ROOT / "tests" / "scenarios" / "soul_warden.yaml")
    run = run_cli(capsys, ["test", "--coverage", "--format", "json", designer])
    assert run.code == 0, run.err
    files = json.loads(run.out)["coverage"]["files"]
    own = [f for f in files if f.endswith("tests/rules/soul_warden.dl")]
    assert own and files[own[0]]["used"] == files[own[0]]["total"] > 0
    # --library FOLDER: that folder's rules are the ones counted
    lib = tmp_path / "lib"
    shutil.copytree(rules_dir(), lib, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    run = run_cli(
        capsys,
        [
            "test",
            "--coverage",
            "--format",
            "json",
            "--library",
            str(lib),
            str(SCENARIOS / "banding_blocked_by_one.yaml"),
        ],
    )
    assert run.code == 0, run.err
    coverage = json.loads(run.out)["coverage"]
    assert coverage["total"] > 300 and all(f.startswith(str(lib)) or "cards" in f for f in coverage["files"]), coverage[
        "files"
    ]


@pytest.mark.slow
def test_fail_under_fails_a_run_whose_coverage_falls_short(capsys):
    """`judgelog test --fail-under P` (which implies --coverage) exits 1 when under P percent of the rules were
    used or a rule file had none of its rules used, says which, and passes a run that meets it."""
    import json

    from helpers import run_cli

    board = str(SCENARIOS / "banding_blocked_by_one.yaml")
    run = run_cli(capsys, ["test", "--fail-under", "50", board])
    assert run.code == 1, run.err
    short = [line for line in run.out.splitlines() if line.startswith("coverage under --fail-under 50: ")]
    assert short[0].endswith("% of the rules used")  # one scenario uses far fewer than half of the rules
    assert "coverage under --fail-under 50: rules/keywords/wither.dl: none of its" in run.out
    assert run.out.rstrip().endswith("passed, 0 failed")  # every case passed: the coverage failed the run
    run = run_cli(capsys, ["test", "--fail-under", "1", "--format", "json", board])
    coverage = json.loads(run.out)["coverage"]
    assert coverage["fail_under"] == 1.0 and coverage["percent"] > 1
    assert run.code == 1 and coverage["shortfalls"]  # the files this board never reaches
    assert all(s.endswith("rule(s) used") and ": none of its " in s for s in coverage["shortfalls"])
    run = run_cli(capsys, ["test", "--coverage", board])  # no --fail-under: the report only
    assert run.code == 0, run.err
    run = run_cli(capsys, ["test", "--fail-under", "101", board])
    assert run.code == 2 and "expected a percentage from 0 to 100, got '101'" in run.err
