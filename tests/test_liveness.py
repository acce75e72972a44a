"""Which rules can fire in a state (judgelog.compiled.CompiledProgram.liveness, judgelog.liveness): the
indexed pass gives what a plain fixpoint over every rule gives, and the namespace found from the counts kept
up to date step by step is the one found from the state's facts afresh."""

from __future__ import annotations

import random

import pytest

from judgelog import Engine
from judgelog.compiled import CompiledProgram


def _reference(compiled: CompiledProgram, dead_probes: frozenset, with_facts: frozenset):
    """The least fixpoint, the plain way: a rule fires when none of its fact atoms is dead and every derived
    predicate it needs may hold; its head then may hold."""
    alive = set(compiled.static_facts & compiled.idb) | set(with_facts)
    live: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i, (rule, probes, needs) in enumerate(compiled.rule_probes):
            if i in live or any(p in dead_probes for p in probes) or not all(p in alive for p in needs):
                continue
            live.add(i)
            alive.add(rule.head.pred)
            changed = True
    dead = frozenset(id(info.rule) for i, info in enumerate(compiled.rule_probes) if i not in live)
    return frozenset(alive), dead


@pytest.mark.parametrize("seed", range(6))
def test_the_indexed_pass_is_the_plain_fixpoint(engine, seed):
    compiled = CompiledProgram.of(engine.program)
    rng = random.Random(seed)
    share = [0.0, 0.05, 0.3, 0.7, 0.95, 1.0][seed]  # of the probes with no fact
    dead = frozenset(p for p in compiled.probes if rng.random() < share)
    with_facts = frozenset(p for p in compiled.idb if rng.random() < 0.05)
    got = compiled.liveness(dead, with_facts)
    assert got == _reference(compiled, dead, with_facts)
    assert got[1] or not dead  # some rule is dead whenever a probe is


