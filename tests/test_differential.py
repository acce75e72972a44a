"""Differential testing: the pyDatalog and clingo backends give identical answers, proofs and events.

Every bundled scenario runs on both: its expect: entries, the events of its actions, every fact of every
predicate in its final state, and the proof (rule names, bindings, premises) of facts of every derived
predicate there (for a fact of a recursive predicate, the same rules: each backend shows the first
derivation it found, whose witnesses may differ).
"""

from __future__ import annotations

import pytest

pytest.importorskip("clingo")

from replays import NAMES, scenario_param  # noqa: E402

from judgelog.errors import JudgelogError  # noqa: E402
from judgelog.testing import check_expect  # noqa: E402


@pytest.fixture(scope="module")
def engines(replays):
    return replays.engine("pydatalog"), replays.engine("clingo")


def _expect(state, entry: dict) -> str | None:
    """What ``judgelog test`` says of an expect: entry (judgelog.testing.check_expect)."""
    try:
        return check_expect(state, entry)
    except JudgelogError as exc:
        return str(exc.render(sources={}))


@pytest.mark.slow
@pytest.mark.parametrize("name", [scenario_param(n) for n in NAMES])
def test_a_bundled_scenario_is_the_same_on_both_backends(replays, name):
    one, two = replays.get("pydatalog", name), replays.get("clingo", name)
    # every action applied alike (the same events) or refused alike (the same message)
    assert [(str(a.error), [e.to_dict() for e in a.events]) for a in one.steps] == [
        (str(b.error), [e.to_dict() for e in b.events]) for b in two.steps
    ]
    (s1, ev1), (s2, ev2) = one.final(), two.final()
    assert [e.to_dict() for e in ev1] == [e.to_dict() for e in ev2]
    # every expect: entry: the same result
    expects = [entry for entry, _ in s1.meta.scenario.expects] if s1.meta.scenario else []
    assert [_expect(s1, e) for e in expects] == [_expect(s2, e) for e in expects]
    assert s1.facts == s2.facts
    facts1, facts2 = replays.derived(s1), replays.derived(s2)
    for pred in sorted(s1.engine.program.decls):
        assert facts1[pred] == facts2[pred], pred
    # the proof (rule names, bindings, premises) of the first fact of every derived predicate
    proofs1, proofs2 = replays.proofs(s1), replays.proofs(s2)
    assert proofs1.keys() == proofs2.keys()
    for fact, proof in proofs1.items():
        assert proof == proofs2[fact], fact


def test_the_quick_start_answers_and_proof_are_the_same(engines):
    pyd, clg = engines
    s1 = pyd.load(pyd.example("banding_blocked_by_one.yaml"))
    s2 = clg.load(clg.example("banding_blocked_by_one.yaml"))
    assert s1.query("damage_assigner(A, P)") == s2.query("damage_assigner(A, P)") != []
    assert (
        s1.explain("damage_assigner(bears, alice)").to_text() == s2.explain("damage_assigner(bears, alice)").to_text()
    )
    assert [w.to_dict() for w in s1.why_not("damage_assigner(bears, bob)")] == [
        w.to_dict() for w in s2.why_not("damage_assigner(bears, bob)")
    ]


@pytest.mark.slow
def test_every_declared_choice_space_lists_the_same_choices(replays):
    """The clingo backend enumerates set_partition and subset spaces with one choice rule; the pyDatalog
    backend checks candidates one by one: the same counts and the same listings."""
    from judgelog.choices import choice_spaces, list_choices

    compared = 0
    for name in NAMES:
        results = []
        for config in ("pydatalog", "clingo"):
            state = replays.start(config, name)
            out = []
            for space in sorted(s for s, sp in choice_spaces(state).items() if sp.kind != "action"):
                try:
                    out.append(list_choices(state, space, limit=20))
                except JudgelogError as exc:
                    out.append(str(exc))
            results.append(out)
        assert results[0] == results[1], name
        compared += sum(1 for r in results[0] if isinstance(r, tuple) and r[0].get("count"))
    assert compared >= 10  # spaces with at least one legal choice were compared
