"""Predefined tokens (CR 111.10): a cost that sacrifices the source and a mana ability, declared by rules
(rules/actions/activate.dl, rules/tokens/); what a refusal says about their choices."""

from __future__ import annotations

import pytest

from judgelog import ActionError, Engine

BOARD = {"players": ["alice", "bob"], "active": "alice", "objects": {}}


@pytest.fixture(scope="module")
def tokens():
    engine = Engine()
    state = engine.state_from_dict(BOARD)
    state, _ = state.apply({"do": "create_predefined_token", "token": "treasure", "as": ["coins"]})
    state, _ = state.apply({"do": "create_predefined_token", "token": "food", "as": ["pie"]})
    return state


def test_a_missing_color_lists_the_colors_and_not_as_tokens_the_action_made(tokens):
    """The colors a Treasure's mana may be are words of the rules, not ids of tokens the action made: the
    refusal lists them without the hint about naming a new token through as:."""
    with pytest.raises(ActionError) as refused:
        tokens.apply({"do": "activate", "object": "coins", "ability": "treasure"})
    text = str(refused.value)
    assert "legal options: black, blue, green, red, white" in text
    assert "made by this action" not in text


def test_a_mana_ability_is_not_put_on_the_stack_and_its_cost_is_paid(tokens):
    after, events = tokens.apply(
        {"do": "activate", "object": "coins", "ability": "treasure", "choose": {"mana_color": "blue"}}
    )
    kinds = [(e.kind, e.subject) for e in events]
    assert ("tapped", "coins") in kinds and ("moved", "coins") in kinds and ("mana_added", "alice") in kinds
    assert not [k for k, _ in kinds if k == "put_on_stack"]
    assert kinds.index(("moved", "coins")) < kinds.index(("mana_added", "alice"))
    assert not after.query("permanent(coins)")


def test_a_tapped_food_cannot_pay_and_nothing_changes(tokens):
    tapped, _ = tokens.apply({"do": "tap", "object": "pie"})
    with pytest.raises(ActionError) as refused:
        tapped.apply({"do": "activate", "object": "pie", "ability": "food"})
    assert "602.2b" in str(refused.value)
    assert tapped.query("permanent(pie), tapped(pie)") == [{}]
    assert not tapped.query("on_stack(I, S, K)")
