"""Differential testing: the pyDatalog and clingo backends give identical answers, proofs and events.

Every bundled scenario runs on the default engine (pyDatalog, incremental steps, the runtime's kept answers)
and on the reference (clingo, every question asked whole: tests/replays.py), which shares neither the backend
nor the incremental steps with it. After every action: the same events or the same refusal and the same
facts (what the runtime's questions decided); every fact of every declared predicate as loaded and in the
final state, and after every action of every fourth scenario; in the final state: the same result of every
expect: entry and the proof (rule names, bindings, premises) of the first fact of every derived predicate
(for a fact of a recursive predicate, the same rules: each backend shows the first derivation it found,
whose witnesses may differ). Every SAMPLE-th scenario also runs on clingo with the runtime's kept answers
(the default for ``--backend clingo``), which must step as the reference does.
"""

from __future__ import annotations

import pytest

pytest.importorskip("clingo")

from replays import NAMES, group_params, sample, scenario_param  # noqa: E402

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


def _steps(one, two, name: str, same_state=None, *, every_step: bool = True) -> None:
    """The same refusal or the same events, and the same facts, after every action of two replays of a
    scenario; ``same_state(a, b, where)`` compares more of each pair of states: the loaded ones, then those
    after every action (``every_step``) or after the last one only."""
    assert len(one.steps) == len(two.steps), name
    assert one.start.facts == two.start.facts, name
    if same_state is not None:
        same_state(one.start, two.start, f"{name}: as loaded")
    for n, (a, b) in enumerate(zip(one.steps, two.steps), 1):
        where = f"{name}: action {a.index + 1} ({a.action.get('do')})"
        assert str(a.error) == str(b.error), where
        assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events], where
        assert a.state.facts == b.state.facts, where
        if same_state is not None and (every_step or n == len(one.steps)):
            same_state(a.state, b.state, where)


# the scenarios whose derived facts are compared after every action, not only as loaded and at the end
EVERY_STEP = set(sample(1)) | set(sample(5))


@pytest.mark.slow
@pytest.mark.parametrize("name", [scenario_param(n) for n in NAMES])
def test_a_bundled_scenario_is_the_same_on_both_backends(replays, name):
    one, two = replays.get("pydatalog", name), replays.get("reference", name)

    def same_derived(a, b, where: str) -> None:
        facts1, facts2 = replays.derived(a), replays.derived(b)
        for pred in sorted(a.engine.program.decls):
            assert facts1[pred] == facts2[pred], (where, pred)

    _steps(one, two, name, same_derived, every_step=name in EVERY_STEP)
    (s1, _), (s2, _) = one.final(), two.final()
    # every expect: entry: the same result
    expects = [entry for entry, _ in s1.meta.scenario.expects] if s1.meta.scenario else []
    assert [_expect(s1, e) for e in expects] == [_expect(s2, e) for e in expects]
    # the proof (rule names, bindings, premises) of the first fact of every derived predicate
    proofs1, proofs2 = replays.proofs(s1), replays.proofs(s2)
    assert proofs1.keys() == proofs2.keys()
    for fact, proof in proofs1.items():
        assert proof == proofs2[fact], fact


@pytest.mark.slow
@pytest.mark.parametrize("name", [scenario_param(n) for n in sample(4)])
def test_clingo_with_the_runtimes_kept_answers_steps_as_the_reference(replays, name):
    """``--backend clingo`` keeps the runtime's answers between steps (judgelog.answer_cache), as the default
    engine does; the reference asks every question whole."""
    kept, whole = replays.get("clingo", name), replays.get("reference", name)
    _steps(kept, whole, name)
    assert replays.derived(kept.states[-1]) == replays.derived(whole.states[-1]), name


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
@pytest.mark.parametrize("names", group_params())  # the scenarios as loaded, shared with the replays' tests
def test_every_declared_choice_space_lists_the_same_choices(replays, names):
    """The clingo backend enumerates set_partition and subset spaces with one choice rule; the pyDatalog
    backend checks candidates one by one: the same counts and the same listings, on every bundled scenario.
    The spaces whose candidates are tried as an action (assignments, divisions) go through the same runtime
    on both (the replays compare it action by action): every SAMPLE-th scenario's are compared, on their first
    few candidates (trying each is a run of the action: trying all of them was four fifths of this test)."""
    from judgelog.choices import SpaceKind, choice_spaces, list_choices

    enumerated = (SpaceKind.SET_PARTITION, SpaceKind.SUBSET)
    sampled = set(sample(2))
    compared = 0
    for name in names:
        results = []
        for config in ("pydatalog", "clingo"):
            state = replays.start(config, name)
            out = []
            spaces = choice_spaces(state).items()
            for space in sorted(
                s for s, sp in spaces if sp.kind in enumerated or sp.kind != SpaceKind.ACTION and name in sampled
            ):
                try:
                    out.append(list_choices(state, space, limit=20, tries=6))
                except JudgelogError as exc:
                    out.append(str(exc))
            results.append(out)
        assert results[0] == results[1], name
        compared += sum(1 for r in results[0] if isinstance(r, tuple) and r[0].get("count"))
    assert compared >= 5  # spaces with at least one legal choice were compared (in each half of the scenarios)
