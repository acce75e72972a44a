"""Dividing an amount among several targets as a triggered ability is put on the stack (CR 601.2d, 603.3d):
declared by rules (divided_target/2, rules/core/targets.dl), given by the action's ``targets:`` as a mapping
of targets to their parts, judged by rules (division_refused/2). The card here is a designer's test file
(tests/rules/spark_volley.dl): the engine knows no card that divides."""

from __future__ import annotations

import pytest
from helpers import creature
from paths import TESTS

from judgelog import Engine
from judgelog.errors import ActionError, UsageError
from judgelog.stack_targets import StackTargets, check_targets_shape, shape_problems

ATTACK = {"do": "declare_attackers", "attackers": {"volley": "bob"}}


@pytest.fixture(scope="module")
def volley() -> Engine:
    return Engine(rules=[str(TESTS / "rules" / "spark_volley.dl")])


def _board(engine: Engine, power: int = 3, **others: dict) -> object:
    objects = {"volley": creature("Spark Volley", power, 3, "alice")}
    objects.update(others or {"bears": creature("Bears", 2, 2, "bob"), "wolf": creature("Wolf", 1, 1, "bob")})
    return engine.state_from_dict({"players": ["alice", "bob"], "active": "alice", "objects": objects})


def _damage(events) -> dict:
    return {e.details["to"]: e.details["n"] for e in events if e.kind == "damage_dealt"}


def test_a_division_gives_each_target_its_part(volley):
    state, _ = _board(volley).apply({**ATTACK, "targets": {"volley": {"bears": 2, "wolf": 1}}})
    assert state.query("ability_target_amount(I, O, N)") and len(state.query("ability_arg(I, target, O)")) == 2
    _, events = state.apply({"do": "resolve"})
    assert _damage(events) == {"bears": 2, "wolf": 1}


@pytest.mark.parametrize(
    ("division", "code"),
    [
        ({"bears": 2, "wolf": 2}, "add up"),  # 4 is not 3
        ({"bears": 3, "wolf": 0}, "at least 1"),
        ({"bears": 4, "wolf": -1}, "at least 1"),
        ({"bears": 2}, "add up"),
    ],
)
def test_a_division_that_is_not_legal_is_refused_and_changes_nothing(volley, division, code):
    state = _board(volley)
    with pytest.raises(ActionError) as info:
        state.apply({**ATTACK, "targets": {"volley": division}})
    assert code in info.value.message and info.value.cr == "601.2d"
    assert "it divides 3" in str(info.value.hint)
    assert not state.query("on_stack(I, S, K)")  # the refused action left the state as it was


def test_a_target_that_is_no_legal_target_is_refused_like_a_single_target(volley):
    state = _board(volley, bears=creature("Bears", 2, 2, "bob"), elves=creature("Elves", 1, 1, "alice"))
    with pytest.raises(ActionError) as info:
        state.apply({**ATTACK, "targets": {"volley": {"bears": 2, "elves": 1}}})
    assert "'elves' is not a legal target" in info.value.message
    assert info.value.options == ("bears",)


def test_several_legal_targets_and_no_division_named_is_refused(volley):
    with pytest.raises(ActionError) as info:
        _board(volley).apply(ATTACK)
    assert "name each target and its part" in info.value.message
    assert "targets: no division given for " in info.value.message and "{nothing}" not in info.value.message


def test_the_only_legal_target_gets_all_of_it_and_one_named_alone_too(volley):
    state, _ = _board(volley, bears=creature("Bears", 2, 5, "bob")).apply(ATTACK)
    assert _damage(state.apply({"do": "resolve"})[1]) == {"bears": 3}
    state, _ = _board(volley).apply({**ATTACK, "targets": {"volley": "wolf"}})
    assert _damage(state.apply({"do": "resolve"})[1]) == {"wolf": 3}


def test_an_amount_of_0_has_no_target_and_still_goes_on_the_stack(volley):
    state, _ = _board(volley, power=0).apply(ATTACK)
    assert len(state.query("on_stack(I, S, spark_volley)")) == 1 and not state.query("ability_arg(I, target, O)")
    with pytest.raises(ActionError, match="at least 1"):
        _board(volley, power=0).apply({**ATTACK, "targets": {"volley": "wolf"}})
    _, events = state.apply({"do": "resolve"})
    assert _damage(events) == {}


def test_above_0_with_no_legal_target_it_is_removed_from_the_stack(volley):
    state, events = _board(volley, elves=creature("Elves", 1, 1, "alice")).apply(ATTACK)
    assert not state.query("on_stack(I, S, K)")
    assert [e.kind for e in events if e.kind == "removed_from_stack"] == ["removed_from_stack"]


def test_a_target_no_longer_legal_gets_nothing_and_the_others_their_part(volley):
    state, _ = _board(volley).apply({**ATTACK, "targets": {"volley": {"bears": 2, "wolf": 1}}})
    state, _ = state.apply({"do": "apply_effect", "object": "wolf", "keyword": "hexproof"})
    _, events = state.apply({"do": "resolve"})
    assert _damage(events) == {"bears": 2}


def test_a_division_for_an_ability_that_divides_nothing_is_refused(engine):
    state = engine.state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {
                "stalwart": creature("Stalwart", 2, 2, "alice", "mentor"),
                "squire": creature("S", 1, 1, "alice"),
            },
        }
    )
    attack = {"do": "declare_attackers", "attackers": {"stalwart": "bob", "squire": "bob"}}
    with pytest.raises(ActionError, match="divides none"):
        state.apply({**attack, "targets": {"stalwart": {"squire": 1}}})


def test_the_shape_of_a_division():
    check_targets_shape({"hero": {"bears": 2, "wolf": 1}})
    check_targets_shape({"hero": [{"bears": 2}, "wolf"]})
    for bad in ({"hero": {}}, {"hero": {"bears": "two"}}, {"hero": {"bears": True}}, {"hero": {"bears": [1]}}):
        with pytest.raises(UsageError, match="a division"):
            check_targets_shape(bad)
    assert shape_problems({"do": "resolve", "targets": {"hero": {"bears": 1.5}}})[0][0] == "targets"


def test_divide_takes_the_entry_and_checks_each_target():
    picks = StackTargets({"hero": {"bears": 2, "wolf": 1}, "ability_7": "wolf"})
    assert picks.divide("ability_1", "hero", "volley", ["bears", "wolf"]) == {"bears": 2, "wolf": 1}
    assert picks.divide("ability_7", "other", "volley", ["wolf"]) == {"wolf": None}
    assert StackTargets(None).divide("ability_2", "hero", "volley", ["wolf"]) == {}
    with pytest.raises(ActionError, match="'elves' is not a legal target"):
        StackTargets({"hero": {"elves": 3}}).divide("ability_3", "hero", "volley", ["wolf"])
    assert picks.unmatched() == []
