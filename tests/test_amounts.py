"""Replacement effects that change an amount (614.1a, 616.1; judgelog.amounts): a rule file derives
``amount_replacement(R, Prim, A, B, Mul, Add)`` and the runtime applies it to the effects of that primitive. The
cards written this way (Hardened Scales, Doubling Season, Parallel Lives) have their scenarios in
facts/scenarios/cards_*; these tests are a designer's own replacements."""

from __future__ import annotations

import pytest
from helpers import creature

from judgelog import Engine
from judgelog.errors import ActionError

# A made-up keyword: "if an effect would put counters on or deal damage with this creature, twice that many".
# The primitive is a variable, bound by the primitives that have a target or a source and an amount.
DOUBLER = """
keyword(doubler).

@name doubler.counters
@cr 614.1a
amount_replacement(O, P, O, any, 2, 0) :- has_keyword(O, doubler), permanent(O), primitive(P, target, kind, n).

@name doubler.damage
@cr 614.1a
amount_replacement(O, deal_damage, O, any, 2, 0) :- has_keyword(O, doubler), permanent(O).
"""

# A made-up keyword whose replacement's multiplier is a word (the object's name): the rule file's mistake, which
# the check of argument types cannot see (a variable), refused as the action applies.
BROKEN = """
keyword(broken_doubler).

@name broken_doubler.counters
@cr 614.1a
amount_replacement(O, put_counters, O, any, M, 0) :- has_keyword(O, broken_doubler), permanent(O), name(O, M).
"""


def _state(tmp_path, text: str, keyword: str):
    rules = tmp_path / f"{keyword}.dl"
    rules.write_text(text)
    return Engine(rules=[str(rules)]).state_from_dict(
        {
            "players": ["alice", "bob"],
            "active": "alice",
            "objects": {"x": creature("X", 1, 1, "alice", keyword), "y": creature("Y", 2, 2, "bob")},
        }
    )


def test_a_replacement_whose_primitive_is_a_variable_applies_to_each_primitive_it_names(tmp_path):
    state = _state(tmp_path, DOUBLER, "doubler")
    after, events = state.apply({"do": "put_counters", "target": "x", "kind": "+1/+1", "n": 2})
    assert after.query("counter(x, p1p1, N)") == [{"N": 4}]
    after, events = after.apply({"do": "remove_counters", "target": "x", "kind": "+1/+1", "n": 1})
    assert after.query("counter(x, p1p1, N)") == [{"N": 2}]  # remove_counters (target, kind, n) too
    replaced = [e for e in events if e.kind == "amount_replaced"]
    assert [(e.subject, e.details["primitive"], e.details["was"], e.details["now"], e.rule) for e in replaced] == [
        ("x", "remove_counters", 1, 2, "doubler.counters")
    ]
    after, _ = after.apply({"do": "put_counters", "target": "y", "kind": "+1/+1", "n": 1})
    assert after.query("counter(y, p1p1, N)") == [{"N": 1}]  # not a creature with the keyword


def test_damage_from_the_source_is_doubled_and_the_event_says_by_whom(tmp_path):
    state = _state(tmp_path, DOUBLER, "doubler")
    after, events = state.apply({"do": "deal_damage", "source": "x", "target": "y", "n": 1})
    assert [e.kind for e in events][:2] == ["amount_replaced", "damage_dealt"]
    replaced = next(e for e in events if e.kind == "amount_replaced")
    assert (replaced.subject, replaced.details["by"], replaced.details["was"], replaced.details["now"]) == (
        "y",
        "x",
        1,
        2,
    )
    assert after.query("permanent(y)") == []  # 2 damage to a 2/2: lethal (704.5g)


def test_a_replacement_that_gives_no_number_refuses_the_action_and_changes_nothing(tmp_path):
    state = _state(tmp_path, BROKEN, "broken_doubler")
    with pytest.raises(ActionError) as refused:
        state.apply({"do": "put_counters", "target": "x", "kind": "+1/+1", "n": 1})
    assert "multiplier of 'X', not a whole number" in str(refused.value)
    assert "Mul and Add are whole numbers" in (refused.value.hint or "")
    assert state.query("counter(x, K, N)") == []