def test_liveness_is_remembered_per_program_and_bounded(engine):
    """Every engine of a program finds the same liveness for the same probes: it is kept with the program, for
    a bounded number of arguments, and what is kept is what a fresh pass finds."""
    from judgelog.compiled import _LIVENESS_KEPT

    compiled = CompiledProgram.of(engine.program)
    rng = random.Random(7)
    probes = sorted(compiled.probes, key=repr)
    first = frozenset(rng.sample(probes, len(probes) // 3))
    got = compiled.liveness(first, frozenset())
    assert compiled.liveness(first, frozenset()) is got  # remembered
    assert got == _reference(compiled, first, frozenset())
    for i in range(_LIVENESS_KEPT + 5):
        compiled.liveness(frozenset(rng.sample(probes, len(probes) // 2)) | {("?", i)}, frozenset())
    assert len(engine.program.kept("compiled.liveness", dict)) <= _LIVENESS_KEPT
    assert compiled.liveness(first, frozenset()) == got  # computed again, the same


def test_a_bundled_board_step_by_step_keeps_the_namespace_of_its_facts(replays):
    """After every action of a scenario, the dead probes found from the counts the diff kept (only the
    predicates whose counts reached or left 0 looked at again) are those of the state's facts counted anew."""
    engine: Engine = replays.engine("pydatalog")
    compiled = CompiledProgram.of(engine.program)
    seen = 0
    for name in ("banding_blocked_by_one.yaml", "proliferate_kinds.yaml", "afterlife_first_strike_and_control.yaml"):
        for state in replays.get("pydatalog", name).states:
            with engine.backend.session(state.facts) as view:
                found = compiled.dead_probes(state.facts)
                assert view.namespace.dead_probes == found[0], name
                assert view.namespace.key == found
                seen += 1
    assert seen > 6


AGGREGATE_RULES = """
.decl paying(o: object, n: int) "{o} is being paid for with {n}"
.decl needed(o: object, n: int) "{o} needs at least {n}"
.decl unpaid(o: object) "{o} is not paid"

@name t.needed
@cr 601.2h
needed(O, min(N)) :- paying(O, N).

@name t.unpaid
@cr 601.2h
unpaid(O) :- needed(O, N), N > 0.
"""


def test_an_aggregate_holds_only_where_its_body_can(tmp_path):
    """An empty group gives no row (docs/language.md): a predicate derived by aggregates alone is alive where
    one of their bodies can be, so the rules reading it are dead with it (they were always alive, and a change
    was followed through them on every step of every other action)."""
    path = tmp_path / "t.dl"
    path.write_text(AGGREGATE_RULES)
    engine = Engine(rules=[str(path)])
    compiled = CompiledProgram.of(engine.program)
    assert "needed" in compiled.gated and "needed" not in compiled.static_facts
    unpaid = next(r for r in engine.program.rules if r.name == "t.unpaid")
    none = frozenset(p for p in compiled.probes if p[0] == "paying")
    alive, dead = compiled.liveness(none, frozenset())
    assert "needed" not in alive and "unpaid" not in alive and id(unpaid) in dead
    alive, dead = compiled.liveness(frozenset(), frozenset())
    assert {"needed", "unpaid"} <= alive and id(unpaid) not in dead
    assert compiled.liveness(none, frozenset()) == _reference(compiled, none, frozenset())
    state = engine.state_from_dict({"players": ["alice"], "facts": ["paying(x, 2)"]})
    assert state.query("unpaid(O)") == [{"O": "x"}]
    assert engine.state_from_dict({"players": ["alice"]}).query("unpaid(O)") == []


CATALOG_RULES = """
.decl stripe(card: atom, kw: keyword) "{card} has {kw} at its stripe"
.decl label(o: object, card: atom) "{o} is labelled {card}" input
.decl striped(o: object, kw: keyword) "{o} has {kw} from a stripe"

stripe(scholar, flying).
stripe(sage, reach).

@name t.striped
@cr 711.2a
striped(O, K) :- label(O, Nm), stripe(Nm, K).
"""


def test_a_rule_joining_a_catalog_is_dead_where_no_fact_has_a_catalog_value(tmp_path):
    """``label(O, Nm), stripe(Nm, K)``: the rule files give ``stripe`` as facts only, so the rule can fire only
    where some object has one of its labels (a catalog join's probe); the state giving ``stripe`` facts of its
    own makes it alive again. Step by step, the namespace follows the labels as they come and go."""
    path = tmp_path / "t.dl"
    path.write_text(CATALOG_RULES)
    engine = Engine(rules=[str(path)])
    compiled = CompiledProgram.of(engine.program)
    rule = next(r for r in engine.program.rules if r.name == "t.striped")
    (probe,) = [
        p for info in compiled.rule_probes if info.rule is rule for p in info.probes if any(len(e) == 3 for e in p[1])
    ]
    assert probe == ("label", ((1, frozenset({"scholar", "sage"}), "stripe"),))

    def dead(facts: list[str]) -> bool:
        state = engine.state_from_dict({"players": ["alice"], "facts": facts})
        with engine.backend.session(state.facts) as view:
            found = id(rule) in view.namespace.dead_rules
            assert view.namespace.key == compiled.dead_probes(state.facts)
        return found

    assert dead(["label(o1, bear)"])
    assert not dead(["label(o1, bear)", "label(o2, sage)"])
    assert not dead(["label(o1, bear)", "stripe(bear, trample)"])
    assert dead(["label(o1, bear)"])  # and back, from the counts kept by the diff
    bear = engine.state_from_dict({"players": ["alice"], "facts": ["label(o1, bear)", "stripe(bear, trample)"]})
    assert bear.query("striped(O, K)") == [{"O": "o1", "K": "trample"}]
    sage = engine.state_from_dict({"players": ["alice"], "facts": ["label(o2, sage)"]})
    assert sage.query("striped(O, K)") == [{"O": "o2", "K": "reach"}]
